//! How fast the bulk writer sends: rates that adapt to throttling, per partition and overall.
//!
//! Azure Table storage refuses load past about 2,000 entities a second per partition and
//! 20,000 per account with 503 Server Busy; the Cosmos DB Table API refuses with 429 and says
//! when to come back. Neither says which limit was hit, and a request answers in milliseconds,
//! so a limit on requests in flight cannot find the rate (one request at a time can already be
//! too fast). The writer therefore paces entities a second, as TCP paces bytes:
//!
//! - **Additive increase, multiplicative decrease.** A rate starts unlimited. A throttle sets
//!   it to 90% of the rate the service was accepting; then it grows by 1% of that every
//!   100 ms until the next throttle. Only a throttle of a request sent after the last decrease
//!   decreases again: the requests already in flight were sent at the old rate.
//! - **Blame.** A partition that draws most of the recent throttles (at least two of the last
//!   second's, and half of them) is over its own target: its rate decreases and the others
//!   go on. Otherwise the account is: the overall rate decreases.
//! - **Waits the service asks for** (`x-ms-retry-after-ms`, `Retry-After`) pause the partition.
//!
//! A pacer lives as long as its writer, so a writer used for many calls (a command writing a
//! file chunk by chunk) keeps what it learned.

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

/// One table's partition: the scope of the service's per-partition target.
pub(crate) type PartitionId = (String, String);

/// How often rates grow, and the width of one slot of the rate meters.
const INTERVAL: Duration = Duration::from_millis(100);
/// A decreased rate is this share of the rate the service was accepting.
const DECREASE: f64 = 0.9;
/// Growth per interval, as a share of the rate set by the last decrease.
const GROWTH: f64 = 0.01;
/// No rate decreases below this many entities a second.
const MIN_RATE: f64 = 20.0;
/// Growth per interval is at least this many entities a second.
const MIN_STEP: f64 = 5.0;
/// A bucket holds this long's worth of its rate: small bursts, smooth load.
const BURST: Duration = Duration::from_millis(100);
/// How far back throttles are remembered to find whom they blame.
const MEMORY: Duration = Duration::from_secs(1);

/// Entities committed in the last second, in slots of [`INTERVAL`].
#[derive(Debug)]
struct Meter {
    slots: [u64; 10],
    /// The slot `now` falls in, counted in intervals since `origin`.
    head: u64,
    origin: Instant,
}

impl Meter {
    fn new(now: Instant) -> Self {
        Meter {
            slots: [0; 10],
            head: 0,
            origin: now,
        }
    }

    fn advance(&mut self, now: Instant) {
        let slot =
            (now.saturating_duration_since(self.origin).as_millis() / INTERVAL.as_millis()) as u64;
        if slot >= self.head + self.slots.len() as u64 {
            self.slots = [0; 10];
        } else {
            for s in self.head + 1..=slot {
                self.slots[(s % 10) as usize] = 0;
            }
        }
        self.head = self.head.max(slot);
    }

    fn add(&mut self, entities: u64, now: Instant) {
        self.advance(now);
        self.slots[(self.head % 10) as usize] += entities;
    }

    /// Entities a second over the last second (or since the meter started, if sooner).
    fn rate(&mut self, now: Instant) -> f64 {
        self.advance(now);
        // The nine slots before this one, and as much of this one as has passed.
        let since_origin = now.saturating_duration_since(self.origin);
        let in_head = since_origin.saturating_sub(INTERVAL * self.head as u32);
        let span = since_origin.min(INTERVAL * 9 + in_head).max(INTERVAL);
        self.slots.iter().sum::<u64>() as f64 / span.as_secs_f64()
    }

    /// Whether it has seen a whole second.
    fn is_full(&self, now: Instant) -> bool {
        now.saturating_duration_since(self.origin) >= Duration::from_secs(1)
    }
}

/// An adaptive rate with its token bucket.
#[derive(Debug)]
struct Rate {
    /// Entities a second; `None` until the first decrease.
    limit: Option<f64>,
    /// May go below zero: a request pays for all its entities once any token is left.
    tokens: f64,
    refilled: Instant,
    /// Added to `limit` every interval.
    step: f64,
    grown: Instant,
    decreased: Option<Instant>,
    acked: Meter,
    sent: Meter,
}

