//! [`Table<M>`]: the typed handle application repositories are built on: which table, on
//! which client, read as which model; the table's own operations and the point read.
//!
//! Every operation validates before sending (table name, keys, property names and values,
//! entity size), so a call the service would refuse fails with [`Error::InvalidInput`] and
//! nothing is sent. Every public method of the handle is declared here, so its whole surface
//! reads in one file; the operations on entities are thin and delegate to the module doing the
//! work (reads in `read`, writes in `write`, queries in `pages`, transactions in `batch`,
//! index lookups in `indexed`; the re-reads that settle a lost answer are in `applied`).
//! The storage patterns add [`update_with_retry`](Table::update_with_retry) from their own
//! layer, above the client.

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use http::Method;
use percent_encoding::utf8_percent_encode;

use super::access_policy::{self, SignedIdentifier};
use super::batch::Batch;
use super::error::{Error, Result};
use super::pages::EntityQuery;
use super::service::TableServiceClient;
use super::transport::{ServiceRequest, KEY_IN_PATH};
use super::{indexed, read, write};
use crate::model::table_model::{NamedTable, TableModel};
use crate::protocol::limits::{self, Feature, InvalidInput, KeyKind};
use crate::query::builder::Query;
use crate::values::entity::DynamicEntity;
use crate::values::etag::ETag;
use crate::values::value::Value;

/// One table, read and written as `M::Entity` (`GamerEntity` for a derived `Gamer`, or
/// [`DynamicEntity`]). Cheap to clone: it shares the client's connection pool.
///
/// ```
/// use tablekit::client::Table;
/// use tablekit::DynamicEntity;
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let emulator = tablekit_testing::Emulator::start().await?;
/// # let client = emulator.client();
/// let table: Table = client.table_named("Players");
/// table.create_if_not_exists().await?;
/// let mut player = DynamicEntity::new("eu", "dragon");
/// player.set("Score", 10);
/// table.insert(&mut player).await?; // records the ETag on `player`
/// let first = player.etag().cloned();
/// player.set("Score", 20);
/// table.replace(&mut player).await?; // If-Match: the recorded ETag
/// assert_ne!(player.etag(), first.as_ref()); // and records the new one
/// let read = table.get("eu", "dragon").await?.expect("inserted");
/// assert_eq!(read.get::<i32>("Score"), Some(20));
/// assert_eq!(read.etag(), player.etag());
/// # Ok(()) }
/// ```
pub struct Table<M: TableModel = DynamicEntity> {
    client: TableServiceClient,
    name: Arc<str>,
    /// Whether a query that would scan the table is refused unless it allows one.
    refuses_scans: bool,
    model: PhantomData<fn() -> M>,
}

impl<M: TableModel> Clone for Table<M> {
    fn clone(&self) -> Self {
        Table {
            client: self.client.clone(),
            name: self.name.clone(),
            refuses_scans: self.refuses_scans,
            model: PhantomData,
        }
    }
}

impl<M: TableModel> fmt::Debug for Table<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Table")
            .field("name", &self.name)
            .field("model", &std::any::type_name::<M>())
            .field("refuses_scans", &self.refuses_scans)
            .finish()
    }
}

impl<M: TableModel> Table<M> {
    pub(crate) fn new(client: TableServiceClient, name: &str) -> Self {
        Table {
            client,
            name: Arc::from(name),
            refuses_scans: false,
            model: PhantomData,
        }
    }

    /// The same table, refusing every query whose [plan](crate::Query::plan) is a table
    /// scan, before it is sent, unless the query says it means one
    /// ([`allow_table_scan`](crate::Query::allow_table_scan)): a guard for code whose
    /// queries must stay within partitions as the table grows.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// use tablekit::{Column, DynamicEntity, InvalidInput, Query};
    /// let client = emulator.client();
    /// let gamers = client.table_named::<DynamicEntity>("Gamers").refuse_table_scans();
    /// gamers.create().await?;
    /// let score: Column<DynamicEntity, i32> = Column::dynamic("Score");
    /// let err = gamers.query(Query::new().filter(score.gt(10))).first_page().await.unwrap_err();
    /// assert!(matches!(err.invalid_input(), Some(InvalidInput::TableScan { .. })));
    /// let audit = Query::new().filter(score.gt(10)).allow_table_scan();
    /// assert!(gamers.query(audit).first_page().await?.is_empty());
    /// # Ok(()) }
    /// ```
    pub fn refuse_table_scans(mut self) -> Self {
        self.refuses_scans = true;
        self
    }

