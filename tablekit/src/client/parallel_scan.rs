//! [`ParallelScan`]: a query over the whole table in PartitionKey ranges read concurrently.

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
use crate::values::value::utf16_cmp;

/// Ranges probed per range in flight when none are asked for: enough to keep every slot busy
/// while an uneven range finishes late.
const RANGES_PER_SLOT: usize = 2;
/// Points a range is probed at in one round trip.
const PROBES_AT_ONCE: u64 = 7;
/// Rounds a plan (and each split in it) may take, so a skewed key space cannot probe forever.
const PROBE_ROUNDS: usize = 12;
/// The characters probe points are made of: printable ASCII. A point only has to sort
/// between its neighbours; keys outside this alphabet are still split, less evenly.
const FIRST: u32 = 0x20;
const LAST: u32 = 0x7e;

/// A query over the whole table split into PartitionKey ranges that are read concurrently
/// and merged into one stream, resumable range by range.
///
/// The service answers a query one page at a time, each page's request waiting for the one
/// before it, so a scan's speed is one request's latency per page whatever the bandwidth.
/// Ranges of PartitionKeys are independent queries: read side by side, a scan goes as many
/// times faster as ranges are in flight, up to the service's throughput.
///
/// The service has no API that says where to split a table. The ranges come from:
/// - boundaries the caller knows ([`split_at`](ParallelScan::split_at)): its partitions or
///   key prefixes, exact and free;
/// - probes of the key space ([`sampled_ranges`](ParallelScan::sampled_ranges), the default):
///   the first PartitionKey is read, then each range is probed at seven points spread evenly
///   between its bounds, asking for the first key at or above each (`$top=1`,
///   `$select=PartitionKey`, a seek for the service), every probe of a round in flight at
///   once. The keys found split the ranges. When a range's probes find none, its keys lie
///   close above its start: probes at an eighth, a sixty-fourth, ... of the span say how
///   close, and the even probes go again over that much. Each boundary is a stored key, so
///   no range is empty when planned. A plan takes a few round trips and needs nothing
///   stored beside the table; it balances by key space, not by entity count, which is what
///   the service offers without reading the table.
///
/// The first range starts at the lowest key and the last one ends past the highest, so
/// every entity, including one written while the scan runs, lies in exactly one range.
/// Pages come in the order ranges produce them: entities are ordered within a range, not
/// across ranges. A [`ScanCheckpoint`] records each range's bounds and continuation; a scan
/// resumed from it skips finished ranges and continues the others where they stopped.
///
/// Sharing one scan between machines ([`shard`](ParallelScan::shard)) needs ranges every
/// machine agrees on: boundaries given with `split_at`, or one plan
/// ([`plan`](ParallelScan::plan)) made once and handed to each machine with
/// [`resume`](ParallelScan::resume). Ranges probed separately on each machine could differ
/// if the table changed in between.
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
    /// Every range is probed at [`PROBES_AT_ONCE`] points in each round, all of a round's
    /// probes in flight together, so a plan takes a few round trips however many ranges it
    /// makes.
    async fn boundaries(&self, n: usize) -> Result<Vec<String>> {
        let Some(first) = self.first_key("", None).await? else {
            return Ok(Vec::new()); // an empty table: one range
        };
        let mut keys = vec![first];
        let mut rounds = 0;
        while keys.len() < n && rounds < PROBE_ROUNDS {
            rounds += 1;
            // Each range is from one key to the next, the last one unbounded.
            let ends = keys.iter().skip(1).map(|k| Some(k.as_str())).chain([None]);
            let splits = keys.iter().zip(ends).map(|(low, end)| self.split(low, end));
            let found: Vec<String> = futures::future::try_join_all(splits)
                .await?
                .into_iter()
                .flatten()
                .collect();
            if found.is_empty() {
                break;
            }
            keys.extend(found);
            keys.sort_by(|a, b| utf16_cmp(a, b));
            keys.dedup();
        }
        Ok(thinned(keys.split_off(1), n.saturating_sub(1)))
    }

    /// Stored keys inside `(low, end)`, from probes at points spread evenly between them.
    /// When none finds a key, every key lies below the first point: probes at an eighth, a
    /// sixty-fourth, ... of that span tell how close to `low` they lie, the span shrinks to
    /// just above them, and the even probes go again (at most [`PROBE_ROUNDS`] times).
    async fn split(&self, low: &str, end: Option<&str>) -> Result<Vec<String>> {
        let mut span_end = end.map(str::to_owned);
        for _ in 0..PROBE_ROUNDS {
            let even = points_between(low, span_end.as_deref(), Spacing::Even);
            let Some(first) = even.first().cloned() else {
                return Ok(Vec::new());
            };
            let found: Vec<String> = self
                .probe(&even, end)
                .await?
                .into_iter()
                .flatten()
                .collect();
            let found: Vec<String> = found
                .into_iter()
                .filter(|key| utf16_cmp(key, low) == Ordering::Greater)
                .collect();
            if !found.is_empty() {
                return Ok(found);
            }
            let closer = points_between(low, Some(&first), Spacing::Closer);
            let hits = self.probe(&closer, end).await?;
            // Keys lie at or above the highest point that found one, below the next point.
            span_end = Some(match hits.iter().rposition(Option::is_some) {
                Some(i) => closer.get(i + 1).cloned().unwrap_or(first),
                None => match closer.first() {
                    Some(lowest) => lowest.clone(),
                    None => return Ok(Vec::new()),
                },
            });
        }
        Ok(Vec::new())
    }

    /// The first key at or above each point, below `end`, probed together.
    async fn probe(&self, points: &[String], end: Option<&str>) -> Result<Vec<Option<String>>> {
        futures::future::try_join_all(points.iter().map(|point| self.first_key(point, end))).await
    }
}

