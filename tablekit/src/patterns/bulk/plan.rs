//! The planner: which operations go into which transaction.

use std::collections::{HashMap, HashSet};

use crate::client::OperationKind;
use crate::protocol::limits::{self, InvalidInput, KeyKind, MAX_BATCH_BYTES, MAX_BATCH_OPERATIONS};
use crate::values::entity::DynamicEntity;
use crate::values::etag::ETag;

/// Whether the kind sends `If-Match` (and can fail with 412 or 404).
pub(crate) fn is_conditional(kind: OperationKind) -> bool {
    matches!(
        kind,
        OperationKind::Replace | OperationKind::Merge | OperationKind::Delete
    )
}

/// Whether the request carries the entity's properties.
fn has_body(kind: OperationKind) -> bool {
    kind != OperationKind::Delete
}

/// One write: a table, what to do, and the entity (its keys, properties and ETag).
///
/// ```
/// use tablekit::DynamicEntity;
/// use tablekit::client::OperationKind;
/// use tablekit::patterns::bulk::WriteOp;
/// let op = WriteOp::delete("Logs", DynamicEntity::new("p", "r"));
/// assert_eq!(op.kind(), OperationKind::Delete);
/// assert!(op.if_match().is_any());
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct WriteOp {
    table: String,
    kind: OperationKind,
    entity: DynamicEntity,
}

impl WriteOp {
    /// An operation of any kind.
    ///
    /// ```
    /// use tablekit::DynamicEntity;
    /// use tablekit::client::OperationKind;
    /// use tablekit::patterns::bulk::WriteOp;
    /// let op = WriteOp::new("Logs", OperationKind::UpsertMerge, DynamicEntity::new("p", "r"));
    /// assert_eq!((op.table(), op.kind()), ("Logs", OperationKind::UpsertMerge));
    /// ```
    pub fn new(table: impl Into<String>, kind: OperationKind, entity: DynamicEntity) -> Self {
        WriteOp {
            table: table.into(),
            kind,
            entity,
        }
    }

    /// An insert.
    ///
    /// ```
    /// use tablekit::DynamicEntity;
    /// use tablekit::client::OperationKind;
    /// use tablekit::patterns::bulk::WriteOp;
    /// let op = WriteOp::insert("Logs", DynamicEntity::new("p", "r"));
    /// assert_eq!(op.kind(), OperationKind::Insert);
    /// ```
    pub fn insert(table: impl Into<String>, entity: DynamicEntity) -> Self {
        Self::new(table, OperationKind::Insert, entity)
    }

    /// An insert-or-replace (the usual bulk load and restore operation).
    ///
    /// ```
    /// use tablekit::DynamicEntity;
    /// use tablekit::client::OperationKind;
    /// use tablekit::patterns::bulk::WriteOp;
    /// let op = WriteOp::upsert("Logs", DynamicEntity::new("p", "r"));
    /// assert_eq!(op.kind(), OperationKind::UpsertReplace);
    /// ```
    pub fn upsert(table: impl Into<String>, entity: DynamicEntity) -> Self {
        Self::new(table, OperationKind::UpsertReplace, entity)
    }

    /// A replace, conditional on the entity's ETag (or unconditional without one).
    ///
    /// ```
    /// use tablekit::{DynamicEntity, ETag};
    /// use tablekit::client::OperationKind;
    /// use tablekit::patterns::bulk::WriteOp;
    /// let mut read = DynamicEntity::new("p", "r");
    /// read.set_etag(Some(ETag::new("W/\"1\"")));
    /// let op = WriteOp::replace("Logs", read);
    /// assert_eq!(op.kind(), OperationKind::Replace);
    /// assert_eq!(op.if_match().as_str(), "W/\"1\""); // fails with 412 if the entity changed
    /// ```
    pub fn replace(table: impl Into<String>, entity: DynamicEntity) -> Self {
        Self::new(table, OperationKind::Replace, entity)
    }

    /// A delete, conditional on the entity's ETag (or unconditional without one).
    ///
    /// ```
    /// use tablekit::DynamicEntity;
    /// use tablekit::client::OperationKind;
    /// use tablekit::patterns::bulk::WriteOp;
    /// let op = WriteOp::delete("Logs", DynamicEntity::new("p", "r"));
    /// assert_eq!(op.kind(), OperationKind::Delete);
    /// assert!(op.if_match().is_any()); // no ETag: deletes whatever version is stored
    /// ```
    pub fn delete(table: impl Into<String>, entity: DynamicEntity) -> Self {
        Self::new(table, OperationKind::Delete, entity)
    }

