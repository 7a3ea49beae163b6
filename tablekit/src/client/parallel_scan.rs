//! [`ParallelScan`]: a query over the whole table split into PartitionKey ranges that are read
//! concurrently and merged into one stream, resumable range by range.
//!
//! The service answers a query one page at a time, each page's request waiting for the one
//! before it, so a scan's speed is one request's latency per page whatever the bandwidth.
//! Ranges of PartitionKeys are independent queries: read side by side, a scan goes as many
//! times faster as ranges are in flight, up to the service's throughput.
//!
//! The service has no API that says where to split a table. The ranges come from:
//! - boundaries the caller knows ([`split_at`](ParallelScan::split_at)): its partitions or
//!   key prefixes, exact and free;
//! - probes of the key space ([`sampled_ranges`](ParallelScan::sampled_ranges), the default):
//!   the first PartitionKey is read, then each range is bisected by asking for the first key
//!   at or above a midpoint string (`$top=1`, `$select=PartitionKey`, a seek for the service).
//!   A probe that finds a key splits the range there; one that finds none shrinks the range
//!   toward its data and tries again. Each found boundary is a real key, so no range is
//!   empty when planned. This costs a few requests per range and needs nothing stored
//!   beside the table; it balances by key space, not by entity count, which is what the
//!   service offers without reading the table.
//!
//! The first range starts at the lowest key and the last one ends past the highest, so
//! every entity, including one written while the scan runs, lies in exactly one range.
//! Pages come in the order ranges produce them: entities are ordered within a range, not
//! across ranges. A [`ScanCheckpoint`] records each range's bounds and continuation; a scan
//! resumed from it skips finished ranges and continues the others where they stopped.
//!
//! Sharing one scan between machines ([`shard`](ParallelScan::shard)) needs ranges every
//! machine agrees on: boundaries given with `split_at`, or one plan
//! ([`plan`](ParallelScan::plan)) made once and handed to each machine with
//! [`resume`](ParallelScan::resume). Ranges probed separately on each machine could differ
//! if the table changed in between.

use std::cmp::Ordering;

use futures::stream::{self, BoxStream, StreamExt, TryStreamExt};
use serde::{Deserialize, Serialize};

use super::continuation::ContinuationToken;
use super::error::{Error, Result};
use super::pages::Page;
use super::table::Table;
use crate::model::table_model::TableModel;
use crate::protocol::limits::InvalidInput;
use crate::query::builder::Query;
use crate::query::column::{Column, Storage};
use crate::values::entity::DynamicEntity;

/// Ranges probed per range in flight when none are asked for: enough to keep every slot busy
/// while an uneven range finishes late.
const RANGES_PER_SLOT: usize = 4;
/// Probes a plan may send per range it makes, so a skewed key space cannot probe forever.
const PROBES_PER_RANGE: usize = 24;
/// The characters midpoints are made of: printable ASCII. A midpoint only has to sort
/// between its neighbours; keys outside this alphabet are still split, less evenly.
const FIRST: u32 = 0x20;
const LAST: u32 = 0x7e;

/// A scan of a table in concurrent PartitionKey ranges (see the [module](self) docs).
///
/// ```
/// # #[tokio::main(flavor = "multi_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let emulator = tablekit_testing::Emulator::start().await?;
/// use futures::TryStreamExt;
/// use tablekit::{DynamicEntity, Query};
/// let sensors = emulator.client().table_named::<DynamicEntity>("Sensors");
/// sensors.create().await?;
/// for i in 0..300 {
///     sensors.insert(&mut DynamicEntity::new(format!("s{:02}", i % 30), i.to_string())).await?;
/// }
/// let scan = sensors.parallel_scan(Query::new()).concurrency(4)?.sampled_ranges(6)?;
/// let mut seen = 0;
/// let mut pages = scan.pages();
/// while let Some(page) = pages.try_next().await? {
///     seen += page.page.len();
/// }
/// assert_eq!(seen, 300);
/// # Ok(()) }
/// ```
pub struct ParallelScan<M: TableModel> {
    table: Table<M>,
    query: Query<M>,
    split: Split,
    concurrency: usize,
    shard: Option<(usize, usize)>,
    resume: Option<ScanCheckpoint>,
}

