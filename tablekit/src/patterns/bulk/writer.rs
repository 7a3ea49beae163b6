//! The bulk writer: planned transactions sent with bounded concurrency.

use std::sync::Arc;

use futures::{stream, Stream, StreamExt};

use super::plan::{BatchPlanner, Plan, WriteOp};
use crate::client::error::{Error, Result};
use crate::client::{Batch, BatchOutcome, OperationKind, TableServiceClient};
use crate::patterns::progress::{NoProgress, ProgressCounter, ProgressSink};
use crate::protocol::limits::InvalidInput;
use crate::values::entity::DynamicEntity;
use crate::values::etag::ETag;

/// Writes any number of operations as entity group transactions: grouped by table and
/// PartitionKey, at most 100 operations and 4 MiB each (measured on the encoded body by the
/// client's batch encoder), several in flight at once, and every input's outcome reported.
///
/// Transactions are atomic one by one, never together: [`BulkReport::transactions`] says
/// which inputs were committed together, and a failed transaction leaves the others applied.
/// Operations on one entity are applied in input order.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let emulator = tablekit_testing::Emulator::start().await?;
/// use tablekit::patterns::bulk::{BulkWriter, WriteOp};
/// use tablekit::DynamicEntity;
/// # let client = emulator.client();
/// client.create_table("Readings").await?;
/// let ops = (0..5_000).map(|i| {
///     let mut e = DynamicEntity::new(format!("p{}", i % 10), format!("{i:06}"));
///     e.set("N", i);
///     WriteOp::upsert("Readings", e)
/// });
/// let report = BulkWriter::new(&client).concurrency(8)?.write_iter(ops).await;
/// assert!(report.is_complete());
/// println!("{} committed in {} transactions", report.committed(), report.transactions().len());
/// // 10 partitions of 500 operations: 5 full transactions each.
/// assert_eq!((report.committed(), report.transactions().len()), (5_000, 50));
/// let stored = client.table_named::<DynamicEntity>("Readings").get("p7", "004997").await?;
/// assert_eq!(stored.unwrap().get_or("N", 0), 4_997);
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct BulkWriter {
    client: TableServiceClient,
    planner: BatchPlanner,
    concurrency: usize,
    window: usize,
    progress: Arc<dyn ProgressSink>,
}

impl std::fmt::Debug for BulkWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BulkWriter")
            .field("planner", &self.planner)
            .field("concurrency", &self.concurrency)
            .field("window", &self.window)
            .finish_non_exhaustive()
    }
}

/// Default number of transactions in flight.
///
/// ```
/// assert_eq!(tablekit::patterns::bulk::DEFAULT_CONCURRENCY, 8);
/// ```
pub const DEFAULT_CONCURRENCY: usize = 8;
/// Default number of input operations planned together.
///
/// ```
/// assert_eq!(tablekit::patterns::bulk::DEFAULT_WINDOW, 10_000);
/// ```
pub const DEFAULT_WINDOW: usize = 10_000;

impl BulkWriter {
    /// A writer sending through `client`, with the service's limits, 8 transactions in flight
    /// and operations planned 10,000 at a time.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// use tablekit::patterns::bulk::{BulkWriter, WriteOp};
    /// use tablekit::DynamicEntity;
    /// # let client = emulator.client();
    /// let table = client.table_named::<DynamicEntity>("Logs");
    /// table.create().await?;
    /// let ops = (0..3).map(|i| WriteOp::insert("Logs", DynamicEntity::new("p", i.to_string())));
    /// let report = BulkWriter::new(&client).write_iter(ops).await;
    /// assert!(report.is_complete());
    /// assert!(table.get("p", "2").await?.is_some());
    /// # Ok(()) }
    /// ```
    pub fn new(client: &TableServiceClient) -> Self {
        // Transactions no larger than the service the client talks to takes (2 MiB on Cosmos).
        let planner = BatchPlanner::new()
            .max_body_bytes(client.limits().max_batch_bytes)
            .unwrap_or_default();
        BulkWriter {
            client: client.clone(),
            planner,
            concurrency: DEFAULT_CONCURRENCY,
            window: DEFAULT_WINDOW,
            progress: Arc::new(NoProgress),
        }
    }