    /// Whether [`refuse_table_scans`](Self::refuse_table_scans) was called.
    pub(crate) fn refuses_scans(&self) -> bool {
        self.refuses_scans
    }

    /// The table's name, as given.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The client this handle sends through.
    pub fn client(&self) -> &TableServiceClient {
        &self.client
    }

    /// The name, checked against the service's rule before anything is sent.
    pub(crate) fn checked_name(&self) -> Result<&str> {
        limits::validate_table_name(&self.name)?;
        Ok(&self.name)
    }

    /// Creates the table; a 409 error if it exists.
    pub async fn create(&self) -> Result<()> {
        self.client.create_table(self.checked_name()?).await
    }

    /// Creates the table unless it exists; `true` when this call created it.
    pub async fn create_if_not_exists(&self) -> Result<bool> {
        self.client
            .create_table_if_not_exists(self.checked_name()?)
            .await
    }

    /// Deletes the table and everything in it; a 404 error if it does not exist.
    pub async fn delete_table(&self) -> Result<()> {
        self.client.delete_table(self.checked_name()?).await
    }

    /// Deletes the table if it exists; `true` when this call deleted it.
    pub async fn delete_table_if_exists(&self) -> Result<bool> {
        self.client
            .delete_table_if_exists(self.checked_name()?)
            .await
    }

    /// Whether the table exists.
    pub async fn exists(&self) -> Result<bool> {
        self.client.table_exists(self.checked_name()?).await
    }

    /// The table's stored access policies (Get Table ACL).
    pub async fn access_policies(&self) -> Result<Vec<SignedIdentifier>> {
        self.client
            .limits()
            .check_supported(Feature::TableAccessPolicies)?;
        let mut call = ServiceRequest::new(Method::GET, format!("/{}", self.checked_name()?));
        call.query.push(("comp", "acl".to_owned()));
        call.accept = Some("application/xml");
        let reply = self.client.transport().send(&call).await?;
        Ok(access_policy::access_policies_from_xml(&reply.body)?)
    }

    /// Replaces the table's stored access policies (Set Table ACL); an empty list removes
    /// them all. More than five, or an id empty or over 64 characters, is
    /// [`Error::InvalidInput`] before anything is sent.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use tablekit::client::{AccessPolicy, SignedIdentifier, Table};
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// let table: Table = emulator.client().table_named("Gamers");
    /// table.create().await?;
    /// let six: Vec<_> = (0..6)
    ///     .map(|i| SignedIdentifier::new(&format!("p{i}"), AccessPolicy::new()))
    ///     .collect();
    /// let err = table.set_access_policies(&six).await.unwrap_err();
    /// assert!(err.is_invalid_input()); // refused before sending
    /// table.set_access_policies(&six[..5]).await?;
    /// assert_eq!(table.access_policies().await?.len(), 5);
    /// table.set_access_policies(&[]).await?;
    /// assert!(table.access_policies().await?.is_empty());
    /// # Ok(()) }
    /// ```
    pub async fn set_access_policies(&self, identifiers: &[SignedIdentifier]) -> Result<()> {
        self.client
            .limits()
            .check_supported(Feature::TableAccessPolicies)?;
        let name = self.checked_name()?;
        access_policy::validate(identifiers)?;
        let mut call = ServiceRequest::new(Method::PUT, format!("/{name}"));
        call.query.push(("comp", "acl".to_owned()));
        call.content_type = Some("application/xml".to_owned());
        call.accept = Some("application/xml");
        call.body = access_policy::access_policies_to_xml(identifiers)
            .into_bytes()
            .into();
        self.client.transport().send(&call).await?;
        Ok(())
    }

    /// `/Table(PartitionKey='..',RowKey='..')`, keys validated, quotes doubled, then
    /// percent-encoded.
    pub(crate) fn entity_path(&self, partition_key: &str, row_key: &str) -> Result<String> {
        let name = self.checked_name()?;
        let limits = self.client.limits();
        limits.validate_key(KeyKind::PartitionKey, partition_key)?;
        limits.validate_key(KeyKind::RowKey, row_key)?;
        // Written into one string: formatting each encoded key on its own cost three
        // allocations a point operation.
        let mut path = String::with_capacity(32 + name.len() + partition_key.len() + row_key.len());
        path.push('/');
        path.push_str(name);
        path.push_str("(PartitionKey='");
        push_key(&mut path, partition_key);
        path.push_str("',RowKey='");
        push_key(&mut path, row_key);
        path.push_str("')");
        Ok(path)
    }
}

