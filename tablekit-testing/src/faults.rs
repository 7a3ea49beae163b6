//! Fault injection for reliability tests, deterministic by seed: a fraction of requests fail
//! with 500 or 503, hang until the client times out, lose their connection, or are applied
//! and then lose their response (the case that makes retried writes dangerous).
//!
//! Every request draws one number from a generator seeded by [`Faults::seeded`], in arrival
//! order; the same seed and the same request sequence give the same faults.

use std::time::Duration;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::counter::Operation;

/// What happens to one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Fault {
    /// 500 InternalError, nothing applied.
    InternalError,
    /// 503 ServerBusy, nothing applied.
    ServerBusy,
    /// No answer until the hold time passes, then the connection closes; nothing applied.
    Timeout,
    /// The connection closes without an answer; nothing applied.
    DropConnection,
    /// Applied, then the connection closes without an answer.
    AppliedThenDropped,
    /// Applied, then answered with 500 as if it had failed.
    AppliedThenInternalError,
}

/// A fault-injection plan: rates per fault, the seed, added latency, which operations.
///
/// ```
/// use std::time::Duration;
/// use tablekit_testing::{Fault, Faults, Operation};
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
}

impl Faults {
    /// No faults yet, drawing from a generator seeded with `seed`.
    pub fn seeded(seed: u64) -> Self {
        Faults {
            seed,
            rates: Vec::new(),
            latency: Duration::ZERO,
            hold: Duration::from_secs(10),
            only: None,
        }
    }

    /// Makes `fault` happen to this fraction of requests (0.0 to 1.0; rates add up in the
    /// order given and are capped at 1).
    pub fn rate(mut self, fault: Fault, fraction: f64) -> Self {
        self.rates.retain(|(f, _)| *f != fault);
        self.rates.push((fault, fraction.clamp(0.0, 1.0)));
        self
    }

    /// Adds this delay before every request is handled.
    pub fn latency(mut self, latency: Duration) -> Self {
        self.latency = latency;
        self
    }

    /// How long a [`Fault::Timeout`] holds the request before closing (10 s by default).
    pub fn hold(mut self, hold: Duration) -> Self {
        self.hold = hold;
        self
    }

    /// Injects faults only into these operations (latency still applies to all).
    pub fn only(mut self, operations: &[Operation]) -> Self {
        self.only = Some(operations.to_vec());
        self
    }

    /// The seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }
}

/// A plan with its generator, as the server runs it.
#[derive(Debug)]
pub(crate) struct FaultState {
    plan: Faults,
    rng: StdRng,
}

impl FaultState {
    pub(crate) fn new(plan: Faults) -> Self {
        let rng = StdRng::seed_from_u64(plan.seed);
        FaultState { plan, rng }
    }

    pub(crate) fn latency(&self) -> Duration {
        self.plan.latency
    }

    pub(crate) fn hold(&self) -> Duration {
        self.plan.hold
    }

    /// The fault for the next request of kind `op`, if any.
    pub(crate) fn draw(&mut self, op: Operation) -> Option<Fault> {
        if let Some(only) = &self.plan.only {
            if !only.contains(&op) {
                return None;
            }
        }
        let roll: f64 = self.rng.gen();
        let mut threshold = 0.0;
        for (fault, rate) in &self.plan.rates {
            threshold += rate;
            if roll < threshold {
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
}
