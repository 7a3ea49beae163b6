//! [`RetryPolicy`]: exponential backoff with full jitter for transient failures.
//!
//! Retried: HTTP 408, 429, 500, 502, 503, 504, timeouts and connection errors. A wait the
//! service asks for replaces the computed delay (capped at `max_delay`): `x-ms-retry-after-ms`
//! or `retry-after-ms` in milliseconds, or `Retry-After` in seconds or as an HTTP date, read in
//! that order as Azure Core reads them.
//!
//! Retrying a write that may already have been applied changes what the retry meets; the
//! rules the client follows, and their limits, are documented on [`RetryPolicy`] (under
//! "Retried writes") so they appear with the type users configure.

use std::time::Duration;

use chrono::{DateTime, Utc};
use rand::RngExt;

/// How often and how patiently to retry transient failures.
///
/// # Retried writes
///
/// An attempt whose connection dropped, that timed out, or that the service answered
/// 500/502/504 may have been applied; only 408, 429 and 503 mean "not done". Retrying such a
/// write changes what the retry meets, and the client settles what it can prove:
/// - a retried **insert** can answer 409 `EntityAlreadyExists` because the first attempt
///   inserted the entity: the client re-reads it, and if the stored properties are exactly
///   those sent, the insert succeeded (the ETag read back is recorded on the entity);
///   otherwise the 409 is returned, flagged;
/// - a retried **transaction** is applied at most once (it is atomic), but if an earlier
///   attempt was applied the retry fails on the rows it wrote (409 on an insert, 412 on a
///   conditional write, 404 on a delete): the client re-reads every row the transaction
///   touched and reports success when each is in the state its operation leaves
///   ([`BatchOutcome::verified`](crate::client::BatchOutcome::verified)); otherwise the
///   error is returned, flagged;
/// - a retried **delete** (entity or table) can answer 404 because the first attempt deleted
///   it; the outcome the caller asked for (the entity is gone) is certain, so the client
///   reports success;
/// - a retried conditional **merge/replace** can answer 412 because the first attempt changed
///   the ETag; this is returned, flagged, and an optimistic-concurrency loop re-reads and
///   decides ([`Table::update_with_retry`](crate::client::Table::update_with_retry) does);
/// - upserts and reads are idempotent.
///
/// "Flagged" means [`Error::after_uncertain_attempt`](crate::Error::after_uncertain_attempt);
/// every error that ends a write which may have been applied, including a transport failure
/// or timeout, answers [`Error::may_have_been_applied`](crate::Error::may_have_been_applied)
/// with `true`.
///
/// The re-read compares content, so it has limits:
/// - It cannot tell our write from another writer's byte-identical one. If our first attempt
///   was not applied and someone else wrote exactly the same entity, the client reports our
///   write as done. Code that uses an insert for mutual exclusion (a lock row, a claim on a
///   name) must put something unique in the entity, such as an owner id, or two claimants
///   may both be told they won.
/// - If another writer changes a row between our lost answer and the re-read, our applied
///   write is not recognised and the error comes back flagged, though it was applied.
/// - Values compare as stored values: a `Double` NaN matches a stored NaN and `Int32` 1 does
///   not match `Int64` 1; the comparison is with what was sent on the wire.
///
/// ```
/// use std::time::Duration;
/// use tablekit::client::RetryPolicy;
/// let policy = RetryPolicy::default()
///     .max_attempts(5)
///     .base_delay(Duration::from_millis(100))
///     .max_delay(Duration::from_secs(5));
/// assert_eq!(policy.attempts(), 5);
/// assert!(policy.delay(3, None) <= Duration::from_secs(5));
/// assert_eq!(RetryPolicy::none().attempts(), 1);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    max_attempts: u32,
    base_delay: Duration,
    max_delay: Duration,
}

impl Default for RetryPolicy {
    /// 4 attempts, 200 ms base delay, 10 s maximum delay.
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 4,
            base_delay: Duration::from_millis(200),
            max_delay: Duration::from_secs(10),
        }
    }
}

impl RetryPolicy {
    /// Never retry.
    ///
    /// ```
    /// use tablekit::client::RetryPolicy;
    /// use tablekit_testing::{Emulator, Fault, Faults};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let busy = Faults::seeded(1).rate(Fault::ServerBusy, 1.0); // every request: 503
    /// let emulator = Emulator::builder().faults(busy).start().await?;
    /// let client = emulator
    ///     .client_builder()
    ///     .retry_policy(RetryPolicy::none()) // e.g. the caller retries on its own terms
    ///     .build()?;
    /// let err = client.create_table("Gamers").await.unwrap_err();
    /// assert!(err.is_throttled());
    /// assert_eq!(emulator.requests().total(), 1);
    /// # Ok(()) }
    /// ```
    pub fn none() -> Self {
        RetryPolicy::default().max_attempts(1)
    }

    /// The most attempts per request, the first included (at least 1).
    ///
    /// ```
    /// use tablekit::client::RetryPolicy;
    /// assert_eq!(RetryPolicy::default().max_attempts(6).attempts(), 6);
    /// assert_eq!(RetryPolicy::default().max_attempts(0).attempts(), 1); // the first always runs
    /// ```
    pub fn max_attempts(mut self, attempts: u32) -> Self {
        self.max_attempts = attempts.max(1);
        self
    }

    /// The delay before the first retry; each later retry doubles it.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tablekit::client::RetryPolicy;
    /// let policy = RetryPolicy::default().base_delay(Duration::from_millis(100));
    /// let first = policy.delay(1, None);
    /// assert!(first >= Duration::from_millis(50) && first <= Duration::from_millis(100));
    /// assert!(policy.delay(3, None) <= Duration::from_millis(400)); // doubled twice
    /// ```
    pub fn base_delay(mut self, delay: Duration) -> Self {
        self.base_delay = delay;
        self
    }