    /// How many transactions may be in flight at once (at least 1).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// use tablekit::patterns::bulk::{BulkWriter, WriteOp};
    /// use tablekit::DynamicEntity;
    /// # let client = emulator.client();
    /// # let table = client.table_named::<DynamicEntity>("Logs");
    /// # table.create().await?;
    /// let writer = BulkWriter::new(&client).concurrency(2)?;
    /// let ops = (0..30).map(|i| {
    ///     WriteOp::upsert("Logs", DynamicEntity::new(format!("p{}", i % 3), i.to_string()))
    /// });
    /// let report = writer.write_iter(ops).await;
    /// assert!(report.is_complete());
    /// assert_eq!(report.transactions().len(), 3); // one per partition, two at a time
    /// assert!(BulkWriter::new(&client).concurrency(0).is_err());
    /// # Ok(()) }
    /// ```
    pub fn concurrency(mut self, n: usize) -> Result<Self> {
        if n == 0 {
            return Err(InvalidInput::Other("bulk concurrency must be at least 1".into()).into());
        }
        self.concurrency = n;
        Ok(self)
    }

    /// How many input operations are read and planned together (at least 1): larger windows
    /// fill transactions better, smaller ones hold less in memory.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// use tablekit::patterns::bulk::{BulkWriter, WriteOp};
    /// use tablekit::DynamicEntity;
    /// # let client = emulator.client();
    /// # let table = client.table_named::<DynamicEntity>("Logs");
    /// # table.create().await?;
    /// let ops = (0..25).map(|i| WriteOp::insert("Logs", DynamicEntity::new("p", i.to_string())));
    /// let report = BulkWriter::new(&client).window(10)?.write_iter(ops).await;
    /// let sizes: Vec<usize> = report.transactions().iter().map(|t| t.items.len()).collect();
    /// assert_eq!(sizes, [10, 10, 5]); // a transaction never spans two windows
    /// # Ok(()) }
    /// ```
    pub fn window(mut self, n: usize) -> Result<Self> {
        if n == 0 {
            return Err(InvalidInput::Other("bulk window must be at least 1".into()).into());
        }
        self.window = n;
        Ok(self)
    }

    /// Uses a planner with other limits.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// use tablekit::patterns::bulk::{BatchPlanner, BulkWriter, WriteOp};
    /// use tablekit::DynamicEntity;
    /// # let client = emulator.client();
    /// # let table = client.table_named::<DynamicEntity>("Logs");
    /// # table.create().await?;
    /// let ops = (0..25).map(|i| WriteOp::insert("Logs", DynamicEntity::new("p", i.to_string())));
    /// let writer = BulkWriter::new(&client).planner(BatchPlanner::new().max_operations(10)?);
    /// let report = writer.write_iter(ops).await;
    /// assert!(report.is_complete());
    /// assert!(report.transactions().iter().all(|t| t.items.len() <= 10));
    /// # Ok(()) }
    /// ```
    pub fn planner(mut self, planner: BatchPlanner) -> Self {
        self.planner = planner;
        self
    }

    /// Reports progress (operations settled, request bytes) after each transaction.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// use std::sync::{Arc, Mutex};
    /// use tablekit::patterns::bulk::{BulkWriter, WriteOp};
    /// use tablekit::DynamicEntity;
    /// use tablekit::patterns::progress::Progress;
    /// # let client = emulator.client();
    /// # let table = client.table_named::<DynamicEntity>("Logs");
    /// # table.create().await?;
    /// let last = Arc::new(Mutex::new(None));
    /// let slot = Arc::clone(&last);
    /// let writer = BulkWriter::new(&client).progress(move |p: &Progress| {
    ///     *slot.lock().unwrap() = Some(p.clone());
    /// });
    /// let ops = (0..25).map(|i| WriteOp::insert("Logs", DynamicEntity::new("p", i.to_string())));
    /// writer.write_iter(ops).await;
    /// let last = last.lock().unwrap().clone().expect("reported");
    /// assert!(last.is_finished() && last.items() == 25 && last.bytes() > 0);
    /// # Ok(()) }
    /// ```
    pub fn progress(mut self, sink: impl ProgressSink) -> Self {
        self.progress = Arc::new(sink);
        self
    }

