//! Optimistic concurrency: read, change, write with `If-Match`, and start over on 412.
//!
//! Two writers that read the same version of an entity must not both win: the service accepts
//! the first conditional write and answers the second with 412 Precondition Failed. The loser
//! has to read the entity again and redo its change on the new version, which is exactly what
//! seed 001's `OptimisticRetryAsync` does by hand. [`ConflictRetry`] is the policy (how many
//! attempts, how long to wait between them); a small jittered backoff keeps many contending
//! writers from retrying in lockstep.
//!
//! [`Table::update_with_retry`] is the whole cycle for one entity; [`retry_on_conflict`] runs
//! any read-modify-write closure the same way.
//!
//! A 412 can also follow a transport retry of our own write: the first attempt was applied
//! but its answer lost, so the client's retry carries a stale ETag. The loop then re-reads
//! and the fresh entity decides: the change is applied to what is stored now. For a change
//! that is not idempotent (an increment), that case applies it twice; the client does not yet
//! report whether a failed write may have been applied, which is what telling the two 412s
//! apart needs.
//!
//! ```
//! use std::time::Duration;
//! use tablekit::patterns::conflict_retry::ConflictRetry;
//! let policy = ConflictRetry::new()
//!     .max_attempts(20)?
//!     .backoff(Duration::from_millis(2), Duration::from_millis(100))?;
//! assert_eq!(policy.attempts(), 20);
//! // The n-th wait is at most base x 2^(n-1), capped, and at least half of that.
//! let wait = policy.delay(3, 0.0);
//! assert_eq!(wait, Duration::from_millis(4));
//! assert_eq!(policy.delay(30, 1.0), Duration::from_millis(100));
//! # Ok::<(), tablekit::InvalidInput>(())
//! ```

use std::future::Future;
use std::time::Duration;

use rand::Rng;

use crate::client::{ServiceError, Table};
use crate::error::{Error, Result};
use crate::limits::InvalidInput;
use crate::model::TableModel;

/// How often and how patiently to retry a write that lost an optimistic-concurrency race.
///
/// ```
/// use tablekit::patterns::conflict_retry::ConflictRetry;
/// assert_eq!(ConflictRetry::new().attempts(), 25);
/// assert!(ConflictRetry::new().max_attempts(0).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConflictRetry {
    max_attempts: u32,
    base_delay: Duration,
    max_delay: Duration,
}

impl Default for ConflictRetry {
    fn default() -> Self {
        Self::new()
    }
}

impl ConflictRetry {
    /// 25 attempts, waits from 2 ms doubling up to 200 ms (jittered): enough for dozens of
    /// writers contending on one entity, and bounded.
    pub fn new() -> Self {
        ConflictRetry {
            max_attempts: 25,
            base_delay: Duration::from_millis(2),
            max_delay: Duration::from_millis(200),
        }
    }

    /// The most attempts in all (the first try included), at least 1.
    pub fn max_attempts(mut self, attempts: u32) -> Result<Self, InvalidInput> {
        if attempts == 0 {
            return Err(InvalidInput::Other(
                "a conflict retry policy needs at least one attempt".to_owned(),
            ));
        }
        self.max_attempts = attempts;
        Ok(self)
    }

    /// The first wait and the longest wait; `base` must not exceed `max`.
    pub fn backoff(mut self, base: Duration, max: Duration) -> Result<Self, InvalidInput> {
        if base > max {
            return Err(InvalidInput::Other(format!(
                "the first retry wait ({base:?}) exceeds the longest ({max:?})"
            )));
        }
        self.base_delay = base;
        self.max_delay = max;
        Ok(self)
    }

    /// The most attempts in all.
    pub fn attempts(&self) -> u32 {
        self.max_attempts
    }

    /// The wait after failed attempt `attempt` (1-based), with `jitter` in `0.0..=1.0` picking
    /// a point between half and all of the exponential step.
    pub fn delay(&self, attempt: u32, jitter: f64) -> Duration {
        let exponent = attempt.saturating_sub(1).min(20);
        let step = self
            .base_delay
            .saturating_mul(1u32 << exponent)
            .min(self.max_delay);
        step.mul_f64(0.5 + 0.5 * jitter.clamp(0.0, 1.0))
    }