impl<M: TableModel> std::fmt::Debug for ParallelScan<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParallelScan")
            .field("table", &self.table.name())
            .field("split", &self.split)
            .field("concurrency", &self.concurrency)
            .field("shard", &self.shard)
            .finish_non_exhaustive()
    }
}

/// How the key space is split.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Split {
    /// Probed, into at most this many ranges.
    Sampled(Option<usize>),
    /// At these PartitionKeys, sorted and distinct.
    At(Vec<String>),
}

/// One page of a parallel scan and the range it belongs to.
///
/// ```
/// use tablekit::client::{Page, RangePage};
/// use tablekit::DynamicEntity;
/// let page = RangePage { range: 2, page: Page::<DynamicEntity>::new(Vec::new(), None) };
/// assert!(page.page.is_empty());
/// ```
#[derive(Clone, Debug)]
pub struct RangePage<E> {
    /// The range's index in the scan's [`ScanCheckpoint::ranges`].
    pub range: usize,
    /// The page.
    pub page: Page<E>,
}

/// Where each range of a parallel scan stands: its bounds, and where it goes on. Serializes
/// (serde) so it can be saved after each page and handed to [`ParallelScan::resume`].
///
/// ```
/// use tablekit::client::{ContinuationToken, Page, RangePage, ScanCheckpoint};
/// use tablekit::DynamicEntity;
/// let mut checkpoint = ScanCheckpoint::from_boundaries(["m"]);
/// assert_eq!(checkpoint.ranges.len(), 2); // below "m", and from "m" on
/// let more = ContinuationToken::new("1!4!bQ--", None);
/// checkpoint.record(&RangePage { range: 1, page: Page::<DynamicEntity>::new(Vec::new(), Some(more)) });
/// checkpoint.record(&RangePage { range: 0, page: Page::<DynamicEntity>::new(Vec::new(), None) });
/// assert!(checkpoint.ranges[0].done && !checkpoint.is_complete());
/// let saved = serde_json::to_string(&checkpoint).unwrap();
/// let back: ScanCheckpoint = serde_json::from_str(&saved).unwrap();
/// assert_eq!(back, checkpoint);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScanCheckpoint {
    /// The ranges, in key order.
    pub ranges: Vec<RangeState>,
}

/// One range of a [`ScanCheckpoint`]: PartitionKeys from `start` (included) to `end`
/// (excluded), `None` for no bound.
///
/// ```
/// use tablekit::client::RangeState;
/// let range = RangeState { start: Some("a".into()), end: None, next: None, done: false };
/// assert!(range.contains("zebra") && !range.contains("A"));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RangeState {
    /// The lowest PartitionKey of the range.
    pub start: Option<String>,
    /// The PartitionKey the range stops before.
    pub end: Option<String>,
    /// Where the range goes on (a continuation token's text), once a page said.
    pub next: Option<String>,
    /// Whether every page of the range was read.
    pub done: bool,
}

impl RangeState {
    /// Whether `partition_key` lies in the range (in the service's UTF-16 order).
    pub fn contains(&self, partition_key: &str) -> bool {
        let above_start = self
            .start
            .as_deref()
            .is_none_or(|s| utf16_cmp(partition_key, s) != Ordering::Less);
        let below_end = self
            .end
            .as_deref()
            .is_none_or(|e| utf16_cmp(partition_key, e) == Ordering::Less);
        above_start && below_end
    }
}

impl ScanCheckpoint {
    /// Ranges split at `boundaries` (sorted and deduplicated here): one below the first, one
    /// from each boundary to the next, and one from the last on.
    pub fn from_boundaries<S: Into<String>>(boundaries: impl IntoIterator<Item = S>) -> Self {
        let mut keys: Vec<String> = boundaries.into_iter().map(Into::into).collect();
        keys.sort_by(|a, b| utf16_cmp(a, b));
        keys.dedup();
        keys.retain(|k| !k.is_empty());
        let mut starts: Vec<Option<String>> = vec![None];
        starts.extend(keys.iter().cloned().map(Some));
        let mut ends: Vec<Option<String>> = keys.into_iter().map(Some).collect();
        ends.push(None);
        let ranges = starts
            .into_iter()
            .zip(ends)
            .map(|(start, end)| RangeState {
                start,
                end,
                ..RangeState::default()
            })
            .collect();
        ScanCheckpoint { ranges }
    }

