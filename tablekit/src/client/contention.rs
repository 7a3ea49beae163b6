//! Lost races of a write's own read-modify-write: a write of a model that keeps rows beside
//! its entities (index rows, continuation rows) reads the stored entity and sends a
//! transaction conditional on what it read. When another writer changed the entity in
//! between, the condition fails; the condition was this library's, not the caller's, so the
//! write is computed again from a new read after a jittered, growing wait. A write that
//! still loses after [`ATTEMPTS`] tries ends in [`Contended`], never in the service's bare
//! 412 or 409.

use std::fmt;
use std::time::Duration;

use super::retry::RetryPolicy;

/// How many times a write whose own condition lost a race is tried.
pub(crate) const ATTEMPTS: u32 = 40;

/// Waits before try `attempt + 1` of a write that lost its race on try `attempt`: full
/// jitter, so writers that collided spread out instead of colliding again.
pub(crate) async fn back_off(attempt: u32) {
    let policy = RetryPolicy::default()
        .base_delay(Duration::from_millis(2))
        .max_delay(Duration::from_millis(200));
    tokio::time::sleep(policy.delay(attempt, None)).await;
}

/// A write of an entity lost every race against other writers of the same entity: each of
/// its tries read the stored entity and found it changed before its transaction applied.
/// Nothing of the last try was applied (earlier tries were not applied either: each lost on
/// its own condition).
///
/// ```
/// use tablekit::client::Contended;
/// use tablekit::Error;
/// let err = Error::from(Contended::new("Sales", "e-1", 40));
/// assert!(!err.is_precondition_failed()); // never a bare 412
/// assert_eq!(
///     err.to_string(),
///     "the write of `Sales`/`e-1` lost to other writers 40 times in a row; nothing of it was applied"
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub struct Contended {
    /// The entity's PartitionKey.
    pub partition_key: String,
    /// The entity's RowKey.
    pub row_key: String,
    /// How many tries lost.
    pub attempts: u32,
}

impl Contended {
    /// The error of a write of these keys that lost `attempts` races.
    pub fn new(partition_key: &str, row_key: &str, attempts: u32) -> Self {
        Contended {
            partition_key: partition_key.to_owned(),
            row_key: row_key.to_owned(),
            attempts,
        }
    }
}

impl fmt::Display for Contended {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the write of `{}`/`{}` lost to other writers {} times in a row; nothing of it was applied",
            self.partition_key, self.row_key, self.attempts
        )
    }
}