    /// The table written to.
    ///
    /// ```
    /// use tablekit::DynamicEntity;
    /// use tablekit::patterns::bulk::WriteOp;
    /// assert_eq!(WriteOp::insert("Logs", DynamicEntity::new("p", "r")).table(), "Logs");
    /// ```
    pub fn table(&self) -> &str {
        &self.table
    }

    /// What the operation does.
    ///
    /// ```
    /// use tablekit::DynamicEntity;
    /// use tablekit::client::OperationKind;
    /// use tablekit::patterns::bulk::WriteOp;
    /// let op = WriteOp::delete("Logs", DynamicEntity::new("p", "r"));
    /// assert_eq!(op.kind(), OperationKind::Delete);
    /// ```
    pub fn kind(&self) -> OperationKind {
        self.kind
    }

    /// The entity.
    ///
    /// ```
    /// use tablekit::DynamicEntity;
    /// use tablekit::patterns::bulk::WriteOp;
    /// let op = WriteOp::upsert("Logs", DynamicEntity::new("p", "r"));
    /// assert_eq!((op.entity().partition_key(), op.entity().row_key()), ("p", "r"));
    /// ```
    pub fn entity(&self) -> &DynamicEntity {
        &self.entity
    }

    /// Gives the entity back.
    ///
    /// ```
    /// use tablekit::DynamicEntity;
    /// use tablekit::patterns::bulk::WriteOp;
    /// let mut e = DynamicEntity::new("p", "r");
    /// e.set("N", 1);
    /// let op = WriteOp::upsert("Logs", e.clone());
    /// assert_eq!(op.into_entity(), e);
    /// ```
    pub fn into_entity(self) -> DynamicEntity {
        self.entity
    }

    /// The `If-Match` value for conditional kinds: the entity's ETag, or `*` without one.
    ///
    /// ```
    /// use tablekit::{DynamicEntity, ETag};
    /// use tablekit::patterns::bulk::WriteOp;
    /// let mut e = DynamicEntity::new("p", "r");
    /// assert!(WriteOp::replace("Logs", e.clone()).if_match().is_any());
    /// e.set_etag(Some(ETag::new("W/\"7\"")));
    /// assert_eq!(WriteOp::replace("Logs", e).if_match(), ETag::new("W/\"7\""));
    /// ```
    pub fn if_match(&self) -> ETag {
        self.entity.etag().cloned().unwrap_or_else(ETag::any)
    }

    /// Checks what the service would check: the table name, the keys, and (for kinds with a
    /// body) every property and the entity size.
    ///
    /// ```
    /// use tablekit::DynamicEntity;
    /// use tablekit::patterns::bulk::WriteOp;
    /// assert!(WriteOp::upsert("Logs", DynamicEntity::new("a/b", "r")).validate().is_err());
    /// assert!(WriteOp::upsert("Logs", DynamicEntity::new("a", "r")).validate().is_ok());
    /// ```
    pub fn validate(&self) -> Result<(), InvalidInput> {
        limits::validate_table_name(&self.table)?;
        if has_body(self.kind) {
            limits::validate_entity(&self.entity)
        } else {
            limits::validate_key(KeyKind::PartitionKey, self.entity.partition_key())?;
            limits::validate_key(KeyKind::RowKey, self.entity.row_key())
        }
    }

    /// A conservative size of this operation's part in a `$batch` body: the part headers, a
    /// request line with an absolute URL (keys percent-encoded at worst), the `If-Match` header
    /// and the JSON body.
    ///
    /// ```
    /// use tablekit::DynamicEntity;
    /// use tablekit::patterns::bulk::WriteOp;
    /// let op = WriteOp::upsert("Logs", DynamicEntity::new("p", "r"));
    /// assert!(op.estimated_part_bytes() > tablekit::codec::encode_entity(op.entity()).len());
    /// ```
    pub fn estimated_part_bytes(&self) -> usize {
        let keys = self.entity.partition_key().len() + self.entity.row_key().len();
        let etag = self.entity.etag().map_or(1, |t| t.as_str().len());
        let body = if has_body(self.kind) {
            crate::codec::encode_entity(&self.entity).len()
        } else {
            0
        };
        PART_OVERHEAD_BYTES + self.table.len() + 3 * keys + etag + body
    }
}

/// Part headers, boundary, request line without keys and table, and the per-part headers:
/// about 400 bytes in the captures; rounded up, plus room for a long account endpoint.
const PART_OVERHEAD_BYTES: usize = 768;
/// The batch and changeset envelope around the parts (boundaries and their headers).
const ENVELOPE_BYTES: usize = 512;

