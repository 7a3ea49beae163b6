//! Optimistic concurrency: read, change, write with `If-Match`, and start over on 412.
//!
//! Two writers that read the same version of an entity must not both win: the service accepts
//! the first conditional write and answers the second with 412 Precondition Failed. The loser
//! has to read the entity again and redo its change on the new version, which is exactly what
//! the `OptimisticRetryAsync` of "Jeffrey Richter's Guide to Working with Azure Storage Tables
//! via C# and other .NET Languages" does by hand. [`ConflictRetry`] is the policy (how many
//! attempts, how long to wait between them); a small jittered backoff keeps many contending
//! writers from retrying in lockstep.
//!
//! [`Table::update_with_retry`] is the whole cycle for one entity; [`retry_on_conflict`] runs
//! any read-modify-write closure the same way.
//!
//! A 412 can also follow a transport retry of our own write: the first attempt was applied
//! but its answer lost (dropped connection, timeout, 500), so the client's retry carries the
//! stale ETag and is refused. The client flags such an answer
//! ([`Error::after_uncertain_attempt`]). On a flagged 412, [`Table::update_with_retry`]
//! re-reads at once: if the stored entity holds exactly the properties it meant to write,
//! under an ETag other than the one it sent, its write was applied and it returns the stored
//! entity (with the new ETag) without running the change again; otherwise it applies the
//! change to the fresh read as for any other 412. So an increment counts once when only our
//! own retry stands between the read and the 412. This is the rule the client itself applies
//! to a retried insert that meets 409 and to a retried transaction (see
//! [`Batch::submit`](crate::client::Batch::submit)).
//!
//! With a single writer per entity this is exact. With several writers, the re-read cannot
//! tell every case apart, in both directions:
//! - Our write was applied, then another writer changed the entity before the re-read: the
//!   stored entity differs, so the change is applied again (counted twice).
//! - Our first attempt was refused (412: another writer got there first) and only that answer
//!   was lost; if the other writer wrote byte-identical properties from the same base (two
//!   increments of the same value do), the stored entity looks like ours and our change is
//!   lost (counted zero times).
//!
//! Both need another writer's write to land in the window between our first attempt and the
//! re-read, and an attempt whose answer was lost; so each wrong count is bounded by the
//! number of 412s that follow an uncertain attempt (each is logged at `debug` level with
//! `outcome = "ours"` or `outcome = "changed"`). Values compare as stored values: a `Double`
//! NaN matches a stored NaN, and `Int32` 1 does not match `Int64` 1.
//!
//! For exactness with concurrent writers, opt in to a write log
//! ([`ConflictRetry::write_log`]): each write records a random id in a binary property that
//! keeps the latest ids, and the re-read looks for our id instead of comparing content. That
//! is exact in both directions as long as fewer writes than the log keeps land between our
//! lost answer and the re-read. It is opt-in because it adds a property the model did not
//! declare.
//!
//! Users of [`retry_on_conflict`] follow the same rule: on an error with
//! `is_precondition_failed() && after_uncertain_attempt()`, re-read and compare with what was
//! written before redoing the change (see its example).
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

use rand::RngExt;

use crate::client::applied::{self, Effect};
use crate::client::error::{Error, Result};
use crate::client::{ServiceError, Table};
use crate::model::table_model::{TableEntity, TableModel};
use crate::protocol::limits::{validate_property_name, InvalidInput};
use crate::values::entity::DynamicEntity;
use crate::values::value::Value;

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
    write_log: Option<WriteLog>,
}

/// A binary property holding the ids of the latest writes, newest first, 16 bytes each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct WriteLog {
    property: &'static str,
    keep: usize,
}

/// The size of one write id in the log.
const WRITE_ID_LEN: usize = 16;

