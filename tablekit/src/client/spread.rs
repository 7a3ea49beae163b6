//! The reads and writes of a model whose values spread over continuation rows (see
//! [`spread`](crate::spread)): each write is one entity group transaction over the main entity
//! and its rows, conditional on the main entity's ETag; each read joins the rows back.
//!
//! Reached through [`Table`]'s own operations when the entity's storage plan (see
//! [`plan`](crate::plan)) spreads values; entities without such values never come here.

use super::batch::Batch;
use super::contention::{self, Contended};
use super::error::{Error, Result};
use super::table::{required_etag, Table};
use super::writable::{self, record_written, Unsent, Write};
use crate::model::auxiliary::AuxiliaryRow;
use crate::model::plan::{any_spread, check_kind_change, plan_of};
use crate::model::spread::{self, Spread, SpreadField};
use crate::model::table_model::{check_kind, TableEntity, TableModel};
use crate::query::builder::Query;
use crate::values::entity::DynamicEntity;
use crate::values::etag::ETag;

/// How many times a read is tried when it met a concurrent write (main entity and rows of
/// different versions); after that the value reads as the corruption it then is.
const READS: usize = 3;

/// A typed point read of a continuation row, answered without a request.
fn continuation_row(partition_key: &str, row_key: &str) -> Error {
    Error::AuxiliaryRow(AuxiliaryRow {
        partition_key: partition_key.to_owned(),
        row_key: row_key.to_owned(),
        role: spread::CONTINUATION.to_owned(),
    })
}

