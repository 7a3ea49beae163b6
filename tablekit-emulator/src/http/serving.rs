//! [`Serving`]: a listener's task and the signal that stops it, shared by the emulator and
//! the fault proxy.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::http::connections::{Activity, Connections};

/// The longest pause after failed accepts.
const MAX_ACCEPT_PAUSE: Duration = Duration::from_secs(1);

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

    /// Spawns a loop that accepts on `listener` and spawns `connection` for each stream, until
    /// stopped, with at most `max_connections` open at once: past that the loop waits, with
    /// the stream it accepted, for one to close, so further clients wait in the listener's
    /// backlog.
    ///
    /// A failed accept (out of file descriptors, most often) pauses the loop, longer after each
    /// failure in a row up to a second: accepting again at once would fail again at once, and
    /// spin a core while the connections that could free descriptors starve.
    pub(crate) fn accept<F, C>(listener: TcpListener, max_connections: usize, connection: C) -> Self
    where
        C: Fn(TcpStream, watch::Receiver<bool>) -> F + Send + 'static,
        F: Future<Output = ()> + Send + 'static,
    {
        Serving::accept_shedding(listener, max_connections, move |stream, _, stop| {
            connection(stream, stop)
        })
    }

    /// Like [`accept`](Self::accept), and each connection tells through its [`Activity`]
    /// when it is idle: past `max_connections`, the connection idle longest is asked to
    /// close for the newcomer (see [`Connections`]).
    pub(crate) fn accept_shedding<F, C>(
        listener: TcpListener,
        max_connections: usize,
        connection: C,
    ) -> Self
    where
        C: Fn(TcpStream, Activity, watch::Receiver<bool>) -> F + Send + 'static,
        F: Future<Output = ()> + Send + 'static,
    {
        let open = Connections::new(max_connections);
        Serving::spawn(|shutdown| accept_loop(listener, open, connection, shutdown))
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

async fn accept_loop<F, C>(
    listener: TcpListener,
    open: Arc<Connections>,
    connection: C,
    mut shutdown: watch::Receiver<bool>,
) where
    C: Fn(TcpStream, Activity, watch::Receiver<bool>) -> F,
    F: Future<Output = ()> + Send + 'static,
{
    let mut pause = Duration::ZERO;
    loop {
        tokio::select! {
            _ = shutdown.changed() => return,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    pause = Duration::ZERO;
                    tokio::select! {
                        _ = shutdown.changed() => return,
                        _ = open.make_room() => {}
                    }
                    let _ = stream.set_nodelay(true);
                    let (slot, activity) = open.admit();
                    let served = connection(stream, activity, shutdown.clone());
                    tokio::spawn(async move {
                        served.await;
                        drop(slot);
                    });
                }
                Err(_) => {
                    pause = next_pause(pause);
                    tokio::select! {
                        _ = shutdown.changed() => return,
                        _ = tokio::time::sleep(pause) => {}
                    }
                }
            },
        }
    }
}

/// The pause after one more failed accept: 5 ms, then doubling, at most a second.
fn next_pause(pause: Duration) -> Duration {
    (pause * 2).clamp(Duration::from_millis(5), MAX_ACCEPT_PAUSE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pauses_grow_after_each_failed_accept_up_to_a_second() {
        let pauses: Vec<_> = std::iter::successors(Some(Duration::ZERO), |p| Some(next_pause(*p)))
            .skip(1)
            .take(10)
            .collect();
        assert_eq!(pauses[0], Duration::from_millis(5));
        assert_eq!(pauses[1], Duration::from_millis(10));
        assert!(pauses.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(pauses[9], MAX_ACCEPT_PAUSE);
    }
}