/// How to split operations into transactions. The defaults are the service's limits.
///
/// ```
/// use tablekit::patterns::bulk::BatchPlanner;
/// let planner = BatchPlanner::new().max_operations(10)?.max_body_bytes(100_000)?;
/// assert_eq!(planner.operations_limit(), 10);
/// assert!(BatchPlanner::new().max_operations(101).is_err());
/// # Ok::<(), tablekit::InvalidInput>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BatchPlanner {
    max_operations: usize,
    max_body_bytes: usize,
    envelope_bytes: usize,
}

impl Default for BatchPlanner {
    fn default() -> Self {
        Self::new()
    }
}

impl BatchPlanner {
    /// A planner with the service's limits: 100 operations and 4 MiB per transaction.
    ///
    /// ```
    /// use tablekit::patterns::bulk::BatchPlanner;
    /// let planner = BatchPlanner::new();
    /// assert_eq!(planner.operations_limit(), 100);
    /// assert_eq!(planner.body_bytes_limit(), 4 * 1024 * 1024);
    /// ```
    pub fn new() -> Self {
        BatchPlanner {
            max_operations: MAX_BATCH_OPERATIONS,
            max_body_bytes: MAX_BATCH_BYTES,
            envelope_bytes: ENVELOPE_BYTES,
        }
    }

    /// Fewer operations per transaction (1 to 100).
    ///
    /// ```
    /// use tablekit::DynamicEntity;
    /// use tablekit::patterns::bulk::{BatchPlanner, WriteOp};
    /// let ops: Vec<WriteOp> = (0..25)
    ///     .map(|i| WriteOp::upsert("Logs", DynamicEntity::new("p", format!("{i:02}"))))
    ///     .collect();
    /// let plan = BatchPlanner::new().max_operations(10)?.plan(&ops);
    /// let sizes: Vec<usize> = plan.transactions().iter().map(|t| t.len()).collect();
    /// assert_eq!(sizes, [10, 10, 5]);
    /// assert!(BatchPlanner::new().max_operations(0).is_err());
    /// # Ok::<(), tablekit::InvalidInput>(())
    /// ```
    pub fn max_operations(mut self, n: usize) -> Result<Self, InvalidInput> {
        if !(1..=MAX_BATCH_OPERATIONS).contains(&n) {
            return Err(InvalidInput::Other(format!(
                "a transaction holds 1 to 100 operations, not {n}"
            )));
        }
        self.max_operations = n;
        Ok(self)
    }

    /// A smaller body limit (at most 4 MiB, and more than the envelope).
    ///
    /// ```
    /// use tablekit::DynamicEntity;
    /// use tablekit::patterns::bulk::{BatchPlanner, WriteOp};
    /// let ops: Vec<WriteOp> = (0..10)
    ///     .map(|i| WriteOp::upsert("Logs", DynamicEntity::new("p", i.to_string())))
    ///     .collect();
    /// let plan = BatchPlanner::new().max_body_bytes(64 * 1024)?.plan(&ops);
    /// assert!(plan.transactions().iter().all(|t| t.body_bytes() <= 64 * 1024));
    /// assert!(BatchPlanner::new().max_body_bytes(5 << 20).is_err()); // over the service's 4 MiB
    /// # Ok::<(), tablekit::InvalidInput>(())
    /// ```
    pub fn max_body_bytes(mut self, n: usize) -> Result<Self, InvalidInput> {
        if n <= self.envelope_bytes || n > MAX_BATCH_BYTES {
            return Err(InvalidInput::Other(format!(
                "a transaction body limit is {} to 4194304 bytes, not {n}",
                self.envelope_bytes + 1
            )));
        }
        self.max_body_bytes = n;
        Ok(self)
    }

    /// The bytes counted for the batch envelope around the parts (default 512).
    ///
    /// ```
    /// use tablekit::patterns::bulk::BatchPlanner;
    /// assert_eq!(BatchPlanner::new().envelope_bytes(300).body_bytes_limit(), 4 * 1024 * 1024);
    /// ```
    pub fn envelope_bytes(mut self, n: usize) -> Self {
        self.envelope_bytes = n;
        self
    }

    /// The most operations per transaction.
    ///
    /// ```
    /// use tablekit::patterns::bulk::BatchPlanner;
    /// assert_eq!(BatchPlanner::new().max_operations(20)?.operations_limit(), 20);
    /// # Ok::<(), tablekit::InvalidInput>(())
    /// ```
    pub fn operations_limit(&self) -> usize {
        self.max_operations
    }

