//! The point read of a [`Table`]: one entity by its keys, as the model's type.
//!
//! A model with values spread over continuation rows reads them with the entity (see
//! [`spread`](crate::spread)); a row a model keeps beside its entities is never returned as
//! one.

use http::Method;

use super::error::Result;
use super::spread;
use super::table::Table;
use super::transport::ServiceRequest;
use crate::codec;
use crate::model::auxiliary::AuxiliaryRow;
use crate::model::plan::any_spread;
use crate::model::table_model::{check_kind, hides_auxiliary, TableEntity, TableModel};
use crate::values::entity::DynamicEntity;
use crate::values::etag::ETag;

impl<M: TableModel> Table<M> {
    /// The row at these keys as it is stored; a missing one is the service's 404.
    pub(crate) async fn fetch_row(
        &self,
        partition_key: &str,
        row_key: &str,
    ) -> Result<DynamicEntity> {
        let path = self.entity_path(partition_key, row_key)?;
        let call = ServiceRequest::new(Method::GET, path);
        let reply = self.client().transport().send(&call).await?;
        let mut entity = codec::decode_entity(&reply.body)?;
        if entity.etag().is_none() {
            entity.set_etag(reply.header("etag").map(ETag::new));
        }
        Ok(entity)
    }
}

/// See [`Table::get`].
pub(crate) async fn get<M: TableModel>(
    table: &Table<M>,
    partition_key: &str,
    row_key: &str,
) -> Result<Option<M::Entity>> {
    if any_spread::<M>() {
        return spread::get(table, partition_key, row_key).await;
    }
    match table.fetch_row(partition_key, row_key).await {
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

/// A typed read of a row a model keeps beside its entities is an error, not an entity.
fn check_entity<M: TableModel>(entity: &DynamicEntity) -> Result<()> {
    match AuxiliaryRow::of(entity) {
        Some(row) if hides_auxiliary::<M>() => Err(row.into()),
        _ => Ok(()),
    }
}
