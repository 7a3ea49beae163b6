//! [`Batch`]: an entity group transaction (up to 100 operations on one partition, applied
//! all or nothing).
//!
//! Every rule is checked as operations are added, so a batch that would be refused never
//! exists: one PartitionKey, each RowKey once, at most 100 operations, a body of at most
//! 4 MiB. Operations are encoded when added, so [`Batch::encoded_len`] is the exact size of the
//! body that will be sent: a bulk writer packs batches by measured size by adding until
//! [`InvalidInput::BatchTooLarge`] or [`InvalidInput::TooManyOperations`] (the refused
//! operation is not added), then submitting and starting the next batch.

// Building the transaction is here; encoding its body and reading its answer are beside it.
mod encode;
mod response;

pub use response::{BatchOutcome, OperationResult};

use std::collections::HashMap;
use std::fmt;
use std::ops::Range;

use super::applied::{Effect, Expected};
use super::error::{Error, Result};
use super::table::{required_etag, Table};
use super::writable::{self, Unsent};
use crate::codec;
use crate::model::index::{self, Index, UniqueViolation};
use crate::model::plan::{any_indexes, any_spread, plan_of};
use crate::model::spread::{self, SpreadField};
use crate::model::table_model::{TableEntity, TableModel};
use crate::protocol::limits::{InvalidInput, KeyKind, MAX_BATCH_OPERATIONS};
use crate::values::entity::DynamicEntity;
use crate::values::etag::ETag;

/// What one operation of a transaction does.
///
/// ```
/// use tablekit::client::{OperationKind, Table};
/// use tablekit::{DynamicEntity, ETag};
/// # let dev = "UseDevelopmentStorage=true";
/// # let client = tablekit::client::TableServiceClient::from_connection_string(dev)?;
/// let table: Table = client.table_named("Orders");
/// let mut batch = table.batch();
/// batch.upsert_replace(&DynamicEntity::new("order-17", "line-1"))?;
/// batch.delete_by_key("order-17", "line-2", &ETag::any())?;
/// let deletes = batch
///     .kinds()
///     .filter(|k| *k == OperationKind::Delete)
///     .count();
/// assert_eq!(deletes, 1);
/// # Ok::<(), tablekit::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum OperationKind {
    /// Insert a new entity.
    Insert,
    /// Insert, or merge into the stored entity.
    UpsertMerge,
    /// Insert, or replace the stored entity.
    UpsertReplace,
    /// Merge into the stored entity if its ETag matches.
    Merge,
    /// Replace the stored entity if its ETag matches.
    Replace,
    /// Delete the stored entity if its ETag matches.
    Delete,
}

impl OperationKind {
    /// The operation as an error names it, and the table's single-entity write doing it.
    fn described(self) -> (&'static str, &'static str) {
        match self {
            OperationKind::Insert => ("an insert", "Table::insert"),
            OperationKind::UpsertMerge => ("an upsert_merge", "Table::upsert_merge"),
            OperationKind::UpsertReplace => ("an upsert_replace", "Table::upsert_replace"),
            OperationKind::Merge => ("a merge", "Table::merge"),
            OperationKind::Replace => ("a replace", "Table::replace"),
            OperationKind::Delete => ("a delete", "Table::delete"),
        }
    }
}

/// A delete by keys, as an error names it, and the table's write doing it.
const DELETE_BY_KEY: (&str, &str) = ("a delete by keys", "Table::delete_by_key");

struct Operation {
    kind: OperationKind,
    /// Whether it writes a row beside an entity (an index or continuation row), not one the
    /// caller added.
    auxiliary: bool,
    part: Vec<u8>,
    /// Where the entity's JSON lies in `part`: read back only to check a write whose answer
    /// was lost, so no copy of the entity is kept.
    body: Option<Range<usize>>,
    if_match: Option<ETag>,
}

impl Operation {
    /// The state this operation leaves row `row_key` in; `None` if its body cannot be read
    /// back.
    fn expected(&self, row_key: &str) -> Option<Expected<'_>> {
        let sent = || {
            let body = self.part.get(self.body.clone()?)?;
            codec::decode_entity(body).ok()
        };
        let effect = match self.kind {
            OperationKind::Insert | OperationKind::Replace | OperationKind::UpsertReplace => {
                Effect::Exactly(sent()?)
            }
            OperationKind::Merge | OperationKind::UpsertMerge => Effect::Including(sent()?),
            OperationKind::Delete => Effect::Absent,
        };
        Some(Expected {
            row_key: row_key.to_owned(),
            effect,
            if_match: self.if_match.as_ref(),
        })
    }
}

