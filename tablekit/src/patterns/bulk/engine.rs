//! One run of the bulk writer: the input read a window at a time and planned, each
//! partition's transactions queued in input order, and the queues served concurrently at the
//! pace the service takes.
//!
//! Order: a partition's transactions start in input order, and one that touches an entity of a
//! transaction in flight waits for it, so operations on one entity are applied in input
//! order. A transaction sent again (throttled, or its answer lost) goes back to the head of
//! its queue.
//!
//! Exactly once: a throttled request (503, 429) was not applied and is sent again. A request
//! that timed out, lost its connection or was answered 500/502/504 may have been applied: it
//! is sent again marked so, and a failure that may be its own echo (409 on an insert, 412, 404
//! on a delete) is settled by re-reading its rows. What cannot be settled is reported as
//! failed with [`Error::may_have_been_applied`] true, never as not applied.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use futures::stream::FuturesUnordered;
use futures::{FutureExt, Stream, StreamExt};
use rand::RngExt;

use super::pacing::{Pacer, PartitionId};
use super::plan::{BatchPlanner, WriteOp};
use super::writer::{BulkReport, ItemOutcome};
use crate::client::error::{Error, Result};
use crate::client::{Batch, BatchOutcome, OperationKind, TableServiceClient};
use crate::patterns::progress::ProgressCounter;
use crate::protocol::limits::InvalidInput;
use crate::values::entity::DynamicEntity;
use crate::values::etag::ETag;

/// Attempts of one transaction before its last error is reported.
const MAX_ATTEMPTS: u32 = 30;
/// The wait before the first retry of a transaction; each later one doubles it.
const FIRST_BACKOFF: Duration = Duration::from_millis(20);
/// The longest wait between retries of a transaction.
const MAX_BACKOFF: Duration = Duration::from_secs(2);

/// What a run needs from its writer.
pub(super) struct Settings<'a> {
    /// The client sending the transactions.
    pub client: &'a TableServiceClient,
    pub planner: BatchPlanner,
    pub window: usize,
    pub concurrency: usize,
    /// The rates learned so far; `None` sends at `concurrency` and leaves throttling to the
    /// client's retry policy.
    pub pacer: Option<&'a Mutex<Pacer>>,
}

/// Writes every operation of `ops`.
pub(super) async fn run<S>(settings: Settings<'_>, ops: S, counter: &ProgressCounter) -> BulkReport
where
    S: Stream<Item = Result<WriteOp>>,
{
    let mut run = Run {
        settings,
        counter,
        report: BulkReport::default(),
        lanes: HashMap::new(),
        ready: VecDeque::new(),
        queued: 0,
        in_flight: FuturesUnordered::new(),
    };
    // `chunks`, not `ready_chunks`: a file or network source is often momentarily pending,
    // and planning whatever happened to be buffered would make small transactions.
    let mut ops = std::pin::pin!(ops.chunks(run.settings.window));
    let mut input_done = false;
    loop {
        let wake = run.dispatch();
        let want_input = !input_done && run.queued < run.settings.window;
        if input_done && run.in_flight.is_empty() && run.ready.is_empty() {
            break;
        }
        tokio::select! {
            chunk = ops.next(), if want_input => match chunk {
                Some(chunk) => input_done = run.enqueue(chunk),
                None => input_done = true,
            },
            Some(done) = run.in_flight.next(), if !run.in_flight.is_empty() => run.settle(done),
            () = sleep_until(wake), if wake.is_some() => {}
            // Nothing can make progress: what is left is reported as not sent.
            else => break,
        }
    }
    run.report
}

async fn sleep_until(wake: Option<Instant>) {
    if let Some(at) = wake {
        tokio::time::sleep_until(tokio::time::Instant::from_std(at)).await;
    }
}

/// A window of input operations, shared by the transactions planned from it.
struct Window {
    /// The input index of its first operation.
    base: usize,
    ops: Vec<WriteOp>,
}

/// A planned transaction waiting for its turn (or for another attempt).
struct Unit {
    window: Arc<Window>,
    /// Indices in `window.ops`, in input order.
    items: Vec<usize>,
    /// Attempts sent so far.
    attempts: u32,
    /// Whether an attempt may have been applied.
    uncertain: bool,
    not_before: Option<Instant>,
}

impl Unit {
    fn rows(&self) -> impl Iterator<Item = &str> {
        self.items
            .iter()
            .filter_map(|&i| self.window.ops.get(i))
            .map(|op| op.entity().row_key())
    }
}

/// One partition's queue and what of it is in flight.
#[derive(Default)]
struct Lane {
    queue: VecDeque<Unit>,
    in_flight: usize,
    /// The RowKeys of its transactions in flight.
    rows: HashSet<String>,
    /// Whether it is in the run's `ready` ring.
    ready: bool,
}

/// An attempt, answered.
struct Done {
    partition: PartitionId,
    unit: Unit,
    sent: Instant,
    bytes: usize,
    result: Result<BatchOutcome>,
}

struct Run<'a> {
    settings: Settings<'a>,
    counter: &'a ProgressCounter,
    report: BulkReport,
    lanes: HashMap<PartitionId, Lane>,
    /// Partitions with queued transactions, served in turn.
    ready: VecDeque<PartitionId>,
    /// Operations queued and not yet sent.
    queued: usize,
    in_flight: FuturesUnordered<BoxFuture<'static, Done>>,
}

