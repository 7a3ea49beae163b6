//! Group commit: the writes of concurrent requests share one durable commit (one
//! [`Committer`] group: one sync of the write-ahead log), so eight writes in flight cost
//! about one fsync rather than eight.
//!
//! A request's changes are queued and applied to memory at once, under its table's lock, so
//! the queue holds them in the order they were applied. One thread commits: while it waits
//! for a commit's fsync, the writes arriving meanwhile queue up, and its next commit takes
//! them all in one group (each request's changes stay whole: a `$batch` is still stored
//! all or nothing). It starts the next commit as soon as one write is queued, without
//! waiting for more: a write arriving meanwhile rides in the commit after, which starts
//! the moment this one ends, so waiting could only delay both (with the log written around
//! the page cache, a commit takes less time than the writers it answers take to send their
//! next writes; waiting for them took about a sixth off the persisted rate). Every answer,
//! a read's as much as a write's, goes out only once everything queued before it was made
//! is durable ([`GroupCommit::settled`]): nothing a crash could lose is ever acknowledged or
//! shown.
//!
//! A commit or checkpoint that fails leaves memory holding writes the files may lack. From then on every
//! write is refused and every answer that could show them is an error, until the emulator
//! is restarted on its directory and serves what is durable.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use tokio::sync::watch;

use crate::storage::change::QueuedWrite;
use crate::storage::committer::Committer;

/// Why a write was not queued, or an answer cannot be given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    /// The database is closed (the emulator is shutting down).
    Closed,
    /// An earlier commit failed: memory and file differ until a restart.
    Failed,
}

/// The queue of changes and the thread that makes them durable.
pub(crate) struct GroupCommit {
    shared: Arc<Shared>,
    committer: Mutex<Option<JoinHandle<()>>>,
}

impl std::fmt::Debug for GroupCommit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GroupCommit").finish_non_exhaustive()
    }
}

/// What the requests and the committing thread share.
struct Shared {
    queue: Mutex<Queue>,
    /// Signalled when a change is queued or the queue is closed.
    queued: Condvar,
    /// The number of the last request queued; read without the lock by answers that wait.
    last: AtomicU64,
    /// How far the changes are durable, for the answers waiting on it.
    durable: watch::Sender<Durable>,
}

#[derive(Default)]
struct Queue {
    writes: Vec<QueuedWrite>,
    /// The number of the last request queued; requests are numbered from 1.
    last: u64,
    /// Whether the committing thread waits for a write: only then does a write wake it,
    /// rather than at each write (each wake is a system call, and a switch of threads).
    waiting: bool,
    closed: bool,
    failed: bool,
}

#[derive(Debug, Clone, Copy, Default)]
struct Durable {
    /// Every request numbered up to this one is durable.
    through: u64,
    failed: bool,
}

impl GroupCommit {
    /// Starts the thread that commits with `committer`; it owns the files until
    /// [`close`](Self::close).
    pub(crate) fn start(committer: Committer) -> std::io::Result<Self> {
        let shared = Arc::new(Shared {
            queue: Mutex::new(Queue::default()),
            queued: Condvar::new(),
            last: AtomicU64::new(0),
            durable: watch::Sender::new(Durable::default()),
        });
        let committer = {
            let shared = shared.clone();
            std::thread::Builder::new()
                .name("tablekit-commit".to_owned())
                .spawn(move || commit_loop(&shared, committer))?
        };
        Ok(GroupCommit {
            shared,
            committer: Mutex::new(Some(committer)),
        })
    }

    /// Queues one request's changes, to be made durable together. The caller applies them
    /// to memory while still holding the locks it queued them under, so the queue's order
    /// is the order they were applied in.
    pub(crate) fn queue(&self, writes: Vec<QueuedWrite>) -> Result<(), Refused> {
        let mut queue = self.shared.lock_queue();
        if queue.closed {
            return Err(Refused::Closed);
        }
        if queue.failed {
            return Err(Refused::Failed);
        }
        if writes.is_empty() {
            // Nothing to make durable: the committer would never see it, so it gets no number.
            return Ok(());
        }
        queue.writes.extend(writes);
        queue.last += 1;
        self.shared.last.store(queue.last, Ordering::Release);
        let waiting = queue.waiting;
        drop(queue);
        if waiting {
            self.shared.queued.notify_one();
        }
        Ok(())
    }

    /// Waits until every change queued so far is durable: then an answer made from what
    /// memory holds now may go out.
    pub(crate) async fn settled(&self) -> Result<(), Refused> {
        // Anything the answer saw was queued before it was applied, so before this load.
        let seen = self.shared.last.load(Ordering::Acquire);
        let mut durable = self.shared.durable.subscribe();
        let reached = durable
            .wait_for(|d| d.through >= seen || d.failed)
            .await
            .map(|d| d.through >= seen);
        match reached {
            Ok(true) => Ok(()),
            Ok(false) | Err(_) => Err(Refused::Failed),
        }
    }

