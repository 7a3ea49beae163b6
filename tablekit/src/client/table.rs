//! [`Table<M>`]: the typed handle application repositories are built on.
//!
//! Every operation validates before sending (table name, keys, property names and values,
//! entity size), so a write the service would refuse fails with
//! [`Error::InvalidInput`] and nothing is sent. Writes record the new ETag on the entity they
//! were given, so the next conditional write of the same value just works.

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use percent_encoding::utf8_percent_encode;
use reqwest::Method;

use super::batch::Batch;
use super::pages::EntityQuery;
use super::service::TableServiceClient;
use super::transport::{Call, Gone, KEY_IN_PATH};
use crate::codec;
use crate::entity::DynamicEntity;
use crate::error::{Error, Result};
use crate::etag::ETag;
use crate::limits::{self, InvalidInput, KeyKind};
use crate::model::{check_kind, TableEntity, TableModel};
use crate::query::Query;
use crate::writable::{self, Unsent};

/// One table, read and written as `M::Entity` (`GamerEntity` for a derived `Gamer`, or
/// [`DynamicEntity`]). Cheap to clone: it shares the client's connection pool.
///
/// ```
/// use tablekit::client::{Table, TableServiceClient};
/// use tablekit::DynamicEntity;
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let emulator = tablekit_testing::Emulator::start().await?;
/// # let connection_string = emulator.connection_string();
/// let client = TableServiceClient::from_connection_string(&connection_string)?;
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
    model: PhantomData<fn() -> M>,
}

impl<M: TableModel> Clone for Table<M> {
    fn clone(&self) -> Self {
        Table {
            client: self.client.clone(),
            name: self.name.clone(),
            model: PhantomData,
        }
    }
}

impl<M: TableModel> fmt::Debug for Table<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Table")
            .field("name", &self.name)
            .field("model", &std::any::type_name::<M>())
            .finish()
    }
}

/// How a write treats the entity's ETag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Condition {
    /// No `If-Match`: an upsert.
    None,
    /// `If-Match` with the entity's ETag (`*` if the caller set [`ETag::any`]).
    EntityETag,
}

impl<M: TableModel> Table<M> {
    pub(crate) fn new(client: TableServiceClient, name: &str) -> Self {
        Table {
            client,
            name: Arc::from(name),
            model: PhantomData,
        }
    }

    /// The table's name, as given.
    ///
    /// ```
    /// # use tablekit::client::{Table, TableServiceClient};
    /// # let client = TableServiceClient::from_connection_string("UseDevelopmentStorage=true")?;
    /// let table: Table = client.table_named("Players");
    /// assert_eq!(table.name(), "Players");
    /// # Ok::<(), tablekit::Error>(())
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The client this handle sends through.
    ///
    /// ```
    /// # use tablekit::client::Table;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let connection_string = emulator.connection_string();
    /// # let client =
    /// #     tablekit::client::TableServiceClient::from_connection_string(&connection_string)?;
    /// let table: Table = client.table_named("Players");
    /// table.create().await?;
    /// // a repository holding only the handle still reaches the whole account
    /// assert_eq!(table.client().list_table_names(None).await?, ["Players"]);
    /// # Ok(()) }
    /// ```
    pub fn client(&self) -> &TableServiceClient {
        &self.client
    }

    /// The name, checked against the service's rule before anything is sent.
    pub(crate) fn checked_name(&self) -> Result<&str> {
        limits::validate_table_name(&self.name)?;
        Ok(&self.name)
    }

    /// Creates the table; a 409 error if it exists.
    ///
    /// ```
    /// # use tablekit::client::Table;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let connection_string = emulator.connection_string();
    /// # let client =
    /// #     tablekit::client::TableServiceClient::from_connection_string(&connection_string)?;
    /// let table: Table = client.table_named("Players");
    /// table.create().await?;
    /// assert!(table.exists().await?);
    /// let err = table.create().await.unwrap_err();
    /// assert_eq!(err.code(), Some("TableAlreadyExists"));
    /// # Ok(()) }
    /// ```
    pub async fn create(&self) -> Result<()> {
        self.client.create_table(self.checked_name()?).await
    }