    /// Runs `attempt` until it succeeds, fails with an error `is_conflict` does not accept, or
    /// the attempts run out (then the last conflict error comes back with the count).
    /// Sleeps the jittered wait after failed attempt `attempt`.
    pub(crate) async fn pause(&self, attempt: u32) {
        let jitter: f64 = rand::thread_rng().gen();
        tokio::time::sleep(self.delay(attempt, jitter)).await;
    }

    pub(crate) async fn run<T, E, F, Fut>(
        &self,
        is_conflict: impl Fn(&E) -> bool,
        mut attempt: F,
    ) -> Result<T, Exhausted<E>>
    where
        F: FnMut(u32) -> Fut,
        Fut: Future<Output = Result<T, E>>,
    {
        let mut n = 1;
        loop {
            match attempt(n).await {
                Ok(value) => return Ok(value),
                Err(error) if is_conflict(&error) && n < self.max_attempts => {
                    self.pause(n).await;
                    n += 1;
                }
                Err(error) => {
                    return Err(Exhausted {
                        attempts: n,
                        conflict: is_conflict(&error),
                        error,
                    })
                }
            }
        }
    }
}

/// How [`ConflictRetry::run`] gave up.
#[derive(Debug)]
pub(crate) struct Exhausted<E> {
    /// Attempts made.
    pub(crate) attempts: u32,
    /// Whether the last error was still a conflict (attempts ran out) or something else.
    pub(crate) conflict: bool,
    /// The last error.
    pub(crate) error: E,
}

/// Runs a read-modify-write until it wins: `attempt` is called again (after a short jittered
/// wait) whenever it fails with 412 Precondition Failed, up to the policy's attempts; then
/// [`Error::ConflictRetriesExhausted`] carries the last 412. Other errors return at once.
///
/// `attempt` must do the whole cycle (read, change, conditional write): redoing only the
/// write would just repeat the conflict.
///
/// ```no_run
/// use tablekit::client::TableServiceClient;
/// use tablekit::patterns::conflict_retry::{retry_on_conflict, ConflictRetry};
/// use tablekit::DynamicEntity;
/// # async fn run() -> tablekit::Result<()> {
/// let client = TableServiceClient::from_connection_string("UseDevelopmentStorage=true")?;
/// let table = client.table_named::<DynamicEntity>("Counters");
/// let total = retry_on_conflict(&ConflictRetry::new(), || async {
///     let mut c = table.get("hits", "").await?.unwrap_or_else(|| DynamicEntity::new("hits", ""));
///     let n = c.get_or("N", 0i64) + 1;
///     c.set("N", n);
///     if c.etag().is_some() { table.replace(&mut c).await? } else { table.insert(&mut c).await? }
///     Ok(n)
/// })
/// .await?;
/// # Ok(()) }
/// ```
pub async fn retry_on_conflict<T, F, Fut>(policy: &ConflictRetry, mut attempt: F) -> Result<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T>>,
{
    policy
        .run(Error::is_precondition_failed, |_| attempt())
        .await
        .map_err(exhausted)
}

fn exhausted(e: Exhausted<Error>) -> Error {
    if e.conflict {
        Error::ConflictRetriesExhausted {
            attempts: e.attempts,
            source: Box::new(e.error),
        }
    } else {
        e.error
    }
}

impl<M: TableModel> Table<M> {
    /// Reads the entity `(partition_key, row_key)`, applies `change`, and replaces it with
    /// `If-Match` on the version read; on 412 (someone else wrote in between) it reads again
    /// and re-applies `change`, with the default [`ConflictRetry`] policy. Returns the entity
    /// as written, with its new ETag. A missing entity is a 404 error (`is_not_found`).
    ///
    /// `change` may run several times, each time on a fresh read: keep it free of side effects
    /// other than on the entity.
    ///
    /// ```no_run
    /// use tablekit::client::TableServiceClient;
    /// use tablekit::DynamicEntity;
    /// # async fn run() -> tablekit::Result<()> {
    /// let client = TableServiceClient::from_connection_string("UseDevelopmentStorage=true")?;
    /// let table = client.table_named::<DynamicEntity>("Counters");
    /// let counter = table
    ///     .update_with_retry(("hits", ""), |c: &mut DynamicEntity| c.set("N", c.get_or("N", 0i64) + 1))
    ///     .await?;
    /// println!("now {}", counter.get_or("N", 0i64));
    /// # Ok(()) }
    /// ```
    pub async fn update_with_retry(
        &self,
        key: (&str, &str),
        change: impl FnMut(&mut M::Entity),
    ) -> Result<M::Entity> {
        self.update_with_retry_policy(key, &ConflictRetry::new(), change)
            .await
    }

