//! Ctrl-C: noted, not obeyed at once, so a long command stops at a clean point (after the
//! page in flight), writes its checkpoint and says how to resume.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Whether Ctrl-C was pressed; cloned into every loop that can stop cleanly.
#[derive(Clone, Default)]
pub(crate) struct Interrupt(Arc<AtomicBool>);

impl Interrupt {
    /// Starts listening for Ctrl-C (SIGINT) on the runtime.
    pub(crate) fn install() -> Self {
        let flag = Interrupt::default();
        let set = flag.clone();
        tokio::spawn(async move {
            while tokio::signal::ctrl_c().await.is_ok() {
                if set.0.swap(true, Ordering::SeqCst) {
                    // A second Ctrl-C: the user wants out now.
                    std::process::exit(130);
                }
            }
        });
        flag
    }

    /// Whether Ctrl-C was pressed.
    pub(crate) fn is_set(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

impl Interrupt {
    /// Returns once Ctrl-C is pressed.
    pub(crate) async fn wait(&self) {
        while !self.is_set() {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    }
}