    /// Creates the table unless it exists; `true` when this call created it.
    ///
    /// ```
    /// # use tablekit::client::Table;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let connection_string = emulator.connection_string();
    /// # let client =
    /// #     tablekit::client::TableServiceClient::from_connection_string(&connection_string)?;
    /// let table: Table = client.table_named("Players");
    /// assert!(table.create_if_not_exists().await?); // e.g. at start-up: created
    /// assert!(!table.create_if_not_exists().await?); // already there
    /// # Ok(()) }
    /// ```
    pub async fn create_if_not_exists(&self) -> Result<bool> {
        self.client
            .create_table_if_not_exists(self.checked_name()?)
            .await
    }

    /// Deletes the table and everything in it; a 404 error if it does not exist.
    ///
    /// ```
    /// # use tablekit::client::Table;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let connection_string = emulator.connection_string();
    /// # let client =
    /// #     tablekit::client::TableServiceClient::from_connection_string(&connection_string)?;
    /// let table: Table = client.table_named("Players");
    /// table.create().await?;
    /// table.delete_table().await?;
    /// assert!(!table.exists().await?);
    /// assert!(table.delete_table().await.unwrap_err().is_not_found());
    /// # Ok(()) }
    /// ```
    pub async fn delete_table(&self) -> Result<()> {
        self.client.delete_table(self.checked_name()?).await
    }

    /// Deletes the table if it exists; `true` when this call deleted it.
    ///
    /// ```
    /// # use tablekit::client::Table;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let connection_string = emulator.connection_string();
    /// # let client =
    /// #     tablekit::client::TableServiceClient::from_connection_string(&connection_string)?;
    /// let table: Table = client.table_named("Players");
    /// table.create().await?;
    /// assert!(table.delete_table_if_exists().await?);
    /// assert!(!table.delete_table_if_exists().await?); // already gone: not an error
    /// # Ok(()) }
    /// ```
    pub async fn delete_table_if_exists(&self) -> Result<bool> {
        self.client
            .delete_table_if_exists(self.checked_name()?)
            .await
    }

    /// Whether the table exists.
    ///
    /// ```
    /// # use tablekit::client::Table;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let connection_string = emulator.connection_string();
    /// # let client =
    /// #     tablekit::client::TableServiceClient::from_connection_string(&connection_string)?;
    /// let table: Table = client.table_named("Players");
    /// assert!(!table.exists().await?);
    /// table.create().await?;
    /// assert!(table.exists().await?);
    /// # Ok(()) }
    /// ```
    pub async fn exists(&self) -> Result<bool> {
        self.client.table_exists(self.checked_name()?).await
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
    /// # let connection_string = emulator.connection_string();
    /// # let client =
    /// #     tablekit::client::TableServiceClient::from_connection_string(&connection_string)?;
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
        let name = self.checked_name()?;
        let dynamic = entity.as_dynamic();
        writable::check::<M>(dynamic, Unsent::Kept)?;
        let mut call =
            Call::new(Method::POST, format!("/{name}")).json(codec::encode_entity(dynamic));
        call.prefer_no_content = true;
        let etag = match self.client.transport().send(&call).await {
            Ok(reply) => reply.header("etag").map(ETag::new),
            // A 409 may be an earlier attempt's insert: ours if the row holds what was sent.
            Err(e) => super::applied::earlier_insert(self, &call.body, e).await?,
        };
        record_written(entity, etag);
        Ok(())
    }

