//! Fault injection for reliability tests, deterministic by seed: a fraction of requests fail
//! with 500 or 503, hang until the client times out, lose their connection, or are applied
//! and then lose their response (the case that makes retried writes dangerous).
//!
//! Every request draws one number from a generator seeded by [`Faults::seeded`], in arrival
//! order; the same seed and the same request sequence give the same faults.

use std::sync::Mutex;
use std::time::Duration;

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use crate::pipeline::counter::Operation;

/// What happens to one request.
///
/// The `Applied*` faults are the dangerous ones: the client sees a failure, but the write
/// happened, so a blind retry may apply it twice.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use tablekit::client::RetryPolicy;
/// use tablekit_emulator::{Emulator, Fault, Faults};
/// let emulator = Emulator::builder()
///     .faults(Faults::seeded(1).rate(Fault::AppliedThenInternalError, 1.0))
///     .start()
///     .await?;
/// let client = emulator
///     .client_builder()
///     .retry_policy(RetryPolicy::none())
///     .build()?;
/// let err = client.create_table("Gamers").await.unwrap_err();
/// assert_eq!(err.status(), Some(500));
/// assert_eq!(emulator.table_names(), ["Gamers"]); // created all the same
/// # Ok(()) }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Fault {
    /// 500 InternalError, nothing applied.
    InternalError,
    /// 503 ServerBusy, nothing applied.
    ServerBusy,
    /// 503 ServerBusy asking the client to wait before it retries, nothing applied.
    ServerBusyAsking(RetryAfter),
    /// No answer until the hold time passes, then the connection closes; nothing applied.
    Timeout,
    /// The connection closes without an answer; nothing applied.
    DropConnection,
    /// Applied, then the connection closes without an answer.
    AppliedThenDropped,
    /// Applied, then answered with 500 as if it had failed.
    AppliedThenInternalError,
}

/// How a [`Fault::ServerBusyAsking`] answer asks the client to wait: each header form Azure
/// services and Azure Core use.
///
/// ```
/// use tablekit::client::RetryPolicy;
/// use tablekit_emulator::{Emulator, Fault, Faults, RetryAfter};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let asking = Fault::ServerBusyAsking(RetryAfter::Milliseconds(20));
/// let once = Faults::seeded(1).rate(asking, 1.0).at_most(1);
/// let emulator = Emulator::builder().faults(once).start().await?;
/// let client = emulator.client_builder().retry_policy(RetryPolicy::default()).build()?;
/// assert!(!client.table_exists("Gamers").await?); // waited 20 ms, then the retry answered
/// assert_eq!(emulator.requests().total(), 2);
/// # Ok(()) }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RetryAfter {
    /// `Retry-After: <seconds>`.
    Seconds(u64),
    /// `Retry-After: <HTTP date>`, this many seconds after the answer.
    HttpDate(u64),
    /// `x-ms-retry-after-ms: <milliseconds>`.
    XMsMilliseconds(u64),
    /// `retry-after-ms: <milliseconds>`.
    Milliseconds(u64),
}

impl RetryAfter {
    /// The header and its value, as answered now.
    pub(crate) fn header(self) -> (&'static str, String) {
        match self {
            RetryAfter::Seconds(s) => ("retry-after", s.to_string()),
            RetryAfter::HttpDate(s) => {
                let seconds = i64::try_from(s).unwrap_or(i64::MAX);
                let at = chrono::Utc::now()
                    + chrono::TimeDelta::try_seconds(seconds).unwrap_or_default();
                ("retry-after", tablekit::auth::http_date(at))
            }
            RetryAfter::XMsMilliseconds(ms) => ("x-ms-retry-after-ms", ms.to_string()),
            RetryAfter::Milliseconds(ms) => ("retry-after-ms", ms.to_string()),
        }
    }
}