    /// Writes every operation of an iterator.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// use tablekit::patterns::bulk::{BulkWriter, WriteOp};
    /// use tablekit::DynamicEntity;
    /// # let client = emulator.client();
    /// # let table = client.table_named::<DynamicEntity>("Logs");
    /// # table.create().await?;
    /// let ops = (0..250).map(|i| WriteOp::upsert("Logs", DynamicEntity::new("p", i.to_string())));
    /// let report = BulkWriter::new(&client).write_iter(ops).await;
    /// assert_eq!(report.committed(), 250);
    /// assert_eq!(report.transactions().len(), 3); // 100 + 100 + 50
    /// # Ok(()) }
    /// ```
    pub async fn write_iter(&self, ops: impl IntoIterator<Item = WriteOp>) -> BulkReport {
        self.write(stream::iter(ops.into_iter().map(Ok))).await
    }

    /// Writes every operation of a stream. An `Err` item stops reading: the operations before
    /// it are still written, and [`BulkReport::input_error`] holds the error.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// use futures::stream;
    /// use tablekit::patterns::bulk::{BulkWriter, WriteOp};
    /// use tablekit::DynamicEntity;
    /// # let client = emulator.client();
    /// # let table = client.table_named::<DynamicEntity>("Logs");
    /// # table.create().await?;
    /// let ops = stream::iter([
    ///     Ok(WriteOp::insert("Logs", DynamicEntity::new("p", "1"))),
    ///     Err(tablekit::Error::Configuration("the source file is unreadable".into())),
    ///     Ok(WriteOp::insert("Logs", DynamicEntity::new("p", "2"))),
    /// ]);
    /// let report = BulkWriter::new(&client).write(ops).await;
    /// assert_eq!(report.committed(), 1); // the operation before the error
    /// assert!(report.input_error().is_some());
    /// assert!(table.get("p", "2").await?.is_none());
    /// # Ok(()) }
    /// ```
    pub async fn write<S>(&self, ops: S) -> BulkReport
    where
        S: Stream<Item = Result<WriteOp>>,
    {
        let counter = ProgressCounter::new(SharedSink(Arc::clone(&self.progress)));
        let mut report = BulkReport::default();
        // `chunks`, not `ready_chunks`: a file or network source is often momentarily pending,
        // and planning whatever happened to be buffered would make small transactions.
        let mut ops = std::pin::pin!(ops.chunks(self.window));
        'windows: while let Some(chunk) = ops.next().await {
            let mut window = Vec::with_capacity(chunk.len());
            let mut input_error = None;
            for op in chunk {
                match op {
                    Ok(op) => window.push(op),
                    Err(e) => {
                        input_error = Some(e);
                        break;
                    }
                }
            }
            self.write_window(window, &mut report, &counter).await;
            if let Some(e) = input_error {
                report.input_error = Some(e);
                break 'windows;
            }
        }
        counter.finish();
        report
    }

    /// Plans and sends one window; its outcomes are appended to `report`.
    async fn write_window(
        &self,
        ops: Vec<WriteOp>,
        report: &mut BulkReport,
        counter: &ProgressCounter,
    ) {
        let base = report.outcomes.len();
        report
            .outcomes
            .extend((0..ops.len()).map(|_| ItemOutcome::NotSent));
        let plan = self.planner.plan(&ops);
        let (transactions, rejected) = plan_parts(&plan);
        for r in rejected {
            if let Some(slot) = report.outcomes.get_mut(base + r.0) {
                *slot = ItemOutcome::Failed {
                    transaction: None,
                    error: Arc::new(Error::InvalidInput(r.1)),
                };
            }
            counter.add(1, 0);
        }
        let ops = Arc::new(ops);
        let chains = plan.chains();
        let results: Vec<Vec<Sent>> = stream::iter(chains.into_iter().map(|chain| {
            let ops = Arc::clone(&ops);
            let client = self.client.clone();
            let counter = counter.clone();
            let chain: Vec<Vec<usize>> = chain
                .iter()
                .filter_map(|&t| transactions.get(t).cloned())
                .collect();
            async move {
                let mut sent = Vec::new();
                for indices in chain {
                    for s in send_transaction(&client, &ops, &indices).await {
                        counter.add(s.items.len() as u64, s.bytes as u64);
                        sent.push(s);
                    }
                }
                sent
            }
        }))
        .buffer_unordered(self.concurrency)
        .collect()
        .await;
        for sent in results.into_iter().flatten() {
            report.record(base, sent);
        }
    }
}