// The client's handle constructors live with the handle, so the client's own module stays
// below every table operation.
impl TableServiceClient {
    /// The typed handle of `M`'s table, named in `#[tablekit(table = "...")]`. A model without
    /// a table name does not compile here: name its table with
    /// [`table_named`](Self::table_named).
    ///
    /// ```
    /// # use tablekit::client::TableServiceClient;
    /// use tablekit::prelude::*;
    /// #[derive(TableEntity)]
    /// #[tablekit(table = "Gamers")]
    /// pub struct Gamer {
    ///     #[tablekit(partition_key)]
    ///     pub tag: String,
    /// }
    /// # let client = TableServiceClient::from_connection_string("UseDevelopmentStorage=true")?;
    /// let gamers = client.table::<Gamer>();
    /// assert_eq!(gamers.name(), "Gamers");
    /// # Ok::<(), tablekit::Error>(())
    /// ```
    ///
    /// ```compile_fail,E0277
    /// # use tablekit::client::TableServiceClient;
    /// # use tablekit::DynamicEntity;
    /// # let client = TableServiceClient::from_connection_string("UseDevelopmentStorage=true")?;
    /// let table = client.table::<DynamicEntity>(); // `DynamicEntity` names no table
    /// # Ok::<(), tablekit::Error>(())
    /// ```
    pub fn table<M: NamedTable>(&self) -> Table<M> {
        Table::new(self.clone(), M::TABLE_NAME)
    }

    /// A handle on table `name` for model `M`; with `M = DynamicEntity` (e.g.
    /// `let t: Table = client.table_named("T")`) it is the untyped handle. The name is
    /// validated by each operation, before sending.
    pub fn table_named<M: TableModel>(&self, name: &str) -> Table<M> {
        Table::new(self.clone(), name)
    }
}

// The operations on entities, declared here so a table's whole surface is in one place; each
// delegates to the module doing its work (`read`, `write`, `pages`, `batch`, `indexed`).
impl<M: TableModel> Table<M> {
    /// Reads one entity by its keys: `Ok(None)` when there is no such entity (a missing
    /// table is still an error, `TableNotFound`).
    ///
    /// ```
    /// # use tablekit::client::Table;
    /// # use tablekit::DynamicEntity;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let client = emulator.client();
    /// let table: Table = client.table_named("Players");
    /// # table.create().await?;
    /// # let mut dragon = DynamicEntity::new("eu", "dragon");
    /// # dragon.set("Score", 10);
    /// # table.insert(&mut dragon).await?;
    /// let dragon = table.get("eu", "dragon").await?.expect("stored");
    /// assert_eq!(dragon.get::<i32>("Score"), Some(10));
    /// assert!(dragon.etag().is_some()); // ready for a conditional write
    /// assert!(table.get("eu", "wyvern").await?.is_none());
    /// let missing: Table = client.table_named("Missing");
    /// let err = missing.get("eu", "dragon").await.unwrap_err(); // not `None`: a wrong table name
    /// assert_eq!(err.code(), Some("TableNotFound"));
    /// # Ok(()) }
    /// ```
    pub async fn get(&self, partition_key: &str, row_key: &str) -> Result<Option<M::Entity>> {
        read::get(self, partition_key, row_key).await
    }

    /// Inserts a new entity (409 `EntityAlreadyExists` if the keys are taken) and records
    /// the new ETag on it. A retry that meets 409 because an earlier attempt's insert was
    /// applied (its answer lost) succeeds when the stored entity is exactly what was sent.
    ///
    /// ```
    /// # use tablekit::client::Table;
    /// # use tablekit::DynamicEntity;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let client = emulator.client();
    /// let table: Table = client.table_named("Players");
    /// # table.create().await?;
    /// let mut dragon = DynamicEntity::new("eu", "dragon");
    /// dragon.set("Score", 10);
    /// table.insert(&mut dragon).await?;
    /// assert!(dragon.etag().is_some()); // recorded: a conditional write can follow
    /// let mut again = DynamicEntity::new("eu", "dragon");
    /// let err = table.insert(&mut again).await.unwrap_err();
    /// assert!(err.is_conflict());
    /// # Ok(()) }
    /// ```
    pub async fn insert(&self, entity: &mut M::Entity) -> Result<()> {
        write::insert(self, entity).await
    }

