//! How a commit group becomes durable: appended to the
//! [write-ahead log](crate::storage::write_ahead_log) and synced there, the one sync a group
//! waits for. Once the log file being written holds a few megabytes, its groups are handed
//! to the [checkpointer](crate::storage::checkpointer), which makes them durable in the
//! database in one commit, and the other file takes the next groups.
//!
//! Opening the directory replays the log: its groups beyond the database's last checkpoint
//! are applied in one durable commit before anything is served. A clean close checkpoints
//! everything and removes the log, so a closed directory is its database file alone.

use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::storage::change::QueuedWrite;
use crate::storage::checkpointer::Checkpointer;
use crate::storage::database::{self, Database, LogMark};
use crate::storage::log_record::{self, Record};
use crate::storage::stored::TableData;
use crate::storage::write_ahead_log::{self, Frame, LogFile};

/// The size of a log file that starts a checkpoint. Larger means fewer checkpoints (each
/// syncs the database pages changed since the last); smaller means a shorter replay after
/// a crash and a smaller directory.
/// The crate's own tests checkpoint every few groups.
const CHECKPOINT_BYTES: u64 = if cfg!(test) { 8 << 10 } else { 4 << 20 };

/// Why a group could not be made durable, or the files not closed cleanly.
#[derive(Debug)]
pub(crate) enum CommitError {
    /// Writing or syncing a log file failed.
    Log(std::io::Error),
    /// A checkpoint into the database failed.
    Checkpoint(String),
    /// An earlier failure stopped all commits.
    Stopped,
}

impl std::fmt::Display for CommitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CommitError::Log(e) => write!(f, "the write-ahead log: {e}"),
            CommitError::Checkpoint(e) => write!(f, "a checkpoint into the database: {e}"),
            CommitError::Stopped => f.write_str("an earlier commit failed"),
        }
    }
}

/// The log files and the checkpointer, used by one thread.
#[derive(Debug)]
pub(crate) struct Committer {
    logs: [LogFile; 2],
    /// The file being written.
    active: usize,
    /// The number of the last group logged.
    last: u64,
    /// The groups in the active file: the next checkpoint's.
    pending: Vec<Vec<u8>>,
    checkpointer: Checkpointer,
    /// Whether the other file's groups are being checkpointed (it is not written until
    /// they are).
    checkpointing: bool,
    /// Set by a failure: nothing is committed or checkpointed after it.
    failed: bool,
}

impl Committer {
    /// Opens the database in `dir`, applies what its log holds beyond the last checkpoint,
    /// and reads every table. Damage to any file refuses the open, naming the file.
    pub(crate) fn open(dir: &Path) -> Result<(Committer, Vec<TableData>), Error> {
        let database = Database::open(dir)?;
        let mark = database.log_mark()?;
        let paths = write_ahead_log::FILE_NAMES.map(|name| dir.join(name));
        let frames = logged(&paths, mark)?;
        let last = frames.last().map_or(mark.through, |f| f.number);
        let mut records: Vec<Record<'_>> = Vec::new();
        for frame in &frames {
            let group = log_record::decode(&frame.payload).map_err(|problem| {
                damaged_log(dir, format!("group {}: {problem}", frame.number))
            })?;
            records.extend(group);
        }
        // Durable in the database before either file is written over, and marked open:
        // from here on the log holds what the database may lack.
        let replayed = LogMark {
            through: last,
            open: true,
        };
        database
            .checkpoint(&records, replayed)
            .map_err(|e| Error::DataFile {
                path: dir.join(database::FILE_NAME),
                problem: format!("the write-ahead log's groups could not be applied to it: {e}"),
            })?;
        let tables = database.tables()?;
        let start = |path: &PathBuf| {
            LogFile::start(path, CHECKPOINT_BYTES * 5 / 4).map_err(|source| Error::Persistence {
                path: path.clone(),
                source,
            })
        };
        let logs = [start(&paths[0])?, start(&paths[1])?];
        let checkpointer = Checkpointer::start(database).map_err(|source| Error::Persistence {
            path: dir.to_owned(),
            source,
        })?;
        let committer = Committer {
            logs,
            active: 0,
            last,
            pending: Vec::new(),
            checkpointer,
            checkpointing: false,
            failed: false,
        };
        Ok((committer, tables))
    }

