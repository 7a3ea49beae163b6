//! Test fixtures: a unique table per test, dropped when the test ends, and seeding and
//! inspection helpers that work on the emulator's store directly (no HTTP, no client).
//!
//! Because the emulator runs in the test's process, dropping a [`TestTable`] deletes the
//! table synchronously: there is no async drop to wait for, and a panicking test still
//! cleans up. (A fixture for a remote server could only start a deletion from `Drop`.)

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use tablekit::{limits, DynamicEntity};

use crate::error::Result;
use crate::http::server::Emulator;
use crate::pipeline::state::State;
use crate::storage::store::Change;
use crate::storage::stored::Stored;

static NEXT_TABLE: AtomicU64 = AtomicU64::new(0);

impl Emulator {
    /// Creates a table in the primary account, as `POST /Tables` would.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), tablekit_emulator::Error> {
    /// let emulator = tablekit_emulator::Emulator::start().await?;
    /// emulator.create_table("Gamers")?;
    /// assert!(emulator.create_table("gamers").is_err()); // names are case-insensitive
    /// # Ok(()) }
    /// ```
    pub fn create_table(&self, name: &str) -> Result<()> {
        limits::validate_table_name(name)?;
        self.state.store.create_table(self.account(), name)?;
        self.state.store.settled_blocking()?;
        Ok(())
    }

    /// Deletes a table of the primary account and its entities.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), tablekit_emulator::Error> {
    /// let emulator = tablekit_emulator::Emulator::start().await?;
    /// emulator.create_table("Gamers")?;
    /// emulator.delete_table("Gamers")?;
    /// assert!(emulator.table_names().is_empty());
    /// assert!(emulator.delete_table("Gamers").is_err()); // already gone
    /// # Ok(()) }
    /// ```
    pub fn delete_table(&self, name: &str) -> Result<()> {
        self.state.store.delete_table(self.account(), name)?;
        self.state.store.settled_blocking()?;
        Ok(())
    }

    /// The primary account's table names, in listing order.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), tablekit_emulator::Error> {
    /// let emulator = tablekit_emulator::Emulator::start().await?;
    /// emulator.create_table("Orders")?;
    /// emulator.create_table("Gamers")?;
    /// assert_eq!(emulator.table_names(), ["Gamers", "Orders"]);
    /// # Ok(()) }
    /// ```
    pub fn table_names(&self) -> Vec<String> {
        self.state.store.table_names(self.account())
    }

    /// Stores entities as inserts would (validated, stamped with a Timestamp; an existing
    /// entity is an error), all or none.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), tablekit_emulator::Error> {
    /// use tablekit::DynamicEntity;
    /// let emulator = tablekit_emulator::Emulator::start().await?;
    /// emulator.create_table("Gamers")?;
    /// let mut e = DynamicEntity::new("dragon", "");
    /// e.set("Score", 10);
    /// emulator.seed("Gamers", [e])?;
    /// assert_eq!(emulator.entities("Gamers")?[0].get::<i32>("Score"), Some(10));
    /// # Ok(()) }
    /// ```
    pub fn seed(
        &self,
        table: &str,
        entities: impl IntoIterator<Item = DynamicEntity>,
    ) -> Result<usize> {
        seed(&self.state, self.account(), table, entities)
    }

    /// Every entity of a table in key order (with Timestamps), for assertions.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), tablekit_emulator::Error> {
    /// use tablekit::DynamicEntity;
    /// let emulator = tablekit_emulator::Emulator::start().await?;
    /// emulator.create_table("Gamers")?;
    /// emulator.seed("Gamers", [DynamicEntity::new("b", ""), DynamicEntity::new("a", "")])?;
    /// let stored = emulator.entities("Gamers")?;
    /// let keys: Vec<&str> = stored.iter().map(|e| e.partition_key()).collect();
    /// assert_eq!(keys, ["a", "b"]);
    /// assert!(stored.iter().all(|e| e.timestamp().is_some()));
    /// # Ok(()) }
    /// ```
    pub fn entities(&self, table: &str) -> Result<Vec<DynamicEntity>> {
        entities(&self.state, self.account(), table)
    }

    /// A new table named `prefix` plus a unique suffix, deleted when the returned fixture
    /// drops.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), tablekit_emulator::Error> {
    /// let emulator = tablekit_emulator::Emulator::start().await?;
    /// let name = {
    ///     let table = emulator.unique_table("Orders")?;
    ///     assert!(table.name().starts_with("Orders"));
    ///     assert_eq!(emulator.table_names(), vec![table.name().to_owned()]);
    ///     table.name().to_owned()
    /// };
    /// assert!(emulator.table_names().is_empty(), "{name} was dropped");
    /// # Ok(()) }
    /// ```
    pub fn unique_table(&self, prefix: &str) -> Result<TestTable> {
        let prefix: String = prefix
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .take(40)
            .collect();
        let prefix = if prefix.starts_with(|c: char| c.is_ascii_alphabetic()) {
            prefix
        } else {
            format!("t{prefix}")
        };
        let n = NEXT_TABLE.fetch_add(1, Ordering::Relaxed);
        let salt = uuid::Uuid::new_v4().simple().to_string();
        let name = format!("{prefix}{n}x{}", salt.get(..8).unwrap_or_default());
        self.create_table(&name)?;
        Ok(TestTable {
            name,
            account: self.account().to_owned(),
            state: self.state.clone(),
        })
    }
}

