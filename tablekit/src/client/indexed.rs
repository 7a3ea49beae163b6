//! The writes and lookups of a model with secondary indexes (see [`index`](crate::index)).
//!
//! Each write reads the stored entity (to learn the index values it leaves behind), then
//! sends the entity and its index changes as one entity group transaction whose write of the
//! entity is conditional on the ETag read: the transaction applies against exactly the state
//! its index changes were computed from, or not at all. An old index row is deleted only if it
//! is there and points at the entity, on the condition of the ETag read, so a missing row or a
//! value another entity owns never fails or breaks the write. A condition this code chose (not
//! the caller's) that fails means another writer won the race: the write is computed again
//! from a new read after a jittered wait, and ends in [`Error::Contended`] if it never wins
//! (see [`contention`](super::contention)).

use futures::stream::{self, StreamExt, TryStreamExt};

use super::batch::{Batch, OperationKind};
use super::contention::{self, Contended};
use super::error::{Error, Result};
use super::table::{required_etag, Table};
use super::writable::{self, record_written, Unsent, Write};
use crate::model::auxiliary::AuxiliaryRow;
use crate::model::index::{self, Index, TARGET_PARTITION_PROPERTY, TARGET_PROPERTY};
use crate::model::plan::check_kind_change;
use crate::model::table_model::{TableEntity, TableModel};
use crate::protocol::limits::InvalidInput;
use crate::query::builder::Query;
use crate::values::entity::DynamicEntity;
use crate::values::etag::ETag;
use crate::values::value::Value;

/// How many entities a non-unique lookup reads at once.
const LOOKUP_READS: usize = 8;

/// Reads a stored row as it is; an index row where an entity was expected is an error.
pub(crate) async fn read_entity<M: TableModel>(
    table: &Table<M>,
    partition_key: &str,
    row_key: &str,
) -> Result<Option<DynamicEntity>> {
    let stored = table.untyped().get(partition_key, row_key).await?;
    if let Some(auxiliary) = stored.as_ref().and_then(AuxiliaryRow::of) {
        return Err(auxiliary.into());
    }
    Ok(stored)
}

/// Writes `entity` and the rows of `indexes` (its plan's) in one transaction; records the new
/// ETag on it.
pub(crate) async fn write<M: TableModel>(
    table: &Table<M>,
    entity: &mut M::Entity,
    indexes: &'static [Index],
    write: Write,
) -> Result<()> {
    let dynamic = entity.as_dynamic();
    let unsent = match write {
        Write::Replace | Write::UpsertReplace => Unsent::Deleted,
        _ => Unsent::Kept,
    };
    writable::check::<M>(entity, unsent, table.client().limits())?;
    index::check_entity_row_key(indexes, dynamic.row_key())?;
    // The caller's own condition, if any: its failure is the caller's answer, not a race.
    let caller_etag = match write {
        Write::Merge | Write::Replace => Some(required_etag(dynamic)?),
        _ => None,
    };
    let mut attempt = 0;
    loop {
        attempt += 1;
        let stored = match write {
            Write::Insert => None,
            _ => read_entity(table, dynamic.partition_key(), dynamic.row_key()).await?,
        };
        if let Some(stored) = &stored {
            check_kind_change::<M>(stored, dynamic)?;
        }
        let (kind, if_match, ours) = main_operation(write, caller_etag.as_ref(), stored.as_ref());
        let after = match (write.merges(), &stored) {
            (true, Some(stored)) => merged(stored, dynamic),
            _ => dynamic.clone(),
        };
        let mut changes = IndexChanges::read(table, indexes, stored.as_ref(), Some(&after)).await?;
        let mut batch = table.untyped().batch();
        add_main(&mut batch, kind, dynamic, if_match.as_ref())?;
        changes.add_to(&mut batch)?;
        match batch.submit().await {
            Ok(outcome) => {
                follow(table, indexes, stored.as_ref(), Some(&after)).await;
                let etag = outcome.results().first().and_then(|r| r.etag()).cloned();
                record_written(entity, etag);
                return Ok(());
            }
            Err(e) if lost_race(&e, ours, &changes) => {
                if attempt >= contention::ATTEMPTS {
                    let (pk, rk) = (dynamic.partition_key(), dynamic.row_key());
                    return Err(Contended::new(pk, rk, attempt).into());
                }
                contention::back_off(attempt).await;
            }
            Err(e) => return Err(e),
        }
    }
}