    /// Makes one group of changes durable. After an error nothing more is committed: the
    /// caller refuses writes until a restart replays what is durable.
    pub(crate) fn commit(&mut self, writes: &[QueuedWrite]) -> Result<(), CommitError> {
        if self.failed {
            return Err(CommitError::Stopped);
        }
        let payload = log_record::encode(writes);
        let appended = self.logs[self.active].append(self.last + 1, &payload);
        self.failed |= appended.is_err();
        appended.map_err(CommitError::Log)?;
        self.last += 1;
        self.pending.push(payload);
        Ok(())
    }

    /// Notes a finished checkpoint and begins the next one when the file being written is
    /// full: called between groups, after their answers went out.
    pub(crate) fn checkpoint_if_due(&mut self) -> Result<(), CommitError> {
        if self.failed {
            return Err(CommitError::Stopped);
        }
        if self.checkpointing {
            match self.checkpointer.finished() {
                None => return Ok(()),
                Some(result) => self.settle(result)?,
            }
        }
        if self.logs[self.active].used() >= CHECKPOINT_BYTES {
            self.checkpointer.begin(
                std::mem::take(&mut self.pending),
                LogMark {
                    through: self.last,
                    open: true,
                },
            );
            self.checkpointing = true;
            self.active = 1 - self.active;
            self.logs[self.active].restart();
        }
        Ok(())
    }

    fn settle(&mut self, result: Result<(), String>) -> Result<(), CommitError> {
        self.checkpointing = false;
        self.failed |= result.is_err();
        result.map_err(CommitError::Checkpoint)
    }

    /// Checkpoints everything, closes the database and removes the log. After a failure
    /// nothing is checkpointed: the next open replays what the log made durable.
    pub(crate) fn close(mut self) -> Result<(), CommitError> {
        let result = self.checkpoint_all();
        self.checkpointer.stop();
        result?;
        for log in self.logs {
            log.remove().map_err(CommitError::Log)?;
        }
        Ok(())
    }

    fn checkpoint_all(&mut self) -> Result<(), CommitError> {
        if self.failed {
            return Err(CommitError::Stopped);
        }
        if self.checkpointing {
            let result = self.checkpointer.wait();
            self.settle(result)?;
        }
        let mark = LogMark {
            through: self.last,
            open: false,
        };
        self.checkpointer
            .begin(std::mem::take(&mut self.pending), mark);
        self.checkpointing = true;
        let result = self.checkpointer.wait();
        self.settle(result)
    }
}

/// The log's groups beyond the database's checkpoint, from both files. Missing files are
/// an empty log after a clean close, and refused after one that was not (their groups
/// would be lost).
fn logged(paths: &[PathBuf; 2], mark: LogMark) -> Result<Vec<Frame>, Error> {
    let mut files = [Vec::new(), Vec::new()];
    for (path, frames) in paths.iter().zip(&mut files) {
        *frames = match LogFile::read(path, mark.through) {
            Ok(read) => read.map_err(|problem| damaged_file(path, problem))?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !mark.open => Vec::new(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(Error::DataFile {
                    path: path.clone(),
                    problem: "it is missing, and the emulator that last used this directory \
                              did not shut down cleanly: its latest writes were only in the \
                              write-ahead log; restore the directory from a copy"
                        .to_owned(),
                })
            }
            Err(source) => {
                return Err(Error::Persistence {
                    path: path.clone(),
                    source,
                })
            }
        };
    }
    let dir = paths[0].parent().unwrap_or(Path::new("."));
    write_ahead_log::merged(files, mark.through).map_err(|problem| damaged_log(dir, problem))
}