    /// Inserts the entity, or merges its properties into the stored one (no ETag check).
    ///
    /// ```
    /// # use tablekit::client::Table;
    /// # use tablekit::DynamicEntity;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let client = emulator.client();
    /// let table: Table = client.table_named("Players");
    /// # table.create().await?;
    /// let mut dragon = DynamicEntity::new("eu", "dragon");
    /// dragon.set("Tag", "Dragon");
    /// table.upsert_merge(&mut dragon).await?; // inserted
    /// let mut score = DynamicEntity::new("eu", "dragon");
    /// score.set("Score", 30);
    /// table.upsert_merge(&mut score).await?; // merged
    /// let stored = table.get("eu", "dragon").await?.expect("stored");
    /// assert_eq!(stored.get::<String>("Tag").as_deref(), Some("Dragon"));
    /// assert_eq!(stored.get::<i32>("Score"), Some(30));
    /// # Ok(()) }
    /// ```
    pub async fn upsert_merge(&self, entity: &mut M::Entity) -> Result<()> {
        write::upsert_merge(self, entity).await
    }

    /// Inserts the entity, or replaces the stored one entirely (no ETag check).
    ///
    /// ```
    /// # use tablekit::client::Table;
    /// # use tablekit::DynamicEntity;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let client = emulator.client();
    /// let table: Table = client.table_named("Players");
    /// # table.create().await?;
    /// let mut dragon = DynamicEntity::new("eu", "dragon");
    /// dragon.set("Tag", "Dragon");
    /// table.upsert_replace(&mut dragon).await?; // inserted
    /// let mut score = DynamicEntity::new("eu", "dragon");
    /// score.set("Score", 30);
    /// table.upsert_replace(&mut score).await?; // replaced: `Tag` is gone
    /// let stored = table.get("eu", "dragon").await?.expect("stored");
    /// assert!(!stored.contains("Tag"));
    /// assert_eq!(stored.get::<i32>("Score"), Some(30));
    /// # Ok(()) }
    /// ```
    pub async fn upsert_replace(&self, entity: &mut M::Entity) -> Result<()> {
        write::upsert_replace(self, entity).await
    }

    /// Merges the entity's properties into the stored one if its ETag still matches (412
    /// otherwise; 404 if it is gone). Set [`ETag::any`] on the entity for an unconditional
    /// merge. An entity without an ETag is refused before sending.
    ///
    /// ```
    /// # use tablekit::client::Table;
    /// # use tablekit::DynamicEntity;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let client = emulator.client();
    /// let table: Table = client.table_named("Players");
    /// # table.create().await?;
    /// # let mut stored = DynamicEntity::new("eu", "dragon");
    /// # stored.set("Tag", "Dragon");
    /// # table.insert(&mut stored).await?;
    /// let read = table.get("eu", "dragon").await?.expect("stored");
    /// let mut change = DynamicEntity::new("eu", "dragon"); // only what changes
    /// change.set("Score", 40);
    /// change.set_etag(read.etag().cloned()); // on the condition nobody wrote since
    /// table.merge(&mut change).await?;
    /// let stored = table.get("eu", "dragon").await?.expect("stored");
    /// assert_eq!(stored.get::<String>("Tag").as_deref(), Some("Dragon")); // kept
    /// assert_eq!(stored.get::<i32>("Score"), Some(40));
    /// # Ok(()) }
    /// ```
    pub async fn merge(&self, entity: &mut M::Entity) -> Result<()> {
        write::merge(self, entity).await
    }