impl Rate {
    fn new(now: Instant) -> Self {
        Rate {
            limit: None,
            tokens: 0.0,
            refilled: now,
            step: 0.0,
            grown: now,
            decreased: None,
            acked: Meter::new(now),
            sent: Meter::new(now),
        }
    }

    fn refill(&mut self, now: Instant) {
        if let Some(limit) = self.limit {
            let elapsed = now.saturating_duration_since(self.refilled).as_secs_f64();
            self.tokens = (self.tokens + limit * elapsed).min(limit * BURST.as_secs_f64());
        }
        self.refilled = now;
    }

    /// When a request may go: `None` now, else the instant a token is back.
    fn ready_at(&mut self, now: Instant) -> Option<Instant> {
        let limit = self.limit?;
        self.refill(now);
        (self.tokens <= 0.0)
            .then(|| now + Duration::from_secs_f64((1.0 - self.tokens) / limit.max(MIN_RATE)))
    }

    fn spend(&mut self, entities: usize, now: Instant) {
        self.sent.add(entities as u64, now);
        if self.limit.is_some() {
            self.refill(now);
            self.tokens -= entities as f64;
        }
    }

    fn grow(&mut self, now: Instant) {
        let Some(limit) = self.limit else { return };
        let intervals =
            now.saturating_duration_since(self.grown).as_millis() / INTERVAL.as_millis();
        if intervals == 0 {
            return;
        }
        self.grown += INTERVAL * intervals as u32;
        let mut grown = limit + self.step * intervals as f64;
        // A rate the sender does not use is not a rate the service accepts: growth stops
        // at twice what is committed, so a pause does not end in a burst.
        if self.acked.is_full(now) {
            grown = grown.min((2.0 * self.acked.rate(now)).max(limit));
        }
        self.limit = Some(grown);
    }

    /// Decreases unless a decrease came after `sent`; whether it did.
    fn decrease(&mut self, sent: Instant, now: Instant) -> bool {
        if self.decreased.is_some_and(|d| sent <= d) {
            return false;
        }
        let accepted = self.acked.rate(now);
        let base = if accepted > 0.0 {
            self.limit.map_or(accepted, |limit| limit.min(accepted))
        } else {
            // Throttled before anything was accepted: half of what was tried.
            self.limit.unwrap_or_else(|| self.sent.rate(now)) / 2.0
        };
        let limit = (base * DECREASE).max(MIN_RATE);
        self.limit = Some(limit);
        self.step = (limit * GROWTH).max(MIN_STEP);
        self.tokens = self.tokens.min(0.0);
        self.refilled = now;
        self.decreased = Some(now);
        self.grown = now;
        true
    }
}

/// The rates an adaptive [`BulkWriter`](super::BulkWriter) keeps to now, in entities a second.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let emulator = tablekit_testing::Emulator::start().await?;
/// use tablekit::patterns::bulk::BulkWriter;
/// let writer = BulkWriter::new(&emulator.client());
/// let rates = writer.rates();
/// assert_eq!(rates.overall, None); // nothing throttled yet: no limit
/// assert!(rates.partitions.is_empty());
/// # Ok(()) }
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct Rates {
    /// The overall limit, once a throttle set one.
    pub overall: Option<f64>,
    /// The limit of each partition (table, PartitionKey) that has one of its own.
    pub partitions: Vec<((String, String), f64)>,
}

/// The rates of one writer: overall, and per partition.
#[derive(Debug)]
pub(crate) struct Pacer {
    account: Rate,
    partitions: HashMap<PartitionId, Rate>,
    /// Partitions throttled lately, with when.
    throttles: VecDeque<(Instant, PartitionId)>,
    /// Partitions the service asked to wait, until when.
    paused: HashMap<PartitionId, Instant>,
    pruned: Instant,
}

impl Default for Pacer {
    fn default() -> Self {
        let now = Instant::now();
        Pacer {
            account: Rate::new(now),
            partitions: HashMap::new(),
            throttles: VecDeque::new(),
            paused: HashMap::new(),
            pruned: now,
        }
    }
}