    /// The most body bytes per transaction.
    ///
    /// ```
    /// use tablekit::patterns::bulk::BatchPlanner;
    /// assert_eq!(BatchPlanner::new().max_body_bytes(1 << 20)?.body_bytes_limit(), 1 << 20);
    /// # Ok::<(), tablekit::InvalidInput>(())
    /// ```
    pub fn body_bytes_limit(&self) -> usize {
        self.max_body_bytes
    }

    /// Plans write operations: each is validated ([`WriteOp::validate`]) and sized with
    /// [`WriteOp::estimated_part_bytes`]; invalid ones are rejected, not sent.
    ///
    /// ```
    /// use tablekit::DynamicEntity;
    /// use tablekit::patterns::bulk::{BatchPlanner, WriteOp};
    /// let ops = [
    ///     WriteOp::upsert("Logs", DynamicEntity::new("a", "1")),
    ///     WriteOp::upsert("Logs", DynamicEntity::new("a/b", "2")), // `/` is not allowed in keys
    ///     WriteOp::upsert("Logs", DynamicEntity::new("a", "3")),
    /// ];
    /// let plan = BatchPlanner::new().plan(&ops);
    /// assert_eq!(plan.transactions()[0].indices(), [0, 2]);
    /// assert_eq!(plan.rejected()[0].index, 1);
    /// ```
    pub fn plan(&self, ops: &[WriteOp]) -> Plan {
        self.plan_by(
            ops.len(),
            |i| {
                let op = ops.get(i)?;
                Some(OpKey {
                    table: &op.table,
                    partition_key: op.entity.partition_key(),
                    row_key: op.entity.row_key(),
                })
            },
            |i| match ops.get(i) {
                Some(op) => op.validate().map(|()| op.estimated_part_bytes()),
                None => Err(InvalidInput::Other(format!("no operation {i}"))),
            },
        )
    }

    /// Plans `count` items known by index: `key(i)` gives an item's table and keys and
    /// `part_bytes(i)` its encoded part size (or why it is invalid). The general form of
    /// [`plan`](Self::plan), for callers with their own operation type or exact sizes.
    ///
    /// ```
    /// use tablekit::patterns::bulk::{BatchPlanner, OpKey};
    /// let rows = ["a", "b", "a"];
    /// let plan = BatchPlanner::new().plan_by(
    ///     rows.len(),
    ///     |i| Some(OpKey { table: "T", partition_key: "p", row_key: rows.get(i)? }),
    ///     |_| Ok(1000),
    /// );
    /// // "a" twice: the second goes into a transaction after the first.
    /// assert_eq!(plan.transactions().len(), 2);
    /// assert_eq!(plan.transactions()[1].must_follow(), Some(0));
    /// ```
    pub fn plan_by<'a>(
        &self,
        count: usize,
        key: impl Fn(usize) -> Option<OpKey<'a>>,
        part_bytes: impl Fn(usize) -> Result<usize, InvalidInput>,
    ) -> Plan {
        let mut builder = PlanBuilder::new(*self);
        for index in 0..count {
            let Some(op_key) = key(index) else {
                builder.reject(index, InvalidInput::Other(format!("no operation {index}")));
                continue;
            };
            match part_bytes(index) {
                Ok(bytes) => builder.add(index, op_key, bytes),
                Err(error) => builder.reject(index, error),
            }
        }
        builder.finish()
    }
}

/// The table and keys of one operation, as the planner sees it.
///
/// ```
/// use tablekit::patterns::bulk::OpKey;
/// let k = OpKey { table: "T", partition_key: "p", row_key: "r" };
/// assert_eq!(k.row_key, "r");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpKey<'a> {
    /// The table.
    pub table: &'a str,
    /// The PartitionKey.
    pub partition_key: &'a str,
    /// The RowKey.
    pub row_key: &'a str,
}

/// One planned entity group transaction: operations on one table and PartitionKey, committed
/// together or not at all.
///
/// ```
/// use tablekit::DynamicEntity;
/// use tablekit::patterns::bulk::{BatchPlanner, WriteOp};
/// let plan = BatchPlanner::new().plan(&[WriteOp::insert("Tab", DynamicEntity::new("p", "r"))]);
/// let t = &plan.transactions()[0];
/// assert_eq!((t.table(), t.partition_key(), t.indices()), ("Tab", "p", &[0][..]));
/// assert!(t.body_bytes() > 0);
/// assert_eq!(t.must_follow(), None);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transaction {
    table: String,
    partition_key: String,
    indices: Vec<usize>,
    rows: HashSet<String>,
    body_bytes: usize,
    must_follow: Option<usize>,
}