fn plan_parts(plan: &Plan) -> (Vec<Vec<usize>>, Vec<(usize, InvalidInput)>) {
    (
        plan.transactions()
            .iter()
            .map(|t| t.indices().to_vec())
            .collect(),
        plan.rejected()
            .iter()
            .map(|r| (r.index, r.error.clone()))
            .collect(),
    )
}

/// A sink shared by the writer's clones.
struct SharedSink(Arc<dyn ProgressSink>);

impl ProgressSink for SharedSink {
    fn report(&self, progress: &crate::patterns::progress::Progress) {
        self.0.report(progress)
    }
}

/// One request as sent: the window indices it carried and what the service answered.
struct Sent {
    table: String,
    partition_key: String,
    items: Vec<usize>,
    bytes: usize,
    result: Result<BatchOutcome>,
}

/// Sends one planned transaction. The planner sized it with an estimate; the client's encoder
/// measures exactly, and should the estimate have been short, the transaction is split where
/// the encoder refuses the next operation.
async fn send_transaction(
    client: &TableServiceClient,
    ops: &[WriteOp],
    indices: &[usize],
) -> Vec<Sent> {
    let Some(first) = indices.first().and_then(|&i| ops.get(i)) else {
        return Vec::new();
    };
    let table = client.table_named::<DynamicEntity>(first.table());
    let partition_key = first.entity().partition_key().to_owned();
    let mut sent = Vec::new();
    let mut batch = table.batch();
    let mut items = Vec::new();
    for &i in indices {
        let Some(op) = ops.get(i) else { continue };
        match add(&mut batch, op) {
            Ok(()) => items.push(i),
            Err(e) if is_too_large(&e) && !items.is_empty() => {
                let full = std::mem::replace(&mut batch, table.batch());
                sent.push(
                    submit(
                        full,
                        first.table(),
                        &partition_key,
                        std::mem::take(&mut items),
                    )
                    .await,
                );
                match add(&mut batch, op) {
                    Ok(()) => items.push(i),
                    Err(e) => sent.push(refused(first.table(), &partition_key, i, e)),
                }
            }
            Err(e) => sent.push(refused(first.table(), &partition_key, i, e)),
        }
    }
    if !items.is_empty() {
        sent.push(submit(batch, first.table(), &partition_key, items).await);
    }
    sent
}

async fn submit(
    batch: Batch<DynamicEntity>,
    table: &str,
    partition_key: &str,
    items: Vec<usize>,
) -> Sent {
    let bytes = batch.encoded_len();
    Sent {
        table: table.to_owned(),
        partition_key: partition_key.to_owned(),
        items,
        bytes,
        result: batch.submit().await,
    }
}

fn refused(table: &str, partition_key: &str, index: usize, error: Error) -> Sent {
    Sent {
        table: table.to_owned(),
        partition_key: partition_key.to_owned(),
        items: vec![index],
        bytes: 0,
        result: Err(error),
    }
}

fn is_too_large(e: &Error) -> bool {
    matches!(e, Error::InvalidInput(InvalidInput::BatchTooLarge { .. }))
}

/// Adds one operation to a batch; conditional kinds without an ETag go unconditional (`*`).
fn add(batch: &mut Batch<DynamicEntity>, op: &WriteOp) -> Result<()> {
    let entity = op.entity();
    let needs_any = super::plan::is_conditional(op.kind()) && entity.etag().is_none();
    let owned;
    let entity = if needs_any {
        let mut e = entity.clone();
        e.set_etag(Some(ETag::any()));
        owned = e;
        &owned
    } else {
        entity
    };
    match op.kind() {
        OperationKind::Insert => batch.insert(entity),
        OperationKind::UpsertMerge => batch.upsert_merge(entity),
        OperationKind::UpsertReplace => batch.upsert_replace(entity),
        OperationKind::Merge => batch.merge(entity),
        OperationKind::Replace => batch.replace(entity),
        OperationKind::Delete => batch.delete(entity),
    }
}

