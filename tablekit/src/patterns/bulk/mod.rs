//! The batch planner: write operations grouped into valid entity group transactions.
//!
//! The service runs up to 100 operations on one table and one PartitionKey, at most 4 MiB of
//! request body, each entity at most once, as one atomic transaction. A bulk load of thousands
//! of entities therefore becomes many transactions, and this module decides which: it groups
//! operations by table and PartitionKey, fills transactions greedily in input order, and maps
//! every transaction back to the caller's input indices, so the results of a bulk write say
//! exactly which items were committed together. Nothing here is atomic across transactions.
//!
//! Two operations on the same entity never share a transaction (the service forbids it); the
//! later one goes into a later transaction that [`must_follow`](Transaction::must_follow) the
//! earlier one, so the entity ends as the input order says.
//!
//! The planner is pure: it sends nothing and sizes operations through a function, so the client
//! can measure its real encoded parts.
//!
//! ```
//! use tablekit::DynamicEntity;
//! use tablekit::patterns::bulk::{BatchPlanner, WriteOp};
//!
//! let ops: Vec<WriteOp> = (0..250)
//!     .map(|i| WriteOp::upsert("Logs", DynamicEntity::new(format!("p{}", i % 2), format!("{i:05}"))))
//!     .collect();
//! let plan = BatchPlanner::new().plan(&ops);
//! assert!(plan.rejected().is_empty());
//! // 125 operations per partition: 100 + 25, twice.
//! let sizes: Vec<usize> = plan.transactions().iter().map(|t| t.len()).collect();
//! assert_eq!(sizes, vec![100, 25, 100, 25]);
//! assert_eq!(plan.transactions()[0].partition_key(), "p0");
//! assert_eq!(plan.transactions()[0].indices()[..3], [0, 2, 4]);
//! ```

mod engine;
mod pacing;
mod plan;
mod writer;

pub use pacing::Rates;
pub use plan::{BatchPlanner, OpKey, Plan, Rejected, Transaction, WriteOp};
pub use writer::{
    BulkReport, BulkWriter, ItemOutcome, Pacing, TransactionRecord, DEFAULT_CONCURRENCY,
    DEFAULT_WINDOW,
};