/// Which rate a throttle decreased.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Blame {
    Partition,
    Account,
    /// Neither: a decrease already answered the load it was sent in.
    None,
}

impl Pacer {
    /// When a request to `partition` may go: `None` now.
    pub(crate) fn ready_at(&mut self, partition: &PartitionId, now: Instant) -> Option<Instant> {
        if let Some(&until) = self.paused.get(partition) {
            if until > now {
                return Some(until);
            }
            self.paused.remove(partition);
        }
        let own = self
            .partitions
            .get_mut(partition)
            .and_then(|rate| rate.ready_at(now));
        own.max(self.account.ready_at(now))
    }

    /// When any request may go, as far as the overall rate says: `None` now.
    pub(crate) fn account_ready_at(&mut self, now: Instant) -> Option<Instant> {
        self.account.ready_at(now)
    }

    /// Takes the tokens of a request of `entities` to `partition`.
    pub(crate) fn spend(&mut self, partition: &PartitionId, entities: usize, now: Instant) {
        self.account.spend(entities, now);
        self.partitions
            .entry(partition.clone())
            .or_insert_with(|| Rate::new(now))
            .spend(entities, now);
    }

    /// Counts `entities` committed in `partition`.
    pub(crate) fn committed(&mut self, partition: &PartitionId, entities: usize, now: Instant) {
        self.account.acked.add(entities as u64, now);
        self.partitions
            .entry(partition.clone())
            .or_insert_with(|| Rate::new(now))
            .acked
            .add(entities as u64, now);
    }

    /// A request to `partition`, sent at `sent`, was throttled or timed out; `wait` is what
    /// the service asked for.
    pub(crate) fn throttled(
        &mut self,
        partition: &PartitionId,
        sent: Instant,
        wait: Option<Duration>,
        now: Instant,
    ) -> Blame {
        if let Some(wait) = wait {
            self.paused.insert(partition.clone(), now + wait);
        }
        while self
            .throttles
            .front()
            .is_some_and(|(at, _)| now.saturating_duration_since(*at) > MEMORY)
        {
            self.throttles.pop_front();
        }
        self.throttles.push_back((now, partition.clone()));
        let own = self
            .throttles
            .iter()
            .filter(|(_, p)| p == partition)
            .count();
        if own >= 2 && 2 * own >= self.throttles.len() {
            let rate = self
                .partitions
                .entry(partition.clone())
                .or_insert_with(|| Rate::new(now));
            if rate.decrease(sent, now) {
                return Blame::Partition;
            }
        } else if self.account.decrease(sent, now) {
            return Blame::Account;
        }
        Blame::None
    }

    /// Grows every limited rate for the time passed, and forgets idle partitions.
    pub(crate) fn tick(&mut self, now: Instant) {
        self.account.grow(now);
        for rate in self.partitions.values_mut() {
            rate.grow(now);
        }
        if now.saturating_duration_since(self.pruned) >= MEMORY {
            self.pruned = now;
            self.partitions
                .retain(|_, rate| rate.limit.is_some() || rate.sent.rate(now) > 0.0);
            self.paused.retain(|_, until| *until > now);
        }
    }

