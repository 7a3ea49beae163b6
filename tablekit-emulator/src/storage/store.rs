//! The emulator's storage: per account, case-insensitive table names, and per table an
//! ordered map from (PartitionKey, RowKey) to entity, ordered by UTF-16 code units as the
//! service orders results.
//!
//! Locks are held only for the synchronous work of one request (never across an `.await`),
//! so concurrent requests are safe and a batch applies atomically under its table's lock.
//! With a directory, every change is queued to be made durable by the [`Committer`] (each
//! request's changes whole, concurrent requests' in one commit: see
//! [`group_commit`](crate::storage::group_commit)) as it is applied, every answer waits until what it
//! may show is durable ([`Store::settled`]), and the tables are read from the database on
//! start: memory serves every read, the database is the durable copy.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicI64, Ordering as AtomicOrdering};
use std::sync::{Arc, RwLock};

use chrono::{DateTime, Utc};
use http::StatusCode;
use tablekit::client::SignedIdentifier;
use tablekit::value;
use tablekit::SmolStr;

use crate::error::Error;
use crate::format::error_response::ErrorResponse;
use crate::query::filter::utf16_cmp;
use crate::storage::change::QueuedWrite;
use crate::storage::committer::Committer;
use crate::storage::group_commit::{GroupCommit, Refused};
use crate::storage::stored::Stored;

/// A key ordered by UTF-16 code units (the service's order), not by bytes. Up to 23 bytes
/// are held inline (most keys): a stored entity's keys then take no allocation of their own.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Key(pub(crate) SmolStr);

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
    (Key(pk.into()), Key(rk.into()))
}

/// One table: its name as created, and its entities in key order.
#[derive(Debug, Default)]
pub(crate) struct Table {
    pub(crate) name: String,
    /// Shared, so a read copies pointers under the lock and writes its answer after it.
    pub(crate) entities: BTreeMap<EntityKey, Arc<Stored>>,
    /// Set when the table is deleted while a request still holds it.
    pub(crate) deleted: bool,
    /// Its stored access policies (Set Table ACL), at most five.
    pub(crate) policies: Vec<SignedIdentifier>,
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
    /// With a data directory: makes the changes durable before their answers go out.
    durable: Option<GroupCommit>,
}

impl Store {
    /// An empty in-memory store.
    pub(crate) fn in_memory() -> Self {
        Store {
            tables: RwLock::new(BTreeMap::new()),
            last_ticks: AtomicI64::new(0),
            durable: None,
        }
    }

    /// A store persisted in `dir`, holding the tables found there.
    pub(crate) fn open(dir: &Path) -> Result<Self, Error> {
        let (committer, tables) = Committer::open(dir)?;
        let mut store = Store::in_memory();
        let mut map = BTreeMap::new();
        let mut last_ticks = 0;
        for data in tables {
            let mut table = Table {
                name: data.name,
                policies: data.policies,
                ..Table::default()
            };
            for entity in data.entities {
                let ticks = value::to_ticks(&entity.timestamp());
                last_ticks = last_ticks.max(ticks);
                apply(&mut table, Change::Put(Arc::new(entity)));
            }
            let key = (data.account, table.name.to_ascii_lowercase());
            map.insert(key, Arc::new(RwLock::new(table)));
        }
        store.tables = RwLock::new(map);
        store.last_ticks = AtomicI64::new(last_ticks);
        let durable = GroupCommit::start(committer).map_err(|source| Error::Persistence {
            path: dir.to_owned(),
            source,
        })?;
        store.durable = Some(durable);
        Ok(store)
    }

    /// Closes the database once the commits in flight are durable, so another emulator can
    /// open the directory at once; later writes are refused, never acknowledged undurably.
    pub(crate) fn close(&self) {
        if let Some(durable) = &self.durable {
            durable.close();
        }
    }

    /// Whether changes are written to a data directory: in memory, every change is
    /// [`settled`](Self::settled) as soon as it is applied.
    pub(crate) fn is_durable(&self) -> bool {
        self.durable.is_some()
    }

    /// Waits until every change applied so far is durable (at once in memory): an answer
    /// made from the tables as they are now may then go out. An error when it never will be.
    pub(crate) async fn settled(&self) -> Result<(), ErrorResponse> {
        match &self.durable {
            Some(durable) => durable.settled().await.map_err(refusal),
            None => Ok(()),
        }
    }