impl Transaction {
    /// The table.
    ///
    /// ```
    /// use tablekit::DynamicEntity;
    /// use tablekit::patterns::bulk::{BatchPlanner, WriteOp};
    /// let plan = BatchPlanner::new().plan(&[
    ///     WriteOp::insert("Logs", DynamicEntity::new("p", "1")),
    ///     WriteOp::insert("Audit", DynamicEntity::new("p", "1")),
    /// ]);
    /// let tables: Vec<&str> = plan.transactions().iter().map(|t| t.table()).collect();
    /// assert_eq!(tables, ["Logs", "Audit"]); // one table per transaction
    /// ```
    pub fn table(&self) -> &str {
        &self.table
    }

    /// The PartitionKey every operation shares.
    ///
    /// ```
    /// use tablekit::DynamicEntity;
    /// use tablekit::patterns::bulk::{BatchPlanner, WriteOp};
    /// let plan = BatchPlanner::new().plan(&[
    ///     WriteOp::insert("Logs", DynamicEntity::new("a", "1")),
    ///     WriteOp::insert("Logs", DynamicEntity::new("b", "1")),
    /// ]);
    /// let keys: Vec<&str> = plan.transactions().iter().map(|t| t.partition_key()).collect();
    /// assert_eq!(keys, ["a", "b"]);
    /// ```
    pub fn partition_key(&self) -> &str {
        &self.partition_key
    }

    /// The caller's input indices, in input order.
    ///
    /// ```
    /// use tablekit::DynamicEntity;
    /// use tablekit::patterns::bulk::{BatchPlanner, WriteOp};
    /// let ops: Vec<WriteOp> = (0..4)
    ///     .map(|i| WriteOp::insert("Logs", DynamicEntity::new(["a", "b"][i % 2], i.to_string())))
    ///     .collect();
    /// let plan = BatchPlanner::new().plan(&ops);
    /// let groups: Vec<&[usize]> = plan.transactions().iter().map(|t| t.indices()).collect();
    /// assert_eq!(groups, [[0, 2], [1, 3]]);
    /// ```
    pub fn indices(&self) -> &[usize] {
        &self.indices
    }

    /// The number of operations.
    ///
    /// ```
    /// use tablekit::DynamicEntity;
    /// use tablekit::patterns::bulk::{BatchPlanner, WriteOp};
    /// let ops: Vec<WriteOp> = (0..150)
    ///     .map(|i| WriteOp::insert("Logs", DynamicEntity::new("p", format!("{i:03}"))))
    ///     .collect();
    /// let plan = BatchPlanner::new().plan(&ops);
    /// let sizes: Vec<usize> = plan.transactions().iter().map(|t| t.len()).collect();
    /// assert_eq!(sizes, [100, 50]);
    /// ```
    pub fn len(&self) -> usize {
        self.indices.len()
    }

    /// Whether the transaction is empty (never true in a plan).
    ///
    /// ```
    /// use tablekit::DynamicEntity;
    /// use tablekit::patterns::bulk::{BatchPlanner, WriteOp};
    /// let op = WriteOp::insert("Logs", DynamicEntity::new("p", "r"));
    /// let plan = BatchPlanner::new().plan(&[op]);
    /// assert!(!plan.transactions()[0].is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.indices.is_empty()
    }

    /// The planned body size in bytes (at most the planner's limit).
    ///
    /// ```
    /// use tablekit::DynamicEntity;
    /// use tablekit::patterns::bulk::{BatchPlanner, WriteOp};
    /// let mut big = DynamicEntity::new("p", "big");
    /// big.set("Data", vec![0u8; 60_000]);
    /// let small = DynamicEntity::new("p", "small");
    /// let ops = [WriteOp::upsert("Logs", small), WriteOp::upsert("Logs", big)];
    /// let plan = BatchPlanner::new().plan(&ops);
    /// let t = &plan.transactions()[0];
    /// assert!(t.body_bytes() > 80_000); // the binary travels as base64
    /// assert!(t.body_bytes() <= BatchPlanner::new().body_bytes_limit());
    /// ```
    pub fn body_bytes(&self) -> usize {
        self.body_bytes
    }

    /// The transaction (by index in [`Plan::transactions`]) that must commit before this one
    /// starts, because they touch a common entity; `None` when it may run at any time.
    ///
    /// ```
    /// use tablekit::DynamicEntity;
    /// use tablekit::patterns::bulk::{BatchPlanner, WriteOp};
    /// let ops = [
    ///     WriteOp::upsert("Logs", DynamicEntity::new("p", "r")),
    ///     WriteOp::upsert("Logs", DynamicEntity::new("q", "r")),
    ///     WriteOp::delete("Logs", DynamicEntity::new("p", "r")), // the same entity again
    /// ];
    /// let plan = BatchPlanner::new().plan(&ops);
    /// let order: Vec<_> = plan.transactions().iter().map(|t| t.must_follow()).collect();
    /// assert_eq!(order, [None, Some(0), None]); // the delete waits for the upsert
    /// ```
    pub fn must_follow(&self) -> Option<usize> {
        self.must_follow
    }
}

