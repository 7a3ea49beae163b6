//! [`Connections`]: the connections a server holds open, at most a set number of them. When a
//! new one comes past that number, the connection idle longest (waiting for its first
//! request, for a request's headers, or between requests) is asked to close: idle and
//! slow-header connections, however many, cannot lock new clients out until they time out.
//! A connection answering a request is never asked; with every one of them busy, the
//! newcomer waits for one to close, as before.
//!
//! Each connection is registered by a [`Slot`], held for as long as it is open, and tells
//! what it is doing through its [`Activity`]: a connection that never says it is idle is
//! never asked to close.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::Notify;

/// `idle_since` of a connection answering a request.
const BUSY: u64 = u64::MAX;
/// `idle_since` of a connection asked to close.
const CLOSING: u64 = u64::MAX - 1;

/// The open connections of one server.
#[derive(Debug)]
pub(crate) struct Connections {
    max: usize,
    open: Mutex<HashMap<u64, Arc<Entry>>>,
    next_id: AtomicU64,
    /// Orders the moments connections become idle: the smallest reading is the oldest.
    clock: AtomicU64,
    /// Signalled when a connection closes or becomes idle: room may be made now.
    changed: Notify,
}

/// One open connection, as the registry sees it.
#[derive(Debug)]
struct Entry {
    /// When it became idle, by [`Connections::clock`]; or [`BUSY`], or [`CLOSING`].
    idle_since: AtomicU64,
    /// Signalled once to ask the connection to close.
    close: Notify,
}

/// A connection's registration: it counts as open until this is dropped.
#[derive(Debug)]
pub(crate) struct Slot {
    connections: Arc<Connections>,
    id: u64,
}

/// What a connection tells the registry, and how it hears it should close.
#[derive(Debug, Clone)]
pub(crate) struct Activity {
    connections: Arc<Connections>,
    entry: Arc<Entry>,
}

impl Connections {
    /// A registry of at most `max` connections (at least one).
    pub(crate) fn new(max: usize) -> Arc<Self> {
        Arc::new(Connections {
            max: max.max(1),
            open: Mutex::default(),
            next_id: AtomicU64::new(0),
            clock: AtomicU64::new(0),
            changed: Notify::new(),
        })
    }

    /// Waits until one more connection may be opened, asking the connection idle longest to
    /// close when there is no room.
    pub(crate) async fn make_room(&self) {
        loop {
            let changed = self.changed.notified();
            tokio::pin!(changed);
            // Registered before the check, so a change right after it is not missed.
            changed.as_mut().enable();
            if self.has_room_or_closes_one() {
                return;
            }
            changed.await;
        }
    }

    /// Registers a new connection, busy until its [`Activity`] says otherwise.
    pub(crate) fn admit(self: &Arc<Self>) -> (Slot, Activity) {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let entry = Arc::new(Entry {
            idle_since: AtomicU64::new(BUSY),
            close: Notify::new(),
        });
        self.lock().insert(id, entry.clone());
        let slot = Slot {
            connections: self.clone(),
            id,
        };
        let activity = Activity {
            connections: self.clone(),
            entry,
        };
        (slot, activity)
    }

    /// Whether there is room for one more; if not, asks the connection idle longest to close
    /// unless enough are closing already.
    fn has_room_or_closes_one(&self) -> bool {
        let open = self.lock();
        if open.len() < self.max {
            return true;
        }
        let since = |e: &Arc<Entry>| e.idle_since.load(Ordering::Acquire);
        let closing = open.values().filter(|e| since(e) == CLOSING).count();
        if open.len() - closing < self.max {
            return false;
        }
        let oldest = open
            .values()
            .filter(|e| since(e) < CLOSING)
            .min_by_key(|e| since(e));
        if let Some(oldest) = oldest {
            let seen = since(oldest);
            let asked = oldest.idle_since.compare_exchange(
                seen,
                CLOSING,
                Ordering::AcqRel,
                Ordering::Acquire,
            );
            match asked {
                Ok(_) => oldest.close.notify_one(),
                // It started a request in between: look again.
                Err(_) => self.changed.notify_waiters(),
            }
        }
        false
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Arc<Entry>>> {
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.connections.lock().remove(&self.id);
        self.connections.changed.notify_waiters();
    }
}

impl Activity {
    /// The connection waits for a request: it may be asked to close from now on.
    pub(crate) fn idle(&self) {
        let now = self.connections.clock.fetch_add(1, Ordering::Relaxed);
        if self.set_unless_closing(now) {
            self.connections.changed.notify_waiters();
        }
    }

    /// The connection answers a request: it is not asked to close until it is idle again.
    pub(crate) fn busy(&self) {
        self.set_unless_closing(BUSY);
    }

    /// Resolves once the connection is asked to close.
    pub(crate) async fn asked_to_close(&self) {
        self.entry.close.notified().await;
    }

    /// Sets `idle_since`, unless the connection was asked to close (the ask stands).
    fn set_unless_closing(&self, value: u64) -> bool {
        self.entry
            .idle_since
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |v| {
                (v != CLOSING).then_some(value)
            })
            .is_ok()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    /// Whether `activity` has been asked to close, without waiting.
    async fn asked(activity: &Activity) -> bool {
        tokio::time::timeout(Duration::from_millis(10), activity.asked_to_close())
            .await
            .is_ok()
    }

    #[tokio::test]
    async fn past_the_limit_the_connection_idle_longest_is_asked_to_close() {
        let connections = Connections::new(3);
        let mut open: Vec<_> = (0..3).map(|_| connections.admit()).collect();
        open[1].1.idle(); // idle longest
        open[2].1.idle();
        let no_room = tokio::time::timeout(Duration::from_millis(10), connections.make_room());
        assert!(no_room.await.is_err());
        assert!(!asked(&open[0].1).await, "a busy connection was asked");
        assert!(asked(&open[1].1).await);
        assert!(!asked(&open[2].1).await);
        // Room comes when it closes.
        let waiting = tokio::spawn({
            let connections = connections.clone();
            async move { connections.make_room().await }
        });
        open.remove(1);
        waiting.await.unwrap();
    }

    #[tokio::test]
    async fn with_every_connection_busy_a_newcomer_waits_for_one_to_close() {
        let connections = Connections::new(2);
        let mut open: Vec<_> = (0..2).map(|_| connections.admit()).collect();
        let waiting = tokio::spawn({
            let connections = connections.clone();
            async move { connections.make_room().await }
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiting.is_finished());
        assert!(!asked(&open[0].1).await && !asked(&open[1].1).await);
        // Idle now: asked to close, and room follows its close.
        open[0].1.idle();
        assert!(asked(&open[0].1).await);
        open.remove(0);
        waiting.await.unwrap();
    }
}