/// The transaction's write of the entity, its `If-Match`, and whether that condition is
/// this code's (so its failure is a lost race).
fn main_operation(
    write: Write,
    caller_etag: Option<&ETag>,
    stored: Option<&DynamicEntity>,
) -> (OperationKind, Option<ETag>, bool) {
    let read = stored.and_then(DynamicEntity::etag).cloned();
    let (kind, read_kind) = match write {
        Write::Insert => return (OperationKind::Insert, None, false),
        Write::Merge | Write::UpsertMerge => (OperationKind::Merge, OperationKind::Merge),
        Write::Replace | Write::UpsertReplace => (OperationKind::Replace, OperationKind::Replace),
    };
    match (caller_etag, read) {
        // The caller's own condition decides; the state read is the one it names or the
        // transaction fails on it.
        (Some(etag), _) if *etag != ETag::any() => (kind, Some(etag.clone()), false),
        (_, Some(read)) => (read_kind, Some(read), true),
        // Nothing stored: an upsert inserts (and loses to a concurrent insert); a merge or
        // replace of `*` meets the service's 404.
        (None, None) => (OperationKind::Insert, None, true),
        (Some(any), None) => (kind, Some(any.clone()), false),
    }
}

/// Adds the entity's own operation.
fn add_main(
    batch: &mut Batch<DynamicEntity>,
    kind: OperationKind,
    entity: &DynamicEntity,
    if_match: Option<&ETag>,
) -> Result<()> {
    let mut sent = entity.clone();
    sent.set_etag(if_match.cloned());
    // The entity was checked as a write of its model; what the setters replaced is
    // allowed here, once.
    let overwritten: Vec<String> = sent
        .unreadable_overwrites()
        .map(|(name, _)| name.to_owned())
        .collect();
    for name in &overwritten {
        sent.allow_overwrite(name);
    }
    match kind {
        OperationKind::Insert => batch.insert(&sent),
        OperationKind::Merge => batch.merge(&sent),
        OperationKind::Replace => batch.replace(&sent),
        OperationKind::UpsertMerge => batch.upsert_merge(&sent),
        OperationKind::UpsertReplace => batch.upsert_replace(&sent),
        OperationKind::Delete => batch.delete(&sent),
    }
}

/// The stored entity with `change`'s properties merged in.
fn merged(stored: &DynamicEntity, change: &DynamicEntity) -> DynamicEntity {
    let mut after = stored.clone();
    for (name, value) in change.properties() {
        after.set(name, value.clone());
    }
    after
}

/// The changes of the intra-partition index rows from state `before` to state `after`
/// (`None`: no entity), planned from the rows as stored: a row whose key is unchanged is left
/// alone; an old row is deleted only if it is there and points at this entity (another
/// entity may own a value two entities hold, and a missing row is nothing to delete), on
/// the condition of its ETag; a new one is inserted (a unique one claimed, so a conflict on
/// it is [`Error::UniqueViolation`]). Inter-partition indexes follow the transaction (see
/// [`follow`]).
pub(crate) struct IndexChanges {
    /// The old rows to delete, as read (with their ETags).
    deletes: Vec<DynamicEntity>,
    /// The new rows to write, with their index.
    writes: Vec<(&'static Index, DynamicEntity)>,
    /// Where the deletes start among the transaction's operations.
    first: usize,
}

impl IndexChanges {
    /// Reads the old rows the change from `before` to `after` would delete.
    pub(crate) async fn read<M: TableModel>(
        table: &Table<M>,
        indexes: &'static [Index],
        before: Option<&DynamicEntity>,
        after: Option<&DynamicEntity>,
    ) -> Result<IndexChanges> {
        let mut changes = IndexChanges {
            deletes: Vec::new(),
            writes: Vec::new(),
            first: 0,
        };
        for index in indexes.iter().filter(|i| !i.is_inter_partition()) {
            let old = before.map(|e| index.row_of(e)).transpose()?.flatten();
            let new = after.map(|e| index.row_of(e)).transpose()?.flatten();
            if old.as_ref().map(DynamicEntity::row_key) == new.as_ref().map(DynamicEntity::row_key)
            {
                continue;
            }
            if let (Some(old), Some(entity)) = (old, before) {
                let stored = table
                    .untyped()
                    .get(old.partition_key(), old.row_key())
                    .await?;
                if let Some(stored) = stored.filter(|row| points_at(index, row, entity)) {
                    changes.deletes.push(stored);
                }
            }
            if let Some(new) = new {
                changes.writes.push((index, new));
            }
        }
        Ok(changes)
    }