/// An operation the planner refused, with the reason; it is never sent.
///
/// ```
/// use tablekit::DynamicEntity;
/// use tablekit::patterns::bulk::{BatchPlanner, WriteOp};
/// let plan = BatchPlanner::new().plan(&[WriteOp::upsert("Logs", DynamicEntity::new("a?b", "r"))]);
/// assert_eq!(plan.rejected()[0].index, 0);
/// assert!(plan.rejected()[0].error.to_string().contains("forbidden character"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejected {
    /// The caller's input index.
    pub index: usize,
    /// Why it cannot be sent.
    pub error: InvalidInput,
}

/// The planner's answer: transactions, and the operations it refused.
///
/// Every input index appears exactly once: in one transaction or in [`Plan::rejected`].
///
/// ```
/// use tablekit::DynamicEntity;
/// use tablekit::patterns::bulk::{BatchPlanner, WriteOp};
/// let ops = [
///     WriteOp::upsert("Logs", DynamicEntity::new("a", "1")),
///     WriteOp::upsert("Logs", DynamicEntity::new("b", "1")),
///     WriteOp::upsert("Logs", DynamicEntity::new("a", "2")),
/// ];
/// let plan = BatchPlanner::new().plan(&ops);
/// let groups: Vec<&[usize]> = plan.transactions().iter().map(|t| t.indices()).collect();
/// assert_eq!(groups, [&[0, 2][..], &[1][..]]);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    transactions: Vec<Transaction>,
    rejected: Vec<Rejected>,
}

impl Plan {
    /// The transactions, grouped by table and PartitionKey in order of first appearance.
    ///
    /// ```
    /// use tablekit::DynamicEntity;
    /// use tablekit::patterns::bulk::{BatchPlanner, WriteOp};
    /// let ops = [
    ///     WriteOp::upsert("Logs", DynamicEntity::new("b", "1")),
    ///     WriteOp::upsert("Logs", DynamicEntity::new("a", "1")),
    ///     WriteOp::upsert("Logs", DynamicEntity::new("b", "2")),
    /// ];
    /// let plan = BatchPlanner::new().plan(&ops);
    /// let keys: Vec<&str> = plan.transactions().iter().map(|t| t.partition_key()).collect();
    /// assert_eq!(keys, ["b", "a"]);
    /// ```
    pub fn transactions(&self) -> &[Transaction] {
        &self.transactions
    }

    /// The refused operations, in input order.
    ///
    /// ```
    /// use tablekit::DynamicEntity;
    /// use tablekit::patterns::bulk::{BatchPlanner, WriteOp};
    /// let ops = [
    ///     WriteOp::upsert("Logs", DynamicEntity::new("a#1", "r")),
    ///     WriteOp::upsert("Logs", DynamicEntity::new("ok", "r")),
    ///     WriteOp::upsert("No-Dashes", DynamicEntity::new("ok", "r")), // not a table name
    /// ];
    /// let plan = BatchPlanner::new().plan(&ops);
    /// let refused: Vec<usize> = plan.rejected().iter().map(|r| r.index).collect();
    /// assert_eq!(refused, [0, 2]);
    /// ```
    pub fn rejected(&self) -> &[Rejected] {
        &self.rejected
    }

    /// Takes the plan apart.
    ///
    /// ```
    /// let (transactions, rejected) = tablekit::patterns::bulk::Plan::default().into_parts();
    /// assert!(transactions.is_empty() && rejected.is_empty());
    /// ```
    pub fn into_parts(self) -> (Vec<Transaction>, Vec<Rejected>) {
        (self.transactions, self.rejected)
    }

