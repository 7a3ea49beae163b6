//! [`Serving`]: a listener's task and the signal that stops it, shared by the emulator and
//! the fault proxy.

use std::future::Future;

use tokio::sync::watch;
use tokio::task::JoinHandle;

/// A running accept loop: stopped by [`stop`](Serving::stop), or at once when dropped.
///
/// The loop and its connections watch the receiver [`Serving::spawn`] hands them: one signal
/// stops them all.
pub(crate) struct Serving {
    shutdown: Option<watch::Sender<bool>>,
    task: Option<JoinHandle<()>>,
}

impl Serving {
    /// Spawns the accept loop `serve` makes from the stop signal's receiver.
    pub(crate) fn spawn<F>(serve: impl FnOnce(watch::Receiver<bool>) -> F) -> Self
    where
        F: Future<Output = ()> + Send + 'static,
    {
        let (tx, rx) = watch::channel(false);
        Serving {
            shutdown: Some(tx),
            task: Some(tokio::spawn(serve(rx))),
        }
    }

    /// Signals the loop and its connections to stop, and waits for the loop to end.
    pub(crate) async fn stop(&mut self) {
        self.signal();
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }

    fn signal(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(true);
        }
    }
}

impl Drop for Serving {
    fn drop(&mut self) {
        // The connections see the signal and stop; the accept loop stops now.
        self.signal();
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}