    /// Records a page read: its range goes on from the page's continuation, or is done.
    pub fn record<E>(&mut self, page: &RangePage<E>) {
        if let Some(range) = self.ranges.get_mut(page.range) {
            range.next = page.page.continuation().map(ToString::to_string);
            range.done = range.next.is_none();
        }
    }

    /// Whether every range was read to its end.
    pub fn is_complete(&self) -> bool {
        self.ranges.iter().all(|r| r.done)
    }
}

impl<M: TableModel> Table<M> {
    /// A scan of `query`'s matches over the whole table in concurrent PartitionKey ranges
    /// (see [`ParallelScan`]). A scan reads every partition by intent, so it runs on a table
    /// that [refuses table scans](Table::refuse_table_scans) too.
    pub fn parallel_scan(&self, query: Query<M>) -> ParallelScan<M> {
        ParallelScan {
            table: self.clone(),
            query: query.allow_table_scan(),
            split: Split::Sampled(None),
            concurrency: 8,
            shard: None,
            resume: None,
        }
    }
}

impl<M: TableModel> ParallelScan<M> {
    /// How many ranges are read at once (at least 1; 8 by default).
    pub fn concurrency(mut self, n: usize) -> Result<Self> {
        if n == 0 {
            return Err(invalid("a parallel scan reads at least 1 range at a time"));
        }
        self.concurrency = n;
        Ok(self)
    }

    /// Probes the key space for at most `n` ranges (at least 1; by default 4 per range in
    /// flight).
    pub fn sampled_ranges(mut self, n: usize) -> Result<Self> {
        if n == 0 {
            return Err(invalid("a parallel scan needs at least 1 range"));
        }
        self.split = Split::Sampled(Some(n));
        Ok(self)
    }

    /// Splits at these PartitionKeys instead of probing: ranges every run and every machine
    /// agrees on.
    pub fn split_at<S: Into<String>>(mut self, boundaries: impl IntoIterator<Item = S>) -> Self {
        self.split = Split::At(boundaries.into_iter().map(Into::into).collect());
        self
    }

    /// Reads only shard `index` of `count` (from 0): the ranges whose index is `index`
    /// modulo `count`. The shards of one plan cover every range once.
    pub fn shard(mut self, index: usize, count: usize) -> Result<Self> {
        if count == 0 || index >= count {
            return Err(invalid(format!(
                "shard {index} of {count} does not exist: shards are numbered 0 to count - 1"
            )));
        }
        self.shard = Some((index, count));
        Ok(self)
    }

    /// Goes on from a checkpoint: its ranges, finished ones skipped, the others continued.
    pub fn resume(mut self, checkpoint: ScanCheckpoint) -> Self {
        self.resume = Some(checkpoint);
        self
    }

    /// The ranges the scan reads, none started (or the checkpoint given to
    /// [`resume`](Self::resume)): probed now when the ranges are sampled.
    pub async fn plan(&self) -> Result<ScanCheckpoint> {
        if let Some(checkpoint) = &self.resume {
            return Ok(checkpoint.clone());
        }
        match &self.split {
            Split::At(keys) => Ok(ScanCheckpoint::from_boundaries(keys.clone())),
            Split::Sampled(n) => {
                let n = n.unwrap_or(self.concurrency * RANGES_PER_SLOT);
                let probe = Probe(self.table.client().table_named(self.table.name()));
                Ok(ScanCheckpoint::from_boundaries(probe.boundaries(n).await?))
            }
        }
    }