/// A table that exists for one test: deleted (with its entities) on drop.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use tablekit::DynamicEntity;
/// let emulator = tablekit_emulator::Emulator::start().await?;
/// let client = emulator.client();
/// {
///     let fixture = emulator.unique_table("Gamers")?;
///     let table = client.table_named::<DynamicEntity>(fixture.name());
///     table.insert(&mut DynamicEntity::new("dragon", "")).await?;
///     assert_eq!(fixture.entities()?.len(), 1);
/// }
/// assert!(emulator.table_names().is_empty()); // dropped, entities and all
/// # Ok(()) }
/// ```
pub struct TestTable {
    name: String,
    account: String,
    state: Arc<State>,
}

impl std::fmt::Debug for TestTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestTable")
            .field("name", &self.name)
            .finish()
    }
}

impl TestTable {
    /// The table's name: the prefix given, then a suffix unique in the process, so tests
    /// sharing one emulator do not collide.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), tablekit_emulator::Error> {
    /// let emulator = tablekit_emulator::Emulator::start().await?;
    /// let (a, b) = (emulator.unique_table("Gamers")?, emulator.unique_table("Gamers")?);
    /// assert!(a.name().starts_with("Gamers"));
    /// assert_ne!(a.name(), b.name());
    /// # Ok(()) }
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Stores entities (see [`Emulator::seed`]): all or none.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), tablekit_emulator::Error> {
    /// use tablekit::DynamicEntity;
    /// let emulator = tablekit_emulator::Emulator::start().await?;
    /// let table = emulator.unique_table("Gamers")?;
    /// assert_eq!(table.seed([DynamicEntity::new("a", ""), DynamicEntity::new("b", "")])?, 2);
    /// // "a" exists already: "c" is not stored either.
    /// assert!(table.seed([DynamicEntity::new("c", ""), DynamicEntity::new("a", "")]).is_err());
    /// assert_eq!(table.entities()?.len(), 2);
    /// # Ok(()) }
    /// ```
    pub fn seed(&self, entities: impl IntoIterator<Item = DynamicEntity>) -> Result<usize> {
        seed(&self.state, &self.account, &self.name, entities)
    }

    /// Every entity in key order (see [`Emulator::entities`]).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use tablekit::DynamicEntity;
    /// let emulator = tablekit_emulator::Emulator::start().await?;
    /// let table = emulator.unique_table("Gamers")?;
    /// let client = emulator.client();
    /// let mut gamer = DynamicEntity::new("dragon", "");
    /// gamer.set("Score", 10);
    /// client.table_named::<DynamicEntity>(table.name()).upsert_merge(&mut gamer).await?;
    /// assert_eq!(table.entities()?[0].get::<i32>("Score"), Some(10));
    /// # Ok(()) }
    /// ```
    pub fn entities(&self) -> Result<Vec<DynamicEntity>> {
        entities(&self.state, &self.account, &self.name)
    }
}

impl Drop for TestTable {
    fn drop(&mut self) {
        // The test may already have deleted it.
        let _ = self.state.store.delete_table(&self.account, &self.name);
    }
}

pub(crate) fn seed(
    state: &State,
    account: &str,
    table: &str,
    entities: impl IntoIterator<Item = DynamicEntity>,
) -> Result<usize> {
    let table = state.store.table(account, table)?;
    let mut table = table.write().unwrap_or_else(|e| e.into_inner());
    // A set of the keys seen so far keeps seeding linear: comparing each entity with every
    // earlier one made 100,000 entities take half an hour in a debug build.
    let mut seen = HashSet::new();
    let mut changes = Vec::new();
    for mut entity in entities {
        // The flavor's checks too, as every write of the emulator's has them.
        state.limits.validate_entity(&entity)?;
        let key = crate::storage::store::entity_key(entity.partition_key(), entity.row_key());
        if table.entities.contains_key(&key) || !seen.insert(key) {
            return Err(crate::format::error_response::ErrorResponse::entity_exists().into());
        }
        entity.set_etag(None);
        entity.set_timestamp(Some(state.store.next_timestamp()));
        changes.push(Change::Put(Arc::new(Stored::new(entity))));
    }
    let count = changes.len();
    state.store.commit(account, &mut table, changes)?;
    drop(table);
    state.store.settled_blocking()?;
    Ok(count)
}

fn entities(state: &State, account: &str, table: &str) -> Result<Vec<DynamicEntity>> {
    let table = state.store.table(account, table)?;
    let table = table.read().unwrap_or_else(|e| e.into_inner());
    Ok(table.entities.values().map(|e| e.entity()).collect())
}
