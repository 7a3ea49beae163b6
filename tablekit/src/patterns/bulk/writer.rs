//! The bulk writer: planned transactions sent at the pace the service takes.

use std::sync::{Arc, Mutex, PoisonError};

use futures::{stream, Stream};

use super::engine::{self, Settings};
use super::pacing::{Pacer, PartitionId, Rates};
use super::plan::{BatchPlanner, WriteOp};
use crate::client::error::{Error, Result};
use crate::client::{BatchOutcome, RetryPolicy, TableServiceClient};
use crate::patterns::progress::{NoProgress, ProgressCounter, ProgressSink};
use crate::protocol::limits::InvalidInput;
use crate::values::etag::ETag;

/// Writes any number of operations as entity group transactions: grouped by table and
/// PartitionKey, at most 100 operations and 4 MiB each (measured on the encoded body by the
/// client's batch encoder), several in flight at once, and every input's outcome reported.
///
/// Transactions are atomic one by one, never together: [`BulkReport::transactions`] says
/// which inputs were committed together, and a failed transaction leaves the others applied.
/// Operations on one entity are applied in input order.
///
/// # Pacing
///
/// By default ([`Pacing::Adaptive`]) the writer finds the rate the service takes, per
/// partition and overall, and keeps to it: a throttled request (503 Server Busy, 429) lowers
/// the rate of the partition that draws the throttles, or the overall rate when they are
/// spread, and the rates grow again while nothing is throttled (additive increase,
/// multiplicative decrease). Waits the service asks for (`x-ms-retry-after-ms`,
/// `Retry-After`) are kept. So a hot partition slows only itself, and a load runs near the
/// account's target with few throttled requests.
///
/// Every input is applied once as far as the service allows: a throttled transaction was not
/// applied and is sent again; one whose answer was lost (timeout, dropped connection, 500) is
/// sent again and, should that fail as its own echo would (409 on an insert, 412, 404 on a
/// delete), settled by re-reading its rows ([`BulkReport::verified`]). What cannot be settled
/// is reported as failed with [`Error::may_have_been_applied`] true.
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
    pacing: Pacing,
    /// The rates learned, shared by the writer's clones and kept between calls.
    pacer: Arc<Mutex<Pacer>>,
}

/// How a [`BulkWriter`] paces its requests.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use std::time::Duration;
/// use tablekit::patterns::bulk::{BulkWriter, Pacing, WriteOp};
/// use tablekit::DynamicEntity;
/// use tablekit_testing::{Emulator, Throttle};
/// // A service taking 2,000 entities a second in all, and no burst.
/// let throttle = Throttle::azure().with_account_rate(2_000).with_burst(Duration::from_millis(50));
/// let emulator = Emulator::builder().throttle(throttle).start().await?;
/// let client = emulator.client();
/// client.create_table("Readings").await?;
/// let ops = (0..3_000).map(|i| {
///     WriteOp::upsert("Readings", DynamicEntity::new(format!("p{}", i % 30), format!("{i:05}")))
/// });
/// let writer = BulkWriter::new(&client).pacing(Pacing::Adaptive).concurrency(4)?;
/// let report = writer.write_iter(ops).await;
/// assert!(report.is_complete()); // throttled requests were sent again
/// assert_eq!(report.transactions().len(), 30);
/// // Only the first requests, sent before a rate was known, drew throttles (3 here): the
/// // rate found then held for the rest of the load.
/// assert!(report.throttled() <= 8, "{}", report.throttled());
/// # Ok(()) }
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Pacing {
    /// Rates that adapt to throttling, per partition and overall, with throttled and lost
    /// requests sent again by the writer (see [`BulkWriter`]).
    #[default]
    Adaptive,
    /// `concurrency` transactions in flight whatever the service answers: the client's retry
    /// policy handles throttling, and a transaction still throttled after it fails.
    Fixed,
}