    /// Replaces the stored entity if its ETag still matches (412 otherwise; 404 if it is
    /// gone). Set [`ETag::any`] on the entity for an unconditional replace. An entity without
    /// an ETag is refused before sending.
    ///
    /// ```
    /// # use tablekit::client::Table;
    /// # use tablekit::DynamicEntity;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let client = emulator.client();
    /// let table: Table = client.table_named("Players");
    /// # table.create().await?;
    /// # table.insert(&mut DynamicEntity::new("eu", "dragon")).await?;
    /// let mut dragon = table.get("eu", "dragon").await?.expect("stored");
    /// let mut stale = dragon.clone();
    /// dragon.set("Score", 40);
    /// table.replace(&mut dragon).await?; // records the new ETag on `dragon`
    /// stale.set("Score", 45);
    /// let err = table.replace(&mut stale).await.unwrap_err();
    /// assert!(err.is_precondition_failed()); // `dragon` was written since `stale` was read
    /// let mut unread = DynamicEntity::new("eu", "dragon");
    /// let err = table.replace(&mut unread).await.unwrap_err();
    /// assert!(err.is_invalid_input()); // no ETag at all: refused before sending
    /// # Ok(()) }
    /// ```
    pub async fn replace(&self, entity: &mut M::Entity) -> Result<()> {
        write::replace(self, entity).await
    }

    /// Deletes the stored entity if its ETag still matches (412 otherwise; 404 if it is
    /// gone). Set [`ETag::any`] on the entity for an unconditional delete. The ETag is cleared.
    ///
    /// ```
    /// # use tablekit::client::Table;
    /// # use tablekit::DynamicEntity;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let client = emulator.client();
    /// let table: Table = client.table_named("Players");
    /// # table.create().await?;
    /// let mut dragon = DynamicEntity::new("eu", "dragon");
    /// table.insert(&mut dragon).await?;
    /// table.delete(&mut dragon).await?; // If-Match: the ETag the insert recorded
    /// assert!(dragon.etag().is_none());
    /// assert!(table.get("eu", "dragon").await?.is_none());
    /// # Ok(()) }
    /// ```
    pub async fn delete(&self, entity: &mut M::Entity) -> Result<()> {
        write::delete(self, entity).await
    }

    /// Deletes an entity by its keys if `etag` matches ([`ETag::any`] for unconditional).
    ///
    /// A retried delete that answers 404 because an earlier attempt already deleted the
    /// entity counts as success.
    ///
    /// ```
    /// # use tablekit::client::Table;
    /// # use tablekit::{DynamicEntity, ETag};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let client = emulator.client();
    /// let table: Table = client.table_named("Players");
    /// # table.create().await?;
    /// # table.insert(&mut DynamicEntity::new("eu", "dragon")).await?;
    /// let stale = ETag::new("W/\"datetime'2020-01-01T00%3A00%3A00Z'\"");
    /// let result = table.delete_by_key("eu", "dragon", &stale).await;
    /// assert!(result.unwrap_err().is_precondition_failed());
    /// table.delete_by_key("eu", "dragon", &ETag::any()).await?; // whatever version is stored
    /// assert!(table.get("eu", "dragon").await?.is_none());
    /// # Ok(()) }
    /// ```
    pub async fn delete_by_key(
        &self,
        partition_key: &str,
        row_key: &str,
        etag: &ETag,
    ) -> Result<()> {
        write::delete_by_key(self, partition_key, row_key, etag).await
    }

    /// A query over this table; see [`EntityQuery`] for pages, entities, chunks and
    /// continuation tokens.
    pub fn query(&self, query: Query<M>) -> EntityQuery<M> {
        EntityQuery::new(self.clone(), query)
    }

    /// Every entity of the table (a query without a filter).
    pub fn query_all(&self) -> EntityQuery<M> {
        self.query(Query::new())
    }

    /// An empty entity group transaction on this table.
    pub fn batch(&self) -> Batch<M> {
        Batch::new(self.clone())
    }