    /// Every page of every range of this shard not finished yet, `concurrency` ranges at a
    /// time, merged as they come. Record each in a [`ScanCheckpoint`] to resume later.
    pub fn pages(self) -> BoxStream<'static, Result<RangePage<M::Entity>>> {
        let concurrency = self.concurrency;
        stream::once(async move {
            let checkpoint = self.plan().await?;
            Ok::<_, Error>(self.range_streams(checkpoint))
        })
        .map_ok(move |ranges| ranges.flatten_unordered(concurrency))
        .try_flatten()
        .boxed()
    }

    /// One stream of pages per range left to read.
    fn range_streams(
        self,
        checkpoint: ScanCheckpoint,
    ) -> BoxStream<'static, BoxStream<'static, Result<RangePage<M::Entity>>>> {
        let in_shard = move |i: usize| self.shard.is_none_or(|(index, count)| i % count == index);
        let streams: Vec<_> = checkpoint
            .ranges
            .into_iter()
            .enumerate()
            .filter(|(i, range)| !range.done && in_shard(*i))
            .map(|(i, range)| self.range_pages(i, range))
            .collect();
        stream::iter(streams).boxed()
    }

    fn range_pages(
        &self,
        index: usize,
        range: RangeState,
    ) -> BoxStream<'static, Result<RangePage<M::Entity>>> {
        let pk = Column::<M, String>::__new("PartitionKey", Storage::Single);
        let mut query = self.query.clone();
        if let Some(start) = &range.start {
            query = query.filter(pk.ge(start.as_str()));
        }
        if let Some(end) = &range.end {
            query = query.filter(pk.lt(end.as_str()));
        }
        let mut read = self.table.query(query).read_ahead(true);
        if let Some(next) = &range.next {
            match next.parse::<ContinuationToken>() {
                Ok(token) => read = read.resume_from(token),
                Err(e) => return stream::once(async move { Err(e) }).boxed(),
            }
        }
        read.pages()
            .map_ok(move |page| RangePage { range: index, page })
            .boxed()
    }
}

/// The probes of a plan: `$top=1` reads of the first PartitionKey at or above a point.
struct Probe(Table<DynamicEntity>);

impl Probe {
    /// The first PartitionKey in `[from, to)`, if any.
    async fn first_key(&self, from: &str, to: Option<&str>) -> Result<Option<String>> {
        let pk = Column::<DynamicEntity, String>::dynamic("PartitionKey");
        let mut query = Query::new().select_names(["PartitionKey"]).take(1);
        if !from.is_empty() {
            query = query.filter(pk.ge(from));
        }
        if let Some(to) = to {
            query = query.filter(pk.lt(to));
        }
        let mut keys = self.0.query(query.allow_table_scan()).entities();
        Ok(keys.try_next().await?.map(|e| e.partition_key().to_owned()))
    }

    /// At most `n - 1` boundaries, each a stored PartitionKey, splitting the table's keys.
    async fn boundaries(&self, n: usize) -> Result<Vec<String>> {
        let Some(first) = self.first_key("", None).await? else {
            return Ok(Vec::new()); // an empty table: one range
        };
        // Ranges as (lowest key, end), each known to hold its lowest key.
        let mut ranges: Vec<(String, Option<String>)> = vec![(first, None)];
        let mut probes = 0;
        let budget = n.saturating_mul(PROBES_PER_RANGE);
        let mut splittable = true;
        while ranges.len() < n && splittable && probes < budget {
            splittable = false;
            let mut next = Vec::with_capacity(ranges.len() * 2);
            for (low, end) in std::mem::take(&mut ranges) {
                if next.len() + 1 >= n || probes >= budget {
                    next.push((low, end));
                    continue;
                }
                let (found, used) = self.split(&low, end.as_deref()).await?;
                probes += used;
                match found {
                    Some(key) => {
                        splittable = true;
                        next.push((low, Some(key.clone())));
                        next.push((key, end));
                    }
                    None => next.push((low, end)),
                }
            }
            ranges = next;
        }
        Ok(ranges.into_iter().skip(1).map(|(low, _)| low).collect())
    }

