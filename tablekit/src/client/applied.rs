//! Whether a write was applied, told from the rows it touched: the one rule for writes whose
//! answer was lost.
//!
//! An attempt whose connection dropped, that timed out or that the service answered
//! 500/502/504 may have been applied. The client's retry then meets what that attempt did:
//! 409 for an insert (the entity exists now), 412 for a conditional write (its ETag moved
//! on), 404 for a delete (the entity is gone). Such an answer proves nothing by itself, since
//! another writer could cause the same, so the client re-reads each row and compares it with
//! the state the write leaves:
//! - insert, replace, insert-or-replace: the stored properties are exactly those sent;
//! - merge, insert-or-merge: the stored entity holds every sent property with the sent value;
//! - delete: the row is absent;
//! - and for a conditional write (an `If-Match` other than `*`), the stored ETag differs
//!   from the one sent.
//!
//! When every row of the write holds, the earlier attempt applied it and the write is
//! reported as done. The comparison is of content, so it has limits (listed under "Retried
//! writes" in [`RetryPolicy`](super::RetryPolicy)'s docs): another writer's byte-identical
//! write looks like ours.

use futures::stream::FuturesOrdered;
use futures::StreamExt;

use super::error::{Error, Result};
use super::service_error::ServiceError;
use super::table::Table;
use crate::codec;
use crate::model::table_model::{TableEntity, TableModel};
use crate::values::entity::DynamicEntity;
use crate::values::etag::ETag;

/// How many rows a check reads at once.
const CONCURRENT_READS: usize = 8;

/// What a write leaves stored when it is applied.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Effect {
    /// Insert, replace, insert-or-replace: exactly these properties.
    Exactly(DynamicEntity),
    /// Merge, insert-or-merge: at least these properties, with these values.
    Including(DynamicEntity),
    /// Delete: no entity.
    Absent,
}

/// One row a write touched and the state the write leaves it in.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Expected<'a> {
    pub(crate) row_key: String,
    pub(crate) effect: Effect,
    /// The `If-Match` sent, if any.
    pub(crate) if_match: Option<&'a ETag>,
}

/// Whether the row `stored` is in the state `effect` leaves, for a write sent with
/// `if_match`.
pub(crate) fn holds(
    effect: &Effect,
    if_match: Option<&ETag>,
    stored: Option<&DynamicEntity>,
) -> bool {
    // A conditional write that was applied gave the entity a new ETag.
    let etag_moved = match if_match {
        Some(sent) if !sent.is_any() => stored.and_then(DynamicEntity::etag) != Some(sent),
        _ => true,
    };
    etag_moved
        && match (effect, stored) {
            (Effect::Exactly(sent), Some(stored)) => same_properties(stored, sent),
            (Effect::Including(sent), Some(stored)) => includes(stored, sent),
            (Effect::Absent, None) => true,
            _ => false,
        }
}

/// Same keys and the same set of properties with equal values (ETag and Timestamp aside:
/// the service sets them).
fn same_properties(a: &DynamicEntity, b: &DynamicEntity) -> bool {
    a.len() == b.len() && includes(a, b)
}

/// Same keys, and every property of `sent` in `stored` with an equal value.
fn includes(stored: &DynamicEntity, sent: &DynamicEntity) -> bool {
    stored.partition_key() == sent.partition_key()
        && stored.row_key() == sent.row_key()
        && sent
            .properties()
            .all(|(name, value)| stored.value(name) == Some(value))
}

/// Whether a write's failure may be the echo of an earlier attempt of it: a 409, 412 or 404
/// (not a missing table) after an attempt that may have been applied.
pub(crate) fn may_echo(error: &ServiceError) -> bool {
    error.after_uncertain_attempt()
        && matches!(error.status(), 404 | 409 | 412)
        && error.code() != Some("TableNotFound")
}

