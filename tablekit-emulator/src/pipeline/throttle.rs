//! [`Throttle`]: the service's scalability targets, enforced. Azure Table storage serves
//! about 2,000 entities a second per partition and 20,000 per account ("Scalability and
//! performance targets for Table storage"), and refuses what goes past them with 503 Server
//! Busy; the Cosmos DB Table API refuses with 429 and says when to come back in
//! `x-ms-retry-after-ms`. An emulator that does the same lets a test prove that a loader
//! backs off, and that a hot partition slows only itself.
//!
//! Each partition and each account has a token bucket that refills at its rate and holds a
//! burst's worth. A request is admitted while both buckets hold a token and then pays for the
//! entities it touched, even past zero: so a 100-entity transaction is never refused for
//! being large, and the rate over time is the target.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use http::StatusCode;
use tablekit::limits::Flavor;

use crate::format::error_response::ErrorResponse;

/// The rates an emulator serves at most, opt-in with
/// [`EmulatorBuilder::throttle`](crate::EmulatorBuilder::throttle).
///
/// ```
/// use tablekit_emulator::Throttle;
/// let azure = Throttle::azure();
/// assert_eq!(azure.partition_rate, 2_000);
/// assert_eq!(azure.account_rate, 20_000);
/// let slow = Throttle::azure().with_partition_rate(100);
/// assert_eq!(slow.partition_rate, 100);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Throttle {
    /// Entities a second one partition serves.
    pub partition_rate: u32,
    /// Entities a second one account serves, over all its tables.
    pub account_rate: u32,
    /// How much a bucket holds: the entities of this long at its rate may come at once.
    pub burst: Duration,
}

impl Throttle {
    /// Azure's targets: 2,000 entities/s per partition, 20,000 per account, one second of
    /// burst.
    pub fn azure() -> Self {
        Throttle {
            partition_rate: 2_000,
            account_rate: 20_000,
            burst: Duration::from_secs(1),
        }
    }

    /// The same, with `per_second` entities per partition (at least 1).
    pub fn with_partition_rate(mut self, per_second: u32) -> Self {
        self.partition_rate = per_second.max(1);
        self
    }

    /// The same, with `per_second` entities per account (at least 1).
    pub fn with_account_rate(mut self, per_second: u32) -> Self {
        self.account_rate = per_second.max(1);
        self
    }

    /// The same, with buckets holding `burst` worth of entities (at least 1 ms).
    pub fn with_burst(mut self, burst: Duration) -> Self {
        self.burst = burst.max(Duration::from_millis(1));
        self
    }
}

impl Default for Throttle {
    fn default() -> Self {
        Throttle::azure()
    }
}

/// What a throttled emulator has refused: requests per partition and in total.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use tablekit::DynamicEntity;
/// use tablekit_emulator::{Emulator, Throttle};
/// let throttle = Throttle::azure().with_partition_rate(1).with_burst(std::time::Duration::from_secs(1));
/// let emulator = Emulator::builder().throttle(throttle).start().await?;
/// let client = emulator.client_builder().retry_policy(tablekit::client::RetryPolicy::none()).build()?;
/// client.create_table("Hot").await?;
/// let hot = client.table_named::<DynamicEntity>("Hot");
/// hot.upsert_merge(&mut DynamicEntity::new("p", "1")).await?; // the bucket's one token
/// assert!(hot.upsert_merge(&mut DynamicEntity::new("p", "2")).await.is_err()); // 503
/// let throttled = emulator.throttled();
/// assert_eq!(throttled.total(), 1);
/// assert_eq!(throttled.partition("Hot", "p"), 1);
/// # Ok(()) }
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ThrottledCounts {
    total: u64,
    /// By (table as named, PartitionKey); a query across partitions counts under `None`.
    by_partition: HashMap<(String, Option<String>), u64>,
}

impl ThrottledCounts {
    /// Every refused request.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Refused requests addressed to one partition of `table`.
    pub fn partition(&self, table: &str, partition_key: &str) -> u64 {
        let key = (table.to_owned(), Some(partition_key.to_owned()));
        self.by_partition.get(&key).copied().unwrap_or(0)
    }

    /// Every partition with refused requests, and how many (`None`: queries not bound to one
    /// partition).
    pub fn partitions(&self) -> impl Iterator<Item = (&str, Option<&str>, u64)> {
        self.by_partition
            .iter()
            .map(|((table, pk), n)| (table.as_str(), pk.as_deref(), *n))
    }
}