/// What happened to one input operation.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let emulator = tablekit_testing::Emulator::start().await?;
/// use tablekit::patterns::bulk::{BulkWriter, ItemOutcome, WriteOp};
/// use tablekit::DynamicEntity;
/// # let client = emulator.client();
/// # let table = client.table_named::<DynamicEntity>("Logs");
/// # table.create().await?;
/// table.insert(&mut DynamicEntity::new("a", "1")).await?; // exists already
/// let ops = [
///     WriteOp::insert("Logs", DynamicEntity::new("a", "0")),
///     WriteOp::insert("Logs", DynamicEntity::new("a", "1")), // 409: fails its transaction
///     WriteOp::insert("Logs", DynamicEntity::new("b", "0")),
/// ];
/// let report = BulkWriter::new(&client).write_iter(ops).await;
/// let mut explained = Vec::new();
/// for (i, outcome) in report.outcomes().iter().enumerate() {
///     explained.push(match outcome {
///         ItemOutcome::Committed { transaction, .. } => {
///             let t = &report.transactions()[*transaction];
///             format!("{i}: committed with partition {}", t.partition_key)
///         }
///         ItemOutcome::Failed { error, .. } => format!("{i}: failed: {:?}", error.code()),
///         ItemOutcome::RolledBack { failed, .. } => format!("{i}: not applied because of {failed:?}"),
///         _ => format!("{i}: not sent"),
///     });
/// }
/// assert_eq!(
///     explained,
///     [
///         "0: not applied because of Some(1)",
///         "1: failed: Some(\"EntityAlreadyExists\")",
///         "2: committed with partition b",
///     ]
/// );
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum ItemOutcome {
    /// Applied, as part of transaction `transaction` (an index in
    /// [`BulkReport::transactions`]); `etag` is the entity's new version (`None` for deletes).
    Committed {
        /// The transaction it was committed in.
        transaction: usize,
        /// The new ETag.
        etag: Option<ETag>,
    },
    /// Not applied because of this operation: the service refused it, or it was invalid and
    /// never sent (`transaction` is `None` then), or the request failed as a whole.
    Failed {
        /// The transaction it was sent in, if any.
        transaction: Option<usize>,
        /// Why (shared by every operation of a request that failed as a whole).
        error: Arc<Error>,
    },
    /// Not applied because another operation of its transaction failed (the service applies
    /// all of a transaction or none).
    RolledBack {
        /// The transaction.
        transaction: usize,
        /// The input index of the operation that failed.
        failed: Option<usize>,
    },
    /// Not sent: reading the input stopped first (see [`BulkReport::input_error`]).
    NotSent,
}

impl ItemOutcome {
    /// Whether the operation was applied.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// use tablekit::patterns::bulk::{BulkWriter, WriteOp};
    /// use tablekit::DynamicEntity;
    /// # let client = emulator.client();
    /// # let table = client.table_named::<DynamicEntity>("Logs");
    /// # table.create().await?;
    /// table.insert(&mut DynamicEntity::new("a", "1")).await?; // exists already
    /// let ops = [
    ///     WriteOp::insert("Logs", DynamicEntity::new("a", "0")),
    ///     WriteOp::insert("Logs", DynamicEntity::new("a", "1")), // 409: fails its transaction
    ///     WriteOp::insert("Logs", DynamicEntity::new("b", "0")),
    /// ];
    /// let report = BulkWriter::new(&client).write_iter(ops).await;
    /// let committed: Vec<bool> = report.outcomes().iter().map(|o| o.is_committed()).collect();
    /// assert_eq!(committed, [false, false, true]); // ("a", "0") rolled back with ("a", "1")
    /// # Ok(()) }
    /// ```
    pub fn is_committed(&self) -> bool {
        matches!(self, ItemOutcome::Committed { .. })
    }
}

/// One transaction as sent: the inputs the service committed together (or not at all).
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let emulator = tablekit_testing::Emulator::start().await?;
/// use tablekit::patterns::bulk::{BulkWriter, WriteOp};
/// use tablekit::DynamicEntity;
/// # let client = emulator.client();
/// # let table = client.table_named::<DynamicEntity>("Logs");
/// # table.create().await?;
/// table.insert(&mut DynamicEntity::new("a", "1")).await?; // exists already
/// let ops = [
///     WriteOp::insert("Logs", DynamicEntity::new("a", "0")),
///     WriteOp::insert("Logs", DynamicEntity::new("a", "1")), // 409: fails its transaction
///     WriteOp::insert("Logs", DynamicEntity::new("b", "0")),
/// ];
/// let report = BulkWriter::new(&client).write_iter(ops).await;
/// let mut sent = Vec::new();
/// for t in report.transactions() {
///     sent.push(format!("{}/{}: {:?} committed={}", t.table, t.partition_key, t.items, t.committed));
/// }
/// sent.sort(); // completion order varies
/// assert_eq!(sent, ["Logs/a: [0, 1] committed=false", "Logs/b: [2] committed=true"]);
/// # Ok(()) }
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct TransactionRecord {
    /// The table.
    pub table: String,
    /// The PartitionKey.
    pub partition_key: String,
    /// The input indices it carried, in order: all committed together, or none.
    pub items: Vec<usize>,
    /// Whether it was committed.
    pub committed: bool,
}