    /// Chains of transactions: each chain must run in order (its transactions touch common
    /// entities), different chains may run concurrently. Every transaction is in exactly one
    /// chain; chains list indices into [`transactions`](Self::transactions).
    ///
    /// ```
    /// use tablekit::patterns::bulk::{BatchPlanner, OpKey};
    /// let rows = ["a", "a", "b"];
    /// let plan = BatchPlanner::new().plan_by(
    ///     rows.len(),
    ///     |i| Some(OpKey { table: "T", partition_key: "p", row_key: rows.get(i)? }),
    ///     |_| Ok(10),
    /// );
    /// assert_eq!(plan.chains(), vec![vec![0, 1]]);
    /// ```
    pub fn chains(&self) -> Vec<Vec<usize>> {
        let mut chains: Vec<Vec<usize>> = Vec::new();
        // Position of the chain a transaction ended up in.
        let mut chain_of: Vec<usize> = Vec::with_capacity(self.transactions.len());
        for (index, transaction) in self.transactions.iter().enumerate() {
            let chain = match transaction.must_follow.and_then(|p| chain_of.get(p)) {
                Some(&chain) => chain,
                None => {
                    chains.push(Vec::new());
                    chains.len() - 1
                }
            };
            if let Some(list) = chains.get_mut(chain) {
                list.push(index);
            }
            chain_of.push(chain);
        }
        chains
    }
}

/// Greedy packing state: one open transaction per (table, PartitionKey) group.
struct PlanBuilder {
    planner: BatchPlanner,
    groups: HashMap<(String, String), Group>,
    order: Vec<(String, String)>,
    rejected: Vec<Rejected>,
}

#[derive(Default)]
struct Group {
    closed: Vec<Transaction>,
    open: Option<Transaction>,
    /// Set once two operations of the group touched one entity: its transactions then chain.
    ordered: bool,
}

impl PlanBuilder {
    fn new(planner: BatchPlanner) -> Self {
        PlanBuilder {
            planner,
            groups: HashMap::new(),
            order: Vec::new(),
            rejected: Vec::new(),
        }
    }

    fn reject(&mut self, index: usize, error: InvalidInput) {
        self.rejected.push(Rejected { index, error });
    }

    fn add(&mut self, index: usize, key: OpKey<'_>, part_bytes: usize) {
        let limit = self.planner.max_body_bytes;
        let alone = self.planner.envelope_bytes.saturating_add(part_bytes);
        if alone > limit {
            self.reject(
                index,
                InvalidInput::BatchTooLarge {
                    bytes: alone,
                    limit: MAX_BATCH_BYTES,
                },
            );
            return;
        }
        let group_key = (key.table.to_owned(), key.partition_key.to_owned());
        let group = match self.groups.get_mut(&group_key) {
            Some(group) => group,
            None => {
                self.order.push(group_key.clone());
                self.groups.entry(group_key).or_default()
            }
        };
        let repeated = group
            .open
            .as_ref()
            .is_some_and(|t| t.rows.contains(key.row_key));
        let full = group.open.as_ref().is_some_and(|t| {
            t.indices.len() >= self.planner.max_operations
                || t.body_bytes.saturating_add(part_bytes) > limit
        });
        if repeated {
            group.ordered = true;
        }
        if repeated || full {
            if let Some(done) = group.open.take() {
                group.closed.push(done);
            }
        }
        let open = group.open.get_or_insert_with(|| Transaction {
            table: key.table.to_owned(),
            partition_key: key.partition_key.to_owned(),
            indices: Vec::new(),
            rows: HashSet::new(),
            body_bytes: self.planner.envelope_bytes,
            must_follow: None,
        });
        open.indices.push(index);
        open.rows.insert(key.row_key.to_owned());
        open.body_bytes += part_bytes;
    }