/// An entity group transaction on one table, built operation by operation.
///
/// # What a transaction cannot hold
///
/// Some models store rows beside each entity, and a transaction being built cannot compute
/// them: it cannot read the stored entity, and it sends only what it was given. Such writes
/// are refused when added, with [`InvalidInput::NotInTransaction`] naming the table's own
/// write to use instead, which writes the entity and its rows in one transaction of its own:
/// - a model with a spread field (`#[tablekit(split(rows = n))]`, `records(rows = n)`):
///   `merge`, `replace`, `upsert_merge`, `upsert_replace` and `delete_by_key` (the
///   continuation rows to change are the stored entity's), and a delete of an entity not read
///   whole; use the table's write of the same name, which reads them. An insert joins a
///   transaction with its continuation rows, and a delete of an entity read whole, on its
///   ETag, with the deletes of its rows (each row counted against the 100 operations);
/// - a model with a secondary index: `merge`, `replace`, `upsert_merge`, `upsert_replace` and
///   `delete_by_key` (the index rows to change are the stored entity's), and a delete of an
///   entity not read whole; use the table's write of the same name, which reads the stored
///   entity and changes the index rows on its ETag. Inserts and deletes of entities read
///   whole join a transaction with their index rows (counted against the 100 operations),
///   and two inserts claiming one unique value are refused with
///   [`Error::UniqueViolation`] when the second is added;
/// - a model with an index kept in a partition of its own: every operation.
///
/// ```
/// use tablekit::DynamicEntity;
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let emulator = tablekit_testing::Emulator::start().await?;
/// # let client = emulator.client();
/// let table = client.table_named::<DynamicEntity>("Orders");
/// table.create().await?;
/// let mut batch = table.batch();
/// for line in 0..3 {
///     let mut e = DynamicEntity::new("order-17", format!("line-{line}"));
///     e.set("Qty", line + 1);
///     batch.insert(&e)?;
/// }
/// assert!(batch.encoded_len() < 4 * 1024 * 1024);
/// let outcome = batch.submit().await?; // all applied, or none
/// assert_eq!(outcome.etags().len(), 3);
/// let line = table.get("order-17", "line-2").await?.expect("inserted");
/// assert_eq!(line.get::<i32>("Qty"), Some(3));
/// # Ok(()) }
/// ```
pub struct Batch<M: TableModel> {
    table: Table<M>,
    batch_boundary: String,
    changeset_boundary: String,
    partition_key: Option<String>,
    operations: Vec<Operation>,
    /// Each operation's RowKey and index: a repeat is found without comparing every pair.
    rows: HashMap<String, usize>,
    parts_len: usize,
    /// The lengths of [`head`](Self::head) and [`tail`](Self::tail), fixed by the boundaries.
    frame_len: usize,
    /// The URL every insert posts to, made by the first insert.
    insert_url: Option<String>,
    /// The unique index rows the transaction inserts: a conflict on one is that index
    /// refusing a value another entity holds.
    claims: Vec<Claim>,
}

/// A unique index row a transaction inserts, for a failure's explanation.
struct Claim {
    operation: usize,
    index: &'static str,
    value: String,
}

impl<M: TableModel> fmt::Debug for Batch<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Batch")
            .field("table", &self.table.name())
            .field("partition_key", &self.partition_key)
            .field(
                "operations",
                &self.operations.iter().map(|o| o.kind).collect::<Vec<_>>(),
            )
            .field("encoded_len", &self.encoded_len())
            .finish()
    }
}

impl<M: TableModel> Batch<M> {
    pub(crate) fn new(table: Table<M>) -> Self {
        let id = uuid::Uuid::new_v4();
        let mut batch = Batch {
            table,
            batch_boundary: format!("batch_{id}"),
            changeset_boundary: format!("changeset_{id}"),
            partition_key: None,
            operations: Vec::new(),
            rows: HashMap::new(),
            parts_len: 0,
            frame_len: 0,
            insert_url: None,
            claims: Vec::new(),
        };
        batch.frame_len = batch.head().len() + batch.tail().len();
        batch
    }

