//! The journal that earlier versions of the emulator kept (`journal.jsonl`, one JSON line per
//! commit): read once, strictly, to migrate its data into the [database](crate::storage::database).
//!
//! Every line must be valid: one that does not parse, or holds an entity or Timestamp that
//! does not decode, refuses the migration with its line number, and the journal is left as
//! it was (never skipped: a skipped line is lost data). Once the database holding its data is
//! in place, the journal is renamed to `journal.jsonl.migrated` and kept.

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use tablekit::codec;

use crate::error::Error;
use crate::storage::dir_sync::sync_dir;
use crate::storage::stored::{Stored, TableData};

/// The journal's file name inside the data directory.
pub(crate) const FILE_NAME: &str = "journal.jsonl";
/// What the journal is renamed to once migrated.
const MIGRATED: &str = "journal.jsonl.migrated";

/// One journaled change, as earlier versions wrote it.
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
    /// Changes that stood or fell together (a `$batch`).
    Batch {
        records: Vec<Record>,
    },
}

/// The tables the journal at `path` describes, every line verified.
pub(crate) fn replay(path: &Path) -> Result<Vec<TableData>, Error> {
    let file = File::open(path).map_err(|e| unreadable(path, e))?;
    let mut tables = Tables::default();
    for (index, line) in BufReader::new(file).split(b'\n').enumerate() {
        let line = line.map_err(|e| unreadable(path, e))?;
        let refused = |problem: String| Error::DataFile {
            path: path.to_owned(),
            problem: format!(
                "line {} is not a valid journal record ({problem}); nothing was migrated and \
                 the journal is unchanged: repair or delete that line (a cut-off last line is \
                 a write that was never acknowledged), or move the journal away to start empty",
                index + 1
            ),
        };
        let record = serde_json::from_slice(&line).map_err(|e| refused(e.to_string()))?;
        tables.apply(record).map_err(refused)?;
    }
    Ok(tables.into_data())
}

/// The journal's length and CRC-32: what the database records of the journal it migrated.
pub(crate) fn fingerprint(path: &Path) -> Result<(u64, u64), Error> {
    let mut file = File::open(path).map_err(|e| unreadable(path, e))?;
    let mut hasher = crc32fast::Hasher::new();
    let mut len = 0u64;
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = file.read(&mut buf).map_err(|e| unreadable(path, e))?;
        if n == 0 {
            return Ok((len, u64::from(hasher.finalize())));
        }
        hasher.update(&buf[..n]);
        len += n as u64;
    }
}

/// Renames the migrated journal so it is not migrated again (kept: never deleted).
pub(crate) fn set_aside(path: &Path) -> Result<(), Error> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut target = dir.join(MIGRATED);
    let mut n = 1;
    while target.exists() {
        target = dir.join(format!("{MIGRATED}.{n}"));
        n += 1;
    }
    fs::rename(path, &target)
        .and_then(|()| sync_dir(dir))
        .map_err(|e| unreadable(path, e))
}

fn unreadable(path: &Path, source: io::Error) -> Error {
    Error::DataFile {
        path: PathBuf::from(path),
        problem: format!("cannot read or rename it: {source}"),
    }
}

/// The journal's tables as replayed so far: by (account, lowercase name), the name as
/// created and the entities by key.
#[derive(Default)]
struct Tables(BTreeMap<(String, String), (String, Entities)>);

/// A table's entities by (PartitionKey, RowKey).
type Entities = BTreeMap<(String, String), Stored>;