fn damaged_file(path: &Path, problem: String) -> Error {
    Error::DataFile {
        path: path.to_owned(),
        problem: format!(
            "{problem}; the file is left as it is: restore the directory from a copy, or move \
             it away to start empty"
        ),
    }
}

/// Damage that is not one file's: named by the first log file.
fn damaged_log(dir: &Path, problem: String) -> Error {
    damaged_file(&dir.join(write_ahead_log::FILE_NAMES[0]), problem)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::Arc;

    use super::*;
    use crate::storage::stored::Stored;
    use tablekit::{value, DynamicEntity};

    fn put(row: usize, n: i32) -> QueuedWrite {
        let mut e = DynamicEntity::new("p", format!("{row:02}"));
        e.set("N", n);
        e.set("Text", "t".repeat(300 * (row % 4)));
        e.set_timestamp(value::from_ticks(638_000_000_000_000_000 + i64::from(n)));
        QueuedWrite::Put {
            account: "acct".into(),
            table: "T".into(),
            entity: Arc::new(Stored::new(e)),
        }
    }

    fn delete(row: usize) -> QueuedWrite {
        QueuedWrite::Delete {
            account: "acct".into(),
            table: "T".into(),
            partition_key: "p".into(),
            row_key: format!("{row:02}"),
        }
    }

    /// Row → N, as the tables hold them.
    fn rows(tables: &[TableData]) -> BTreeMap<String, i32> {
        tables
            .iter()
            .flat_map(|t| &t.entities)
            .map(|e| {
                (
                    e.row_key().into_owned(),
                    e.entity().get::<i32>("N").unwrap(),
                )
            })
            .collect()
    }

    /// Groups of puts and deletes over 20 rows, checkpointing as it goes; the rows they leave.
    fn commit_groups(committer: &mut Committer, groups: usize) -> BTreeMap<String, i32> {
        let mut expected = BTreeMap::new();
        let create = QueuedWrite::CreateTable {
            account: "acct".into(),
            table: "T".into(),
        };
        committer.commit(&[create]).unwrap();
        for g in 0..groups {
            let mut group = Vec::new();
            for k in 0..1 + g % 3 {
                let (row, n) = ((g * 7 + k) % 20, (g * 10 + k) as i32);
                match (g + k) % 5 {
                    0 => {
                        group.push(delete(row));
                        expected.remove(&format!("{row:02}"));
                    }
                    _ => {
                        group.push(put(row, n));
                        expected.insert(format!("{row:02}"), n);
                    }
                }
            }
            committer.commit(&group).unwrap();
            committer.checkpoint_if_due().unwrap();
        }
        expected
    }

    #[test]
    fn a_crash_after_any_group_keeps_every_group_across_checkpoints() {
        for groups in [0, 1, 5, 23, 120] {
            let dir = tempfile::tempdir().unwrap();
            let (mut committer, _) = Committer::open(dir.path()).unwrap();
            let expected = commit_groups(&mut committer, groups);
            // A crash: no close, so no last checkpoint; the log holds what the file lacks.
            drop(committer);
            let (committer, tables) = Committer::open(dir.path()).unwrap();
            assert_eq!(rows(&tables), expected, "after {groups} groups");
            // And a clean close leaves the database alone, holding the same.
            committer.close().unwrap();
            let names: Vec<_> = std::fs::read_dir(dir.path())
                .unwrap()
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .collect();
            assert_eq!(names, [database::FILE_NAME]);
            let (_, tables) = Committer::open(dir.path()).unwrap();
            assert_eq!(rows(&tables), expected, "after {groups} groups and a close");
        }
    }

    #[test]
    fn a_missing_log_after_a_crash_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let (mut committer, _) = Committer::open(dir.path()).unwrap();
        commit_groups(&mut committer, 3);
        drop(committer);
        std::fs::remove_file(dir.path().join(write_ahead_log::FILE_NAMES[1])).unwrap();
        let err = Committer::open(dir.path()).unwrap_err().to_string();
        assert!(err.contains("tables.wal.1"), "{err}");
        assert!(err.contains("did not shut down cleanly"), "{err}");
    }
}