/// A fault-injection plan: rates per fault, the seed, added latency, which operations.
///
/// ```
/// use std::time::Duration;
/// use tablekit_emulator::{Fault, Faults, Operation};
/// let faults = Faults::seeded(7)
///     .rate(Fault::ServerBusy, 0.1)
///     .rate(Fault::AppliedThenDropped, 0.05)
///     .latency(Duration::from_millis(2))
///     .only(&[Operation::Insert, Operation::Batch]);
/// assert_eq!(faults.seed(), 7);
/// ```
#[derive(Clone, Debug)]
pub struct Faults {
    seed: u64,
    rates: Vec<(Fault, f64)>,
    latency: Duration,
    hold: Duration,
    only: Option<Vec<Operation>>,
    at_most: Option<u64>,
}

impl Faults {
    /// No faults yet, drawing from a generator seeded with `seed`.
    ///
    /// The same seed fails the same requests, so a failing run can be replayed (the client
    /// here does not retry):
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use tablekit_emulator::{Emulator, Fault, Faults};
    /// let emulator = Emulator::start().await?;
    /// # let no_retries = tablekit::client::RetryPolicy::none();
    /// # let client = emulator.client_builder().retry_policy(no_retries).build()?;
    /// let mut runs = Vec::new();
    /// for _ in 0..2 {
    ///     emulator.set_faults(Some(Faults::seeded(7).rate(Fault::ServerBusy, 0.5)));
    ///     let mut run = Vec::new();
    ///     for _ in 0..10 {
    ///         run.push(client.table_exists("Gamers").await.is_ok());
    ///     }
    ///     runs.push(run);
    /// }
    /// assert_eq!(runs[0], runs[1]);
    /// assert!(runs[0].contains(&true) && runs[0].contains(&false));
    /// # Ok(()) }
    /// ```
    pub fn seeded(seed: u64) -> Self {
        Faults {
            seed,
            rates: Vec::new(),
            latency: Duration::ZERO,
            hold: Duration::from_secs(10),
            only: None,
            at_most: None,
        }
    }

    /// Makes `fault` happen to this fraction of requests (0.0 to 1.0; rates add up in the
    /// order given and are capped at 1).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use tablekit_emulator::{Emulator, Fault, Faults};
    /// let emulator = Emulator::builder()
    ///     .faults(Faults::seeded(3).rate(Fault::ServerBusy, 0.25))
    ///     .start()
    ///     .await?;
    /// # let no_retries = tablekit::client::RetryPolicy::none();
    /// # let client = emulator.client_builder().retry_policy(no_retries).build()?;
    /// let mut failed = 0;
    /// for _ in 0..100 {
    ///     if let Err(err) = client.table_exists("Gamers").await {
    ///         assert_eq!(err.status(), Some(503));
    ///         failed += 1;
    ///     }
    /// }
    /// assert!((10..=40).contains(&failed), "about a quarter failed: {failed}");
    /// # Ok(()) }
    /// ```
    pub fn rate(mut self, fault: Fault, fraction: f64) -> Self {
        self.rates.retain(|(f, _)| *f != fault);
        self.rates.push((fault, fraction.clamp(0.0, 1.0)));
        self
    }

    /// Adds this delay before every request is handled.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use std::time::{Duration, Instant};
    /// use tablekit_emulator::{Emulator, Faults};
    /// let emulator = Emulator::builder()
    ///     .faults(Faults::seeded(0).latency(Duration::from_millis(50)))
    ///     .start()
    ///     .await?;
    /// # let no_retries = tablekit::client::RetryPolicy::none();
    /// # let client = emulator.client_builder().retry_policy(no_retries).build()?;
    /// let started = Instant::now();
    /// assert!(!client.table_exists("Gamers").await?);
    /// assert!(started.elapsed() >= Duration::from_millis(50));
    /// # Ok(()) }
    /// ```
    pub fn latency(mut self, latency: Duration) -> Self {
        self.latency = latency;
        self
    }