impl Tables {
    fn apply(&mut self, record: Record) -> Result<(), String> {
        match record {
            Record::CreateTable { account, table } => {
                let key = (account, table.to_ascii_lowercase());
                self.0
                    .entry(key)
                    .or_insert_with(|| (table, BTreeMap::new()));
            }
            Record::DeleteTable { account, table } => {
                self.0.remove(&(account, table.to_ascii_lowercase()));
            }
            Record::Put {
                account,
                table,
                timestamp,
                entity,
            } => {
                let mut entity = codec::decode_entity(entity.as_bytes())
                    .map_err(|e| format!("its entity does not decode: {e}"))?;
                let ts = codec::parse_datetime(&timestamp)
                    .ok_or_else(|| format!("its Timestamp `{timestamp}` does not parse"))?;
                entity.set_timestamp(Some(ts));
                // A write that raced its table's deletion was journaled after it, and was
                // never visible: the table is gone.
                if let Some((_, entities)) = self.0.get_mut(&(account, table.to_ascii_lowercase()))
                {
                    let key = (
                        entity.partition_key().to_owned(),
                        entity.row_key().to_owned(),
                    );
                    entities.insert(key, Stored::new(entity));
                }
            }
            Record::Delete {
                account,
                table,
                partition_key,
                row_key,
            } => {
                if let Some((_, entities)) = self.0.get_mut(&(account, table.to_ascii_lowercase()))
                {
                    entities.remove(&(partition_key, row_key));
                }
            }
            Record::Batch { records } => {
                for record in records {
                    self.apply(record)?;
                }
            }
        }
        Ok(())
    }

    fn into_data(self) -> Vec<TableData> {
        self.0
            .into_iter()
            .map(|((account, _), (name, entities))| TableData {
                account,
                name,
                entities: entities.into_values().collect(),
                policies: Vec::new(),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(row: &str, n: i32) -> Record {
        Record::Put {
            account: "a".into(),
            table: "T".into(),
            timestamp: "2026-01-01T00:00:00.0000001Z".into(),
            entity: format!(r#"{{"PartitionKey":"p","RowKey":"{row}","N":{n}}}"#),
        }
    }

    fn create() -> Record {
        Record::CreateTable {
            account: "a".into(),
            table: "T".into(),
        }
    }

    fn write(dir: &Path, records: &[Record]) -> PathBuf {
        let path = dir.join(FILE_NAME);
        let mut text = String::new();
        for record in records {
            text.push_str(&serde_json::to_string(record).unwrap());
            text.push('\n');
        }
        fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn every_kind_of_record_replays() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(
            dir.path(),
            &[
                create(),
                put("a", 1),
                Record::Batch {
                    records: vec![put("b", 2), put("a", 3)],
                },
                Record::Delete {
                    account: "a".into(),
                    table: "t".into(),
                    partition_key: "p".into(),
                    row_key: "b".into(),
                },
                Record::CreateTable {
                    account: "a".into(),
                    table: "Gone".into(),
                },
                Record::DeleteTable {
                    account: "a".into(),
                    table: "GONE".into(),
                },
            ],
        );
        let tables = replay(&path).unwrap();
        assert_eq!(tables.len(), 1);
        let [only] = &tables[0].entities[..] else {
            panic!("{:?}", tables[0].entities)
        };
        assert_eq!(
            (only.row_key(), only.entity().get::<i32>("N")),
            ("a".into(), Some(3))
        );
        assert!(only.timestamp() > chrono::DateTime::UNIX_EPOCH);
    }

    #[test]
    fn a_changed_byte_refuses_the_replay_with_its_line_number() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), &[create(), put("a", 1), put("b", 2)]);
        let mut text = fs::read(&path).unwrap();
        let second = text.iter().position(|&b| b == b'\n').unwrap() + 1;
        text[second] = b'X';
        fs::write(&path, &text).unwrap();
        let err = replay(&path).unwrap_err().to_string();
        assert!(
            err.contains("line 2 is not a valid journal record"),
            "{err}"
        );
        assert!(err.contains(FILE_NAME), "{err}");
    }

    #[test]
    fn an_entity_that_does_not_decode_refuses_the_replay() {
        let dir = tempfile::tempdir().unwrap();
        let mut bad = put("a", 1);
        if let Record::Put { entity, .. } = &mut bad {
            *entity = r#"{"PartitionKey":"p","RowKey":"a","N":1"#.into();
        }
        let path = write(dir.path(), &[create(), bad]);
        let err = replay(&path).unwrap_err().to_string();
        assert!(err.contains("line 2"), "{err}");
        assert!(err.contains("does not decode"), "{err}");
    }

    #[test]
    fn a_set_aside_journal_is_kept_beside_earlier_ones() {
        let dir = tempfile::tempdir().unwrap();
        for _ in 0..2 {
            let path = write(dir.path(), &[create()]);
            set_aside(&path).unwrap();
        }
        let mut names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, [MIGRATED, format!("{MIGRATED}.1").as_str()]);
    }
}