    /// Adds the changes to `batch`, after the entity's own operations.
    pub(crate) fn add_to(&mut self, batch: &mut Batch<DynamicEntity>) -> Result<()> {
        self.first = batch.len();
        for row in &self.deletes {
            let etag = row.etag().cloned().unwrap_or_else(ETag::any);
            batch.delete_by_key(row.partition_key(), row.row_key(), &etag)?;
        }
        for (index, row) in &self.writes {
            if index.is_unique() {
                batch.insert(row)?;
                batch.claim_last(index, row.row_key());
            } else {
                batch.upsert_replace(row)?;
            }
        }
        Ok(())
    }

    /// Whether operation `operation` of the transaction is a delete conditional on what
    /// [`read`](Self::read) found.
    fn is_conditional_delete(&self, operation: usize) -> bool {
        (self.first..self.first + self.deletes.len()).contains(&operation)
    }
}

/// Whether `row` is a row of `index` pointing at `entity`.
fn points_at(index: &Index, row: &DynamicEntity, entity: &DynamicEntity) -> bool {
    let target = |name| match row.value(name) {
        Some(Value::String(s)) => Some(s.as_str()),
        _ => None,
    };
    let partition_matches = !index.is_inter_partition()
        || target(TARGET_PARTITION_PROPERTY) == Some(entity.partition_key());
    index.is_row(row) && target(TARGET_PROPERTY) == Some(entity.row_key()) && partition_matches
}

/// How many times an inter-partition index row's write is tried.
const FOLLOW_ATTEMPTS: usize = 3;

/// Brings the inter-partition indexes from state `before` to `after` once the entity's own
/// transaction is applied: a new row is written, then an old one deleted, each tried a few
/// times. Writers of one entity may follow in any order, so each step checks the entity as
/// stored after it: a new row whose entity no longer needs it is taken back (conditional on
/// the ETag written, so a later writer's row stays), an old row is deleted only if it points
/// at this entity and the entity as stored does not need it (conditional on the ETag read).
/// A row that still fails is left to [`repair`](crate::patterns::index::repair): the
/// entity's write stands, and lookups check what they find, so a late or stale row never
/// returns a wrong entity.
pub(crate) async fn follow<M: TableModel>(
    table: &Table<M>,
    indexes: &[Index],
    before: Option<&DynamicEntity>,
    after: Option<&DynamicEntity>,
) {
    for index in indexes.iter().filter(|i| i.is_inter_partition()) {
        let rows = |e: Option<&DynamicEntity>| e.and_then(|e| index.row_of(e).ok().flatten());
        let (old, new) = (rows(before), rows(after));
        if old.as_ref().map(key) == new.as_ref().map(key) {
            continue;
        }
        let home = index_table(table, index);
        if let Some(new) = new {
            for _ in 0..FOLLOW_ATTEMPTS {
                match add_row(table, &home, index, &new).await {
                    Ok(()) => break,
                    Err(e) => {
                        tracing::warn!(index = index.name(), error = %e, "index row not written")
                    }
                }
            }
        }
        if let (Some(old), Some(entity)) = (old, before) {
            for _ in 0..FOLLOW_ATTEMPTS {
                match remove_row(table, &home, index, &old, entity).await {
                    Ok(()) => break,
                    Err(e) => {
                        tracing::warn!(index = index.name(), error = %e, "index row not deleted")
                    }
                }
            }
        }
    }
}

/// The keys of a row.
fn key(row: &DynamicEntity) -> (&str, &str) {
    (row.partition_key(), row.row_key())
}

/// Writes an inter-partition index row, then takes it back if its entity, as stored now,
/// does not need it.
async fn add_row<M: TableModel>(
    table: &Table<M>,
    home: &Table<DynamicEntity>,
    index: &Index,
    row: &DynamicEntity,
) -> Result<()> {
    // One-operation transactions: the untyped table's own writes would come back here.
    let mut batch = home.batch();
    batch.upsert_replace(row)?;
    let outcome = batch.submit().await?;
    let written = outcome.results().first().and_then(|r| r.etag()).cloned();
    if needed(table, index, row).await? {
        return Ok(());
    }
    delete_row_if(home, row, &written.unwrap_or_else(ETag::any)).await
}

/// Deletes the inter-partition index row `old` of `entity` if it is still there, points at
/// `entity`, and the entity as stored now does not need it.
async fn remove_row<M: TableModel>(
    table: &Table<M>,
    home: &Table<DynamicEntity>,
    index: &Index,
    old: &DynamicEntity,
    entity: &DynamicEntity,
) -> Result<()> {
    let Some(stored) = home.get(old.partition_key(), old.row_key()).await? else {
        return Ok(());
    };
    if !points_at(index, &stored, entity) || needed(table, index, &stored).await? {
        return Ok(());
    }
    delete_row_if(
        home,
        &stored,
        &stored.etag().cloned().unwrap_or_else(ETag::any),
    )
    .await
}

/// Whether the entity an inter-partition index row points at, as stored now, needs it.
async fn needed<M: TableModel>(
    table: &Table<M>,
    index: &Index,
    row: &DynamicEntity,
) -> Result<bool> {
    let target = |name| row.get::<String>(name).unwrap_or_default();
    let (partition_key, row_key) = (target(TARGET_PARTITION_PROPERTY), target(TARGET_PROPERTY));
    let Some(entity) = table.untyped().get(&partition_key, &row_key).await? else {
        return Ok(false);
    };
    let wanted = index.row_of(&entity).ok().flatten();
    Ok(wanted.as_ref().map(key) == Some(key(row)))
}

/// Deletes an index row on the condition of `etag`: a row gone or changed since is another
/// writer's, and nothing to do.
async fn delete_row_if(
    home: &Table<DynamicEntity>,
    row: &DynamicEntity,
    etag: &ETag,
) -> Result<()> {
    let mut batch = home.batch();
    batch.delete_by_key(row.partition_key(), row.row_key(), etag)?;
    match batch.submit().await {
        Err(e) if e.is_not_found() || e.is_precondition_failed() => Ok(()),
        other => other.map(drop),
    }
}

/// The untyped handle on the table an index keeps its rows in.
pub(crate) fn index_table<M: TableModel>(table: &Table<M>, index: &Index) -> Table<DynamicEntity> {
    table
        .client()
        .table_named(index.table().unwrap_or(table.name()))
}

/// Whether a failed transaction lost a race: on the condition of its first operation (the
/// entity's) when that condition is this code's (`ours`), or on the condition of one of the
/// index rows' deletes, which is always this code's.
pub(crate) fn lost_race(error: &Error, ours: bool, changes: &IndexChanges) -> bool {
    let status = error.status();
    match error {
        Error::Batch {
            index: Some(0) | None,
            ..
        } => ours && matches!(status, Some(404 | 409 | 412)),
        Error::Batch {
            index: Some(operation),
            ..
        } => changes.is_conditional_delete(*operation) && matches!(status, Some(404 | 412)),
        _ => false,
    }
}

/// The index of `M` named `name` (for a family, of any of its variants).
fn named<M: TableModel>(name: &str) -> Result<&'static Index> {
    M::PLANS
        .iter()
        .flat_map(|plan| plan.indexes)
        .find(|i| i.name() == name)
        .ok_or_else(|| InvalidInput::Other(format!("the model has no index `{name}`")).into())
}