    /// The longest wait between attempts (also caps `Retry-After`).
    ///
    /// ```
    /// use std::time::Duration;
    /// use tablekit::client::RetryPolicy;
    /// let policy = RetryPolicy::default().max_delay(Duration::from_secs(2));
    /// assert!(policy.delay(10, None) <= Duration::from_secs(2));
    /// // a service asking for 60 s still waits only 2 s
    /// let asked = Some(Duration::from_secs(60));
    /// assert_eq!(policy.delay(1, asked), Duration::from_secs(2));
    /// ```
    pub fn max_delay(mut self, delay: Duration) -> Self {
        self.max_delay = delay;
        self
    }

    /// The configured number of attempts.
    ///
    /// ```
    /// use tablekit::client::RetryPolicy;
    /// assert_eq!(RetryPolicy::default().attempts(), 4); // one request and up to three retries
    /// ```
    pub fn attempts(&self) -> u32 {
        self.max_attempts
    }

    /// The wait before retry number `retry` (1 for the first retry): the service's
    /// `Retry-After` if given, else a random duration up to `base x 2^(retry-1)` ("full
    /// jitter", so many clients retrying together spread out), never above `max_delay`.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tablekit::client::RetryPolicy;
    /// let policy = RetryPolicy::default(); // 200 ms base, 10 s cap
    /// let second = policy.delay(2, None);
    /// assert!(second >= Duration::from_millis(200) && second <= Duration::from_millis(400));
    /// // the service's `Retry-After` wins
    /// let asked = Some(Duration::from_secs(3));
    /// assert_eq!(policy.delay(2, asked), Duration::from_secs(3));
    /// ```
    pub fn delay(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        if let Some(after) = retry_after {
            return after.min(self.max_delay);
        }
        let exponent = retry.saturating_sub(1).min(20);
        let ceiling = self
            .base_delay
            .saturating_mul(1u32 << exponent)
            .min(self.max_delay);
        let nanos = u64::try_from(ceiling.as_nanos()).unwrap_or(u64::MAX);
        // Half fixed, half random: a retry never fires immediately.
        let half = nanos / 2;
        Duration::from_nanos(half + rand::rng().random_range(0..=half))
    }
}

/// Whether an HTTP status is worth retrying.
pub fn is_retryable_status(status: u16) -> bool {
    matches!(status, 408 | 429 | 500 | 502 | 503 | 504)
}

/// The wait a failed answer asks for, if any: `x-ms-retry-after-ms` or `retry-after-ms`
/// (milliseconds), else `Retry-After` (delta-seconds or an HTTP date, from `now`). A date in
/// the past asks for no wait; a value that is neither is ignored.
pub(crate) fn requested_wait(
    header: impl Fn(&str) -> Option<String>,
    now: DateTime<Utc>,
) -> Option<Duration> {
    for name in ["x-ms-retry-after-ms", "retry-after-ms"] {
        if let Some(ms) = header(name).and_then(|v| v.trim().parse::<u64>().ok()) {
            return Some(Duration::from_millis(ms));
        }
    }
    parse_retry_after(&header("retry-after")?, now)
}

/// Reads a `Retry-After` value: delta-seconds, or an HTTP date (RFC 9110) relative to `now`.
pub(crate) fn parse_retry_after(value: &str, now: DateTime<Utc>) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let at = DateTime::parse_from_rfc2822(value)
        .ok()?
        .with_timezone(&Utc);
    Some((at - now).to_std().unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_grow_and_stay_capped() {
        let p = RetryPolicy::default()
            .base_delay(Duration::from_millis(100))
            .max_delay(Duration::from_millis(500));
        for _ in 0..100 {
            let d1 = p.delay(1, None);
            assert!(d1 >= Duration::from_millis(50) && d1 <= Duration::from_millis(100));
            assert!(p.delay(10, None) <= Duration::from_millis(500));
            assert!(p.delay(u32::MAX, None) <= Duration::from_millis(500));
        }
        assert_eq!(
            p.delay(1, Some(Duration::from_secs(60))),
            Duration::from_millis(500)
        );
    }

    #[test]
    fn reads_every_form_of_the_wait_asked_for() {
        let now = DateTime::parse_from_rfc2822("Sun, 22 Nov 2026 11:42:25 GMT")
            .unwrap()
            .with_timezone(&Utc);
        let wait = |headers: &[(&str, &str)]| {
            requested_wait(
                |name| {
                    headers
                        .iter()
                        .find(|(n, _)| *n == name)
                        .map(|(_, v)| (*v).to_owned())
                },
                now,
            )
        };
        assert_eq!(
            wait(&[("retry-after", " 3 ")]),
            Some(Duration::from_secs(3))
        );
        let date = "Sun, 22 Nov 2026 11:42:32 GMT";
        assert_eq!(wait(&[("retry-after", date)]), Some(Duration::from_secs(7)));
        let past = "Sun, 22 Nov 2026 11:40:00 GMT";
        assert_eq!(wait(&[("retry-after", past)]), Some(Duration::ZERO));
        assert_eq!(wait(&[("retry-after", "soon")]), None);
        assert_eq!(wait(&[]), None);
        let ms = Some(Duration::from_millis(250));
        assert_eq!(wait(&[("retry-after-ms", "250")]), ms);
        // the millisecond headers come first, as in Azure Core
        let both = [("retry-after", "9"), ("x-ms-retry-after-ms", "250")];
        assert_eq!(wait(&both), ms);
        let unreadable = [("retry-after-ms", "x"), ("retry-after", "2")];
        assert_eq!(wait(&unreadable), Some(Duration::from_secs(2)));
    }
}
