//! The journal of a persistent emulator: what makes an acknowledged write survive a crash.
//!
//! Durability guarantee: with [`persist_to`](crate::EmulatorBuilder::persist_to), the
//! emulator answers a write only after its journal line is written and `fsync`ed
//! (`File::sync_data`), so the write survives the process being killed and, on a disk that
//! honours flushes, a power loss. One commit is one line: a `$batch` is all in the journal
//! or (a torn last line, skipped on replay) not at all. A write whose line cannot be made
//! durable is refused with 500 and not applied.
//!
//! On start the journal is replayed, then rewritten as the current state (compaction):
//! into a temporary file that is fsynced, renamed over the journal, after which the
//! directory is fsynced so the rename itself is durable. A crash at any point leaves
//! either the old journal or the new one.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The journal's file name inside the data directory.
const FILE_NAME: &str = "journal.jsonl";

/// One journaled change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub(crate) enum Record {
    CreateTable {
        account: String,
        table: String,
    },
    DeleteTable {
        account: String,
        table: String,
    },
    Put {
        account: String,
        table: String,
        timestamp: String,
        /// The entity in the wire codec's JSON.
        entity: String,
    },
    Delete {
        account: String,
        table: String,
        partition_key: String,
        row_key: String,
    },
    /// Changes that stand or fall together (a `$batch`): one line, so never half-applied.
    Batch {
        records: Vec<Record>,
    },
}

/// The open journal, appended to.
#[derive(Debug)]
pub(crate) struct Journal {
    file: File,
    /// The length of the journal's durable part: a failed append is cut back to it.
    len: u64,
}

impl Journal {
    /// Reads every record of the journal in `dir` (none when there is no journal). Lines
    /// that cannot be read are skipped: only a torn last line is expected, from a crash in
    /// the middle of an append that was therefore never acknowledged.
    pub(crate) fn read(dir: &Path) -> io::Result<Vec<Record>> {
        let path = dir.join(FILE_NAME);
        let file = match File::open(&path) {
            Ok(file) => file,
            Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(err) => return Err(err),
        };
        let mut records = Vec::new();
        for (number, line) in BufReader::new(file).split(b'\n').enumerate() {
            let line = line?;
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match serde_json::from_slice(&line) {
                Ok(record) => records.push(record),
                Err(err) => {
                    tracing::warn!("journal line {} unreadable, skipped: {err}", number + 1);
                }
            }
        }
        Ok(records)
    }

    /// Replaces the journal in `dir` with `records` (atomically and durably, see the module
    /// docs) and opens it for appending.
    pub(crate) fn rewrite(
        dir: &Path,
        records: impl IntoIterator<Item = Record>,
    ) -> io::Result<Self> {
        fs::create_dir_all(dir)?;
        let path = dir.join(FILE_NAME);
        let tmp: PathBuf = dir.join(format!("{FILE_NAME}.tmp"));
        let mut out = BufWriter::new(File::create(&tmp)?);
        for record in records {
            out.write_all(&line(&record)?)?;
        }
        let file = out.into_inner().map_err(io::IntoInnerError::into_error)?;
        file.sync_all()?;
        drop(file);
        fs::rename(&tmp, &path)?;
        sync_dir(dir)?;
        let file = OpenOptions::new().append(true).open(&path)?;
        let len = file.metadata()?.len();
        Ok(Journal { file, len })
    }

    /// Appends one commit (a single record, or a [`Record::Batch`] of several) as one line
    /// and makes it durable before returning. On failure the journal is cut back to where
    /// it was, so a refused write does not reappear after a restart.
    pub(crate) fn append(&mut self, records: Vec<Record>) -> io::Result<()> {
        let record = match <[Record; 1]>::try_from(records) {
            Ok([one]) => one,
            Err(records) => Record::Batch { records },
        };
        let line = line(&record)?;
        let written = self
            .file
            .write_all(&line)
            .and_then(|()| self.file.sync_data());
        match written {
            Ok(()) => {
                self.len += line.len() as u64;
                Ok(())
            }
            Err(err) => {
                // Best effort: the error is what the caller needs to see.
                let _ = self.file.set_len(self.len);
                Err(err)
            }
        }
    }
}

/// A record's JSON and the newline ending it.
fn line(record: &Record) -> io::Result<Vec<u8>> {
    let mut line = serde_json::to_vec(record)?;
    line.push(b'\n');
    Ok(line)
}

/// Makes a directory's entries (a created or renamed file) durable.
fn sync_dir(dir: &Path) -> io::Result<()> {
    // Directories can be opened for reading and fsynced on Unix; elsewhere the rename's
    // durability is the file system's.
    #[cfg(unix)]
    File::open(dir)?.sync_all()?;
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(row: &str) -> Record {
        Record::Put {
            account: "a".into(),
            table: "T".into(),
            timestamp: "2026-01-01T00:00:00.0000001Z".into(),
            entity: format!(r#"{{"PartitionKey":"p","RowKey":"{row}"}}"#),
        }
    }

    #[test]
    fn appended_commits_read_back_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let mut journal = Journal::rewrite(dir.path(), [put("0")]).unwrap();
        journal.append(vec![put("1")]).unwrap();
        journal.append(vec![put("2"), put("3")]).unwrap();
        let records = Journal::read(dir.path()).unwrap();
        assert_eq!(
            records,
            [
                put("0"),
                put("1"),
                Record::Batch {
                    records: vec![put("2"), put("3")]
                }
            ]
        );
    }

    #[test]
    fn a_torn_last_line_loses_only_its_own_commit() {
        let dir = tempfile::tempdir().unwrap();
        let mut journal = Journal::rewrite(dir.path(), []).unwrap();
        journal.append(vec![put("kept")]).unwrap();
        journal.append(vec![put("b1"), put("b2")]).unwrap();
        // A crash in the middle of the batch's line: half of it reached the disk.
        let path = dir.path().join(FILE_NAME);
        let text = fs::read(&path).unwrap();
        let first_line = text.iter().position(|&b| b == b'\n').unwrap() + 1;
        let torn = first_line + (text.len() - first_line) / 2;
        fs::write(&path, &text[..torn]).unwrap();
        assert_eq!(Journal::read(dir.path()).unwrap(), [put("kept")]);
    }

    #[test]
    fn rewriting_replaces_the_journal_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let mut journal = Journal::rewrite(dir.path(), [put("old")]).unwrap();
        journal.append(vec![put("older")]).unwrap();
        drop(journal);
        Journal::rewrite(dir.path(), [put("new")]).unwrap();
        assert_eq!(Journal::read(dir.path()).unwrap(), [put("new")]);
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, [FILE_NAME]);
    }

    #[test]
    fn no_journal_reads_as_empty() {
        let dir = tempfile::tempdir().unwrap();
        assert!(Journal::read(dir.path()).unwrap().is_empty());
    }
}