    /// Adds an insert.
    ///
    /// ```
    /// # use tablekit::client::Table;
    /// # use tablekit::DynamicEntity;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let client = emulator.client();
    /// let table: Table = client.table_named("Orders");
    /// # table.create().await?;
    /// let mut batch = table.batch();
    /// for line in 1..=3 {
    ///     let mut e = DynamicEntity::new("order-17", format!("line-{line}"));
    ///     e.set("Qty", line);
    ///     batch.insert(&e)?;
    /// }
    /// // another partition cannot join: refused when added, and the batch is unchanged
    /// let other = DynamicEntity::new("order-18", "line-1");
    /// assert!(batch.insert(&other).unwrap_err().is_invalid_input());
    /// batch.submit().await?;
    /// assert_eq!(table.query_all().count().await?, 3);
    /// # Ok(()) }
    /// ```
    pub fn insert(&mut self, entity: &M::Entity) -> Result<()> {
        self.add_indexed(OperationKind::Insert, entity)
    }

    /// Adds an insert-or-merge.
    ///
    /// Refused for a model with a secondary index or a spread field (see
    /// [what a transaction cannot hold](Batch#what-a-transaction-cannot-hold)).
    pub fn upsert_merge(&mut self, entity: &M::Entity) -> Result<()> {
        self.add_indexed(OperationKind::UpsertMerge, entity)
    }

    /// Adds an insert-or-replace.
    ///
    /// Refused for a model with a secondary index or a spread field (see
    /// [what a transaction cannot hold](Batch#what-a-transaction-cannot-hold)).
    pub fn upsert_replace(&mut self, entity: &M::Entity) -> Result<()> {
        self.add_indexed(OperationKind::UpsertReplace, entity)
    }

    /// Adds a merge conditional on the entity's ETag ([`ETag::any`] for unconditional).
    ///
    /// Refused for a model with a secondary index or a spread field (see
    /// [what a transaction cannot hold](Batch#what-a-transaction-cannot-hold)).
    ///
    /// ```
    /// # use tablekit::client::Table;
    /// # use tablekit::DynamicEntity;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let client = emulator.client();
    /// let table: Table = client.table_named("Gamers");
    /// # table.create().await?;
    /// # table.insert(&mut DynamicEntity::new("eu", "dragon")).await?;
    /// let mut dragon = table.get("eu", "dragon").await?.expect("stored"); // carries its ETag
    /// dragon.set("Score", 40);
    /// let mut batch = table.batch();
    /// batch.merge(&dragon)?;
    /// // without an ETag the condition is unknown: refused when added
    /// let unread = DynamicEntity::new("eu", "wyvern");
    /// assert!(batch.merge(&unread).unwrap_err().is_invalid_input());
    /// batch.submit().await?;
    /// let stored = table.get("eu", "dragon").await?.expect("stored");
    /// assert_eq!(stored.get::<i32>("Score"), Some(40));
    /// # Ok(()) }
    /// ```
    pub fn merge(&mut self, entity: &M::Entity) -> Result<()> {
        self.add_indexed(OperationKind::Merge, entity)
    }

    /// Adds a replace conditional on the entity's ETag ([`ETag::any`] for unconditional).
    ///
    /// Refused for a model with a secondary index or a spread field (see
    /// [what a transaction cannot hold](Batch#what-a-transaction-cannot-hold)).
    pub fn replace(&mut self, entity: &M::Entity) -> Result<()> {
        self.add_indexed(OperationKind::Replace, entity)
    }

    /// Adds a delete conditional on the entity's ETag ([`ETag::any`] for unconditional).
    pub fn delete(&mut self, entity: &M::Entity) -> Result<()> {
        let dynamic = entity.as_dynamic();
        if plan_of::<M>(dynamic).keeps_rows() {
            return self.add_indexed(OperationKind::Delete, entity);
        }
        let etag = required_etag(dynamic)?;
        self.delete_by_key(dynamic.partition_key(), dynamic.row_key(), &etag)
    }

    /// Adds a delete by keys, conditional on `etag` ([`ETag::any`] for unconditional).
    pub fn delete_by_key(&mut self, partition_key: &str, row_key: &str, etag: &ETag) -> Result<()> {
        // The plan of what is stored is unknown here: any variant's rows refuse it.
        if any_spread::<M>() {
            return Err(spread_refused::<M>(DELETE_BY_KEY));
        }
        if any_indexes::<M>() {
            index_rows::<M>(&[], OperationKind::Delete, None)?;
        }
        let limits = self.table.client().limits();
        limits.validate_key(KeyKind::PartitionKey, partition_key)?;
        limits.validate_key(KeyKind::RowKey, row_key)?;
        self.add(
            OperationKind::Delete,
            partition_key,
            row_key,
            Some(etag.as_str()),
            None,
        )
    }

