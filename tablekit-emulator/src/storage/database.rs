//! The durable copy of a persistent emulator's tables: one [redb] file in the data directory.
//!
//! Why redb (rather than SQLite through rusqlite, the other kept embedded database):
//! - Corruption is detected. redb checksums every page (XXH3, held by the page's parent up to
//!   the commit slot), and the emulator verifies every checksum when it opens the file, so a
//!   changed byte anywhere in the data refuses the start instead of serving a wrong value.
//!   SQLite checks only its structure (`PRAGMA integrity_check`); a changed digit inside a
//!   row goes unnoticed unless the checksum VFS shim, which is not in the amalgamation that
//!   rusqlite bundles, is compiled in by hand.
//! - Commits are crash-safe and durable when they return: copy-on-write pages, then the
//!   commit slot, each fsynced. Commits here are two-phase, so a damaged latest commit is
//!   reported as corruption rather than rolled back to the one before it (which would drop
//!   an acknowledged write without a word).
//! - Space stays bounded while running: pages freed by a commit are reused by later ones,
//!   so overwriting the same entities does not grow the file (no compaction at restart).
//! - Pure Rust: no C compiler step in CI, a small addition to a 2-core build; MIT or
//!   Apache-2.0 like this crate; maintained, with a stable file format since 1.0.
//!
//! Layout: a catalogue table maps (account, lowercase table name) to the name as created;
//! each emulator table has its own redb table, (PartitionKey, RowKey) to (Timestamp in
//! ticks, the entity in the wire codec's JSON); a meta table holds the format version and
//! how far the [write-ahead log](crate::storage::write_ahead_log) is checkpointed.
//! The emulator serves reads from memory. A commit group is made durable in the log; a
//! [checkpoint](Database::checkpoint) every few megabytes of log applies its groups here, in
//! one two-phase commit. A `$batch` is in one group, so it is stored whole or not at all.
//!
//! A new file is made under a temporary name and renamed into place once initialized, so a
//! file with the real name was always complete: one that does not open is damage, never an
//! interrupted creation.
//!
//! [redb]: https://www.redb.org

use std::fs;
use std::path::{Path, PathBuf};

use redb::{ReadableTable, TableDefinition, WriteTransaction};
use tablekit::client::{access_policies_from_xml, SignedIdentifier};
use tablekit::{codec, value};

use crate::error::Error;
use crate::storage::dir_sync::sync_dir;
use crate::storage::journal;
use crate::storage::log_record::Record;
use crate::storage::quiet_panic;
use crate::storage::stored::{Stored, TableData};

/// The database's file name inside the data directory.
pub(crate) const FILE_NAME: &str = "tables.redb";

/// (account, lowercase table name) → the table's name as created.
const CATALOGUE: TableDefinition<(&str, &str), &str> = TableDefinition::new("tables");
/// (account, lowercase table name) → the table's stored access policies, as the service's
/// `SignedIdentifiers` XML. Files made before it existed lack it: read as no policies.
const POLICIES: TableDefinition<(&str, &str), &str> = TableDefinition::new("access policies");
/// Settings of the file itself, such as its format.
const META: TableDefinition<&str, u64> = TableDefinition::new("meta");
/// The layout described in the module docs.
const FORMAT: u64 = 1;
const FORMAT_KEY: &str = "format";
/// Length and CRC-32 of the journal migrated into this file, so an interrupted migration
/// is recognised and finished instead of refused.
const JOURNAL_LEN_KEY: &str = "migrated journal length";
const JOURNAL_CRC_KEY: &str = "migrated journal crc32";
/// The number of the write-ahead log's last group that the file holds durably.
const LOG_THROUGH_KEY: &str = "log checkpointed through";
/// 1 while an emulator has the directory open (its log may hold groups the file lacks),
/// 0 once it closed cleanly.
const LOG_OPEN_KEY: &str = "log open";