impl WriteLog {
    /// Adds a fresh write id in front of the entity's log, keeping the newest `keep`; returns
    /// the id.
    fn stamp(&self, entity: &mut DynamicEntity) -> [u8; WRITE_ID_LEN] {
        let id = uuid::Uuid::new_v4().into_bytes();
        let older = match entity.value(self.property) {
            Some(Value::Binary(bytes)) => bytes.as_slice(),
            _ => &[],
        };
        let kept = older.len().min((self.keep - 1) * WRITE_ID_LEN);
        let kept = kept - kept % WRITE_ID_LEN;
        let mut log = Vec::with_capacity(WRITE_ID_LEN + kept);
        log.extend_from_slice(&id);
        log.extend_from_slice(older.get(..kept).unwrap_or_default());
        entity.set(self.property, log);
        id
    }

    /// Whether the entity's log holds write `id`.
    fn holds(&self, entity: &DynamicEntity, id: &[u8; WRITE_ID_LEN]) -> bool {
        match entity.value(self.property) {
            Some(Value::Binary(bytes)) => bytes.chunks_exact(WRITE_ID_LEN).any(|c| c == id),
            _ => false,
        }
    }
}

impl Default for ConflictRetry {
    fn default() -> Self {
        Self::new()
    }
}

impl ConflictRetry {
    /// 25 attempts, waits from 2 ms doubling up to 200 ms (jittered): enough for dozens of
    /// writers contending on one entity, and bounded.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tablekit::patterns::conflict_retry::ConflictRetry;
    /// let policy = ConflictRetry::new();
    /// assert_eq!(policy, ConflictRetry::default());
    /// assert_eq!(policy.attempts(), 25);
    /// assert_eq!(policy.delay(1, 1.0), Duration::from_millis(2));
    /// assert_eq!(policy.delay(10, 1.0), Duration::from_millis(200));
    /// ```
    pub fn new() -> Self {
        ConflictRetry {
            max_attempts: 25,
            base_delay: Duration::from_millis(2),
            max_delay: Duration::from_millis(200),
            write_log: None,
        }
    }

    /// The most attempts in all (the first try included), at least 1.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use std::sync::atomic::{AtomicU32, Ordering};
    /// use tablekit::client::ServiceError;
    /// use tablekit::patterns::conflict_retry::{retry_on_conflict, ConflictRetry, RetriesExhausted};
    /// use tablekit::Error;
    /// let policy = ConflictRetry::new().max_attempts(3)?;
    /// let tries = AtomicU32::new(0);
    /// let lost = || Error::Service(Box::new(ServiceError::new(412, None, "lost the race")));
    /// let err = retry_on_conflict(&policy, || async {
    ///     tries.fetch_add(1, Ordering::Relaxed);
    ///     Err::<(), _>(lost())
    /// })
    /// .await
    /// .unwrap_err();
    /// assert_eq!(tries.load(Ordering::Relaxed), 3);
    /// assert_eq!(err.pattern_error::<RetriesExhausted>().map(|e| e.attempts), Some(3));
    /// assert!(ConflictRetry::new().max_attempts(0).is_err());
    /// # Ok(()) }
    /// ```
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
    ///
    /// ```
    /// use std::time::Duration;
    /// use tablekit::patterns::conflict_retry::ConflictRetry;
    /// let ms = Duration::from_millis;
    /// let policy = ConflictRetry::new().backoff(ms(10), ms(50))?;
    /// assert_eq!(policy.delay(1, 1.0), ms(10));
    /// assert_eq!(policy.delay(4, 1.0), ms(50)); // 80 ms, capped
    /// assert!(ConflictRetry::new().backoff(ms(50), ms(10)).is_err());
    /// # Ok::<(), tablekit::InvalidInput>(())
    /// ```
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