/// A refill-at-a-rate bucket of entities; it may go below zero (see the module docs).
#[derive(Debug)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

impl Bucket {
    fn full(capacity: f64, now: Instant) -> Self {
        Bucket {
            tokens: capacity,
            at: now,
        }
    }

    fn refill(&mut self, rate: f64, capacity: f64, now: Instant) {
        let elapsed = now.saturating_duration_since(self.at).as_secs_f64();
        self.tokens = (self.tokens + elapsed * rate).min(capacity);
        self.at = now;
    }

    /// How long until it holds a token again.
    fn wait(&self, rate: f64) -> Duration {
        Duration::from_secs_f64(((1.0 - self.tokens) / rate).max(0.001))
    }
}

/// Partition buckets beyond this many are pruned of the full ones (which hold no state a
/// fresh bucket would not), so a scan over millions of partitions cannot grow memory.
const MAX_BUCKETS: usize = 65_536;
/// Distinct partitions whose refusals are counted one by one; more are counted in the total.
const MAX_COUNTED_PARTITIONS: usize = 65_536;

/// The buckets and counts of one throttled emulator.
#[derive(Debug)]
pub(crate) struct ActiveThrottle {
    throttle: Throttle,
    flavor: Flavor,
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    accounts: HashMap<String, Bucket>,
    /// By (account, table in lower case, PartitionKey).
    partitions: HashMap<(String, String, String), Bucket>,
    refused: ThrottledCounts,
}

/// The partition a request addresses: its table and, when it is bound to one, PartitionKey.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Target<'a> {
    pub(crate) account: &'a str,
    pub(crate) table: &'a str,
    pub(crate) partition_key: Option<&'a str>,
}

impl ActiveThrottle {
    pub(crate) fn new(throttle: Throttle, flavor: Flavor) -> Self {
        ActiveThrottle {
            throttle,
            flavor,
            inner: Mutex::default(),
        }
    }

    /// Admits a request to `target` that will touch `entities` entities (pass 0 when only
    /// the answer will tell, and [`charge`](Self::charge) then), or refuses it as the service
    /// does.
    pub(crate) fn admit(&self, target: Target<'_>, entities: u64) -> Result<(), ErrorResponse> {
        let now = Instant::now();
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let wait = self.refill(&mut inner, target, now);
        if let Some(wait) = wait {
            inner.count_refusal(target);
            return Err(self.refusal(wait));
        }
        self.pay(&mut inner, target, entities);
        Ok(())
    }

    /// Pays for `entities` more entities of an admitted request.
    pub(crate) fn charge(&self, target: Target<'_>, entities: u64) {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        self.pay(&mut inner, target, entities);
    }

    /// What was refused so far.
    pub(crate) fn refused(&self) -> ThrottledCounts {
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.refused.clone()
    }

    /// Forgets every refusal (the buckets stay as they are).
    pub(crate) fn reset(&self) {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.refused = ThrottledCounts::default();
    }

    fn capacity(&self, rate: u32) -> f64 {
        (f64::from(rate) * self.throttle.burst.as_secs_f64()).max(1.0)
    }

    /// Refills the target's buckets; how long to wait when either is empty.
    fn refill(&self, inner: &mut Inner, target: Target<'_>, now: Instant) -> Option<Duration> {
        let (rate, cap) = self.account_limits();
        let account = inner
            .accounts
            .entry(target.account.to_owned())
            .or_insert_with(|| Bucket::full(cap, now));
        account.refill(rate, cap, now);
        let mut wait = (account.tokens < 1.0).then(|| account.wait(rate));
        if let Some(pk) = target.partition_key {
            let (rate, cap) = self.partition_limits();
            if inner.partitions.len() >= MAX_BUCKETS {
                inner.prune(rate, cap, now);
            }
            let bucket = inner
                .partitions
                .entry(partition_key(target, pk))
                .or_insert_with(|| Bucket::full(cap, now));
            bucket.refill(rate, cap, now);
            if bucket.tokens < 1.0 {
                wait = Some(wait.unwrap_or_default().max(bucket.wait(rate)));
            }
        }
        wait
    }

    fn pay(&self, inner: &mut Inner, target: Target<'_>, entities: u64) {
        let entities = entities as f64;
        if let Some(bucket) = inner.accounts.get_mut(target.account) {
            bucket.tokens -= entities;
        }
        if let Some(pk) = target.partition_key {
            if let Some(bucket) = inner.partitions.get_mut(&partition_key(target, pk)) {
                bucket.tokens -= entities;
            }
        }
    }