/// An OData string literal.
fn literal(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// The filter of `row_key`'s continuation rows, and of the main row too when `with_main`.
fn rows_filter(partition_key: &str, row_key: &str, with_main: bool) -> String {
    let (start, end) = spread::continuation_range(row_key);
    let range = format!(
        "RowKey ge {} and RowKey lt {}",
        literal(&start),
        literal(&end)
    );
    let rows = if with_main {
        format!("(RowKey eq {} or ({range}))", literal(row_key))
    } else {
        format!("({range})")
    };
    format!("PartitionKey eq {} and {rows}", literal(partition_key))
}

/// The typed point read: the main row and its continuation rows in one query, joined.
pub(crate) async fn get<M: TableModel>(
    table: &Table<M>,
    partition_key: &str,
    row_key: &str,
) -> Result<Option<M::Entity>> {
    if spread::check_main_key(row_key).is_err() {
        return Err(continuation_row(partition_key, row_key));
    }
    table.entity_path(partition_key, row_key)?;
    let mut read = None;
    for _ in 0..READS {
        read = read_whole::<M>(table, partition_key, row_key).await?;
        match &read {
            Some(main) if !spread::reads_back(main, plan_of::<M>(main).spread) => continue,
            _ => break,
        }
    }
    let Some(main) = read else { return Ok(None) };
    check_kind::<M>(&main)?;
    Ok(Some(M::Entity::wrap(main)))
}

/// The main row of `row_key` joined with its continuation rows by the plan its kind names;
/// `None` when it is absent.
async fn read_whole<M: TableModel>(
    table: &Table<M>,
    partition_key: &str,
    row_key: &str,
) -> Result<Option<DynamicEntity>> {
    let filter = rows_filter(partition_key, row_key, true);
    let rows = table
        .untyped()
        .query(Query::new().filter_raw(filter))
        .collect_all()
        .await?;
    let (mains, rows): (Vec<_>, Vec<_>) = rows.into_iter().partition(|r| r.row_key() == row_key);
    let Some(mut main) = mains.into_iter().next() else {
        return Ok(None);
    };
    if let Some(row) = AuxiliaryRow::of(&main) {
        return Err(row.into());
    }
    let fields = plan_of::<M>(&main).spread;
    spread::join(&mut main, rows, fields);
    Ok(Some(main))
}

/// Loads the continuation rows of each of a typed query's `entities` that has some: one
/// range query each. One that met a concurrent write is read again whole.
pub(crate) async fn load_rows<M: TableModel>(
    table: &Table<M>,
    entities: &mut [M::Entity],
) -> Result<()> {
    if !any_spread::<M>() {
        return Ok(());
    }
    for entity in entities {
        let dynamic = entity.as_dynamic_mut();
        let fields = plan_of::<M>(dynamic).spread;
        if !spread::has_rows(dynamic, fields) {
            continue;
        }
        let (partition_key, row_key) = (dynamic.partition_key(), dynamic.row_key());
        let filter = rows_filter(partition_key, row_key, false);
        let rows = table
            .untyped()
            .query(Query::new().filter_raw(filter))
            .collect_all()
            .await?;
        spread::join(dynamic, rows, fields);
        if !spread::reads_back(dynamic, fields) {
            let (partition_key, row_key) = (
                dynamic.partition_key().to_owned(),
                dynamic.row_key().to_owned(),
            );
            if let Some(fresh) = get(table, &partition_key, &row_key).await? {
                *entity = fresh;
            }
        }
    }
    Ok(())
}

/// Writes the main entity and the continuation rows of `fields` (its plan's) in one
/// transaction, deleting the rows a smaller value no longer uses.
pub(crate) async fn write<M: TableModel>(
    table: &Table<M>,
    entity: &mut M::Entity,
    fields: &'static [SpreadField],
    write: Write,
) -> Result<()> {
    let dynamic = entity.as_dynamic();
    let (partition_key, row_key) = (
        dynamic.partition_key().to_owned(),
        dynamic.row_key().to_owned(),
    );
    spread::check_main_key(&row_key)?;
    let given = match write {
        Write::Merge | Write::Replace => Some(required_etag(dynamic)?),
        _ => None,
    };
    let mut parts = spread::spread(dynamic, fields)?;
    let unsent = match write {
        Write::Replace | Write::UpsertReplace => Unsent::Deleted,
        _ => Unsent::Kept,
    };
    let limits = table.client().limits();
    M::check_write(entity)?;
    writable::check_row(&parts.main, unsent, limits)?;
    for row in &parts.rows {
        limits.validate_entity(row)?;
    }
    let raw = table.untyped();
    // The condition is ours (not the caller's) when the caller gave none or `*`: then a
    // write that lost to another writer is planned again from a fresh read.
    let own_condition = given.as_ref().is_none_or(ETag::is_any);
    let mut attempt = 0;
    loop {
        attempt += 1;
        let stored = match write {
            Write::Insert => None,
            _ => raw.get(&partition_key, &row_key).await?,
        };
        if let Some(stored) = &stored {
            check_kind_change::<M>(stored, entity.as_dynamic())?;
        }
        let batch = plan(
            &raw,
            &mut parts,
            stored.as_ref(),
            write,
            given.as_ref(),
            fields,
        )?;
        match batch.submit().await {
            Ok(outcome) => {
                let etag = outcome.results().first().and_then(|r| r.etag()).cloned();
                record_written(entity, etag);
                return Ok(());
            }
            Err(e)
                if own_condition
                    && write != Write::Insert
                    && lost_main_race(&e, stored.is_some()) =>
            {
                if attempt >= contention::ATTEMPTS {
                    return Err(Contended::new(&partition_key, &row_key, attempt).into());
                }
                contention::back_off(attempt).await;
            }
            Err(e) => return Err(e),
        }
    }
}

/// Whether a transaction failed on the main row's condition: another writer changed the
/// entity (412), created it (409) or deleted the entity `read` (404) since it was read.
fn lost_main_race(error: &Error, read: bool) -> bool {
    matches!(
        error,
        Error::Batch {
            index: Some(0) | None,
            ..
        }
    ) && match error.status() {
        Some(409 | 412) => true,
        Some(404) => read,
        _ => false,
    }
}

/// The transaction of one write attempt, given what is stored.
fn plan(
    raw: &Table<DynamicEntity>,
    parts: &mut Spread,
    stored: Option<&DynamicEntity>,
    write: Write,
    given: Option<&ETag>,
    fields: &[SpreadField],
) -> Result<Batch<DynamicEntity>> {
    let mut batch = raw.batch();
    let read_etag = stored.and_then(|s| s.etag()).cloned();
    let main = &mut parts.main;
    match (write, read_etag) {
        (Write::Insert, _) | (Write::UpsertMerge | Write::UpsertReplace, None) => {
            batch.insert(main)?
        }
        (Write::UpsertMerge | Write::UpsertReplace, Some(etag)) => {
            main.set_etag(Some(etag));
            if write.merges() {
                batch.merge(main)?
            } else {
                batch.replace(main)?
            }
        }
        (Write::Merge | Write::Replace, read) => {
            let etag = match given {
                Some(given) if given.is_any() => read.unwrap_or_else(ETag::any),
                Some(given) => given.clone(),
                None => ETag::any(),
            };
            main.set_etag(Some(etag));
            if write.merges() {
                batch.merge(main)?
            } else {
                batch.replace(main)?
            }
        }
    }
    for row in &parts.rows {
        batch.upsert_replace(row)?;
    }
    let Some(stored) = stored else {
        return Ok(batch);
    };
    let (partition_key, row_key) = (stored.partition_key(), stored.row_key());
    for field in fields {
        let name = field.property;
        // A merge without the value leaves it, and its rows, as they are.
        if write.merges() && !parts.main.contains(name) {
            continue;
        }
        let kept = spread::rows_used(&parts.main, name);
        for index in kept + 1..=spread::rows_used(stored, name) {
            let key = spread::continuation_key(row_key, name, index);
            batch.delete_by_key(partition_key, &key, &ETag::any())?;
        }
    }
    Ok(batch)
}