    /// How long a [`Fault::Timeout`] holds the request before closing (10 s by default).
    ///
    /// A hold shorter than the client's timeout makes the request fail as a lost connection
    /// when the hold ends:
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use std::time::{Duration, Instant};
    /// use tablekit_emulator::{Emulator, Fault, Faults};
    /// let faults = Faults::seeded(0)
    ///     .rate(Fault::Timeout, 1.0)
    ///     .hold(Duration::from_millis(100));
    /// let emulator = Emulator::builder().faults(faults).start().await?;
    /// # let no_retries = tablekit::client::RetryPolicy::none();
    /// # let client = emulator.client_builder().retry_policy(no_retries).build()?;
    /// let started = Instant::now();
    /// let err = client.table_exists("Gamers").await.unwrap_err();
    /// assert!(err.is_transient());
    /// assert!(started.elapsed() >= Duration::from_millis(100));
    /// # Ok(()) }
    /// ```
    pub fn hold(mut self, hold: Duration) -> Self {
        self.hold = hold;
        self
    }

    /// Injects faults only into these operations (latency still applies to all).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use tablekit::DynamicEntity;
    /// use tablekit_emulator::{Emulator, Fault, Faults, Operation};
    /// let emulator = Emulator::builder()
    ///     .faults(Faults::seeded(0).rate(Fault::ServerBusy, 1.0).only(&[Operation::Insert]))
    ///     .start()
    ///     .await?;
    /// # let no_retries = tablekit::client::RetryPolicy::none();
    /// # let client = emulator.client_builder().retry_policy(no_retries).build()?;
    /// let table = client.table_named::<DynamicEntity>("Gamers");
    /// table.create().await?; // not an insert: no fault
    /// let err = table.insert(&mut DynamicEntity::new("dragon", "")).await.unwrap_err();
    /// assert!(err.is_throttled());
    /// # Ok(()) }
    /// ```
    pub fn only(mut self, operations: &[Operation]) -> Self {
        self.only = Some(operations.to_vec());
        self
    }

    /// Injects no more than `count` faults in all, then lets every request through: e.g. the
    /// first transaction loses its answer and the client's retry does not.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use tablekit_emulator::{Emulator, Fault, Faults};
    /// let once = Faults::seeded(0).rate(Fault::ServerBusy, 1.0).at_most(1);
    /// let emulator = Emulator::builder().faults(once).start().await?;
    /// # let no_retries = tablekit::client::RetryPolicy::none();
    /// # let client = emulator.client_builder().retry_policy(no_retries).build()?;
    /// assert!(client.table_exists("Gamers").await.unwrap_err().is_throttled());
    /// assert!(!client.table_exists("Gamers").await?); // the one fault is spent
    /// # Ok(()) }
    /// ```
    pub fn at_most(mut self, count: u64) -> Self {
        self.at_most = Some(count);
        self
    }

    /// The seed: worth logging when it is chosen per run, so a failing run can be replayed
    /// with [`Faults::seeded`].
    ///
    /// ```
    /// use std::time::{SystemTime, UNIX_EPOCH};
    /// use tablekit_emulator::{Fault, Faults};
    /// let chosen = u64::from(SystemTime::now().duration_since(UNIX_EPOCH)?.subsec_nanos());
    /// let faults = Faults::seeded(chosen).rate(Fault::ServerBusy, 0.1);
    /// assert_eq!(faults.seed(), chosen);
    /// # Ok::<(), std::time::SystemTimeError>(())
    /// ```
    pub fn seed(&self) -> u64 {
        self.seed
    }
}

/// The plan in force on a server or proxy (none unless set), replaced while it serves.
#[derive(Debug, Default)]
pub(crate) struct ActiveFaults(Mutex<Option<FaultState>>);

/// What the plan decided for one request.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Drawn {
    /// The fault, if the request gets one.
    pub(crate) fault: Option<Fault>,
    /// The wait before the request is served.
    pub(crate) latency: Duration,
    /// How long a [`Fault::Timeout`] holds the connection.
    pub(crate) hold: Duration,
}

impl ActiveFaults {
    pub(crate) fn new(plan: Option<Faults>) -> Self {
        ActiveFaults(Mutex::new(plan.map(FaultState::new)))
    }