impl std::fmt::Debug for BulkWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BulkWriter")
            .field("planner", &self.planner)
            .field("concurrency", &self.concurrency)
            .field("window", &self.window)
            .field("pacing", &self.pacing)
            .finish_non_exhaustive()
    }
}

/// Default number of transactions in flight at most (the pace may keep fewer).
///
/// ```
/// assert_eq!(tablekit::patterns::bulk::DEFAULT_CONCURRENCY, 32);
/// ```
pub const DEFAULT_CONCURRENCY: usize = 32;
/// Default number of input operations planned together.
///
/// ```
/// assert_eq!(tablekit::patterns::bulk::DEFAULT_WINDOW, 10_000);
/// ```
pub const DEFAULT_WINDOW: usize = 10_000;

impl BulkWriter {
    /// A writer sending through `client`, with the service's limits, adaptive pacing, at
    /// most 32 transactions in flight and operations planned 10,000 at a time.
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
            pacing: Pacing::Adaptive,
            pacer: Arc::default(),
        }
    }

    /// How requests are paced (adaptive by default).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// use tablekit::patterns::bulk::{BulkWriter, Pacing, WriteOp};
    /// use tablekit::DynamicEntity;
    /// # let client = emulator.client();
    /// # client.create_table("Logs").await?;
    /// let fixed = BulkWriter::new(&client).pacing(Pacing::Fixed).concurrency(4)?;
    /// let ops = (0..10).map(|i| WriteOp::upsert("Logs", DynamicEntity::new("p", i.to_string())));
    /// assert!(fixed.write_iter(ops).await.is_complete());
    /// # Ok(()) }
    /// ```
    pub fn pacing(mut self, pacing: Pacing) -> Self {
        self.pacing = pacing;
        self
    }

    /// The rates the writer keeps to now (learned from throttling, kept between calls).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use std::time::Duration;
    /// use tablekit::patterns::bulk::{BulkWriter, WriteOp};
    /// use tablekit::DynamicEntity;
    /// use tablekit_testing::{Emulator, Throttle};
    /// // One partition may take 500 entities a second.
    /// let throttle = Throttle::azure().with_partition_rate(500).with_burst(Duration::from_millis(50));
    /// let emulator = Emulator::builder().throttle(throttle).start().await?;
    /// let client = emulator.client();
    /// client.create_table("Logs").await?;
    /// let writer = BulkWriter::new(&client);
    /// let ops = (0..1_500).map(|i| WriteOp::upsert("Logs", DynamicEntity::new("hot", i.to_string())));
    /// assert!(writer.write_iter(ops).await.is_complete());
    /// let rates = writer.rates();
    /// let (partition, rate) = &rates.partitions[0];
    /// assert_eq!(partition, &("Logs".to_owned(), "hot".to_owned()));
    /// assert!(*rate < 1_000.0, "{rate}"); // near what the partition takes
    /// # Ok(()) }
    /// ```
    pub fn rates(&self) -> Rates {
        self.pacer
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .rates()
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
        // Adaptive pacing sees every throttle: the writer, not the client, sends a write
        // again. The reads that settle a lost answer keep the client's retries.
        let (client, pacer) = match self.pacing {
            Pacing::Adaptive => (
                self.client.with_write_retry_policy(RetryPolicy::none()),
                Some(&*self.pacer),
            ),
            Pacing::Fixed => (self.client.clone(), None),
        };
        let settings = Settings {
            client: &client,
            planner: self.planner,
            window: self.window,
            concurrency: self.concurrency,
            pacer,
        };
        let report = engine::run(settings, ops, &counter).await;
        counter.finish();
        report
    }
}

/// A sink shared by the writer's clones.
struct SharedSink(Arc<dyn ProgressSink>);