/// Reads the rows of `expected` in `partition_key` (a few at a time) and checks each: the
/// stored rows, in order, when every one is in its expected state; `None` at the first that
/// is not or cannot be read.
pub(crate) async fn read_as_expected<M: TableModel>(
    table: &Table<M>,
    partition_key: &str,
    expected: &[Expected<'_>],
) -> Option<Vec<Option<M::Entity>>> {
    // A queue of point reads rather than a stream of closures: the future stays `Send` for
    // every lifetime, so a caller can spawn `Batch::submit`.
    let mut queued = expected.iter();
    let mut reads = FuturesOrdered::new();
    for e in queued.by_ref().take(CONCURRENT_READS) {
        reads.push_back(table.get(partition_key, &e.row_key));
    }
    let mut rows = Vec::with_capacity(expected.len());
    for e in expected {
        let read = reads.next().await?;
        if let Some(next) = queued.next() {
            reads.push_back(table.get(partition_key, &next.row_key));
        }
        let stored = match read {
            Ok(stored) => stored,
            Err(error) => {
                tracing::debug!(%error, "cannot re-read a row of a write whose answer was lost");
                return None;
            }
        };
        if !holds(
            &e.effect,
            e.if_match,
            stored.as_ref().map(TableEntity::as_dynamic),
        ) {
            return None;
        }
        rows.push(stored);
    }
    Some(rows)
}

/// After `error` ended an insert of the JSON `body`: when it may be the echo of an earlier
/// attempt and the stored entity is exactly what was sent, that attempt inserted it, so the
/// insert succeeded (`Ok` with the ETag read back); otherwise `error`.
pub(crate) async fn earlier_insert<M: TableModel>(
    table: &Table<M>,
    body: &[u8],
    error: Error,
) -> Result<Option<ETag>> {
    if !error.service_error().is_some_and(may_echo) {
        return Err(error);
    }
    let Ok(sent) = codec::decode_entity(body) else {
        return Err(error);
    };
    let partition_key = sent.partition_key().to_owned();
    let expected = [Expected {
        row_key: sent.row_key().to_owned(),
        effect: Effect::Exactly(sent),
        if_match: None,
    }];
    match read_as_expected(table, &partition_key, &expected).await {
        Some(rows) => {
            tracing::debug!(
                outcome = "applied",
                "insert answered 409 after a lost answer"
            );
            let stored = rows.into_iter().flatten().next();
            Ok(stored.and_then(|s| s.as_dynamic().etag().cloned()))
        }
        None => {
            tracing::debug!(
                outcome = "unproven",
                "insert answered 409 after a lost answer"
            );
            Err(error)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::value::Value;

    fn stored(properties: &[(&str, Value)], etag: &str) -> DynamicEntity {
        let mut e = DynamicEntity::new("p", "r");
        for (name, value) in properties {
            e.set(*name, value.clone());
        }
        e.set_etag(Some(ETag::new(etag)));
        e
    }

    fn sent(properties: &[(&str, Value)]) -> DynamicEntity {
        let mut e = stored(properties, "");
        e.set_etag(None);
        e
    }

    const OLD: &str = "W/\"1\"";
    const NEW: &str = "W/\"2\"";

    #[test]
    fn an_exact_write_holds_only_for_exactly_its_properties() {
        let a = [("A", Value::Int32(1)), ("B", Value::String("x".into()))];
        let effect = Effect::Exactly(sent(&a));
        // insert, insert-or-replace: no condition
        assert!(holds(&effect, None, Some(&stored(&a, NEW))));
        let reordered = [a[1].clone(), a[0].clone()];
        assert!(holds(&effect, None, Some(&stored(&reordered, NEW))));
        assert!(!holds(&effect, None, None), "absent");
        let more = [a[0].clone(), a[1].clone(), ("C", Value::Bool(true))];
        assert!(
            !holds(&effect, None, Some(&stored(&more, NEW))),
            "an extra property"
        );
        assert!(
            !holds(&effect, None, Some(&stored(&a[..1], NEW))),
            "a missing one"
        );
        let other = [("A", Value::Int32(2)), a[1].clone()];
        assert!(
            !holds(&effect, None, Some(&stored(&other, NEW))),
            "a different value"
        );
        let widened = [("A", Value::Int64(1)), a[1].clone()];
        assert!(
            !holds(&effect, None, Some(&stored(&widened, NEW))),
            "Int64 1 is not Int32 1"
        );
        let mut moved = stored(&a, NEW);
        moved.set_row_key("other");
        assert!(!holds(&effect, None, Some(&moved)), "other keys");
    }

    #[test]
    fn a_conditional_replace_also_needs_a_new_etag() {
        let a = [("A", Value::Int32(1))];
        let effect = Effect::Exactly(sent(&a));
        let old = ETag::new(OLD);
        assert!(holds(&effect, Some(&old), Some(&stored(&a, NEW))));
        assert!(
            !holds(&effect, Some(&old), Some(&stored(&a, OLD))),
            "the ETag sent"
        );
        assert!(!holds(&effect, Some(&old), None));
        // `*` names no version: content alone decides
        assert!(holds(&effect, Some(&ETag::any()), Some(&stored(&a, OLD))));
    }

    #[test]
    fn a_merge_holds_when_every_sent_property_is_stored() {
        let a = [("A", Value::Int32(1))];
        let effect = Effect::Including(sent(&a));
        let more = [("Z", Value::Bool(true)), ("A", Value::Int32(1))];
        // insert-or-merge: other properties may stay
        assert!(holds(&effect, None, Some(&stored(&more, NEW))));
        assert!(holds(&effect, None, Some(&stored(&a, NEW))));
        assert!(!holds(
            &effect,
            None,
            Some(&stored(&[("A", Value::Int32(2))], NEW))
        ));
        assert!(!holds(
            &effect,
            None,
            Some(&stored(&[("Z", Value::Bool(true))], NEW))
        ));
        assert!(!holds(&effect, None, None), "absent");
        // merge with an ETag
        let old = ETag::new(OLD);
        assert!(holds(&effect, Some(&old), Some(&stored(&more, NEW))));
        assert!(!holds(&effect, Some(&old), Some(&stored(&more, OLD))));
    }

    #[test]
    fn a_delete_holds_when_the_row_is_absent() {
        let old = ETag::new(OLD);
        assert!(holds(&Effect::Absent, None, None));
        assert!(holds(&Effect::Absent, Some(&old), None));
        assert!(holds(&Effect::Absent, Some(&ETag::any()), None));
        assert!(!holds(&Effect::Absent, Some(&old), Some(&stored(&[], NEW))));
        assert!(!holds(&Effect::Absent, None, Some(&stored(&[], NEW))));
    }

    #[test]
    fn values_compare_as_the_service_stores_them() {
        // a NaN is the same stored value as a NaN
        let nan = [("X", Value::Double(f64::NAN))];
        assert!(holds(
            &Effect::Exactly(sent(&nan)),
            None,
            Some(&stored(&nan, NEW))
        ));
        let empty = Effect::Exactly(sent(&[]));
        assert!(holds(&empty, None, Some(&stored(&[], NEW))));
    }

    #[test]
    fn only_a_flagged_conflict_precondition_or_missing_row_may_echo() {
        let flagged = |status, code| {
            let mut e = ServiceError::new(status, Some(code), "x");
            e.mark_after_uncertain_attempt();
            e
        };
        assert!(may_echo(&flagged(409, "EntityAlreadyExists")));
        assert!(may_echo(&flagged(412, "UpdateConditionNotSatisfied")));
        assert!(may_echo(&flagged(404, "ResourceNotFound")));
        assert!(!may_echo(&flagged(404, "TableNotFound")));
        assert!(!may_echo(&flagged(400, "InvalidInput")));
        assert!(!may_echo(&ServiceError::new(
            409,
            Some("EntityAlreadyExists"),
            "x"
        )));
    }
}