    /// [`settled`](Self::settled), blocking the thread: for the emulator's own methods,
    /// which are not `async`.
    pub(crate) fn settled_blocking(&self) -> Result<(), ErrorResponse> {
        match &self.durable {
            Some(durable) => futures::executor::block_on(durable.settled()).map_err(refusal),
            None => Ok(()),
        }
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
    pub(crate) fn create_table(&self, account: &str, name: &str) -> Result<(), ErrorResponse> {
        let mut tables = self.write_tables();
        let key = (account.to_owned(), name.to_ascii_lowercase());
        if tables.contains_key(&key) {
            return Err(ErrorResponse::table_exists());
        }
        self.log(|| {
            vec![QueuedWrite::CreateTable {
                account: account.to_owned(),
                table: name.to_owned(),
            }]
        })?;
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
    pub(crate) fn delete_table(&self, account: &str, name: &str) -> Result<(), ErrorResponse> {
        let mut tables = self.write_tables();
        let key = (account.to_owned(), name.to_ascii_lowercase());
        let Some(table) = tables.get(&key).cloned() else {
            return Err(ErrorResponse::resource_not_found());
        };
        // Locked before the deletion is made durable, so a write to the table in flight is
        // durable before it and not after it (where it would outlive the table).
        let mut table = table.write().unwrap_or_else(|e| e.into_inner());
        self.log(|| {
            vec![QueuedWrite::DeleteTable {
                account: account.to_owned(),
                table: name.to_owned(),
            }]
        })?;
        table.deleted = true;
        tables.remove(&key);
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
    pub(crate) fn table(&self, account: &str, name: &str) -> Result<TableRef, ErrorResponse> {
        self.read_tables()
            .get(&(account.to_owned(), name.to_ascii_lowercase()))
            .cloned()
            .ok_or_else(ErrorResponse::table_not_found)
    }

    /// Replaces a table's stored access policies, durably first when persistent; 404
    /// TableNotFound when there is no such table.
    pub(crate) fn set_policies(
        &self,
        account: &str,
        name: &str,
        policies: Vec<SignedIdentifier>,
    ) -> Result<(), ErrorResponse> {
        let table = self.table(account, name)?;
        let mut table = table.write().unwrap_or_else(|e| e.into_inner());
        if table.deleted {
            return Err(ErrorResponse::table_not_found());
        }
        self.log(|| {
            vec![QueuedWrite::SetPolicies {
                account: account.to_owned(),
                table: table.name.clone(),
                policies: policies.clone(),
            }]
        })?;
        table.policies = policies;
        Ok(())
    }

    /// A table's stored access policies; 404 TableNotFound when there is no such table.
    pub(crate) fn policies(
        &self,
        account: &str,
        name: &str,
    ) -> Result<Vec<SignedIdentifier>, ErrorResponse> {
        let table = self.table(account, name)?;
        let table = table.read().unwrap_or_else(|e| e.into_inner());
        Ok(table.policies.clone())
    }

    /// Applies changes to a locked table, queueing them to be made durable (together) when
    /// persistent; when they cannot be queued, nothing is applied (not acknowledged).
    pub(crate) fn commit(
        &self,
        account: &str,
        table: &mut Table,
        changes: Vec<Change>,
    ) -> Result<(), ErrorResponse> {
        self.log(|| {
            let name = &table.name;
            changes
                .iter()
                .map(|change| match change {
                    Change::Put(entity) => QueuedWrite::Put {
                        account: account.to_owned(),
                        table: name.clone(),
                        entity: entity.clone(),
                    },
                    Change::Delete(pk, rk) => QueuedWrite::Delete {
                        account: account.to_owned(),
                        table: name.clone(),
                        partition_key: pk.clone(),
                        row_key: rk.clone(),
                    },
                })
                .collect()
        })?;
        for change in changes {
            apply(table, change);
        }
        Ok(())
    }

    /// Queues one request's changes to be made durable (a no-op in memory, where `writes` is
    /// not even called). The caller holds the locks it applies them under.
    fn log(&self, writes: impl FnOnce() -> Vec<QueuedWrite>) -> Result<(), ErrorResponse> {
        match &self.durable {
            Some(durable) => durable.queue(writes()).map_err(refusal),
            None => Ok(()),
        }
    }
}

/// The answer to a change that cannot be made durable.
fn refusal(refused: Refused) -> ErrorResponse {
    match refused {
        Refused::Closed => ErrorResponse::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "ServerBusy",
            "The emulator is shutting down; the write was not applied.",
        ),
        Refused::Failed => ErrorResponse::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "InternalError",
            "The emulator could not make a write durable; restart it on its data directory \
             to serve what is durable.",
        ),
    }
}

fn apply(table: &mut Table, change: Change) {
    match change {
        Change::Put(entity) => {
            let key = entity_key(&entity.partition_key(), &entity.row_key());
            table.entities.insert(key, entity);
        }
        Change::Delete(pk, rk) => {
            table.entities.remove(&(Key(pk.into()), Key(rk.into())));
        }
    }
}