impl ProgressSink for SharedSink {
    fn report(&self, progress: &crate::patterns::progress::Progress) {
        self.0.report(progress)
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
    pub(super) outcomes: Vec<ItemOutcome>,
    transactions: Vec<TransactionRecord>,
    pub(super) input_error: Option<Error>,
    pub(super) throttled: u64,
    pub(super) retried: u64,
    pub(super) verified: usize,
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

    /// Requests the service throttled (503 Server Busy, 429), each sent again unless it
    /// was a transaction's last attempt.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use tablekit::patterns::bulk::{BulkWriter, WriteOp};
    /// use tablekit::DynamicEntity;
    /// use tablekit_testing::{Emulator, Fault, Faults, Operation};
    /// // Every other transaction is refused as 503 Server Busy.
    /// let busy = Faults::seeded(7).rate(Fault::ServerBusy, 0.5).only(&[Operation::Batch]);
    /// let emulator = Emulator::builder().faults(busy).start().await?;
    /// let client = emulator.client();
    /// client.create_table("Logs").await?;
    /// let ops = (0..1_000).map(|i| WriteOp::insert("Logs", DynamicEntity::new("p", i.to_string())));
    /// let report = BulkWriter::new(&client).write_iter(ops).await;
    /// assert!(report.is_complete()); // each insert applied once
    /// assert!(report.throttled() > 0);
    /// assert_eq!(report.retried(), report.throttled());
    /// # Ok(()) }
    /// ```
    pub fn throttled(&self) -> u64 {
        self.throttled
    }

    /// Requests sent again: after a throttle, a timeout or a lost answer.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// use tablekit::patterns::bulk::{BulkWriter, WriteOp};
    /// use tablekit::DynamicEntity;
    /// # let client = emulator.client();
    /// # client.create_table("Logs").await?;
    /// let ops = (0..10).map(|i| WriteOp::insert("Logs", DynamicEntity::new("p", i.to_string())));
    /// let report = BulkWriter::new(&client).write_iter(ops).await;
    /// assert_eq!((report.throttled(), report.retried()), (0, 0)); // a quiet service
    /// # Ok(()) }
    /// ```
    pub fn retried(&self) -> u64 {
        self.retried
    }

    /// Transactions whose answer was lost and that were found applied by re-reading their
    /// rows (each counted in [`transactions`](Self::transactions) as committed).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use tablekit::patterns::bulk::{BulkWriter, WriteOp};
    /// use tablekit::DynamicEntity;
    /// use tablekit_testing::{Emulator, Fault, Faults, Operation};
    /// // Half the transactions are applied, then answered 500 as if they had failed.
    /// let lossy = Faults::seeded(3).rate(Fault::AppliedThenInternalError, 0.5).only(&[Operation::Batch]);
    /// let emulator = Emulator::builder().faults(lossy).start().await?;
    /// let client = emulator.client();
    /// client.create_table("Logs").await?;
    /// let ops = (0..250).map(|i| WriteOp::insert("Logs", DynamicEntity::new("p", i.to_string())));
    /// let report = BulkWriter::new(&client).write_iter(ops).await;
    /// // A transaction answered 500 is sent again; refused (its rows exist), it is re-read and
    /// // found applied.
    /// assert!(report.is_complete());
    /// assert!(report.verified() > 0);
    /// assert_eq!(emulator.entities("Logs")?.len(), 250); // each once
    /// # Ok(()) }
    /// ```
    pub fn verified(&self) -> usize {
        self.verified
    }

    /// Records an operation that was never sent.
    pub(super) fn fail_unsent(&mut self, item: usize, error: Error) {
        self.set(
            item,
            ItemOutcome::Failed {
                transaction: None,
                error: Arc::new(error),
            },
        );
    }

    /// Records what a transaction of window indices `items` (from input index `base`) came to.
    pub(super) fn record(
        &mut self,
        base: usize,
        partition: &PartitionId,
        items: Vec<usize>,
        result: Result<BatchOutcome>,
    ) {
        let id = self.transactions.len();
        let items: Vec<usize> = items.iter().map(|i| base + i).collect();
        let committed = result.is_ok();
        match result {
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
            table: partition.0.clone(),
            partition_key: partition.1.clone(),
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
