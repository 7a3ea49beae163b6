//! Whether an entity may be written: the rules every write checks before anything is sent,
//! beyond the service's own limits ([`limits`](crate::limits)).
//!
//! A write must never destroy what the code could not see: a replace of an entity read with a
//! select would delete the properties it did not fetch, and a setter that replaced a stored
//! value this code could not read (a record of a newer version, say) would destroy it. Both
//! are refused with a typed error unless the code says it means it
//! ([`DynamicEntity::mark_complete`], [`DynamicEntity::allow_overwrite`]). A model with a
//! [`Discriminator`](crate::Discriminator) only writes rows of its own kind.

use super::error::Error;
use crate::model::table_model::{TableEntity, TableModel};
use crate::protocol::limits::{InvalidInput, Limits};
use crate::values::etag::ETag;

/// What a write does to the stored properties the entity does not hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unsent {
    /// They stay (insert of a new row, merge, upsert-merge).
    Kept,
    /// They are deleted (replace, upsert-replace).
    Deleted,
}

/// A single-entity write, for the models that write rows beside their entities (index rows,
/// continuation rows) in one transaction with them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Write {
    Insert,
    UpsertMerge,
    UpsertReplace,
    Merge,
    Replace,
}

impl Write {
    /// Whether it merges into the stored entity rather than replacing it.
    pub(crate) fn merges(self) -> bool {
        matches!(self, Write::Merge | Write::UpsertMerge)
    }
}

/// Checks `entity` for a write of model `M` with `unsent` to a service with `limits`; nothing
/// is sent when it fails.
pub(crate) fn check<M: TableModel>(
    entity: &M::Entity,
    unsent: Unsent,
    limits: &Limits,
) -> Result<(), Error> {
    M::check_write(entity)?;
    check_row(entity.as_dynamic(), unsent, limits)
}

/// The checks of [`check`] that look at the row alone, not at its model's kind: for a row a
/// write sends in place of the entity (its main row, when values spread over more rows).
pub(crate) fn check_row(
    entity: &crate::values::entity::DynamicEntity,
    unsent: Unsent,
    limits: &Limits,
) -> Result<(), Error> {
    if unsent == Unsent::Deleted && entity.is_partial() {
        return Err(InvalidInput::PartialReplace {
            partition_key: entity.partition_key().to_owned(),
            row_key: entity.row_key().to_owned(),
        }
        .into());
    }
    if let Some((property, reason)) = entity.unreadable_overwrites().next() {
        return Err(InvalidInput::UnreadableOverwrite {
            property: property.to_owned(),
            reason: reason.to_owned(),
        }
        .into());
    }
    limits.validate_entity(entity)?;
    Ok(())
}

/// Records what a write did on the entity written: its new ETag (when the answer gave one),
/// and that the values its setters replaced are the stored ones now.
pub(crate) fn record_written<E: TableEntity>(entity: &mut E, etag: Option<ETag>) {
    let dynamic = entity.as_dynamic_mut();
    if etag.is_some() {
        dynamic.set_etag(etag);
    }
    dynamic.clear_overwrites();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::entity::DynamicEntity;

    #[test]
    fn an_allowed_overwrite_passes_and_an_unallowed_one_names_its_property() {
        let mut e = DynamicEntity::new("p", "r");
        e.set("Items", vec![1u8]);
        e.mark_unreadable_replaced("Items", "record version 2 is newer than 1");
        let err = check::<DynamicEntity>(&e, Unsent::Kept, &Limits::STORAGE).unwrap_err();
        assert!(err.to_string().contains("`Items`"), "{err}");
        e.allow_overwrite("Items");
        check::<DynamicEntity>(&e, Unsent::Kept, &Limits::STORAGE).unwrap();
    }
}