    /// A stored key splitting `[low, end)` (above `low`), and the probes it took: a probe at
    /// the midpoint that finds nothing moves the end down to it, and tries again.
    async fn split(&self, low: &str, end: Option<&str>) -> Result<(Option<String>, usize)> {
        let mut end = end.map(str::to_owned);
        for used in 1..=PROBES_PER_RANGE {
            let Some(mid) = midpoint(low, end.as_deref()) else {
                return Ok((None, used - 1));
            };
            match self.first_key(&mid, end.as_deref()).await? {
                Some(key) => return Ok((Some(key), used)),
                None => end = Some(mid),
            }
        }
        Ok((None, PROBES_PER_RANGE))
    }
}

/// A string strictly between `low` and `high` (`None`: above every key), made of printable
/// ASCII; `None` when none is found (the two are adjacent in that alphabet).
fn midpoint(low: &str, high: Option<&str>) -> Option<String> {
    let digits = |s: &str| -> Vec<u32> {
        s.chars()
            .map(|c| (c as u32).clamp(FIRST, LAST) - FIRST)
            .collect()
    };
    let base = LAST - FIRST + 1;
    let low_digits = digits(low);
    let width = low_digits.len().max(high.map_or(0, |h| h.chars().count())) + 2;
    let pad = |mut d: Vec<u32>, fill: u32| {
        d.resize(width, fill);
        d
    };
    let a = pad(low_digits, 0);
    let b = match high {
        Some(h) => pad(digits(h), 0),
        None => vec![base - 1; width],
    };
    // (a + b) / 2 in base `base`, most significant digit first.
    let mut sum = vec![0u32; width + 1];
    let mut carry = 0;
    for i in (0..width).rev() {
        let s = a[i] + b[i] + carry;
        sum[i + 1] = s % base;
        carry = s / base;
    }
    sum[0] = carry;
    let mut half = Vec::with_capacity(width);
    let mut rest = 0;
    for d in sum {
        let v = rest * base + d;
        half.push(v / 2);
        rest = v % 2;
    }
    let digits = &half[1..];
    let len = digits.iter().rposition(|d| *d != 0).map_or(0, |p| p + 1);
    let mid: String = digits[..len]
        .iter()
        .filter_map(|d| char::from_u32(d + FIRST))
        .collect();
    let above_low = utf16_cmp(&mid, low) == Ordering::Greater;
    let below_high = high.is_none_or(|h| utf16_cmp(&mid, h) == Ordering::Less);
    (above_low && below_high).then_some(mid)
}

/// The service's order of keys: by UTF-16 code units.
fn utf16_cmp(a: &str, b: &str) -> Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

fn invalid(message: impl Into<String>) -> Error {
    InvalidInput::Other(message.into()).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn midpoints_sort_between_their_bounds() {
        for (low, high) in [
            ("a", Some("c")),
            ("p001", Some("p999")),
            ("p001", None),
            ("", None),
            ("a", Some("a\u{21}")),
            ("東京", None),
            ("z", Some("東")),
        ] {
            if let Some(mid) = midpoint(low, high) {
                assert_eq!(utf16_cmp(&mid, low), Ordering::Greater, "{low:?} {high:?}");
                if let Some(high) = high {
                    assert_eq!(utf16_cmp(&mid, high), Ordering::Less, "{low:?} {high:?}");
                }
            }
        }
        assert_eq!(midpoint("a", Some("a")), None);
        assert!(midpoint("p001", Some("p999")).is_some());
    }

    #[test]
    fn boundaries_make_ranges_that_cover_every_key_once() {
        let checkpoint = ScanCheckpoint::from_boundaries(["m", "c", "m", "", "x"]);
        let bounds: Vec<_> = checkpoint
            .ranges
            .iter()
            .map(|r| (r.start.as_deref(), r.end.as_deref()))
            .collect();
        assert_eq!(
            bounds,
            [
                (None, Some("c")),
                (Some("c"), Some("m")),
                (Some("m"), Some("x")),
                (Some("x"), None)
            ]
        );
        for key in ["", "a", "c", "l", "m", "w", "x", "\u{FFFF}", "😀"] {
            let holding = checkpoint.ranges.iter().filter(|r| r.contains(key)).count();
            assert_eq!(holding, 1, "{key:?}");
        }
    }
}