/// Every input operation's outcome, by input index, and the transactions sent.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let emulator = tablekit_testing::Emulator::start().await?;
/// use tablekit::patterns::bulk::{BulkWriter, WriteOp};
/// use tablekit::DynamicEntity;
/// # let client = emulator.client();
/// let table = client.table_named::<DynamicEntity>("Logs");
/// table.create().await?;
/// table.insert(&mut DynamicEntity::new("p1", "7")).await?; // exists already
/// // Inputs 0 to 4 go to partition p0, 5 to 9 to p1.
/// let ops = (0..10).map(|i| {
///     WriteOp::insert("Logs", DynamicEntity::new(format!("p{}", i / 5), format!("{i}")))
/// });
/// let report = BulkWriter::new(&client).write_iter(ops).await;
/// println!("{} of 10 committed; resume from input {}", report.committed(), report.committed_prefix());
/// assert_eq!((report.committed(), report.committed_prefix()), (5, 5));
/// let failed: Vec<(usize, Option<&str>)> = report.failures().map(|(i, e)| (i, e.code())).collect();
/// assert_eq!(failed, [(7, Some("EntityAlreadyExists"))]); // 5, 6, 8, 9 rolled back with it
/// # Ok(()) }
/// ```
#[derive(Debug, Default)]
pub struct BulkReport {
    outcomes: Vec<ItemOutcome>,
    transactions: Vec<TransactionRecord>,
    input_error: Option<Error>,
}

impl BulkReport {
    /// The outcome of each input operation, in input order.
    ///
    /// ```
    /// use tablekit::patterns::bulk::ItemOutcome;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// use tablekit::patterns::bulk::{BulkWriter, WriteOp};
    /// use tablekit::DynamicEntity;
    /// # let client = emulator.client();
    /// # let table = client.table_named::<DynamicEntity>("Logs");
    /// # table.create().await?;
    /// table.insert(&mut DynamicEntity::new("a", "1")).await?; // exists already
    /// let ops = [
    ///     WriteOp::insert("Logs", DynamicEntity::new("a", "0")),
    ///     WriteOp::insert("Logs", DynamicEntity::new("a", "1")), // 409: fails its transaction
    ///     WriteOp::insert("Logs", DynamicEntity::new("b", "0")),
    /// ];
    /// let report = BulkWriter::new(&client).write_iter(ops).await;
    /// let outcomes = report.outcomes();
    /// assert!(matches!(outcomes[0], ItemOutcome::RolledBack { failed: Some(1), .. }));
    /// assert!(matches!(&outcomes[1], ItemOutcome::Failed { error, .. } if error.is_conflict()));
    /// assert!(matches!(outcomes[2], ItemOutcome::Committed { .. }));
    /// # Ok(()) }
    /// ```
    pub fn outcomes(&self) -> &[ItemOutcome] {
        &self.outcomes
    }

    /// The transactions sent, in completion order.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// use tablekit::patterns::bulk::{BulkWriter, WriteOp};
    /// use tablekit::DynamicEntity;
    /// # let client = emulator.client();
    /// # let table = client.table_named::<DynamicEntity>("Logs");
    /// # table.create().await?;
    /// table.insert(&mut DynamicEntity::new("a", "1")).await?; // exists already
    /// let ops = [
    ///     WriteOp::insert("Logs", DynamicEntity::new("a", "0")),
    ///     WriteOp::insert("Logs", DynamicEntity::new("a", "1")), // 409: fails its transaction
    ///     WriteOp::insert("Logs", DynamicEntity::new("b", "0")),
    /// ];
    /// let report = BulkWriter::new(&client).write_iter(ops).await;
    /// let mut sent: Vec<(&str, &[usize], bool)> = report
    ///     .transactions()
    ///     .iter()
    ///     .map(|t| (t.partition_key.as_str(), t.items.as_slice(), t.committed))
    ///     .collect();
    /// sent.sort(); // completion order varies
    /// assert_eq!(sent, [("a", &[0, 1][..], false), ("b", &[2][..], true)]);
    /// # Ok(()) }
    /// ```
    pub fn transactions(&self) -> &[TransactionRecord] {
        &self.transactions
    }