impl Run<'_> {
    /// Plans a chunk of input and queues its transactions; whether reading must stop (an
    /// input error, recorded).
    fn enqueue(&mut self, chunk: Vec<Result<WriteOp>>) -> bool {
        let mut ops = Vec::with_capacity(chunk.len());
        let mut input_error = None;
        for op in chunk {
            match op {
                Ok(op) => ops.push(op),
                Err(e) => {
                    input_error = Some(e);
                    break;
                }
            }
        }
        let base = self.report.outcomes.len();
        self.report
            .outcomes
            .extend((0..ops.len()).map(|_| ItemOutcome::NotSent));
        let plan = self.settings.planner.plan(&ops);
        let (transactions, rejected) = plan.into_parts();
        for r in rejected {
            self.report
                .fail_unsent(base + r.index, Error::InvalidInput(r.error));
            self.counter.add_failed(1);
        }
        let window = Arc::new(Window { base, ops });
        for t in transactions {
            let partition = (t.table().to_owned(), t.partition_key().to_owned());
            self.queued += t.len();
            self.push(
                partition,
                Unit {
                    window: Arc::clone(&window),
                    items: t.indices().to_vec(),
                    attempts: 0,
                    uncertain: false,
                    not_before: None,
                },
                false,
            );
        }
        match input_error {
            Some(e) => {
                self.report.input_error = Some(e);
                true
            }
            None => false,
        }
    }

    /// Queues a transaction: last, or first when it goes again.
    fn push(&mut self, partition: PartitionId, unit: Unit, first: bool) {
        let lane = self.lanes.entry(partition.clone()).or_default();
        if first {
            lane.queue.push_front(unit);
        } else {
            lane.queue.push_back(unit);
        }
        if !lane.ready {
            lane.ready = true;
            self.ready.push_back(partition);
        }
    }

    /// Sends what may go now; the earliest instant something waiting on time may go.
    fn dispatch(&mut self) -> Option<Instant> {
        let now = Instant::now();
        let mut wake: Option<Instant> = None;
        let mut pacer = self
            .settings
            .pacer
            .map(|p| p.lock().unwrap_or_else(PoisonError::into_inner));
        if let Some(pacer) = pacer.as_deref_mut() {
            pacer.tick(now);
        }
        let mut turns = self.ready.len();
        while turns > 0 && self.in_flight.len() < self.settings.concurrency {
            turns -= 1;
            if let Some(at) = pacer.as_deref_mut().and_then(|p| p.account_ready_at(now)) {
                return earliest(wake, at);
            }
            let Some(partition) = self.ready.pop_front() else {
                break;
            };
            let Some(lane) = self.lanes.get_mut(&partition) else {
                continue;
            };
            let Some(head) = lane.queue.front() else {
                lane.ready = false;
                self.drop_idle(&partition);
                continue;
            };
            let waits_until = head
                .not_before
                .filter(|&t| t > now)
                .or_else(|| pacer.as_deref_mut()?.ready_at(&partition, now));
            let blocked = head.rows().any(|row| lane.rows.contains(row));
            if let Some(at) = waits_until {
                wake = earliest(wake, at);
            }
            if waits_until.is_none() && !blocked {
                let unit = lane.queue.pop_front().expect("the head exists");
                let entities = self.start(partition.clone(), unit, now);
                if let Some(pacer) = pacer.as_deref_mut() {
                    pacer.spend(&partition, entities, now);
                }
                turns = self.ready.len() + 1;
            }
            self.ready.push_back(partition);
        }
        wake
    }

    /// Removes the lane of `partition` if nothing of it is queued or in flight.
    fn drop_idle(&mut self, partition: &PartitionId) {
        if self
            .lanes
            .get(partition)
            .is_some_and(|l| l.queue.is_empty() && l.in_flight == 0 && !l.ready)
        {
            self.lanes.remove(partition);
        }
    }

    /// Builds and sends one transaction; the entities it carries.
    fn start(&mut self, partition: PartitionId, mut unit: Unit, now: Instant) -> usize {
        let table = self
            .settings
            .client
            .table_named::<DynamicEntity>(&partition.0);
        let mut batch = table.batch();
        let mut fitted = Vec::with_capacity(unit.items.len());
        let mut rest = Vec::new();
        for (n, &i) in unit.items.iter().enumerate() {
            let Some(op) = unit.window.ops.get(i) else {
                continue;
            };
            match add(&mut batch, op) {
                Ok(()) => fitted.push(i),
                // The planner's estimate was short: the rest goes in the next transaction.
                Err(e) if is_too_large(&e) && !fitted.is_empty() => {
                    rest = unit.items[n..].to_vec();
                    break;
                }
                Err(e) => {
                    self.report.fail_unsent(unit.window.base + i, e);
                    self.counter.add_failed(1);
                    self.queued -= 1;
                }
            }
        }
        if !rest.is_empty() {
            let remainder = Unit {
                window: Arc::clone(&unit.window),
                items: rest,
                attempts: 0,
                uncertain: false,
                not_before: None,
            };
            self.push(partition.clone(), remainder, true);
        }
        unit.items = fitted;
        if unit.items.is_empty() {
            return 0;
        }
        let entities = unit.items.len();
        if unit.attempts == 0 {
            self.queued -= entities;
        }
        let lane = self.lanes.entry(partition.clone()).or_default();
        lane.in_flight += 1;
        lane.rows.extend(unit.rows().map(str::to_owned));
        unit.attempts += 1;
        let bytes = batch.encoded_len();
        let uncertain = unit.uncertain;
        self.in_flight.push(
            async move {
                let result = batch.submit_after(uncertain).await;
                Done {
                    partition,
                    unit,
                    sent: now,
                    bytes,
                    result,
                }
            }
            .boxed(),
        );
        entities
    }

    /// Records an answered attempt, or queues the transaction again.
    fn settle(&mut self, done: Done) {
        let Done {
            partition,
            mut unit,
            sent,
            bytes,
            result,
        } = done;
        let now = Instant::now();
        if let Some(lane) = self.lanes.get_mut(&partition) {
            lane.in_flight -= 1;
            for row in unit.rows() {
                lane.rows.remove(row);
            }
        }
        let mut pacer = self
            .settings
            .pacer
            .map(|p| p.lock().unwrap_or_else(PoisonError::into_inner));
        match &result {
            Ok(outcome) => {
                if let Some(pacer) = pacer.as_deref_mut() {
                    pacer.committed(&partition, unit.items.len(), now);
                }
                self.report.verified += usize::from(outcome.verified());
                self.counter.add(unit.items.len() as u64, bytes as u64);
            }
            // The service was busy, or the answer was lost: worth another attempt.
            Err(error)
                if pacer.is_some() && unit.attempts < MAX_ATTEMPTS && error.is_transient() =>
            {
                let throttled = error.is_throttled();
                let wait = error.service_error().and_then(|e| e.retry_after());
                if throttled || is_congestion(error) {
                    if let Some(pacer) = pacer.as_deref_mut() {
                        pacer.throttled(&partition, sent, wait, now);
                    }
                }
                unit.uncertain |= error.may_have_been_applied();
                unit.not_before = Some(now + wait.unwrap_or_else(|| backoff(unit.attempts)));
                self.report.throttled += u64::from(throttled);
                self.report.retried += 1;
                self.counter.add_setbacks(u64::from(throttled), 1);
                drop(pacer);
                self.push(partition, unit, true);
                return;
            }
            Err(error) => {
                self.report.throttled += u64::from(error.is_throttled());
                self.counter.add_failed(unit.items.len() as u64);
            }
        }
        drop(pacer);
        self.report
            .record(unit.window.base, &partition, unit.items, result);
        if self.lanes.get(&partition).is_some_and(|l| !l.ready) {
            self.drop_idle(&partition);
        }
    }
}

fn earliest(wake: Option<Instant>, at: Instant) -> Option<Instant> {
    Some(wake.map_or(at, |w| w.min(at)))
}

/// A sign of load besides a throttle: no answer in time, or a 500 Operation Timeout.
fn is_congestion(error: &Error) -> bool {
    matches!(error, Error::Timeout { .. }) || error.code() == Some("OperationTimedOut")
}

/// The wait before attempt `attempts + 1`: doubling from 20 ms to 2 s, with jitter.
fn backoff(attempts: u32) -> Duration {
    let doubled = FIRST_BACKOFF.saturating_mul(1 << attempts.saturating_sub(1).min(10));
    doubled
        .min(MAX_BACKOFF)
        .mul_f64(rand::rng().random_range(0.5..=1.0))
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