    /// How many operations the transaction holds.
    ///
    /// ```
    /// use tablekit::client::Table;
    /// use tablekit::{DynamicEntity, ETag};
    /// # let dev = "UseDevelopmentStorage=true";
    /// # let client = tablekit::client::TableServiceClient::from_connection_string(dev)?;
    /// let table: Table = client.table_named("Orders");
    /// let mut batch = table.batch();
    /// batch.insert(&DynamicEntity::new("order-17", "line-1"))?;
    /// batch.delete_by_key("order-17", "line-2", &ETag::any())?;
    /// assert_eq!(batch.len(), 2);
    /// // line-1 is in the batch already: refused, and not counted
    /// let repeat = DynamicEntity::new("order-17", "line-1");
    /// assert!(batch.insert(&repeat).is_err());
    /// assert_eq!(batch.len(), 2);
    /// # Ok::<(), tablekit::Error>(())
    /// ```
    pub fn len(&self) -> usize {
        self.operations.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.operations.is_empty()
    }

    /// The PartitionKey all operations share (`None` while empty).
    pub fn partition_key(&self) -> Option<&str> {
        self.partition_key.as_deref()
    }

    /// The kinds of the operations, in order.
    pub fn kinds(&self) -> impl ExactSizeIterator<Item = OperationKind> + '_ {
        self.operations.iter().map(|o| o.kind)
    }

    /// Marks the operation added last as the insert of `index`'s row `row_key`, which must
    /// be unique: a conflict on it fails the transaction with [`Error::UniqueViolation`].
    pub(crate) fn claim_last(&mut self, index: &Index, row_key: &str) {
        let Some(operation) = self.operations.len().checked_sub(1) else {
            return;
        };
        self.claims.push(Claim {
            operation,
            index: index.name(),
            // The row's key is the index's name, `_`, then the value's key text.
            value: row_key
                .get(index.name().len() + 1..)
                .unwrap_or_default()
                .to_owned(),
        });
    }

    /// Refuses a unique index row that an earlier entity of the transaction claims: two
    /// entities would hold one unique value, whatever is stored.
    fn check_unclaimed(&self, row: &DynamicEntity) -> Result<()> {
        let Some(&operation) = self.rows.get(row.row_key()) else {
            return Ok(());
        };
        match self.claims.iter().find(|c| c.operation == operation) {
            Some(claim) => Err(UniqueViolation {
                index: claim.index,
                partition_key: row.partition_key().to_owned(),
                value: claim.value.clone(),
            }
            .into()),
            None => Ok(()),
        }
    }

    /// Adds a write and the operations of the rows beside it (a spread value's continuation
    /// rows, the index rows): all of them, or (on error) none.
    fn add_indexed(&mut self, kind: OperationKind, typed: &M::Entity) -> Result<()> {
        let entity = typed.as_dynamic();
        let plan = plan_of::<M>(entity);
        let (main, spread_rows) = spread_rows::<M>(plan.spread, kind, entity)?;
        let rows = index_rows::<M>(plan.indexes, kind, Some(entity))?;
        let mark = self.operations.len();
        let parts_len = self.parts_len;
        let added = match kind {
            OperationKind::Delete => {
                let etag = required_etag(entity)?;
                let (pk, rk) = (entity.partition_key(), entity.row_key());
                let limits = self.table.client().limits();
                limits.validate_key(KeyKind::PartitionKey, pk)?;
                limits.validate_key(KeyKind::RowKey, rk)?;
                self.add(kind, pk, rk, Some(etag.as_str()), None)
            }
            _ => self.add_write(kind, typed, main.as_ref()),
        };
        let added = added
            .and_then(|()| {
                (spread_rows.iter()).try_for_each(|(kind, row)| self.add_auxiliary(*kind, row))
            })
            .and_then(|()| {
                rows.iter().try_for_each(|(kind, row, index)| {
                    let claims = *kind == OperationKind::Insert && index.is_unique();
                    if claims {
                        self.check_unclaimed(row)?;
                    }
                    self.add_auxiliary(*kind, row)?;
                    if claims {
                        self.claim_last(index, row.row_key());
                    }
                    Ok(())
                })
            });
        if added.is_err() {
            self.operations.truncate(mark);
            self.claims.retain(|c| c.operation < mark);
            self.rows.retain(|_, index| *index < mark);
            self.parts_len = parts_len;
            if mark == 0 {
                self.partition_key = None;
            }
        }
        added
    }

    /// Adds the operation of a row beside an entity (an index or continuation row): its
    /// delete is unconditional, the entity's own operation holding the transaction's
    /// condition.
    fn add_auxiliary(&mut self, kind: OperationKind, row: &DynamicEntity) -> Result<()> {
        self.table.client().limits().validate_entity(row)?;
        let body = (kind != OperationKind::Delete).then(|| codec::encode_entity(row));
        let if_match = (kind == OperationKind::Delete).then_some("*");
        let (pk, rk) = (row.partition_key(), row.row_key());
        self.add(kind, pk, rk, if_match, body.as_deref())?;
        if let Some(operation) = self.operations.last_mut() {
            operation.auxiliary = true;
        }
        Ok(())
    }

    /// Adds the write of `typed`, sending `main` in its place when its values spread over
    /// continuation rows.
    fn add_write(
        &mut self,
        kind: OperationKind,
        typed: &M::Entity,
        main: Option<&DynamicEntity>,
    ) -> Result<()> {
        let entity = typed.as_dynamic();
        let etag = match kind {
            OperationKind::Merge | OperationKind::Replace => Some(required_etag(entity)?),
            _ => None,
        };
        let unsent = match kind {
            OperationKind::Replace | OperationKind::UpsertReplace => Unsent::Deleted,
            _ => Unsent::Kept,
        };
        let limits = self.table.client().limits();
        let entity = match main {
            Some(main) => {
                M::check_write(typed)?;
                writable::check_row(main, unsent, limits)?;
                main
            }
            None => {
                writable::check::<M>(typed, unsent, limits)?;
                entity
            }
        };
        let body = codec::encode_entity(entity);
        self.add(
            kind,
            entity.partition_key(),
            entity.row_key(),
            etag.as_ref().map(ETag::as_str),
            Some(&body),
        )
    }

    /// Checks the transaction rules, encodes the part, and adds it; on error nothing changes.
    fn add(
        &mut self,
        kind: OperationKind,
        partition_key: &str,
        row_key: &str,
        if_match: Option<&str>,
        body: Option<&[u8]>,
    ) -> Result<()> {
        let index = self.operations.len();
        if index >= MAX_BATCH_OPERATIONS {
            return Err(InvalidInput::TooManyOperations { count: index + 1 }.into());
        }
        if let Some(expected) = &self.partition_key {
            if expected != partition_key {
                return Err(InvalidInput::MixedPartitions {
                    index,
                    expected: expected.clone(),
                    found: partition_key.to_owned(),
                }
                .into());
            }
        }
        if let Some(&first) = self.rows.get(row_key) {
            return Err(InvalidInput::DuplicateRow {
                first,
                second: index,
                row_key: row_key.to_owned(),
            }
            .into());
        }
        let (part, body) = self.encode_part(index, kind, partition_key, row_key, if_match, body)?;
        let bytes = self.encoded_len() + part.len();
        self.table.client().limits().check_batch_bytes(bytes)?;
        self.parts_len += part.len();
        self.partition_key
            .get_or_insert_with(|| partition_key.to_owned());
        self.rows.insert(row_key.to_owned(), index);
        self.operations.push(Operation {
            kind,
            auxiliary: false,
            part,
            body,
            if_match: if_match.map(ETag::new),
        });
        Ok(())
    }
}