    /// Operations applied.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// use tablekit::patterns::bulk::{BulkWriter, WriteOp};
    /// use tablekit::DynamicEntity;
    /// # let client = emulator.client();
    /// # let table = client.table_named::<DynamicEntity>("Logs");
    /// # table.create().await?;
    /// table.insert(&mut DynamicEntity::new("a", "1")).await?; // exists already
    /// let ops = [
    ///     WriteOp::insert("Logs", DynamicEntity::new("a", "0")),
    ///     WriteOp::insert("Logs", DynamicEntity::new("a", "1")), // 409: fails its transaction
    ///     WriteOp::insert("Logs", DynamicEntity::new("b", "0")),
    /// ];
    /// let report = BulkWriter::new(&client).write_iter(ops).await;
    /// assert_eq!(report.committed(), 1);
    /// # Ok(()) }
    /// ```
    pub fn committed(&self) -> usize {
        self.outcomes.iter().filter(|o| o.is_committed()).count()
    }

    /// Operations not applied (failed, rolled back or not sent).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// use tablekit::patterns::bulk::{BulkWriter, WriteOp};
    /// use tablekit::DynamicEntity;
    /// # let client = emulator.client();
    /// # let table = client.table_named::<DynamicEntity>("Logs");
    /// # table.create().await?;
    /// table.insert(&mut DynamicEntity::new("a", "1")).await?; // exists already
    /// let ops = [
    ///     WriteOp::insert("Logs", DynamicEntity::new("a", "0")),
    ///     WriteOp::insert("Logs", DynamicEntity::new("a", "1")), // 409: fails its transaction
    ///     WriteOp::insert("Logs", DynamicEntity::new("b", "0")),
    /// ];
    /// let report = BulkWriter::new(&client).write_iter(ops).await;
    /// assert_eq!(report.not_committed(), 2); // one failed, one rolled back with it
    /// # Ok(()) }
    /// ```
    pub fn not_committed(&self) -> usize {
        self.outcomes.len() - self.committed()
    }

    /// The error that stopped reading the input, if any.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// use futures::stream;
    /// use tablekit::patterns::bulk::{BulkWriter, WriteOp};
    /// use tablekit::DynamicEntity;
    /// # let client = emulator.client();
    /// # let table = client.table_named::<DynamicEntity>("Logs");
    /// # table.create().await?;
    /// let clean = BulkWriter::new(&client)
    ///     .write_iter([WriteOp::insert("Logs", DynamicEntity::new("p", "1"))])
    ///     .await;
    /// assert!(clean.input_error().is_none());
    /// let source = stream::iter([Err(tablekit::Error::Configuration("unreadable".into()))]);
    /// let broken = BulkWriter::new(&client).write(source).await;
    /// assert!(matches!(broken.input_error(), Some(tablekit::Error::Configuration(_))));
    /// # Ok(()) }
    /// ```
    pub fn input_error(&self) -> Option<&Error> {
        self.input_error.as_ref()
    }

    /// Whether every input was read and applied.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// use tablekit::patterns::bulk::{BulkWriter, WriteOp};
    /// use tablekit::DynamicEntity;
    /// # let client = emulator.client();
    /// # let table = client.table_named::<DynamicEntity>("Logs");
    /// # table.create().await?;
    /// table.insert(&mut DynamicEntity::new("a", "1")).await?; // exists already
    /// let ops = [
    ///     WriteOp::insert("Logs", DynamicEntity::new("a", "0")),
    ///     WriteOp::insert("Logs", DynamicEntity::new("a", "1")), // 409: fails its transaction
    ///     WriteOp::insert("Logs", DynamicEntity::new("b", "0")),
    /// ];
    /// let report = BulkWriter::new(&client).write_iter(ops).await;
    /// assert!(!report.is_complete());
    /// let retry = [WriteOp::upsert("Logs", DynamicEntity::new("a", "1"))];
    /// assert!(BulkWriter::new(&client).write_iter(retry).await.is_complete());
    /// # Ok(()) }
    /// ```
    pub fn is_complete(&self) -> bool {
        self.input_error.is_none() && self.outcomes.iter().all(ItemOutcome::is_committed)
    }

