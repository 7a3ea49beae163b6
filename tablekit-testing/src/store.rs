//! The emulator's storage: per account, case-insensitive table names, and per table an
//! ordered map from (PartitionKey, RowKey) to entity, ordered by UTF-16 code units as the
//! service orders results.
//!
//! Locks are held only for the synchronous work of one request (never across an `.await`),
//! so concurrent requests are safe and a batch applies atomically under its table's lock.
//! With a directory, every change is made durable in the [`Journal`] before it is applied
//! and answered, and the journal is replayed (then compacted) on start.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicI64, Ordering as AtomicOrdering};
use std::sync::{Arc, Mutex, RwLock};

use chrono::{DateTime, Utc};
use http::StatusCode;
use tablekit::{codec, value};

use crate::filter::utf16_cmp;
use crate::journal::{Journal, Record};
use crate::service_error::ServiceError;
use crate::stored::Stored;

/// A key ordered by UTF-16 code units (the service's order), not by bytes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Key(pub(crate) String);

impl Ord for Key {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        utf16_cmp(&self.0, &other.0)
    }
}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// (PartitionKey, RowKey).
pub(crate) type EntityKey = (Key, Key);

/// The key of an entity.
pub(crate) fn entity_key(pk: &str, rk: &str) -> EntityKey {
    (Key(pk.to_owned()), Key(rk.to_owned()))
}

/// One table: its name as created, and its entities in key order.
#[derive(Debug, Default)]
pub(crate) struct Table {
    pub(crate) name: String,
    /// Shared, so a read copies pointers under the lock and writes its answer after it.
    pub(crate) entities: BTreeMap<EntityKey, Arc<Stored>>,
    /// Set when the table is deleted while a request still holds it.
    pub(crate) deleted: bool,
}

/// A change to commit to a table.
#[derive(Clone, Debug)]
pub(crate) enum Change {
    /// Store this entity (Timestamp set) under its keys.
    Put(Arc<Stored>),
    /// Remove the entity with these keys.
    Delete(String, String),
}

type TableRef = Arc<RwLock<Table>>;

/// All accounts' tables.
#[derive(Debug)]
pub(crate) struct Store {
    /// Keyed by (account, lowercase table name): table names are case-insensitive.
    tables: RwLock<BTreeMap<(String, String), TableRef>>,
    last_ticks: AtomicI64,
    journal: Option<Mutex<Journal>>,
}

impl Store {
    /// An empty in-memory store.
    pub(crate) fn in_memory() -> Self {
        Store {
            tables: RwLock::new(BTreeMap::new()),
            last_ticks: AtomicI64::new(0),
            journal: None,
        }
    }

    /// A store persisted in `dir`: replays the journal found there, then compacts it.
    pub(crate) fn open(dir: &Path) -> std::io::Result<Self> {
        let mut store = Store::in_memory();
        for record in Journal::read(dir)? {
            store.replay(record);
        }
        let journal = Journal::rewrite(dir, store.snapshot())?;
        store.journal = Some(Mutex::new(journal));
        Ok(store)
    }

    /// A fresh write time, strictly later than every earlier one, so every write gets a new
    /// ETag even within one clock tick.
    pub(crate) fn next_timestamp(&self) -> DateTime<Utc> {
        let now = value::to_ticks(&Utc::now());
        let mut last = self.last_ticks.load(AtomicOrdering::Relaxed);
        loop {
            let next = now.max(last + 1);
            match self.last_ticks.compare_exchange_weak(
                last,
                next,
                AtomicOrdering::Relaxed,
                AtomicOrdering::Relaxed,
            ) {
                Ok(_) => return value::from_ticks(next).unwrap_or_else(Utc::now),
                Err(seen) => last = seen,
            }
        }
    }