    /// [`update_with_retry`](Self::update_with_retry) with a chosen policy.
    ///
    /// ```no_run
    /// use tablekit::client::TableServiceClient;
    /// use tablekit::patterns::conflict_retry::ConflictRetry;
    /// use tablekit::DynamicEntity;
    /// # async fn run() -> tablekit::Result<()> {
    /// let client = TableServiceClient::from_connection_string("UseDevelopmentStorage=true")?;
    /// let table = client.table_named::<DynamicEntity>("Counters");
    /// let policy = ConflictRetry::new().max_attempts(100)?;
    /// table
    ///     .update_with_retry_policy(("hits", ""), &policy, |c| c.set("N", c.get_or("N", 0i64) + 1))
    ///     .await?;
    /// # Ok(()) }
    /// ```
    pub async fn update_with_retry_policy(
        &self,
        (partition_key, row_key): (&str, &str),
        policy: &ConflictRetry,
        mut change: impl FnMut(&mut M::Entity),
    ) -> Result<M::Entity> {
        let mut attempt = 1;
        loop {
            match self.update_once(partition_key, row_key, &mut change).await {
                Err(e) if e.is_precondition_failed() => {
                    if attempt >= policy.attempts() {
                        return Err(Error::ConflictRetriesExhausted {
                            attempts: attempt,
                            source: Box::new(e),
                        });
                    }
                    policy.pause(attempt).await;
                    attempt += 1;
                }
                other => return other,
            }
        }
    }

    /// One read, change, conditional replace.
    async fn update_once(
        &self,
        partition_key: &str,
        row_key: &str,
        change: &mut impl FnMut(&mut M::Entity),
    ) -> Result<M::Entity> {
        let mut entity = self
            .get(partition_key, row_key)
            .await?
            .ok_or_else(|| missing(partition_key, row_key))?;
        change(&mut entity);
        self.replace(&mut entity).await?;
        Ok(entity)
    }
}

fn missing(partition_key: &str, row_key: &str) -> Error {
    Error::Service(Box::new(ServiceError::new(
        404,
        Some("ResourceNotFound"),
        &format!("entity ({partition_key:?}, {row_key:?}) does not exist"),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};

    #[derive(Debug, PartialEq)]
    enum E {
        Conflict,
        Other,
    }

    fn quick(attempts: u32) -> ConflictRetry {
        ConflictRetry::new()
            .max_attempts(attempts)
            .unwrap()
            .backoff(Duration::ZERO, Duration::ZERO)
            .unwrap()
    }

    #[tokio::test]
    async fn retries_conflicts_until_success() {
        let calls = AtomicU32::new(0);
        let out = quick(5)
            .run(
                |e| *e == E::Conflict,
                |n| {
                    calls.fetch_add(1, Ordering::Relaxed);
                    async move {
                        if n < 3 {
                            Err(E::Conflict)
                        } else {
                            Ok(n)
                        }
                    }
                },
            )
            .await
            .unwrap();
        assert_eq!(out, 3);
        assert_eq!(calls.load(Ordering::Relaxed), 3);
    }

    #[tokio::test]
    async fn stops_after_the_last_attempt() {
        let err = quick(4)
            .run(
                |e| *e == E::Conflict,
                |_| async { Err::<(), _>(E::Conflict) },
            )
            .await
            .unwrap_err();
        assert_eq!((err.attempts, err.conflict), (4, true));
    }

    #[tokio::test]
    async fn other_errors_are_not_retried() {
        let err = quick(4)
            .run(|e| *e == E::Conflict, |_| async { Err::<(), _>(E::Other) })
            .await
            .unwrap_err();
        assert_eq!(
            (err.attempts, err.conflict, err.error),
            (1, false, E::Other)
        );
    }

    #[test]
    fn delays_grow_and_stay_capped() {
        let p = ConflictRetry::new()
            .backoff(Duration::from_millis(1), Duration::from_millis(50))
            .unwrap();
        let waits: Vec<_> = (1..=8).map(|n| p.delay(n, 1.0).as_millis()).collect();
        assert_eq!(waits, vec![1, 2, 4, 8, 16, 32, 50, 50]);
        assert_eq!(p.delay(u32::MAX, 1.0), Duration::from_millis(50));
        assert!(ConflictRetry::new().max_attempts(0).is_err());
    }
}
