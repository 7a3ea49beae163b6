//! What reads cost: for each query page and point read, the stored entities the emulator
//! examined and the ones it returned, per request and in total, so a test can assert what a
//! query costs (as Django's `assertNumQueries` does for SQL): a query that misses the
//! PartitionKey examines the whole table however few entities it returns.
//!
//! Each answer to a read also carries its cost in two headers of the emulator's own,
//! [`EXAMINED_HEADER`] and [`RETURNED_HEADER`], which a client can show (the `tablekit`
//! command's `query --explain` does). The service sends neither.

use std::collections::VecDeque;
use std::sync::Mutex;

/// The header with the entities a read examined (the emulator's own; Azure sends none): the
/// name the client reads it by.
pub use tablekit::client::EXAMINED_HEADER;
/// The header with the entities a read returned (the emulator's own; Azure sends none).
pub use tablekit::client::RETURNED_HEADER;

/// How many of the latest reads [`QueryCosts::recent`] keeps.
pub const RECENT_READS: usize = 1_024;

/// The cost of one read: a query page or a point read.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use tablekit::{DynamicEntity, Filter, Query};
/// use tablekit_emulator::Emulator;
/// let emulator = Emulator::start().await?;
/// let rows = (0..100).map(|i| DynamicEntity::new(&format!("p{}", i % 10), &i.to_string()));
/// emulator.seed("Gamers", { emulator.create_table("Gamers")?; rows })?;
/// let gamers = emulator.client().table_named::<DynamicEntity>("Gamers");
///
/// // Bound to one partition: only its 10 entities are read.
/// let one = Query::new().filter(Filter::raw("PartitionKey eq 'p3'"));
/// gamers.query(one).first_page().await?;
/// let cost = emulator.query_costs().last().cloned().unwrap();
/// assert_eq!((cost.examined, cost.returned), (10, 10));
///
/// // A filter on a property scans the table for the same 10.
/// let scan = Query::new().filter(Filter::raw("Level eq 3"));
/// gamers.query(scan).first_page().await?;
/// assert_eq!(emulator.query_costs().last().unwrap().examined, 100);
/// # Ok(()) }
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct QueryCost {
    /// The table read, as the request named it.
    pub table: String,
    /// The `$filter`, when there was one (`None` also for point reads).
    pub filter: Option<String>,
    /// Stored entities read to answer.
    pub examined: u64,
    /// Entities in the answer.
    pub returned: u64,
}

/// The reads since the start or the last [`reset_requests`](crate::Emulator::reset_requests):
/// totals, and the latest [`RECENT_READS`] one by one.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use tablekit::DynamicEntity;
/// let emulator = tablekit_emulator::Emulator::start().await?;
/// emulator.create_table("Gamers")?;
/// let gamers = emulator.client().table_named::<DynamicEntity>("Gamers");
/// assert!(gamers.get("eu", "dragon").await?.is_none());
/// let costs = emulator.query_costs();
/// assert_eq!((costs.reads, costs.examined, costs.returned), (1, 0, 0));
/// assert_eq!(costs.recent().count(), 1);
/// emulator.reset_requests();
/// assert_eq!(emulator.query_costs().reads, 0);
/// # Ok(()) }
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QueryCosts {
    /// Reads answered.
    pub reads: u64,
    /// Entities examined, over all reads.
    pub examined: u64,
    /// Entities returned, over all reads.
    pub returned: u64,
    recent: VecDeque<QueryCost>,
}

impl QueryCosts {
    /// The latest reads, oldest first.
    pub fn recent(&self) -> impl Iterator<Item = &QueryCost> {
        self.recent.iter()
    }

    /// The latest read.
    pub fn last(&self) -> Option<&QueryCost> {
        self.recent.back()
    }
}

/// The emulator's running account of [`QueryCosts`].
#[derive(Debug, Default)]
pub(crate) struct CostLog {
    costs: Mutex<QueryCosts>,
}

impl CostLog {
    pub(crate) fn record(&self, cost: QueryCost) {
        let mut costs = self.costs.lock().unwrap_or_else(|e| e.into_inner());
        costs.reads += 1;
        costs.examined += cost.examined;
        costs.returned += cost.returned;
        if costs.recent.len() == RECENT_READS {
            costs.recent.pop_front();
        }
        costs.recent.push_back(cost);
    }

    pub(crate) fn snapshot(&self) -> QueryCosts {
        self.costs.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub(crate) fn reset(&self) {
        *self.costs.lock().unwrap_or_else(|e| e.into_inner()) = QueryCosts::default();
    }
}
