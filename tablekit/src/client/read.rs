//! The point read of a [`Table`]: one entity by its keys, as the model's type.
//!
//! A model with values spread over continuation rows reads them with the entity (see
//! [`spread`](crate::spread)); a row a model keeps beside its entities is never returned as
//! one.

use http::Method;

use super::error::Result;
use super::spread;
use super::table::Table;
use super::transport::Call;
use crate::codec;
use crate::model::auxiliary::AuxiliaryRow;
use crate::model::plan::any_spread;
use crate::model::table_model::{check_kind, hides_auxiliary, TableEntity, TableModel};
use crate::values::entity::DynamicEntity;
use crate::values::etag::ETag;

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
        if any_spread::<M>() {
            return spread::get(self, partition_key, row_key).await;
        }
        match self.fetch_row(partition_key, row_key).await {
            Ok(entity) => {
                // An index or continuation row is no entity, of whatever kind.
                check_entity::<M>(&entity)?;
                check_kind::<M>(&entity)?;
                Ok(Some(M::Entity::wrap(entity)))
            }
            Err(e) if e.is_not_found() && e.code() != Some("TableNotFound") => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The row at these keys as it is stored; a missing one is the service's 404.
    pub(crate) async fn fetch_row(
        &self,
        partition_key: &str,
        row_key: &str,
    ) -> Result<DynamicEntity> {
        let path = self.entity_path(partition_key, row_key)?;
        let call = Call::new(Method::GET, path);
        let reply = self.client().transport().send(&call).await?;
        let mut entity = codec::decode_entity(&reply.body)?;
        if entity.etag().is_none() {
            entity.set_etag(reply.header("etag").map(ETag::new));
        }
        Ok(entity)
    }
}

/// A typed read of a row a model keeps beside its entities is an error, not an entity.
fn check_entity<M: TableModel>(entity: &DynamicEntity) -> Result<()> {
    match AuxiliaryRow::of(entity) {
        Some(row) if hides_auxiliary::<M>() => Err(row.into()),
        _ => Ok(()),
    }
}