/// The reason a transaction refuses most writes of a model with spread values.
const SPREAD_REASON: &str = "the continuation rows to write and delete depend on the stored entity, which a transaction being built cannot read";

/// What a write of an entity of model `M`, whose values may spread over continuation rows
/// (`fields`, its storage plan's), sends beside it: the main row in place of the entity (for
/// an insert) and the continuation rows' operations. An insert spreads the values over rows
/// written with it; a delete of an entity read whole, on its ETag, deletes the rows it
/// holds. The other writes need the rows stored, which a transaction being built cannot
/// read: refused, naming the table's write.
#[allow(clippy::type_complexity)]
fn spread_rows<M: TableModel>(
    fields: &[SpreadField],
    kind: OperationKind,
    entity: &DynamicEntity,
) -> Result<(Option<DynamicEntity>, Vec<(OperationKind, DynamicEntity)>)> {
    if fields.is_empty() {
        return Ok((None, Vec::new()));
    }
    spread::check_main_key(entity.row_key())?;
    let whole = !entity.is_partial() && entity.etag().is_some_and(|e| !e.is_any());
    match kind {
        OperationKind::Insert => {
            let parts = spread::spread(entity, fields)?;
            let rows = parts.rows.into_iter();
            // Over any row left by an earlier entity of the key, as the table's insert does.
            let rows = rows.map(|row| (OperationKind::UpsertReplace, row)).collect();
            Ok((Some(parts.main), rows))
        }
        OperationKind::Delete if whole => {
            let (pk, rk) = (entity.partition_key(), entity.row_key());
            let keys = fields.iter().flat_map(|field| {
                let used = spread::rows_used(entity, field.property);
                (1..=used).map(|i| spread::continuation_key(rk, field.property, i))
            });
            let rows = keys.map(|key| (OperationKind::Delete, DynamicEntity::new(pk, key)));
            Ok((None, rows.collect()))
        }
        OperationKind::Delete => Err(not_in_transaction::<M>(
            kind.described(),
            "the continuation rows to delete are the stored entity's: only an entity read whole, deleted on its ETag, says which they are",
        )),
        _ => Err(not_in_transaction::<M>(kind.described(), SPREAD_REASON)),
    }
}