    /// The entity of partition `partition_key` whose unique index `index` holds `value`:
    /// one read of the index row and one of the entity, which is returned only if it still
    /// holds `value`. `#[derive(TableEntity)]` generates a typed `Model::by_<index>` on it.
    ///
    /// ```
    /// use tablekit::prelude::*;
    /// use tablekit::Value;
    /// #[derive(TableEntity)]
    /// #[tablekit(table = "Employees")]
    /// pub struct Employee {
    ///     #[tablekit(partition_key)]
    ///     pub department: String,
    ///     #[tablekit(row_key)]
    ///     pub id: String,
    ///     #[tablekit(index(unique))]
    ///     pub email: String,
    /// }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// let table = emulator.client().table::<Employee>();
    /// table.create().await?;
    /// let mut kim = EmployeeEntity::new("Sales", "e-1");
    /// kim.set_email("kim@example.com");
    /// table.insert(&mut kim).await?;
    /// let found = table.find_unique("email", "Sales", Value::String("kim@example.com".into())).await?;
    /// assert_eq!(found.map(|e| e.id()), Some("e-1".to_owned()));
    /// let same = Employee::by_email(&table, "Sales", "kim@example.com").await?;
    /// assert!(same.is_some());
    /// assert!(Employee::by_email(&table, "Sales", "lee@example.com").await?.is_none());
    /// # Ok(()) }
    /// ```
    pub async fn find_unique(
        &self,
        index: &str,
        partition_key: &str,
        value: Value,
    ) -> Result<Option<M::Entity>> {
        indexed::find_unique(self, index, partition_key, value).await
    }

    /// The entities of partition `partition_key` whose index `index` holds `value`, each
    /// returned only if it still holds it, in the order of their RowKeys. For an index kept
    /// in a named partition (`index(partition = "..")`) the entities of every partition are
    /// found and `partition_key` is not used.
    /// `#[derive(TableEntity)]` generates a typed `Model::by_<index>` on it.
    ///
    /// ```
    /// use tablekit::prelude::*;
    /// use tablekit::Value;
    /// #[derive(TableEntity)]
    /// #[tablekit(table = "Employees")]
    /// pub struct Employee {
    ///     #[tablekit(partition_key)]
    ///     pub department: String,
    ///     #[tablekit(row_key)]
    ///     pub id: String,
    ///     #[tablekit(index)]
    ///     pub last_name: String,
    /// }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// let table = emulator.client().table::<Employee>();
    /// table.create().await?;
    /// for (id, name) in [("e-1", "Smith"), ("e-2", "Jones"), ("e-3", "Smith")] {
    ///     let mut e = EmployeeEntity::new("Sales", id);
    ///     e.set_last_name(name);
    ///     table.insert(&mut e).await?;
    /// }
    /// let smiths = table.find_indexed("last_name", "Sales", Value::String("Smith".into())).await?;
    /// let ids: Vec<String> = smiths.iter().map(|e| e.id()).collect();
    /// assert_eq!(ids, ["e-1", "e-3"]);
    /// assert_eq!(Employee::by_last_name(&table, "Sales", "Jones").await?.len(), 1);
    /// assert_eq!(table.query_all().count().await?, 3); // the index rows are no entities
    /// # Ok(()) }
    /// ```
    pub async fn find_indexed(
        &self,
        index: &str,
        partition_key: &str,
        value: Value,
    ) -> Result<Vec<M::Entity>> {
        indexed::find_all(self, index, partition_key, value).await
    }
}

/// Appends a key as it goes inside the entity path's quotes: `'` doubled, the rest
/// percent-encoded.
fn push_key(out: &mut String, key: &str) {
    for (index, piece) in key.split('\'').enumerate() {
        if index > 0 {
            out.push_str("''");
        }
        out.extend(utf8_percent_encode(piece, KEY_IN_PATH));
    }
}

impl<M: TableModel> Table<M> {
    /// The same table read and written untyped: rows a model keeps beside its entities are
    /// rows like any other there.
    pub(crate) fn untyped(&self) -> Table<DynamicEntity> {
        self.client.table_named(self.name())
    }
}

pub(crate) fn required_etag(entity: &DynamicEntity) -> Result<ETag> {
    entity.etag().cloned().ok_or_else(|| {
        Error::InvalidInput(InvalidInput::Other(format!(
            "entity ({}, {}) has no ETag: read it first, or set `ETag::any()` for an unconditional write",
            entity.partition_key(),
            entity.row_key()
        )))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encode_key(key: &str) -> String {
        let mut out = String::new();
        push_key(&mut out, key);
        out
    }

    #[test]
    fn encodes_keys_like_the_captures() {
        // captures/raw_keys.txt
        assert_eq!(encode_key("a b'c ü ☃"), "a%20b''c%20%C3%BC%20%E2%98%83");
        assert_eq!(encode_key("100%"), "100%25");
        assert_eq!(encode_key("a+b&c=d"), "a%2Bb%26c%3Dd");
        assert_eq!(encode_key("''x'"), "''''x''");
        assert_eq!(encode_key(""), "");
    }
}