    /// Replaces the plan; `None` turns faults off.
    pub(crate) fn set(&self, plan: Option<Faults>) {
        *self.lock() = plan.map(FaultState::new);
    }

    /// The fault for the next request of kind `op`, with the plan's latency and hold.
    pub(crate) fn draw(&self, op: Operation) -> Drawn {
        match self.lock().as_mut() {
            Some(plan) => Drawn {
                fault: plan.draw(op),
                latency: plan.plan.latency,
                hold: plan.plan.hold,
            },
            None => Drawn::default(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<FaultState>> {
        // A panic while drawing leaves the generator usable: recover the lock.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A plan with its generator, as the server runs it.
#[derive(Debug)]
struct FaultState {
    plan: Faults,
    rng: StdRng,
    /// Faults injected so far.
    injected: u64,
}

impl FaultState {
    fn new(plan: Faults) -> Self {
        let rng = StdRng::seed_from_u64(plan.seed);
        FaultState {
            plan,
            rng,
            injected: 0,
        }
    }

    /// The fault for the next request of kind `op`, if any.
    fn draw(&mut self, op: Operation) -> Option<Fault> {
        if let Some(only) = &self.plan.only {
            if !only.contains(&op) {
                return None;
            }
        }
        if self.plan.at_most.is_some_and(|n| self.injected >= n) {
            return None;
        }
        let roll: f64 = self.rng.random();
        let mut threshold = 0.0;
        for (fault, rate) in &self.plan.rates {
            threshold += rate;
            if roll < threshold {
                self.injected += 1;
                return Some(*fault);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_faults() {
        let plan = Faults::seeded(42)
            .rate(Fault::InternalError, 0.2)
            .rate(Fault::DropConnection, 0.2);
        let run = |plan: Faults| {
            let mut state = FaultState::new(plan);
            (0..200)
                .map(|_| state.draw(Operation::Insert))
                .collect::<Vec<_>>()
        };
        let a = run(plan.clone());
        assert_eq!(a, run(plan));
        let failures = a.iter().filter(|f| f.is_some()).count();
        assert!((50..110).contains(&failures), "{failures}");
        assert_ne!(
            a,
            run(Faults::seeded(43)
                .rate(Fault::InternalError, 0.2)
                .rate(Fault::DropConnection, 0.2))
        );
    }

    #[test]
    fn only_limits_the_operations() {
        let mut state = FaultState::new(
            Faults::seeded(1)
                .rate(Fault::ServerBusy, 1.0)
                .only(&[Operation::Insert]),
        );
        assert_eq!(state.draw(Operation::Query), None);
        assert_eq!(state.draw(Operation::Insert), Some(Fault::ServerBusy));
    }

    #[test]
    fn at_most_stops_after_that_many_faults() {
        let mut state = FaultState::new(
            Faults::seeded(1)
                .rate(Fault::AppliedThenDropped, 1.0)
                .only(&[Operation::Batch])
                .at_most(2),
        );
        assert_eq!(state.draw(Operation::Get), None, "not counted");
        let drawn: Vec<_> = (0..4).map(|_| state.draw(Operation::Batch)).collect();
        let lost = Some(Fault::AppliedThenDropped);
        assert_eq!(drawn, [lost, lost, None, None]);
    }

    #[test]
    fn the_active_plan_can_be_replaced_while_serving() {
        let active = ActiveFaults::default();
        assert_eq!(active.draw(Operation::Insert), Drawn::default());
        let slow = Duration::from_millis(5);
        active.set(Some(
            Faults::seeded(1).rate(Fault::ServerBusy, 1.0).latency(slow),
        ));
        let drawn = active.draw(Operation::Insert);
        assert_eq!(drawn.fault, Some(Fault::ServerBusy));
        assert_eq!(drawn.latency, slow);
        active.set(None);
        assert_eq!(active.draw(Operation::Insert).fault, None);
    }
}
