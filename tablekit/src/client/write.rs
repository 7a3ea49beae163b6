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
use super::transport::{Gone, ServiceRequest};
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
    /// The Delete Entity request itself, for one row, whatever the model keeps beside it.
    pub(crate) async fn delete_row(
        &self,
        partition_key: &str,
        row_key: &str,
        etag: &ETag,
    ) -> Result<()> {
        let path = self.entity_path(partition_key, row_key)?;
        let mut call = ServiceRequest::new(Method::DELETE, path);
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
            // Boxed: this rarer path's state would make every write's future kilobytes larger.
            return Box::pin(self.write_with_rows(entity, plan, write)).await;
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
        let mut call = ServiceRequest::new(method, path).json(codec::encode_entity(dynamic));
        call.if_match = if_match;
        let reply = self.client().transport().send(&call).await?;
        record_written(entity, reply.header("etag").map(ETag::new));
        Ok(())
    }
}

/// See [`Table::insert`].
pub(crate) async fn insert<M: TableModel>(table: &Table<M>, entity: &mut M::Entity) -> Result<()> {
    let plan = plan_of::<M>(entity.as_dynamic());
    if plan.keeps_rows() {
        // Boxed: this rarer path's state would make every insert's future kilobytes larger.
        return Box::pin(table.write_with_rows(entity, plan, Write::Insert)).await;
    }
    let name = table.checked_name()?;
    let dynamic = entity.as_dynamic();
    writable::check::<M>(entity, Unsent::Kept, table.client().limits())?;
    let mut call =
        ServiceRequest::new(Method::POST, format!("/{name}")).json(codec::encode_entity(dynamic));
    call.prefer_no_content = true;
    let etag = match table.client().transport().send(&call).await {
        Ok(reply) => reply.header("etag").map(ETag::new),
        // A 409 may be an earlier attempt's insert: ours if the row holds what was sent.
        // Boxed, as the rows' path above.
        Err(e) => Box::pin(earlier_insert(table, &call.body, e)).await?,
    };
    record_written(entity, etag);
    Ok(())
}

/// See [`Table::upsert_merge`].
pub(crate) async fn upsert_merge<M: TableModel>(
    table: &Table<M>,
    entity: &mut M::Entity,
) -> Result<()> {
    table.write(Method::PATCH, entity, Condition::None).await
}

/// See [`Table::upsert_replace`].
pub(crate) async fn upsert_replace<M: TableModel>(
    table: &Table<M>,
    entity: &mut M::Entity,
) -> Result<()> {
    table.write(Method::PUT, entity, Condition::None).await
}

/// See [`Table::merge`].
pub(crate) async fn merge<M: TableModel>(table: &Table<M>, entity: &mut M::Entity) -> Result<()> {
    table
        .write(Method::PATCH, entity, Condition::EntityETag)
        .await
}

/// See [`Table::replace`].
pub(crate) async fn replace<M: TableModel>(table: &Table<M>, entity: &mut M::Entity) -> Result<()> {
    table
        .write(Method::PUT, entity, Condition::EntityETag)
        .await
}

/// See [`Table::delete`].
pub(crate) async fn delete<M: TableModel>(table: &Table<M>, entity: &mut M::Entity) -> Result<()> {
    let etag = required_etag(entity.as_dynamic())?;
    table
        .delete_by_key(entity.partition_key(), entity.row_key(), &etag)
        .await?;
    entity.as_dynamic_mut().set_etag(None);
    Ok(())
}

/// See [`Table::delete_by_key`].
pub(crate) async fn delete_by_key<M: TableModel>(
    table: &Table<M>,
    partition_key: &str,
    row_key: &str,
    etag: &ETag,
) -> Result<()> {
    if any_keeps_rows::<M>() {
        // Boxed, as the rows' path of a write.
        return Box::pin(kept_rows::delete(table, partition_key, row_key, etag)).await;
    }
    table.delete_row(partition_key, row_key, etag).await
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