    /// Makes [`Table::update_with_retry_policy`] exact with concurrent writers: every write
    /// also records a random 16-byte write id at the front of the binary property `property`,
    /// which keeps the newest `keep` ids (1 to 4096; older ids drop off the end, by design).
    /// After a 412 that follows a possibly applied attempt, the re-read looks for this
    /// write's id instead of comparing content: the id is there exactly when the write was
    /// applied, unless `keep` other writes landed since (pick `keep` above the writes one
    /// entity takes in a few retry delays; 32 ids cost 512 bytes). Every writer of the
    /// entity should use the same log, or a write without it erases the log.
    ///
    /// ```
    /// use tablekit::patterns::conflict_retry::ConflictRetry;
    /// let policy = ConflictRetry::new().write_log("WriteLog", 32)?;
    /// assert!(ConflictRetry::new().write_log("WriteLog", 0).is_err());
    /// assert!(ConflictRetry::new().write_log("Bad Name", 8).is_err());
    /// # Ok::<(), tablekit::InvalidInput>(())
    /// ```
    pub fn write_log(mut self, property: &'static str, keep: usize) -> Result<Self, InvalidInput> {
        validate_property_name(property)?;
        if !(1..=4096).contains(&keep) {
            return Err(InvalidInput::Other(format!(
                "a write log keeps 1 to 4096 write ids, not {keep}"
            )));
        }
        self.write_log = Some(WriteLog { property, keep });
        Ok(self)
    }

    /// The most attempts in all.
    ///
    /// ```
    /// use tablekit::patterns::conflict_retry::ConflictRetry;
    /// assert_eq!(ConflictRetry::new().max_attempts(7)?.attempts(), 7);
    /// # Ok::<(), tablekit::InvalidInput>(())
    /// ```
    pub fn attempts(&self) -> u32 {
        self.max_attempts
    }

    /// The wait after failed attempt `attempt` (1-based), with `jitter` in `0.0..=1.0` picking
    /// a point between half and all of the exponential step.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tablekit::patterns::conflict_retry::ConflictRetry;
    /// let ms = Duration::from_millis;
    /// let policy = ConflictRetry::new().backoff(ms(8), ms(1000))?;
    /// // After the third failure the step is 8 ms x 2^2 = 32 ms: the wait is 16 to 32 ms.
    /// assert_eq!(policy.delay(3, 0.0), ms(16));
    /// assert_eq!(policy.delay(3, 1.0), ms(32));
    /// assert_eq!(policy.delay(3, 5.0), ms(32)); // jitter is clamped to 0.0..=1.0
    /// # Ok::<(), tablekit::InvalidInput>(())
    /// ```
    pub fn delay(&self, attempt: u32, jitter: f64) -> Duration {
        let exponent = attempt.saturating_sub(1).min(20);
        let step = self
            .base_delay
            .saturating_mul(1u32 << exponent)
            .min(self.max_delay);
        step.mul_f64(0.5 + 0.5 * jitter.clamp(0.0, 1.0))
    }

    /// Sleeps the jittered wait after failed attempt `attempt`.
    pub(crate) async fn pause(&self, attempt: u32) {
        let jitter: f64 = rand::rng().random();
        tokio::time::sleep(self.delay(attempt, jitter)).await;
    }

    /// Runs `attempt` until it succeeds, fails with an error `is_conflict` does not accept, or
    /// the attempts run out (then the last conflict error comes back with the count).
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
/// wait) whenever it fails with 412 Precondition Failed, up to the policy's attempts; then a
/// [`RetriesExhausted`] carries the last 412 (in [`Error::Pattern`]: the error's predicates
/// answer for that 412). Other errors return at once.
///
/// `attempt` must do the whole cycle (read, change, conditional write): redoing only the
/// write would just repeat the conflict.
///
/// A 412 for which [`Error::after_uncertain_attempt`] is true may be the echo of this
/// attempt's own write (applied, answer lost, retried by the client with the old ETag). For a
/// change that is not idempotent, handle it inside `attempt` as
/// [`Table::update_with_retry`] does: re-read, and if the entity holds exactly what was
/// written, count the write as done instead of returning the 412 (the module docs list what
/// that comparison cannot tell apart).
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let emulator = tablekit_testing::Emulator::start().await?;
/// use futures::future::try_join_all;
/// use tablekit::patterns::conflict_retry::{retry_on_conflict, ConflictRetry};
/// use tablekit::DynamicEntity;
/// # let client = emulator.client();
/// let table = client.table_named::<DynamicEntity>("Counters");
/// table.create().await?;
/// table.insert(&mut DynamicEntity::new("hits", "")).await?;
/// let policy = ConflictRetry::new();
/// let increment = || {
///     retry_on_conflict(&policy, || async {
///         let mut c = table.get("hits", "").await?.expect("the counter exists");
///         let n = c.get_or("N", 0i64) + 1;
///         c.set("N", n);
///         table.replace(&mut c).await?; // `If-Match` on the version read: 412 if it changed
///         Ok(n)
///     })
/// };
/// // Four writers at once: whoever loses a race reads again and redoes its increment.
/// let mut totals = try_join_all((0..4).map(|_| increment())).await?;
/// totals.sort();
/// assert_eq!(totals, [1, 2, 3, 4]); // each writer saw a different count
/// assert_eq!(table.get("hits", "").await?.unwrap().get_or("N", 0i64), 4);
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
        RetriesExhausted {
            attempts: e.attempts,
            source: e.error,
        }
        .into()
    } else {
        e.error
    }
}