    fn finish(mut self) -> Plan {
        let mut transactions = Vec::new();
        for group_key in &self.order {
            let Some(mut group) = self.groups.remove(group_key) else {
                continue;
            };
            if let Some(open) = group.open.take() {
                group.closed.push(open);
            }
            let mut previous: Option<usize> = None;
            for mut transaction in group.closed {
                if group.ordered {
                    transaction.must_follow = previous;
                }
                previous = Some(transactions.len());
                transactions.push(transaction);
            }
        }
        self.rejected.sort_by_key(|r| r.index);
        Plan {
            transactions,
            rejected: self.rejected,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn key_plan(planner: BatchPlanner, items: &[(u8, u8, u8, usize)]) -> Plan {
        let names: Vec<(String, String, String)> = items
            .iter()
            .map(|(t, p, r, _)| (format!("T{t:02}"), format!("p{p}"), format!("r{r}")))
            .collect();
        planner.plan_by(
            items.len(),
            |i| {
                let (t, p, r) = names.get(i)?;
                Some(OpKey {
                    table: t,
                    partition_key: p,
                    row_key: r,
                })
            },
            |i| Ok(items.get(i).map_or(0, |x| x.3)),
        )
    }

    proptest! {
        #[test]
        fn every_plan_is_valid_and_complete(
            items in proptest::collection::vec((0u8..3, 0u8..4, 0u8..40, 1usize..300_000), 0..600),
            max_ops in 1usize..=100,
        ) {
            let planner = BatchPlanner::new().max_operations(max_ops).unwrap();
            let plan = key_plan(planner, &items);
            let mut seen = vec![0u32; items.len()];
            for (n, t) in plan.transactions().iter().enumerate() {
                prop_assert!(!t.is_empty());
                prop_assert!(t.len() <= max_ops);
                prop_assert!(t.body_bytes() <= MAX_BATCH_BYTES);
                let mut rows = HashSet::new();
                let mut last = None;
                for &i in t.indices() {
                    seen[i] += 1;
                    let (tb, p, r, _) = items[i];
                    prop_assert_eq!(t.table(), format!("T{tb:02}"));
                    prop_assert_eq!(t.partition_key(), format!("p{p}"));
                    prop_assert!(rows.insert(r), "row twice in one transaction");
                    prop_assert!(last < Some(i), "indices out of input order");
                    last = Some(i);
                }
                let sum: usize = t.indices().iter().map(|&i| items[i].3).sum();
                prop_assert_eq!(t.body_bytes(), ENVELOPE_BYTES + sum);
                if let Some(p) = t.must_follow() {
                    prop_assert!(p < n);
                    prop_assert_eq!(plan.transactions()[p].partition_key(), t.partition_key());
                }
            }
            for r in plan.rejected() {
                seen[r.index] += 1;
            }
            prop_assert!(seen.iter().all(|&c| c == 1), "an input lost or duplicated");
        }

        #[test]
        fn repeated_rows_keep_input_order(rows in proptest::collection::vec(0u8..5, 1..300)) {
            let items: Vec<_> = rows.iter().map(|&r| (0u8, 0u8, r, 100usize)).collect();
            let plan = key_plan(BatchPlanner::new(), &items);
            // One partition, so every transaction is in one chain (when rows repeat) or alone.
            let chains = plan.chains();
            let flat: Vec<usize> = chains.iter().flatten().copied().collect();
            prop_assert_eq!(flat.len(), plan.transactions().len());
            // All transactions of one partition with repeats form one chain in input order.
            let order: Vec<usize> = chains
                .iter()
                .flatten()
                .flat_map(|&t| plan.transactions()[t].indices().to_vec())
                .collect();
            prop_assert_eq!(order, (0..rows.len()).collect::<Vec<_>>());
            prop_assert!(plan.transactions().iter().skip(1).all(|t| t.must_follow().is_some()));
        }
    }

    #[test]
    fn body_limit_splits_before_the_operation_limit() {
        // 40 parts of 200 KiB: 20 fit in 4 MiB with the envelope.
        let items: Vec<_> = (0..40).map(|r| (0u8, 0u8, r, 200 * 1024)).collect();
        let plan = key_plan(BatchPlanner::new(), &items);
        let sizes: Vec<usize> = plan.transactions().iter().map(Transaction::len).collect();
        assert_eq!(sizes, vec![20, 20]);
    }

    #[test]
    fn an_operation_too_large_alone_is_rejected_and_named() {
        let items = [
            (0u8, 0u8, 0u8, 10),
            (0, 0, 1, MAX_BATCH_BYTES),
            (0, 0, 2, 10),
        ];
        let plan = key_plan(BatchPlanner::new(), &items);
        assert_eq!(plan.rejected().len(), 1);
        assert_eq!(plan.rejected()[0].index, 1);
        assert!(matches!(
            plan.rejected()[0].error,
            InvalidInput::BatchTooLarge { .. }
        ));
        assert_eq!(plan.transactions()[0].indices(), &[0, 2]);
    }

    #[test]
    fn invalid_operations_are_rejected_with_their_index() {
        let ops = vec![
            WriteOp::upsert("Logs", DynamicEntity::new("ok", "1")),
            WriteOp::upsert("Logs", DynamicEntity::new("bad#key", "1")),
            WriteOp::upsert("x", DynamicEntity::new("ok", "2")),
        ];
        let plan = BatchPlanner::new().plan(&ops);
        let rejected: Vec<usize> = plan.rejected().iter().map(|r| r.index).collect();
        assert_eq!(rejected, vec![1, 2]);
        assert_eq!(plan.transactions()[0].indices(), &[0]);
    }

    #[test]
    fn independent_partitions_form_separate_chains() {
        let items: Vec<_> = (0..300)
            .map(|i| (0u8, (i % 3) as u8, (i / 3) as u8, 10))
            .collect();
        let plan = key_plan(BatchPlanner::new(), &items);
        assert_eq!(plan.transactions().len(), 3);
        assert_eq!(plan.chains().len(), 3);
    }
}