    fn account_limits(&self) -> (f64, f64) {
        let rate = self.throttle.account_rate;
        (f64::from(rate), self.capacity(rate))
    }

    fn partition_limits(&self) -> (f64, f64) {
        let rate = self.throttle.partition_rate;
        (f64::from(rate), self.capacity(rate))
    }

    /// The service's answer: 503 ServerBusy on Azure, 429 with the wait on Cosmos DB.
    fn refusal(&self, wait: Duration) -> ErrorResponse {
        match self.flavor {
            Flavor::Cosmos => ErrorResponse::new(
                StatusCode::TOO_MANY_REQUESTS,
                "TooManyRequests",
                "The request rate is too large. Please retry after sometime.",
            )
            .retry_after(wait),
            _ => ErrorResponse::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "ServerBusy",
                "The server is busy.",
            ),
        }
    }
}

impl Inner {
    fn count_refusal(&mut self, target: Target<'_>) {
        self.refused.total += 1;
        let key = (
            target.table.to_owned(),
            target.partition_key.map(str::to_owned),
        );
        let counted = &mut self.refused.by_partition;
        if counted.len() < MAX_COUNTED_PARTITIONS || counted.contains_key(&key) {
            *counted.entry(key).or_default() += 1;
        }
    }

    /// Drops the buckets that have refilled: a fresh one would be the same.
    fn prune(&mut self, rate: f64, capacity: f64, now: Instant) {
        self.partitions.retain(|_, bucket| {
            bucket.refill(rate, capacity, now);
            bucket.tokens < capacity
        });
    }
}

fn partition_key(target: Target<'_>, pk: &str) -> (String, String, String) {
    (
        target.account.to_owned(),
        target.table.to_ascii_lowercase(),
        pk.to_owned(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target<'a>(pk: Option<&'a str>) -> Target<'a> {
        Target {
            account: "a",
            table: "T",
            partition_key: pk,
        }
    }

    #[test]
    fn a_partition_is_refused_once_its_burst_is_spent() {
        let throttle =
            ActiveThrottle::new(Throttle::azure().with_partition_rate(10), Flavor::Storage);
        // One second of burst: 10 entities, then a refusal.
        for _ in 0..10 {
            throttle.admit(target(Some("p")), 1).expect("admitted");
        }
        let refused = throttle.admit(target(Some("p")), 1).unwrap_err();
        assert_eq!(refused.status, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(refused.code, "ServerBusy");
        // Another partition is not slowed.
        throttle
            .admit(target(Some("q")), 1)
            .expect("a cold partition");
        assert_eq!(throttle.refused().partition("T", "p"), 1);
        assert_eq!(throttle.refused().partition("T", "q"), 0);
    }

    #[test]
    fn a_large_transaction_is_admitted_and_paid_for_after() {
        let throttle =
            ActiveThrottle::new(Throttle::azure().with_partition_rate(10), Flavor::Storage);
        throttle
            .admit(target(Some("p")), 100)
            .expect("admitted with tokens left");
        assert!(throttle.admit(target(Some("p")), 1).is_err());
    }

    #[test]
    fn cosmos_answers_429_with_the_wait() {
        let throttle = ActiveThrottle::new(Throttle::azure().with_account_rate(1), Flavor::Cosmos);
        throttle.admit(target(None), 1).expect("the one token");
        let refused = throttle.admit(target(None), 1).unwrap_err();
        assert_eq!(refused.status, StatusCode::TOO_MANY_REQUESTS);
        let wait = refused.retry_after.expect("a wait");
        assert!(
            wait > Duration::ZERO && wait <= Duration::from_secs(1),
            "{wait:?}"
        );
        assert_eq!(throttle.refused().total(), 1);
    }

    #[test]
    fn the_buckets_refill_at_the_rate() {
        let throttle = ActiveThrottle::new(
            Throttle::azure()
                .with_partition_rate(1_000)
                .with_burst(Duration::from_millis(10)),
            Flavor::Storage,
        );
        throttle.admit(target(Some("p")), 10).expect("the burst");
        assert!(throttle.admit(target(Some("p")), 1).is_err());
        std::thread::sleep(Duration::from_millis(20));
        throttle.admit(target(Some("p")), 1).expect("refilled");
    }
}