/// What a checkpoint notes of the [write-ahead log](crate::storage::write_ahead_log).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct LogMark {
    /// The log's groups up to this number are durable in the file.
    pub(crate) through: u64,
    /// Whether an emulator had the directory open: then the log must be there.
    pub(crate) open: bool,
}

/// The error for a damaged file, with what a person can do about it.
fn damaged(path: &Path, problem: String) -> Error {
    Error::DataFile {
        path: path.to_owned(),
        problem: format!(
            "{problem}; the file is left as it is: restore it from a copy, or move it away to \
             start empty"
        ),
    }
}

/// redb's page cache. Reads are served from the emulator's memory, so the cache only helps
/// commits find the pages they change; redb's default (1 GiB) would double the memory held.
const CACHE_BYTES: usize = 16 << 20;

/// One emulator table's entities: (PartitionKey, RowKey) → (ticks, entity JSON).
type Entities<'a> = TableDefinition<'a, (&'static str, &'static str), (i64, &'static [u8])>;

/// An emulator table's entities, open in a write transaction.
type EntitiesHandle<'txn> = redb::Table<'txn, (&'static str, &'static str), (i64, &'static [u8])>;

/// The redb table holding an emulator table's entities.
fn entities_table(account: &str, lowercase: &str) -> String {
    format!("entities/{account}/{lowercase}")
}

/// A redb error of any kind, boxed: redb's own error type is large, and only its message
/// is ever used.
#[derive(Debug)]
pub(crate) struct DbError(Box<redb::Error>);

impl<E: Into<redb::Error>> From<E> for DbError {
    fn from(err: E) -> Self {
        DbError(Box::new(err.into()))
    }
}

impl std::fmt::Display for DbError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// The open database file.
pub(crate) struct Database {
    db: redb::Database,
    path: PathBuf,
}

impl std::fmt::Debug for Database {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Database").finish_non_exhaustive()
    }
}

impl Database {
    /// Opens the database in `dir` (creating it, or migrating a journal found there, first)
    /// after verifying every checksum in it. Damage refuses the open with an error naming
    /// the file; nothing is repaired or skipped.
    pub(crate) fn open(dir: &Path) -> Result<Database, Error> {
        let io = |source| Error::Persistence {
            path: dir.to_owned(),
            source,
        };
        fs::create_dir_all(dir).map_err(io)?;
        let path = dir.join(FILE_NAME);
        let journal = dir.join(journal::FILE_NAME);
        let exists = path.try_exists().map_err(io)?;
        if !exists {
            let tables = match journal.try_exists().map_err(io)? {
                true => journal::replay(&journal)?,
                false => Vec::new(),
            };
            create(dir, &path, &journal, &tables)?;
        }
        let damaged = |problem: String| damaged(&path, problem);
        let db = verified(&path).map_err(|unusable| match unusable {
            Unusable::Held => Error::DataFile {
                path: path.clone(),
                problem: "another process holds it (another emulator on the same directory?); \
                          stop that one, or start on another directory"
                    .to_owned(),
            },
            Unusable::Damaged(problem) => damaged(problem),
        })?;
        let database = Database {
            db,
            path: path.clone(),
        };
        database.check_format().map_err(damaged)?;
        if journal.try_exists().map_err(io)? {
            database.finish_migration(&journal)?;
        }
        Ok(database)
    }

    /// Every table with its entities; an error naming the file when one does not read.
    pub(crate) fn tables(&self) -> Result<Vec<TableData>, Error> {
        self.read().map_err(|problem| damaged(&self.path, problem))
    }

    /// Applies `records` and notes `mark`, durable with one two-phase commit at the end.
    /// `mark` says which of the log's groups the file then holds: a crash before that
    /// commit leaves the earlier mark, and the groups are applied again from it (each record
    /// sets a value outright, so applying one twice changes nothing).
    ///
    /// A table written and then deleted in one transaction trips the storage library (the
    /// deleted table's pages, new in that transaction, are freed as if older), so such a
    /// deletion starts a transaction of its own, committed without a sync before it.
    pub(crate) fn checkpoint(&self, records: &[Record<'_>], mark: LogMark) -> Result<(), DbError> {
        let mut parts = deletion_bounded(records).peekable();
        while let Some(part) = parts.next() {
            if parts.peek().is_some() {
                let mut txn = self.db.begin_write()?;
                txn.set_durability(redb::Durability::None);
                apply_all(&txn, part)?;
                txn.commit()?;
                continue;
            }
            self.commit_marked(part, mark)?;
        }
        Ok(())
    }

    /// Applies `records` and notes `mark` in one durable, two-phase commit.
    fn commit_marked(&self, records: &[Record<'_>], mark: LogMark) -> Result<(), DbError> {
        let txn = begin(&self.db)?;
        apply_all(&txn, records)?;
        let mut meta = txn.open_table(META)?;
        meta.insert(LOG_THROUGH_KEY, mark.through)?;
        meta.insert(LOG_OPEN_KEY, u64::from(mark.open))?;
        drop(meta);
        txn.commit()?;
        Ok(())
    }

    /// What the last checkpoint noted of the write-ahead log; files older than the log
    /// have no mark, as if closed with nothing logged.
    pub(crate) fn log_mark(&self) -> Result<LogMark, Error> {
        (|| -> Result<LogMark, DbError> {
            let txn = self.db.begin_read()?;
            let meta = txn.open_table(META)?;
            let through = meta.get(LOG_THROUGH_KEY)?.map_or(0, |v| v.value());
            let open = meta.get(LOG_OPEN_KEY)?.is_some_and(|v| v.value() != 0);
            Ok(LogMark { through, open })
        })()
        .map_err(|e| damaged(&self.path, e.to_string()))
    }

    fn check_format(&self) -> Result<(), String> {
        let txn = self.db.begin_read().map_err(|e| e.to_string())?;
        let meta = txn.open_table(META).map_err(|e| e.to_string())?;
        match meta.get(FORMAT_KEY).map_err(|e| e.to_string())? {
            Some(format) if format.value() == FORMAT => Ok(()),
            Some(format) => Err(format!(
                "its format is {}, this emulator reads format {FORMAT}",
                format.value()
            )),
            None => Err("it holds no format version".to_owned()),
        }
    }

    /// The journal was migrated into this file if the file says so (a crash came between
    /// the two renames): set it aside now. Any other journal is refused, not merged.
    fn finish_migration(&self, journal: &Path) -> Result<(), Error> {
        let recorded = (|| -> Result<Option<(u64, u64)>, DbError> {
            let txn = self.db.begin_read()?;
            let meta = txn.open_table(META)?;
            let len = meta.get(JOURNAL_LEN_KEY)?.map(|v| v.value());
            let crc = meta.get(JOURNAL_CRC_KEY)?.map(|v| v.value());
            Ok(len.zip(crc))
        })()
        .map_err(|e| Error::DataFile {
            path: self.path.clone(),
            problem: e.to_string(),
        })?;
        let fingerprint = journal::fingerprint(journal)?;
        if recorded != Some(fingerprint) {
            return Err(Error::DataFile {
                path: journal.to_owned(),
                problem: format!(
                    "`{FILE_NAME}` already holds the data, so this journal is not migrated; \
                     move the journal away to start on `{FILE_NAME}`, or move `{FILE_NAME}` \
                     away to migrate the journal"
                ),
            });
        }
        journal::set_aside(journal)
    }

    /// Every table with its entities.
    fn read(&self) -> Result<Vec<TableData>, String> {
        let txn = self.db.begin_read().map_err(|e| e.to_string())?;
        let catalogue = txn.open_table(CATALOGUE).map_err(|e| e.to_string())?;
        let mut tables = Vec::new();
        for row in catalogue.iter().map_err(|e| e.to_string())? {
            let (key, name) = row.map_err(|e| e.to_string())?;
            let (account, lowercase) = key.value();
            let name = name.value().to_owned();
            let redb_name = entities_table(account, lowercase);
            let entities = txn
                .open_table(Entities::new(&redb_name))
                .map_err(|e| format!("table `{name}`: {e}"))?;
            let mut data = TableData {
                account: account.to_owned(),
                policies: read_policies(&txn, account, lowercase)
                    .map_err(|e| format!("table `{name}`: {e}"))?,
                name,
                entities: Vec::new(),
            };
            for row in entities.iter().map_err(|e| e.to_string())? {
                let (_, stored) = row.map_err(|e| e.to_string())?;
                let (ticks, json) = stored.value();
                data.entities.push(decode(ticks, json).ok_or_else(|| {
                    format!("an entity of table `{}` does not decode", data.name)
                })?);
            }
            tables.push(data);
        }
        Ok(tables)
    }
}

/// A table's stored access policies; none when the file predates them.
fn read_policies(
    txn: &redb::ReadTransaction,
    account: &str,
    lowercase: &str,
) -> Result<Vec<SignedIdentifier>, String> {
    let table = match txn.open_table(POLICIES) {
        Ok(table) => table,
        Err(redb::TableError::TableDoesNotExist(_)) => return Ok(Vec::new()),
        Err(e) => return Err(e.to_string()),
    };
    match table.get((account, lowercase)).map_err(|e| e.to_string())? {
        Some(xml) => access_policies_from_xml(xml.value().as_bytes()).map_err(|e| e.to_string()),
        None => Ok(Vec::new()),
    }
}

/// Opens the file and verifies every checksum in it (redb verifies them on its own only
/// after a crash). A check that had to repair something means a commit slot was damaged
/// and redb fell back to the commit before it: refused too, since that commit may have
/// been acknowledged (a crash's torn commit is rolled back by the open, before the check).
/// Some damage (a file shorter than its header says) makes redb panic rather than answer
/// an error: that is caught and reported as damage too.
fn verified(path: &Path) -> Result<redb::Database, Unusable> {
    let open = || -> Result<redb::Database, Unusable> {
        let mut db = builder().open(path).map_err(|e| match e {
            redb::DatabaseError::DatabaseAlreadyOpen => Unusable::Held,
            e => Unusable::Damaged(e.to_string()),
        })?;
        match db.check_integrity() {
            Ok(true) => Ok(db),
            Ok(false) => Err(Unusable::Damaged("its latest commit is damaged".to_owned())),
            Err(e) => Err(Unusable::Damaged(e.to_string())),
        }
    };
    quiet_panic::catch(open).unwrap_or_else(|message| {
        Err(Unusable::Damaged(format!(
            "it is not a whole database (the storage library found: {message})"
        )))
    })
}

/// Why the database file cannot be opened.
enum Unusable {
    /// Another process has it open: another emulator on the same directory, most often.
    Held,
    /// The file is damaged; what is wrong with it.
    Damaged(String),
}

/// A stored entity from its columns; `None` when they are not what [`apply`] wrote.
fn decode(ticks: i64, json: &[u8]) -> Option<Stored> {
    let mut entity = codec::decode_entity(json).ok()?;
    entity.set_timestamp(Some(value::from_ticks(ticks)?));
    Some(Stored::new(entity))
}

fn builder() -> redb::Builder {
    let mut builder = redb::Builder::new();
    // The format that later redb versions read.
    builder
        .set_cache_size(CACHE_BYTES)
        .create_with_file_format_v3(true);
    builder
}

/// A write transaction as every commit here needs it: durable on return (the default) and
/// two-phase, see the module docs.
fn begin(db: &redb::Database) -> Result<WriteTransaction, DbError> {
    let mut txn = db.begin_write()?;
    txn.set_two_phase_commit(true);
    Ok(txn)
}

/// `records` cut before each deletion of a table that the records before it in the same
/// part created or wrote; always at least one part (empty when `records` is).
fn deletion_bounded<'r, 'a>(records: &'r [Record<'a>]) -> impl Iterator<Item = &'r [Record<'a>]> {
    let mut cuts = Vec::new();
    let mut touched = std::collections::HashSet::new();
    for (at, record) in records.iter().enumerate() {
        if matches!(record, Record::SetPolicies { .. }) {
            continue;
        }
        let (account, table) = record.table();
        let name = entities_table(account, &table.to_ascii_lowercase());
        if matches!(record, Record::DeleteTable { .. }) && touched.contains(&name) {
            cuts.push(at);
            touched.clear();
        }
        touched.insert(name);
    }
    let ends = cuts.into_iter().chain([records.len()]);
    let mut start = 0;
    ends.map(move |end| {
        let part = &records[start..end];
        start = end;
        part
    })
}

/// How many records a checkpoint applies between offers of its core to other threads.
const YIELD_EVERY: usize = 16;

/// Applies `records` in order. A run of puts and deletes to one table (most of a
/// checkpoint) shares one open handle: opening a table is a lookup of its own.
fn apply_all(txn: &WriteTransaction, records: &[Record<'_>]) -> Result<(), DbError> {
    let mut open: Option<(String, EntitiesHandle<'_>)> = None;
    for (i, record) in records.iter().enumerate() {
        if i % YIELD_EVERY == YIELD_EVERY - 1 {
            // A checkpoint is tens of milliseconds of work on a core the commit thread
            // may need: woken by its log's sync, it runs at once rather than after a
            // scheduler slice, which every write in flight would wait out.
            std::thread::yield_now();
        }
        if !matches!(record, Record::Put { .. } | Record::Delete { .. }) {
            // Table-wide changes may delete the table the handle holds.
            drop(open.take());
            apply_to_tables(txn, record)?;
            continue;
        }
        let (account, table) = record.table();
        let name = entities_table(account, &table.to_ascii_lowercase());
        if open.as_ref().is_none_or(|(held, _)| *held != name) {
            drop(open.take());
            let handle = txn.open_table(Entities::new(&name))?;
            open = Some((name, handle));
        }
        if let Some((_, entities)) = &mut open {
            match *record {
                Record::Put {
                    partition_key,
                    row_key,
                    ticks,
                    json,
                    ..
                } => {
                    entities.insert((partition_key, row_key), (ticks, json))?;
                }
                Record::Delete {
                    partition_key,
                    row_key,
                    ..
                } => {
                    entities.remove((partition_key, row_key))?;
                }
                _ => {}
            }
        }
    }
    Ok(())
}

/// Applies a change to a table as a whole: its creation, deletion or access policies.
fn apply_to_tables(txn: &WriteTransaction, record: &Record<'_>) -> Result<(), DbError> {
    match *record {
        Record::CreateTable { account, table } => {
            let lowercase = table.to_ascii_lowercase();
            txn.open_table(CATALOGUE)?
                .insert((account, lowercase.as_str()), table)?;
            txn.open_table(Entities::new(&entities_table(account, &lowercase)))?;
        }
        Record::DeleteTable { account, table } => {
            let lowercase = table.to_ascii_lowercase();
            txn.open_table(CATALOGUE)?
                .remove((account, lowercase.as_str()))?;
            let name = entities_table(account, &lowercase);
            txn.delete_table(Entities::new(&name))?;
            txn.open_table(POLICIES)?
                .remove((account, lowercase.as_str()))?;
        }
        Record::SetPolicies {
            account,
            table,
            xml,
        } => {
            let lowercase = table.to_ascii_lowercase();
            let mut stored = txn.open_table(POLICIES)?;
            match xml.is_empty() {
                true => stored.remove((account, lowercase.as_str()))?,
                false => stored.insert((account, lowercase.as_str()), xml)?,
            };
        }
        // Not table-wide: the entity's own table.
        Record::Put { .. } | Record::Delete { .. } => apply_all(txn, std::slice::from_ref(record))?,
    }
    Ok(())
}

/// Makes a new database at `path` holding `tables` (a migrated journal's, or none): built
/// under a temporary name, then renamed into place, then the journal is set aside.
fn create(dir: &Path, path: &Path, journal: &Path, tables: &[TableData]) -> Result<(), Error> {
    let io = |source| Error::Persistence {
        path: dir.to_owned(),
        source,
    };
    let tmp = dir.join(format!("{FILE_NAME}.new"));
    // Left by a crash before its rename: it never held an acknowledged write.
    match fs::remove_file(&tmp) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(io(e)),
        _ => {}
    }
    let fingerprint = match journal.exists() {
        true => Some(journal::fingerprint(journal)?),
        false => None,
    };
    let failed = |e: DbError| Error::DataFile {
        path: tmp.clone(),
        problem: e.to_string(),
    };
    let db = builder().create(&tmp).map_err(|e| failed(e.into()))?;
    let txn = begin(&db).map_err(failed)?;
    (|| -> Result<(), DbError> {
        let mut meta = txn.open_table(META)?;
        meta.insert(FORMAT_KEY, FORMAT)?;
        if let Some((len, crc)) = fingerprint {
            meta.insert(JOURNAL_LEN_KEY, len)?;
            meta.insert(JOURNAL_CRC_KEY, crc)?;
        }
        drop(meta);
        txn.open_table(CATALOGUE)?;
        txn.open_table(POLICIES)?;
        for table in tables {
            let (account, name) = (table.account.as_str(), table.name.as_str());
            apply_all(
                &txn,
                &[Record::CreateTable {
                    account,
                    table: name,
                }],
            )?;
            for entity in &table.entities {
                apply_all(
                    &txn,
                    &[Record::Put {
                        account,
                        table: name,
                        partition_key: &entity.partition_key(),
                        row_key: &entity.row_key(),
                        ticks: value::to_ticks(&entity.timestamp()),
                        json: &entity.object(),
                    }],
                )?;
            }
        }
        Ok(())
    })()
    .map_err(failed)?;
    txn.commit().map_err(|e| failed(e.into()))?;
    drop(db);
    fs::rename(&tmp, path).map_err(io)?;
    sync_dir(dir).map_err(io)?;
    if fingerprint.is_some() {
        journal::set_aside(journal)?;
    }
    Ok(())
}

/// The names of the redb tables in the file: for tests that check none is left behind.
#[cfg(test)]
fn redb_tables(db: &Database) -> Vec<String> {
    use redb::TableHandle;
    let txn = db.db.begin_read().unwrap();
    txn.list_tables()
        .unwrap()
        .map(|t| t.name().to_owned())
        .collect()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::storage::change::QueuedWrite;
    use crate::storage::log_record;
    use tablekit::DynamicEntity;

    const ACCOUNT: &str = "acct";

    fn put(table: &str, rk: &str, n: i32) -> QueuedWrite {
        let mut e = DynamicEntity::new("p", rk);
        e.set("N", n);
        e.set_timestamp(value::from_ticks(638_000_000_000_000_001));
        QueuedWrite::Put {
            account: ACCOUNT.into(),
            table: table.into(),
            entity: Arc::new(Stored::new(e)),
        }
    }

    fn create(table: &str) -> QueuedWrite {
        QueuedWrite::CreateTable {
            account: ACCOUNT.into(),
            table: table.into(),
        }
    }

    /// Commits `writes` durably, as a replayed group is.
    fn commit(db: &Database, writes: &[QueuedWrite]) {
        let bytes = log_record::encode(writes);
        let records = log_record::decode(&bytes).unwrap();
        db.checkpoint(&records, LogMark::default()).unwrap();
    }

    #[test]
    fn commits_read_back_after_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let db = Database::open(dir.path()).unwrap();
        assert!(db.tables().unwrap().is_empty());
        commit(&db, &[create("Orders")]);
        commit(&db, &[put("Orders", "a", 1), put("Orders", "b", 2)]);
        let delete = QueuedWrite::Delete {
            account: ACCOUNT.into(),
            table: "Orders".into(),
            partition_key: "p".into(),
            row_key: "a".into(),
        };
        commit(&db, &[delete]);
        drop(db);
        let tables = Database::open(dir.path()).unwrap().tables().unwrap();
        assert_eq!(tables.len(), 1);
        assert_eq!(
            (tables[0].account.as_str(), tables[0].name.as_str()),
            (ACCOUNT, "Orders")
        );
        let [only] = &tables[0].entities[..] else {
            panic!("{:?}", tables[0].entities)
        };
        assert_eq!(only.row_key(), "b");
        assert_eq!(only.entity().get::<i32>("N"), Some(2));
        assert_eq!(
            only.timestamp(),
            value::from_ticks(638_000_000_000_000_001).unwrap()
        );
    }

    #[test]
    fn a_checkpoint_notes_its_mark() {
        let dir = tempfile::tempdir().unwrap();
        let db = Database::open(dir.path()).unwrap();
        assert_eq!(db.log_mark().unwrap(), LogMark::default());
        let mark = LogMark {
            through: 7,
            open: true,
        };
        let bytes = log_record::encode(&[create("Orders"), put("Orders", "a", 1)]);
        db.checkpoint(&log_record::decode(&bytes).unwrap(), mark)
            .unwrap();
        drop(db);
        let db = Database::open(dir.path()).unwrap();
        assert_eq!(db.log_mark().unwrap(), mark);
        assert_eq!(db.tables().unwrap()[0].entities.len(), 1);
    }

    #[test]
    fn a_table_created_written_and_deleted_in_one_checkpoint_is_gone() {
        let dir = tempfile::tempdir().unwrap();
        let db = Database::open(dir.path()).unwrap();
        let delete = || QueuedWrite::DeleteTable {
            account: ACCOUNT.into(),
            table: "Orders".into(),
        };
        let writes = [
            create("Orders"),
            put("Orders", "a", 1),
            delete(),
            create("Orders"),
            put("Orders", "b", 2),
            delete(),
            create("Orders"),
            put("Orders", "c", 3),
        ];
        let bytes = log_record::encode(&writes);
        let records = log_record::decode(&bytes).unwrap();
        assert_eq!(
            deletion_bounded(&records)
                .map(<[_]>::len)
                .collect::<Vec<_>>(),
            [2, 3, 3]
        );
        let mark = LogMark {
            through: 3,
            open: true,
        };
        db.checkpoint(&records, mark).unwrap();
        drop(db);
        let db = Database::open(dir.path()).unwrap();
        assert_eq!(db.log_mark().unwrap(), mark);
        let tables = db.tables().unwrap();
        let rows: Vec<_> = tables[0].entities.iter().map(|e| e.row_key()).collect();
        assert_eq!(rows, ["c"]);
        assert!(deletion_bounded(&[]).eq([&[][..]]));
    }

    #[test]
    fn a_deleted_table_leaves_nothing_behind() {
        let dir = tempfile::tempdir().unwrap();
        let db = Database::open(dir.path()).unwrap();
        commit(&db, &[create("Orders")]);
        commit(&db, &[put("Orders", "a", 1)]);
        let policies = vec![tablekit::client::SignedIdentifier::new(
            "readers",
            tablekit::client::AccessPolicy::new(),
        )];
        let set = QueuedWrite::SetPolicies {
            account: ACCOUNT.into(),
            table: "Orders".into(),
            policies,
        };
        commit(&db, &[set]);
        let delete = QueuedWrite::DeleteTable {
            account: ACCOUNT.into(),
            table: "ORDERS".into(),
        };
        commit(&db, &[delete]);
        // The shared tables stay; the policies' row went with the table.
        assert_eq!(redb_tables(&db), ["access policies", "meta", "tables"]);
        let txn = db.db.begin_read().unwrap();
        assert!(read_policies(&txn, ACCOUNT, "orders").unwrap().is_empty());
        drop(txn);
        drop(db);
        assert!(Database::open(dir.path())
            .unwrap()
            .tables()
            .unwrap()
            .is_empty());
    }
}