/// An optimistic-concurrency update that still lost to other writers (412) after every
/// attempt its [`ConflictRetry`] allowed. It converts into [`Error::Pattern`], whose
/// predicates answer for the last 412 (`is_precondition_failed`, `may_have_been_applied`,
/// ...); [`Error::pattern_error`] gives it back.
///
/// ```
/// use tablekit::client::ServiceError;
/// use tablekit::patterns::conflict_retry::RetriesExhausted;
/// use tablekit::Error;
/// let last = Error::Service(Box::new(ServiceError::new(412, None, "lost the race")));
/// let err: Error = RetriesExhausted { attempts: 3, source: last }.into();
/// assert_eq!(err.pattern_error::<RetriesExhausted>().map(|e| e.attempts), Some(3));
/// assert!(err.is_precondition_failed() && !err.is_transient());
/// assert_eq!(err.to_string(), "still conflicting after 3 attempts: 412: lost the race");
/// ```
#[derive(Debug, thiserror::Error)]
#[error("still conflicting after {attempts} attempts: {source}")]
pub struct RetriesExhausted {
    /// Attempts made.
    pub attempts: u32,
    /// The last 412.
    pub source: Error,
}

impl From<RetriesExhausted> for Error {
    fn from(exhausted: RetriesExhausted) -> Self {
        Error::Pattern(Box::new(exhausted))
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
    /// A 412 that follows a possibly applied attempt of our own write (see
    /// [`Error::after_uncertain_attempt`]) is decided by a re-read: if the entity holds exactly
    /// the properties we wrote, our write counts as done and the stored entity is returned;
    /// otherwise the change is applied to the fresh read. See the module docs for the cases
    /// concurrent writers make ambiguous.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// use tablekit::DynamicEntity;
    /// # let client = emulator.client();
    /// let table = client.table_named::<DynamicEntity>("Counters");
    /// table.create().await?;
    /// table.insert(&mut DynamicEntity::new("hits", "")).await?;
    /// let add_one = |c: &mut DynamicEntity| c.set("N", c.get_or("N", 0i64) + 1);
    /// let counter = table.update_with_retry(("hits", ""), add_one).await?;
    /// assert_eq!(counter.get_or("N", 0i64), 1);
    /// let stored = table.get("hits", "").await?.unwrap();
    /// assert_eq!(counter.etag(), stored.etag()); // the version written
    /// // Two updates from the same version: the one that gets 412 reads again and re-applies.
    /// futures::try_join!(
    ///     table.update_with_retry(("hits", ""), add_one),
    ///     table.update_with_retry(("hits", ""), add_one),
    /// )?;
    /// assert_eq!(table.get("hits", "").await?.unwrap().get_or("N", 0i64), 3);
    /// let missing = table.update_with_retry(("misses", ""), add_one).await;
    /// assert!(missing.unwrap_err().is_not_found());
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
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// use futures::future::try_join_all;
    /// use tablekit::patterns::conflict_retry::ConflictRetry;
    /// use tablekit::DynamicEntity;
    /// # let client = emulator.client();
    /// let table = client.table_named::<DynamicEntity>("Counters");
    /// table.create().await?;
    /// table.insert(&mut DynamicEntity::new("hits", "")).await?;
    /// // Many writers on one entity: allow more attempts than the default 25.
    /// let policy = ConflictRetry::new().max_attempts(100)?;
    /// let updates = (0..10).map(|_| {
    ///     table.update_with_retry_policy(("hits", ""), &policy, |c| {
    ///         c.set("N", c.get_or("N", 0i64) + 1)
    ///     })
    /// });
    /// try_join_all(updates).await?;
    /// assert_eq!(table.get("hits", "").await?.unwrap().get_or("N", 0i64), 10);
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
            let mut entity = self
                .get(partition_key, row_key)
                .await?
                .ok_or_else(|| missing(partition_key, row_key))?;
            change(&mut entity);
            let write_id = policy
                .write_log
                .map(|log| (log, log.stamp(entity.as_dynamic_mut())));
            let error = match self.replace(&mut entity).await {
                Ok(()) => return Ok(entity),
                Err(e) if e.is_precondition_failed() => e,
                Err(e) => return Err(e),
            };
            if error.after_uncertain_attempt() {
                let stored = match write_id {
                    Some((log, id)) => self.logged(&entity, log, &id).await?,
                    None => self.written_by_us(&entity).await?,
                };
                if let Some(stored) = stored {
                    tracing::debug!(outcome = "ours", "412 after a possibly applied attempt");
                    return Ok(stored);
                }
                tracing::debug!(outcome = "changed", "412 after a possibly applied attempt");
            }
            if attempt >= policy.attempts() {
                return Err(RetriesExhausted {
                    attempts: attempt,
                    source: error,
                }
                .into());
            }
            policy.pause(attempt).await;
            attempt += 1;
        }
    }

    /// Re-reads `intended`'s entity: `Some(stored)` when its write log holds write `id`
    /// (the write was applied; later writes may have followed it).
    async fn logged(
        &self,
        intended: &M::Entity,
        log: WriteLog,
        id: &[u8; WRITE_ID_LEN],
    ) -> Result<Option<M::Entity>> {
        let intended = intended.as_dynamic();
        let stored = self
            .get(intended.partition_key(), intended.row_key())
            .await?;
        Ok(stored.filter(|s| log.holds(s.as_dynamic(), id)))
    }

    /// Re-reads `intended`'s entity: `Some(stored)` when it is as our replace leaves it
    /// (exactly `intended`'s properties, an ETag other than the one sent), i.e. the write
    /// whose answer was lost was applied and nothing changed since.
    async fn written_by_us(&self, intended: &M::Entity) -> Result<Option<M::Entity>> {
        let intended = intended.as_dynamic();
        let stored = self
            .get(intended.partition_key(), intended.row_key())
            .await?;
        let ours = Effect::Exactly(intended.clone());
        Ok(stored.filter(|s| applied::holds(&ours, intended.etag(), Some(s.as_dynamic()))))
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
    fn the_write_log_keeps_the_newest_ids() {
        let log = WriteLog {
            property: "Log",
            keep: 3,
        };
        let mut e = DynamicEntity::new("p", "r");
        let ids: Vec<_> = (0..5).map(|_| log.stamp(&mut e)).collect();
        let stored = e.get::<Vec<u8>>("Log").unwrap();
        assert_eq!(stored.len(), 3 * WRITE_ID_LEN);
        assert_eq!(stored.get(..WRITE_ID_LEN), Some(&ids[4][..]));
        assert!(ids[2..].iter().all(|id| log.holds(&e, id)));
        assert!(ids[..2].iter().all(|id| !log.holds(&e, id)));
        // A log the user's data damaged is replaced, never a panic.
        e.set("Log", vec![1u8; 7]);
        let id = log.stamp(&mut e);
        assert!(log.holds(&e, &id));
        e.set("Log", "not binary");
        assert!(!log.holds(&e, &id));
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