/// See [`Table::find_unique`].
pub(crate) async fn find_unique<M: TableModel>(
    table: &Table<M>,
    index: &str,
    partition_key: &str,
    value: Value,
) -> Result<Option<M::Entity>> {
    let index = named::<M>(index)?;
    if index.is_inter_partition() {
        let found = find_all(table, index.name(), partition_key, value).await?;
        return Ok(found.into_iter().next());
    }
    let Some(value_key) = index.value_key(Some(&value))? else {
        return Ok(None);
    };
    let row_key = index.row_key(&value_key, "")?;
    let Some(row) = table.untyped().get(partition_key, &row_key).await? else {
        return Ok(None);
    };
    let Some(target) = target_of(index, &row) else {
        return Ok(None);
    };
    read_holding(table, index, partition_key, &target, &value).await
}

/// See [`Table::find_indexed`].
pub(crate) async fn find_all<M: TableModel>(
    table: &Table<M>,
    index: &str,
    partition_key: &str,
    value: Value,
) -> Result<Vec<M::Entity>> {
    let index = named::<M>(index)?;
    if index.is_unique() && !index.is_inter_partition() {
        // Boxed: a unique inter-partition lookup comes back here.
        let found = Box::pin(find_unique(table, index.name(), partition_key, value)).await?;
        return Ok(found.into_iter().collect());
    }
    let Some(value_key) = index.value_key(Some(&value))? else {
        return Ok(Vec::new());
    };
    let home = index_table(table, index);
    let partition_key = index.partition().unwrap_or(partition_key);
    // The prefix ends with `_`, which no escaped value holds: `` ` `` is the next character.
    let prefix = index.prefix(&value_key);
    let upper = format!("{}`", prefix.trim_end_matches('_'));
    let filter = format!(
        "PartitionKey eq '{}' and RowKey ge '{}' and RowKey lt '{}'",
        quoted(partition_key),
        quoted(&prefix),
        quoted(&upper)
    );
    let rows = home
        .query(Query::new().filter_raw(filter))
        .collect_all()
        .await?;
    let targets: Vec<(String, String)> = rows
        .iter()
        .filter_map(|r| {
            let row_key = target_of(index, r)?;
            let partition_key = match r.value(TARGET_PARTITION_PROPERTY) {
                Some(Value::String(s)) => s.to_string(),
                _ => partition_key.to_owned(),
            };
            Some((partition_key, row_key))
        })
        .collect();
    let found: Vec<Option<M::Entity>> = stream::iter(targets)
        .map(|(partition_key, row_key)| {
            let value = value.clone();
            async move { read_holding(table, index, &partition_key, &row_key, &value).await }
        })
        .buffered(LOOKUP_READS)
        .try_collect()
        .await?;
    Ok(found.into_iter().flatten().collect())
}

/// A string inside an OData literal: `'` doubled.
fn quoted(text: &str) -> String {
    text.replace('\'', "''")
}

/// The entity RowKey an index row points at, if it is a row of `index`.
fn target_of(index: &Index, row: &DynamicEntity) -> Option<String> {
    if !index.is_row(row) {
        return None;
    }
    match row.value(TARGET_PROPERTY)? {
        Value::String(s) => Some(s.to_string()),
        _ => None,
    }
}

/// Reads the entity an index row points at; `None` unless it holds `value` now.
async fn read_holding<M: TableModel>(
    table: &Table<M>,
    index: &Index,
    partition_key: &str,
    row_key: &str,
    value: &Value,
) -> Result<Option<M::Entity>> {
    let Some(entity) = table.get(partition_key, row_key).await? else {
        return Ok(None);
    };
    let holds = index.value_key(entity.as_dynamic().value(index.property()))?
        == index.value_key(Some(value))?;
    Ok(holds.then_some(entity))
}