    /// The limits now: overall, and of each partition that has one.
    pub(crate) fn rates(&self) -> Rates {
        let mut partitions: Vec<(PartitionId, f64)> = self
            .partitions
            .iter()
            .filter_map(|(id, rate)| Some((id.clone(), rate.limit?)))
            .collect();
        partitions.sort_by(|a, b| a.0.cmp(&b.0));
        Rates {
            overall: self.account.limit,
            partitions,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(pk: &str) -> PartitionId {
        ("T".to_owned(), pk.to_owned())
    }

    /// A pacer that has committed `rate` entities a second in each of `partitions` for a second.
    fn busy(partitions: &[&str], rate: u64, start: Instant) -> (Pacer, Instant) {
        let mut pacer = Pacer::default();
        for p in partitions {
            pacer.partitions.insert(id(p), Rate::new(start));
        }
        pacer.account = Rate::new(start);
        for step in 0..10 {
            let at = start + INTERVAL * step;
            for p in partitions {
                pacer.committed(&id(p), (rate / 10) as usize, at);
            }
        }
        (pacer, start + Duration::from_secs(1))
    }

    #[test]
    fn a_partition_that_draws_the_throttles_is_limited_alone() {
        let start = Instant::now();
        let (mut pacer, now) = busy(&["hot", "cold"], 2_000, start);
        assert_eq!(pacer.throttled(&id("hot"), now, None, now), Blame::Account);
        let later = now + Duration::from_millis(1);
        assert_eq!(
            pacer.throttled(&id("hot"), later, None, later),
            Blame::Partition
        );
        let Rates {
            overall: account,
            partitions,
        } = pacer.rates();
        let hot = partitions[0].1;
        assert_eq!(partitions[0].0, id("hot"));
        assert!((1_700.0..=1_900.0).contains(&hot), "{hot}");
        assert!(
            account.is_some(),
            "the first, lone throttle blamed the account"
        );
        assert_eq!(
            pacer.ready_at(&id("cold"), later),
            pacer.account_ready_at(later)
        );
    }

    #[test]
    fn throttles_spread_over_partitions_blame_the_account() {
        let start = Instant::now();
        let (mut pacer, now) = busy(&["a", "b", "c"], 8_000, start);
        assert_eq!(pacer.throttled(&id("a"), now, None, now), Blame::Account);
        let limit = pacer.rates().overall.unwrap();
        assert!((21_000.0..=22_000.0).contains(&limit), "{limit}");
        // Sent before that decrease: already answered.
        let t = now + Duration::from_millis(1);
        assert_eq!(pacer.throttled(&id("b"), now, None, t), Blame::None);
        // Sent after it: the load is still too much.
        let t2 = now + Duration::from_millis(2);
        assert_eq!(pacer.throttled(&id("c"), t, None, t2), Blame::Account);
        assert!(pacer.rates().overall.unwrap() < limit);
        assert!(pacer.rates().partitions.is_empty());
    }

    #[test]
    fn rates_grow_back_and_buckets_pace_requests() {
        let start = Instant::now();
        let (mut pacer, now) = busy(&["a"], 1_000, start);
        pacer.throttled(&id("a"), now, None, now);
        let limit = pacer.rates().overall.unwrap();
        assert!((890.0..=910.0).contains(&limit), "{limit}");
        // Empty bucket: the next request waits for a token.
        let ready = pacer.ready_at(&id("a"), now).expect("must wait");
        assert!(ready > now && ready <= now + Duration::from_millis(5));
        // One second on (and committing at the rate): ten steps of 1%.
        let later = now + Duration::from_secs(1);
        for step in 0..10 {
            pacer.committed(&id("a"), 100, now + INTERVAL * step);
        }
        pacer.tick(later);
        let grown = pacer.rates().overall.unwrap();
        assert!((grown - limit * 1.1).abs() < 1.0, "{grown} after {limit}");
        pacer.spend(&id("a"), 100, later);
        assert!(
            pacer.ready_at(&id("a"), later).is_some(),
            "a request of 100 paid ahead"
        );
    }

    #[test]
    fn a_wait_asked_for_pauses_the_partition() {
        let now = Instant::now();
        let mut pacer = Pacer::default();
        pacer.throttled(&id("a"), now, Some(Duration::from_millis(300)), now);
        assert_eq!(
            pacer.ready_at(&id("a"), now),
            Some(now + Duration::from_millis(300))
        );
        let after = now + Duration::from_millis(301);
        assert!(pacer.ready_at(&id("a"), after) <= pacer.account_ready_at(after));
    }

    #[test]
    fn meters_forget_what_is_over_a_second_old() {
        let start = Instant::now();
        let mut meter = Meter::new(start);
        meter.add(500, start);
        let rate = meter.rate(start + Duration::from_millis(500));
        assert!((999.0..=1_001.0).contains(&rate), "{rate}");
        assert_eq!(meter.rate(start + Duration::from_secs(3)), 0.0);
    }
}