    /// Inserts the entity, or merges its properties into the stored one (no ETag check).
    ///
    /// ```
    /// # use tablekit::client::Table;
    /// # use tablekit::DynamicEntity;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let connection_string = emulator.connection_string();
    /// # let client =
    /// #     tablekit::client::TableServiceClient::from_connection_string(&connection_string)?;
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
        self.write(Method::PATCH, entity, Condition::None).await
    }

    /// Inserts the entity, or replaces the stored one entirely (no ETag check).
    ///
    /// ```
    /// # use tablekit::client::Table;
    /// # use tablekit::DynamicEntity;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let connection_string = emulator.connection_string();
    /// # let client =
    /// #     tablekit::client::TableServiceClient::from_connection_string(&connection_string)?;
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
        self.write(Method::PUT, entity, Condition::None).await
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
    /// # let connection_string = emulator.connection_string();
    /// # let client =
    /// #     tablekit::client::TableServiceClient::from_connection_string(&connection_string)?;
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
        self.write(Method::PATCH, entity, Condition::EntityETag)
            .await
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
    /// # let connection_string = emulator.connection_string();
    /// # let client =
    /// #     tablekit::client::TableServiceClient::from_connection_string(&connection_string)?;
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
        self.write(Method::PUT, entity, Condition::EntityETag).await
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
    /// # let connection_string = emulator.connection_string();
    /// # let client =
    /// #     tablekit::client::TableServiceClient::from_connection_string(&connection_string)?;
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
        let etag = required_etag(entity.as_dynamic())?;
        self.delete_by_key(entity.partition_key(), entity.row_key(), &etag)
            .await?;
        entity.as_dynamic_mut().set_etag(None);
        Ok(())
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
    /// # let connection_string = emulator.connection_string();
    /// # let client =
    /// #     tablekit::client::TableServiceClient::from_connection_string(&connection_string)?;
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
        let path = self.entity_path(partition_key, row_key)?;
        let mut call = Call::new(Method::DELETE, path);
        call.if_match = Some(etag.as_str().to_owned());
        call.gone = Gone::Entity;
        self.client.transport().send(&call).await?;
        Ok(())
    }

    /// Reads one entity by its keys: `Ok(None)` when there is no such entity (a missing
    /// table is still an error, `TableNotFound`).
    ///
    /// ```
    /// # use tablekit::client::Table;
    /// # use tablekit::DynamicEntity;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let connection_string = emulator.connection_string();
    /// # let client =
    /// #     tablekit::client::TableServiceClient::from_connection_string(&connection_string)?;
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
        let path = self.entity_path(partition_key, row_key)?;
        let call = Call::new(Method::GET, path);
        match self.client.transport().send(&call).await {
            Ok(reply) => {
                let mut entity = codec::decode_entity(&reply.body)?;
                if entity.etag().is_none() {
                    entity.set_etag(reply.header("etag").map(ETag::new));
                }
                check_kind::<M>(&entity)?;
                Ok(Some(M::Entity::wrap(entity)))
            }
            Err(e) if e.is_not_found() && e.code() != Some("TableNotFound") => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// A query over this table; see [`EntityQuery`] for pages, entities, chunks and
    /// continuation tokens.
    ///
    /// ```
    /// use futures::TryStreamExt;
    /// # use tablekit::client::Table;
    /// # use tablekit::{DynamicEntity, Query};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let connection_string = emulator.connection_string();
    /// # let client =
    /// #     tablekit::client::TableServiceClient::from_connection_string(&connection_string)?;
    /// let table: Table = client.table_named("Players");
    /// # table.create().await?;
    /// # for (pk, rk) in [("eu", "dragon"), ("eu", "wyvern"), ("us", "eagle")] {
    /// #     table.insert(&mut DynamicEntity::new(pk, rk)).await?;
    /// # }
    /// let q = Query::new().filter_raw("PartitionKey eq 'eu'");
    /// let players: Vec<DynamicEntity> = table.query(q).entities().try_collect().await?;
    /// assert_eq!(players.len(), 2);
    /// # Ok(()) }
    /// ```
    pub fn query(&self, query: Query<M>) -> EntityQuery<M> {
        EntityQuery::new(self.clone(), query)
    }

    /// Every entity of the table (a query without a filter).
    ///
    /// ```
    /// # use tablekit::client::Table;
    /// # use tablekit::DynamicEntity;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let connection_string = emulator.connection_string();
    /// # let client =
    /// #     tablekit::client::TableServiceClient::from_connection_string(&connection_string)?;
    /// let table: Table = client.table_named("Players");
    /// # table.create().await?;
    /// # for (pk, rk) in [("eu", "dragon"), ("eu", "wyvern"), ("us", "eagle")] {
    /// #     table.insert(&mut DynamicEntity::new(pk, rk)).await?;
    /// # }
    /// assert_eq!(table.query_all().count().await?, 3);
    /// # Ok(()) }
    /// ```
    pub fn query_all(&self) -> EntityQuery<M> {
        self.query(Query::new())
    }

    /// An empty entity group transaction on this table.
    ///
    /// ```
    /// # use tablekit::client::Table;
    /// # use tablekit::DynamicEntity;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let connection_string = emulator.connection_string();
    /// # let client =
    /// #     tablekit::client::TableServiceClient::from_connection_string(&connection_string)?;
    /// let table: Table = client.table_named("Orders");
    /// # table.create().await?;
    /// let mut batch = table.batch();
    /// batch.insert(&DynamicEntity::new("order-17", "line-1"))?;
    /// batch.insert(&DynamicEntity::new("order-17", "line-2"))?;
    /// batch.submit().await?; // both, or neither
    /// assert_eq!(table.query_all().count().await?, 2);
    /// # Ok(()) }
    /// ```
    pub fn batch(&self) -> Batch<M> {
        Batch::new(self.clone())
    }

    async fn write(
        &self,
        method: Method,
        entity: &mut M::Entity,
        condition: Condition,
    ) -> Result<()> {
        let dynamic = entity.as_dynamic();
        let if_match = match condition {
            Condition::None => None,
            Condition::EntityETag => Some(required_etag(dynamic)?.as_str().to_owned()),
        };
        let unsent = match method {
            Method::PUT => Unsent::Deleted,
            _ => Unsent::Kept,
        };
        writable::check::<M>(dynamic, unsent)?;
        let path = self.entity_path(dynamic.partition_key(), dynamic.row_key())?;
        let mut call = Call::new(method, path).json(codec::encode_entity(dynamic));
        call.if_match = if_match;
        let reply = self.client.transport().send(&call).await?;
        record_written(entity, reply.header("etag").map(ETag::new));
        Ok(())
    }

    /// `/Table(PartitionKey='..',RowKey='..')`, keys validated, quotes doubled, then
    /// percent-encoded.
    pub(crate) fn entity_path(&self, partition_key: &str, row_key: &str) -> Result<String> {
        let name = self.checked_name()?;
        limits::validate_key(KeyKind::PartitionKey, partition_key)?;
        limits::validate_key(KeyKind::RowKey, row_key)?;
        Ok(format!(
            "/{name}(PartitionKey='{}',RowKey='{}')",
            encode_key(partition_key),
            encode_key(row_key)
        ))
    }
}

/// A key inside the entity path: `'` doubled, then percent-encoded.
pub(crate) fn encode_key(key: &str) -> String {
    utf8_percent_encode(&key.replace('\'', "''"), KEY_IN_PATH).to_string()
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

/// Records what a write did on the entity written: its new ETag (when the answer gave one),
/// and that the values its setters replaced are the stored ones now.
fn record_written<E: TableEntity>(entity: &mut E, etag: Option<ETag>) {
    let dynamic = entity.as_dynamic_mut();
    if etag.is_some() {
        dynamic.set_etag(etag);
    }
    dynamic.clear_overwrites();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_keys_like_the_captures() {
        // captures/raw_keys.txt
        assert_eq!(encode_key("a b'c ü ☃"), "a%20b''c%20%C3%BC%20%E2%98%83");
        assert_eq!(encode_key("100%"), "100%25");
        assert_eq!(encode_key("a+b&c=d"), "a%2Bb%26c%3Dd");
    }
}