/// A model whose values spread over continuation rows cannot join a transaction by keys
/// alone: which rows to delete is the stored entity's to say. (`operation` and `instead`
/// name the write refused and the table's write to use.)
fn spread_refused<M: TableModel>((operation, instead): (&'static str, &'static str)) -> Error {
    not_in_transaction::<M>((operation, instead), SPREAD_REASON)
}

/// [`InvalidInput::NotInTransaction`] for `operation` of model `M`.
fn not_in_transaction<M: TableModel>(
    (operation, instead): (&'static str, &'static str),
    reason: &'static str,
) -> Error {
    InvalidInput::NotInTransaction {
        model: std::any::type_name::<M>(),
        operation,
        reason,
        instead,
    }
    .into()
}

/// The index rows' operations a transaction adds beside `kind` of `entity` (`None`: a delete
/// by keys), for model `M`. An insert adds the entity's index rows; a delete of an entity on
/// its ETag (so it is the stored state) deletes them. The other writes of an indexed model
/// need the stored state first, which a transaction being built cannot read: they are
/// refused, pointing at the table's own write, which reads it.
fn index_rows<M: TableModel>(
    indexes: &'static [Index],
    kind: OperationKind,
    entity: Option<&DynamicEntity>,
) -> Result<Vec<(OperationKind, DynamicEntity, &'static Index)>> {
    if indexes.is_empty() && entity.is_some() {
        return Ok(Vec::new());
    }
    let operation = match entity {
        Some(_) => kind.described(),
        None => DELETE_BY_KEY,
    };
    let refuse = |reason| Err(not_in_transaction::<M>(operation, reason));
    if indexes.iter().any(Index::is_inter_partition) {
        return refuse(
            "its index rows live in another partition, which a transaction cannot reach",
        );
    }
    let Some(entity) = entity else {
        return refuse("the index rows to delete are the stored entity's, which a transaction being built cannot read");
    };
    index::check_entity_row_key(indexes, entity.row_key())?;
    let (row_kind, delete) = match kind {
        OperationKind::Insert => (OperationKind::Insert, false),
        OperationKind::Delete => (OperationKind::Delete, true),
        _ => return refuse("the index rows to change depend on the stored entity, which a transaction being built cannot read"),
    };
    if delete && (entity.is_partial() || entity.etag() == Some(&ETag::any())) {
        return refuse("the index rows to delete are the stored entity's: only an entity read whole, deleted on its ETag, says which they are");
    }
    let mut rows = Vec::new();
    for index in indexes {
        if let Some(row) = index.row_of(entity)? {
            let kind = match (delete, index.is_unique()) {
                (true, _) => OperationKind::Delete,
                (false, true) => row_kind,
                (false, false) => OperationKind::UpsertReplace,
            };
            rows.push((kind, row, index));
        }
    }
    Ok(rows)
}