/// `count` of `keys` (sorted), spread evenly over them.
fn thinned(keys: Vec<String>, count: usize) -> Vec<String> {
    if keys.len() <= count {
        return keys;
    }
    let step = keys.len() as f64 / (count + 1) as f64;
    let mut picked: Vec<String> = (1..=count)
        .filter_map(|i| keys.get((i as f64 * step) as usize).cloned())
        .collect();
    picked.dedup();
    picked
}

/// Digits of a key in the probes' alphabet, one per character.
fn digits(key: &str) -> Vec<u64> {
    key.chars()
        .map(|c| u64::from((c as u32).clamp(FIRST, LAST) - FIRST))
        .collect()
}

/// How probe points are spread over a span.
#[derive(Clone, Copy)]
enum Spacing {
    /// At 1/8, 2/8, ... 7/8 of the span.
    Even,
    /// At 1/8⁸, 1/8⁷, ... 1/8 of the span: for keys packed close above its start.
    Closer,
}

/// Points of the span from `low` to `high` (`None`: above every key), in printable ASCII,
/// each strictly between the two, sorted; fewer when the two are too close for all of them.
fn points_between(low: &str, high: Option<&str>, spacing: Spacing) -> Vec<String> {
    const PARTS: u64 = PROBES_AT_ONCE + 1;
    let base = u64::from(LAST - FIRST + 1);
    let width = low
        .chars()
        .count()
        .max(high.map_or(0, |h| h.chars().count()))
        + 2;
    let pad = |mut d: Vec<u64>, fill: u64| {
        d.resize(width, fill);
        d
    };
    let a = pad(digits(low), 0);
    let b = match high {
        Some(h) => pad(digits(h), 0),
        None => vec![base - 1; width],
    };
    let span = subtract(&b, &a, base);
    let offsets: Vec<Vec<u64>> = match spacing {
        Spacing::Even => (1..PARTS)
            .map(|k| divide(&multiply(&span, k, base), PARTS, base))
            .collect(),
        Spacing::Closer => {
            let mut offsets = Vec::new();
            let mut offset = span;
            for _ in 0..PARTS {
                offset = divide(&multiply(&offset, 1, base), PARTS, base);
                offsets.push(offset.clone());
            }
            offsets
        }
    };
    let mut points: Vec<String> = offsets
        .iter()
        .map(|offset| text(&add(&a, offset, base)))
        .filter(|p| {
            utf16_cmp(p, low) == Ordering::Greater
                && high.is_none_or(|h| utf16_cmp(p, h) == Ordering::Less)
        })
        .collect();
    points.sort_by(|x, y| utf16_cmp(x, y));
    points.dedup();
    points
}