    /// Refuses further changes, waits until the queued ones are durable and closes the
    /// database, so another emulator can open the directory at once.
    pub(crate) fn close(&self) {
        self.shared.lock_queue().closed = true;
        self.shared.queued.notify_one();
        let committer = self
            .committer
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some(committer) = committer {
            let _ = committer.join();
        }
    }
}

impl Drop for GroupCommit {
    fn drop(&mut self) {
        self.close();
    }
}

impl Shared {
    fn lock_queue(&self) -> MutexGuard<'_, Queue> {
        // Nothing panics while holding the lock; recover it rather than spread a panic.
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The changes queued so far and the number of the last request among them, once
    /// there is at least one; `None` once the queue is closed and empty.
    fn next_group(&self) -> Option<(Vec<QueuedWrite>, u64)> {
        let mut queue = self.lock_queue();
        queue.waiting = true;
        while queue.writes.is_empty() && !queue.closed {
            queue = self.queued.wait(queue).unwrap_or_else(|e| e.into_inner());
        }
        queue.waiting = false;
        if queue.writes.is_empty() {
            return None;
        }
        Some((std::mem::take(&mut queue.writes), queue.last))
    }
}

/// Commits each group of queued changes until the queue is closed, then closes the files.
fn commit_loop(shared: &Shared, mut committer: Committer) {
    while let Some((writes, through)) = shared.next_group() {
        let committed = committer.commit(&writes);
        // The group's answers go out before a checkpoint delays the next group.
        let committed = committed.map(|()| shared.durable.send_modify(|d| d.through = through));
        if let Err(err) = committed.and_then(|()| committer.checkpoint_if_due()) {
            tracing::error!(
                "cannot write the emulator's data directory ({err}); writes are refused \
                 until the emulator is restarted"
            );
            let mut queue = shared.lock_queue();
            queue.failed = true;
            queue.writes.clear();
            drop(queue);
            shared.durable.send_modify(|d| d.failed = true);
        }
    }
    if let Err(err) = committer.close() {
        tracing::error!("cannot close the emulator's data directory cleanly: {err}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::stored::Stored;
    use tablekit::DynamicEntity;

    fn put(row: &str) -> QueuedWrite {
        let mut e = DynamicEntity::new("p", row);
        e.set_timestamp(tablekit::value::from_ticks(638_000_000_000_000_001));
        QueuedWrite::Put {
            account: "acct".into(),
            table: "T".into(),
            entity: Arc::new(Stored::new(e)),
        }
    }

    fn create() -> QueuedWrite {
        QueuedWrite::CreateTable {
            account: "acct".into(),
            table: "T".into(),
        }
    }

    #[tokio::test]
    async fn queued_changes_are_durable_once_settled_and_after_a_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let (committer, _) = Committer::open(dir.path()).unwrap();
        let commits = GroupCommit::start(committer).unwrap();
        commits.queue(vec![create()]).unwrap();
        for row in ["a", "b", "c"] {
            commits.queue(vec![put(row)]).unwrap();
        }
        commits.settled().await.unwrap();
        commits.close();
        assert_eq!(commits.queue(vec![put("d")]), Err(Refused::Closed));
        drop(commits);
        let (_, tables) = Committer::open(dir.path()).unwrap();
        let rows: Vec<_> = tables[0].entities.iter().map(|e| e.row_key()).collect();
        assert_eq!(rows, ["a", "b", "c"]);
    }

    #[tokio::test]
    async fn a_failed_checkpoint_refuses_later_writes_and_answers() {
        let dir = tempfile::tempdir().unwrap();
        Committer::open(dir.path()).unwrap().0.close().unwrap();
        // A redb table where table `T`'s entities would go, of another type: a checkpoint
        // putting into it fails inside its transaction, as a full disk would fail it.
        let file =
            redb::Database::open(dir.path().join(crate::storage::database::FILE_NAME)).unwrap();
        let txn = file.begin_write().unwrap();
        txn.open_table(redb::TableDefinition::<&str, u64>::new("entities/acct/t"))
            .unwrap();
        txn.commit().unwrap();
        drop(file);
        let (committer, _) = Committer::open(dir.path()).unwrap();
        let commits = GroupCommit::start(committer).unwrap();
        // Each put is durable in the log, and acknowledged, until a checkpoint fails.
        let mut acknowledged = 0;
        let refused = loop {
            match commits.queue(vec![put("a")]) {
                Ok(()) if commits.settled().await.is_ok() => acknowledged += 1,
                Ok(()) => {}
                Err(refused) => break refused,
            }
            assert!(acknowledged < 100, "no checkpoint failed");
        };
        assert_eq!(refused, Refused::Failed);
        assert_eq!(commits.queue(vec![create()]), Err(Refused::Failed));
        drop(commits);
        // What was acknowledged is in the log, so the start is refused rather than lose it.
        let err = Committer::open(dir.path()).unwrap_err().to_string();
        assert!(err.contains("could not be applied"), "{err}");
    }
}
