//! The thread that checkpoints: it applies one log file's groups to the database in one
//! durable commit while the committing thread goes on answering writes from the other
//! file. It owns the database from the open to the close.

use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};
use std::thread::JoinHandle;

use crate::storage::database::{Database, LogMark};
use crate::storage::log_record::{self, Record};
use crate::storage::quiet_panic;

/// A checkpoint to make: the groups' bytes, in order, and the mark noting them.
struct Job {
    groups: Vec<Vec<u8>>,
    mark: LogMark,
}

/// The handle to the checkpointing thread: one checkpoint at a time.
#[derive(Debug)]
pub(crate) struct Checkpointer {
    jobs: Option<Sender<Job>>,
    done: Receiver<Result<(), String>>,
    thread: Option<JoinHandle<()>>,
}

impl Checkpointer {
    /// Starts the thread, which owns `database` until [`stop`](Self::stop).
    pub(crate) fn start(database: Database) -> std::io::Result<Self> {
        let (jobs, queued) = mpsc::channel::<Job>();
        let (finished, done) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("tablekit-checkpoint".to_owned())
            .spawn(move || {
                for job in queued {
                    if finished.send(checkpoint(&database, &job)).is_err() {
                        break;
                    }
                }
            })?;
        Ok(Checkpointer {
            jobs: Some(jobs),
            done,
            thread: Some(thread),
        })
    }

    /// Starts a checkpoint of `groups` noted as `mark`; its outcome comes from
    /// [`finished`](Self::finished) or [`wait`](Self::wait).
    pub(crate) fn begin(&self, groups: Vec<Vec<u8>>, mark: LogMark) {
        // A send fails only once the thread is gone, and then `wait` says so.
        if let Some(jobs) = &self.jobs {
            let _ = jobs.send(Job { groups, mark });
        }
    }

    /// The outcome of the checkpoint begun last, if it has finished.
    pub(crate) fn finished(&self) -> Option<Result<(), String>> {
        match self.done.try_recv() {
            Ok(result) => Some(result),
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => Some(Err(gone())),
        }
    }

    /// Waits for the checkpoint begun last.
    pub(crate) fn wait(&self) -> Result<(), String> {
        match self.done.recv() {
            Ok(result) => result,
            Err(_) => Err(gone()),
        }
    }

    /// Stops the thread once the checkpoint under way is done, which closes the database.
    pub(crate) fn stop(self) {
        drop(self);
    }
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        self.jobs = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn gone() -> String {
    "the checkpointing thread stopped".to_owned()
}

fn checkpoint(database: &Database, job: &Job) -> Result<(), String> {
    let mut records: Vec<Record<'_>> = Vec::new();
    for group in &job.groups {
        records.extend(log_record::decode(group)?);
    }
    // A panic of the storage library is a failed checkpoint, not a lost thread.
    let commit = std::panic::AssertUnwindSafe(|| database.checkpoint(&records, job.mark));
    match quiet_panic::catch(commit) {
        Ok(result) => result.map_err(|e| e.to_string()),
        Err(message) => Err(format!("the storage library failed: {message}")),
    }
}