/// `a - b` for `a >= b`, digit vectors of one width, most significant first.
fn subtract(a: &[u64], b: &[u64], base: u64) -> Vec<u64> {
    let mut out = vec![0; a.len()];
    let mut borrow = 0;
    for i in (0..a.len()).rev() {
        let (x, y) = (a[i], b[i] + borrow);
        (out[i], borrow) = if x >= y {
            (x - y, 0)
        } else {
            (x + base - y, 1)
        };
    }
    out
}

fn add(a: &[u64], b: &[u64], base: u64) -> Vec<u64> {
    let mut out = vec![0; a.len()];
    let mut carry = 0;
    for i in (0..a.len()).rev() {
        let s = a[i] + b[i] + carry;
        (out[i], carry) = (s % base, s / base);
    }
    out
}

fn multiply(a: &[u64], k: u64, base: u64) -> Vec<u64> {
    // The result keeps the width: `k < parts` and the division by `parts` follows.
    let mut out = vec![0; a.len() + 1];
    let mut carry = 0;
    for i in (0..a.len()).rev() {
        let p = a[i] * k + carry;
        (out[i + 1], carry) = (p % base, p / base);
    }
    out[0] = carry;
    out
}

/// `a / k`, dropping the extra leading digit `multiply` added.
fn divide(a: &[u64], k: u64, base: u64) -> Vec<u64> {
    let mut out = Vec::with_capacity(a.len());
    let mut rest = 0;
    for &d in a {
        let v = rest * base + d;
        out.push(v / k);
        rest = v % k;
    }
    out.split_off(1)
}

/// A digit vector as text, trailing zero digits (spaces) dropped.
fn text(d: &[u64]) -> String {
    let len = d.iter().rposition(|x| *x != 0).map_or(0, |p| p + 1);
    d[..len]
        .iter()
        .filter_map(|x| {
            u32::try_from(*x)
                .ok()
                .and_then(|x| char::from_u32(x + FIRST))
        })
        .collect()
}

fn invalid(message: impl Into<String>) -> Error {
    InvalidInput::Other(message.into()).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_sort_between_their_bounds_in_order() {
        for (low, high) in [
            ("a", Some("c")),
            ("p001", Some("p999")),
            ("p001", None),
            ("", None),
            ("a", Some("a\u{21}")),
            ("東京", None),
            ("z", Some("東")),
        ] {
            let mut points = points_between(low, high, Spacing::Even);
            points.extend(points_between(low, high, Spacing::Closer));
            points.sort_by(|x, y| utf16_cmp(x, y));
            points.dedup();
            for pair in points.windows(2) {
                assert_eq!(utf16_cmp(&pair[0], &pair[1]), Ordering::Less, "{points:?}");
            }
            for p in &points {
                assert_eq!(utf16_cmp(p, low), Ordering::Greater, "{low:?} {high:?}");
                if let Some(high) = high {
                    assert_eq!(utf16_cmp(p, high), Ordering::Less, "{low:?} {high:?}");
                }
            }
        }
        assert!(points_between("a", Some("a"), Spacing::Even).is_empty());
        assert_eq!(points_between("p000", Some("p100"), Spacing::Even).len(), 7);
        assert_eq!(
            thinned(vec!["a".into(), "b".into(), "c".into(), "d".into()], 1),
            ["c"]
        );
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