    fn read_tables(&self) -> std::sync::RwLockReadGuard<'_, BTreeMap<(String, String), TableRef>> {
        // A panic while holding the lock cannot leave the map half-changed: recover it.
        self.tables.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write_tables(
        &self,
    ) -> std::sync::RwLockWriteGuard<'_, BTreeMap<(String, String), TableRef>> {
        self.tables.write().unwrap_or_else(|e| e.into_inner())
    }

    /// Creates a table; 409 TableAlreadyExists when the name exists in any letter case.
    pub(crate) fn create_table(&self, account: &str, name: &str) -> Result<(), ServiceError> {
        let mut tables = self.write_tables();
        let key = (account.to_owned(), name.to_ascii_lowercase());
        if tables.contains_key(&key) {
            return Err(ServiceError::table_exists());
        }
        self.log(vec![Record::CreateTable {
            account: account.to_owned(),
            table: name.to_owned(),
        }])?;
        tables.insert(
            key,
            Arc::new(RwLock::new(Table {
                name: name.to_owned(),
                ..Table::default()
            })),
        );
        Ok(())
    }

    /// Deletes a table and its entities; 404 ResourceNotFound when there is none.
    pub(crate) fn delete_table(&self, account: &str, name: &str) -> Result<(), ServiceError> {
        let mut tables = self.write_tables();
        let key = (account.to_owned(), name.to_ascii_lowercase());
        if !tables.contains_key(&key) {
            return Err(ServiceError::resource_not_found());
        }
        self.log(vec![Record::DeleteTable {
            account: account.to_owned(),
            table: name.to_owned(),
        }])?;
        if let Some(table) = tables.remove(&key) {
            table.write().unwrap_or_else(|e| e.into_inner()).deleted = true;
        }
        Ok(())
    }

    /// The account's table names as created, in the service's order.
    pub(crate) fn table_names(&self, account: &str) -> Vec<String> {
        let tables = self.read_tables();
        let mut names: Vec<String> = tables
            .iter()
            .filter(|((a, _), _)| a == account)
            .map(|(_, t)| t.read().unwrap_or_else(|e| e.into_inner()).name.clone())
            .collect();
        names.sort_by(|a, b| utf16_cmp(a, b));
        names
    }

    /// The table, or 404 TableNotFound.
    pub(crate) fn table(&self, account: &str, name: &str) -> Result<TableRef, ServiceError> {
        self.read_tables()
            .get(&(account.to_owned(), name.to_ascii_lowercase()))
            .cloned()
            .ok_or_else(ServiceError::table_not_found)
    }

    /// Applies changes to a locked table, journaling them first when persistent; when the
    /// journal cannot be written nothing is applied (500: the write is not acknowledged).
    pub(crate) fn commit(
        &self,
        account: &str,
        table: &mut Table,
        changes: Vec<Change>,
    ) -> Result<(), ServiceError> {
        if self.journal.is_some() {
            let records = changes
                .iter()
                .map(|change| Record::from_change(account, &table.name, change))
                .collect();
            self.log(records)?;
        }
        for change in changes {
            apply(table, change);
        }
        Ok(())
    }

    /// Makes one commit durable (a no-op in memory).
    fn log(&self, records: Vec<Record>) -> Result<(), ServiceError> {
        let Some(journal) = &self.journal else {
            return Ok(());
        };
        let mut journal = journal.lock().unwrap_or_else(|e| e.into_inner());
        journal.append(records).map_err(|err| {
            tracing::error!("cannot write the emulator journal: {err}");
            ServiceError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "InternalError",
                "The emulator could not make the write durable; it was not applied.",
            )
        })
    }

    fn replay(&mut self, record: Record) {
        match record {
            Record::CreateTable { account, table } => {
                let _ = self.create_table(&account, &table);
            }
            Record::DeleteTable { account, table } => {
                let _ = self.delete_table(&account, &table);
            }
            Record::Put {
                account,
                table,
                timestamp,
                entity,
            } => {
                let (Ok(table), Ok(mut entity), Some(ts)) = (
                    self.table(&account, &table),
                    codec::decode_entity(entity.as_bytes()),
                    codec::parse_datetime(&timestamp),
                ) else {
                    return;
                };
                entity.set_timestamp(Some(ts));
                self.last_ticks
                    .fetch_max(value::to_ticks(&ts), AtomicOrdering::Relaxed);
                apply(
                    &mut table.write().unwrap_or_else(|e| e.into_inner()),
                    Change::Put(Arc::new(Stored::new(entity))),
                );
            }
            Record::Delete {
                account,
                table,
                partition_key,
                row_key,
            } => {
                if let Ok(table) = self.table(&account, &table) {
                    apply(
                        &mut table.write().unwrap_or_else(|e| e.into_inner()),
                        Change::Delete(partition_key, row_key),
                    );
                }
            }
            Record::Batch { records } => {
                for record in records {
                    self.replay(record);
                }
            }
        }
    }

    /// The current state as records: every table, then its entities.
    fn snapshot(&self) -> Vec<Record> {
        let mut records = Vec::new();
        for ((account, _), table) in self.read_tables().iter() {
            let table = table.read().unwrap_or_else(|e| e.into_inner());
            records.push(Record::CreateTable {
                account: account.clone(),
                table: table.name.clone(),
            });
            for entity in table.entities.values() {
                records.push(Record::from_change(
                    account,
                    &table.name,
                    &Change::Put(entity.clone()),
                ));
            }
        }
        records
    }
}

fn apply(table: &mut Table, change: Change) {
    match change {
        Change::Put(entity) => {
            let key = entity_key(entity.partition_key(), entity.row_key());
            table.entities.insert(key, entity);
        }
        Change::Delete(pk, rk) => {
            table.entities.remove(&(Key(pk), Key(rk)));
        }
    }
}

impl Record {
    fn from_change(account: &str, table: &str, change: &Change) -> Record {
        match change {
            Change::Put(entity) => Record::Put {
                account: account.to_owned(),
                table: table.to_owned(),
                timestamp: entity
                    .timestamp()
                    .map(|t| codec::format_datetime(&t))
                    .unwrap_or_default(),
                entity: String::from_utf8_lossy(&codec::encode_entity(entity)).into_owned(),
            },
            Change::Delete(pk, rk) => Record::Delete {
                account: account.to_owned(),
                table: table.to_owned(),
                partition_key: pk.clone(),
                row_key: rk.clone(),
            },
        }
    }
}