    /// How many inputs from the start were all applied: where a resumed run starts.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// use tablekit::patterns::bulk::{BulkWriter, WriteOp};
    /// use tablekit::DynamicEntity;
    /// # let client = emulator.client();
    /// # let table = client.table_named::<DynamicEntity>("Logs");
    /// # table.create().await?;
    /// table.insert(&mut DynamicEntity::new("a", "1")).await?; // exists already
    /// let ops = vec![
    ///     WriteOp::insert("Logs", DynamicEntity::new("b", "0")),
    ///     WriteOp::insert("Logs", DynamicEntity::new("b", "1")),
    ///     WriteOp::insert("Logs", DynamicEntity::new("a", "1")), // 409
    /// ];
    /// let report = BulkWriter::new(&client).write_iter(ops.clone()).await;
    /// assert_eq!(report.committed_prefix(), 2);
    /// let rest = &ops[report.committed_prefix()..]; // what a resumed run sends
    /// assert_eq!(rest.len(), 1);
    /// # Ok(()) }
    /// ```
    pub fn committed_prefix(&self) -> usize {
        self.outcomes
            .iter()
            .take_while(|o| o.is_committed())
            .count()
    }

    /// The errors of failed operations, with their input indices (each shared error once
    /// per operation).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// use tablekit::patterns::bulk::{BulkWriter, WriteOp};
    /// use tablekit::DynamicEntity;
    /// # let client = emulator.client();
    /// # let table = client.table_named::<DynamicEntity>("Logs");
    /// # table.create().await?;
    /// table.insert(&mut DynamicEntity::new("a", "1")).await?; // exists already
    /// let ops = [
    ///     WriteOp::insert("Logs", DynamicEntity::new("a", "0")),
    ///     WriteOp::insert("Logs", DynamicEntity::new("a", "1")), // 409: fails its transaction
    ///     WriteOp::insert("Logs", DynamicEntity::new("b", "0")),
    /// ];
    /// let report = BulkWriter::new(&client).write_iter(ops).await;
    /// let failures: Vec<_> = report.failures().collect();
    /// assert_eq!(failures.len(), 1);
    /// let (index, error) = failures[0];
    /// assert_eq!(index, 1);
    /// assert_eq!(error.code(), Some("EntityAlreadyExists"));
    /// # Ok(()) }
    /// ```
    pub fn failures(&self) -> impl Iterator<Item = (usize, &Error)> {
        self.outcomes
            .iter()
            .enumerate()
            .filter_map(|(i, o)| match o {
                ItemOutcome::Failed { error, .. } => Some((i, error.as_ref())),
                _ => None,
            })
    }

    fn record(&mut self, base: usize, sent: Sent) {
        let id = self.transactions.len();
        let items: Vec<usize> = sent.items.iter().map(|i| base + i).collect();
        let committed = sent.result.is_ok();
        match sent.result {
            Ok(outcome) => {
                for (k, &item) in items.iter().enumerate() {
                    let etag = outcome.results().get(k).and_then(|r| r.etag().cloned());
                    self.set(
                        item,
                        ItemOutcome::Committed {
                            transaction: id,
                            etag,
                        },
                    );
                }
            }
            Err(Error::Batch {
                index: Some(k),
                source,
            }) if k < items.len() => {
                let failed = items.get(k).copied();
                let error = Arc::new(Error::Batch {
                    index: Some(k),
                    source,
                });
                for (j, &item) in items.iter().enumerate() {
                    let outcome = if j == k {
                        ItemOutcome::Failed {
                            transaction: Some(id),
                            error: Arc::clone(&error),
                        }
                    } else {
                        ItemOutcome::RolledBack {
                            transaction: id,
                            failed,
                        }
                    };
                    self.set(item, outcome);
                }
            }
            Err(e) => {
                let error = Arc::new(e);
                for &item in &items {
                    self.set(
                        item,
                        ItemOutcome::Failed {
                            transaction: Some(id),
                            error: Arc::clone(&error),
                        },
                    );
                }
            }
        }
        self.transactions.push(TransactionRecord {
            table: sent.table,
            partition_key: sent.partition_key,
            items,
            committed,
        });
    }

    fn set(&mut self, item: usize, outcome: ItemOutcome) {
        if let Some(slot) = self.outcomes.get_mut(item) {
            *slot = outcome;
        }
    }
}
