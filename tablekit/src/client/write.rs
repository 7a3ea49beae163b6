//! The single-entity writes of a [`Table`]: insert, the upserts, merge, replace, delete.
//!
//! Each checks the entity before sending (the service's limits, and that nothing unread or
//! unfetched would be destroyed) and records the new ETag on the entity it was given, so the
//! next conditional write of the same value just works. An insert whose answer was lost and
//! whose retry meets 409 is settled by a re-read (see `applied`).

use http::Method;

use super::applied::earlier_insert;
use super::error::Result;
use super::indexed;
use super::kept_rows;
use super::spread;
use super::table::{required_etag, Table};
use super::transport::{Call, Gone};
use super::writable::{self, record_written, Unsent, Write};
use crate::codec;
use crate::model::plan::{any_keeps_rows, plan_of, StoragePlan};
use crate::model::table_model::{TableEntity, TableModel};
use crate::values::etag::ETag;

/// How a write treats the entity's ETag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Condition {
    /// No `If-Match`: an upsert.
    None,
    /// `If-Match` with the entity's ETag (`*` if the caller set [`ETag::any`]).
    EntityETag,
}

impl<M: TableModel> Table<M> {
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
        let plan = plan_of::<M>(entity.as_dynamic());
        if plan.keeps_rows() {
            return self.write_with_rows(entity, plan, Write::Insert).await;
        }
        let name = self.checked_name()?;
        let dynamic = entity.as_dynamic();
        writable::check::<M>(entity, Unsent::Kept, self.client().limits())?;
        let mut call =
            Call::new(Method::POST, format!("/{name}")).json(codec::encode_entity(dynamic));
        call.prefer_no_content = true;
        let etag = match self.client().transport().send(&call).await {
            Ok(reply) => reply.header("etag").map(ETag::new),
            // A 409 may be an earlier attempt's insert: ours if the row holds what was sent.
            Err(e) => earlier_insert(self, &call.body, e).await?,
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
        if any_keeps_rows::<M>() {
            return kept_rows::delete(self, partition_key, row_key, etag).await;
        }
        self.delete_row(partition_key, row_key, etag).await
    }

    /// The Delete Entity request itself, for one row, whatever the model keeps beside it.
    pub(crate) async fn delete_row(
        &self,
        partition_key: &str,
        row_key: &str,
        etag: &ETag,
    ) -> Result<()> {
        let path = self.entity_path(partition_key, row_key)?;
        let mut call = Call::new(Method::DELETE, path);
        call.if_match = Some(etag.as_str().to_owned());
        call.gone = Gone::Entity;
        self.client().transport().send(&call).await?;
        Ok(())
    }

    async fn write(
        &self,
        method: Method,
        entity: &mut M::Entity,
        condition: Condition,
    ) -> Result<()> {
        let plan = plan_of::<M>(entity.as_dynamic());
        // Through a family, the stored row may be of a kind that keeps rows: it is read first.
        if plan.keeps_rows() || (M::FAMILY.is_some() && any_keeps_rows::<M>()) {
            let write = row_write(&method, condition);
            return self.write_with_rows(entity, plan, write).await;
        }
        let dynamic = entity.as_dynamic();
        let if_match = match condition {
            Condition::None => None,
            Condition::EntityETag => Some(required_etag(dynamic)?.as_str().to_owned()),
        };
        let unsent = match method {
            Method::PUT => Unsent::Deleted,
            _ => Unsent::Kept,
        };
        writable::check::<M>(entity, unsent, self.client().limits())?;
        let path = self.entity_path(dynamic.partition_key(), dynamic.row_key())?;
        let mut call = Call::new(method, path).json(codec::encode_entity(dynamic));
        call.if_match = if_match;
        let reply = self.client().transport().send(&call).await?;
        record_written(entity, reply.header("etag").map(ETag::new));
        Ok(())
    }
}

impl<M: TableModel> Table<M> {
    /// Writes `entity` with the rows its plan keeps beside it, in one transaction.
    async fn write_with_rows(
        &self,
        entity: &mut M::Entity,
        plan: StoragePlan,
        write: Write,
    ) -> Result<()> {
        plan.check()?;
        if plan.indexes.is_empty() {
            spread::write(self, entity, plan.spread, write).await
        } else {
            indexed::write(self, entity, plan.indexes, write).await
        }
    }
}

/// The write that `method` under `condition` is, for a model that keeps rows beside its
/// entities.
fn row_write(method: &Method, condition: Condition) -> Write {
    match (method == Method::PUT, condition) {
        (true, Condition::None) => Write::UpsertReplace,
        (true, Condition::EntityETag) => Write::Replace,
        (false, Condition::None) => Write::UpsertMerge,
        (false, Condition::EntityETag) => Write::Merge,
    }
}
