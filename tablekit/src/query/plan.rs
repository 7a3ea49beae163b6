//! [`QueryPlan`]: the shape of a query, known before it is sent. The Table service finds
//! entities by PartitionKey then RowKey and by nothing else, so a query's cost follows from
//! which keys its filter fixes: one entity, a range in one partition, a whole partition, a
//! range of partitions, or every entity of the table — the scan the Azure Table design
//! guide ("Design for querying") warns about first.
//!
//! ```
//! use tablekit::{Column, DynamicEntity, Query};
//! let pk: Column<DynamicEntity, String> = Column::dynamic("PartitionKey");
//! let plan = Query::<DynamicEntity>::new().filter(pk.eq("eu")).plan();
//! assert_eq!(plan.to_string(), r#"whole partition "eu""#);
//! ```

use std::fmt;

use crate::filter::KeyConditions;

/// How the service will find a query's entities, from its filter's key conditions (see
/// [`Query::plan`](crate::Query::plan)).
///
/// Only the filter's top-level `and` conjuncts written with typed columns are read: a key
/// condition under `or`/`not` is not seen (such a query plans as a scan even when the service
/// would seek), and a filter whose keys could only be in hand-written text plans as
/// [`Unknown`](QueryPlan::Unknown).
///
/// ```
/// use tablekit::query_plan::QueryPlan;
/// use tablekit::{Column, DynamicEntity, Query};
/// let pk: Column<DynamicEntity, String> = Column::dynamic("PartitionKey");
/// let rk: Column<DynamicEntity, String> = Column::dynamic("RowKey");
/// let score: Column<DynamicEntity, i32> = Column::dynamic("Score");
///
/// let one = Query::new().filter(pk.eq("eu").and(rk.eq("dragon")));
/// assert_eq!(one.plan(), QueryPlan::PointRead { partition_key: "eu".into(), row_key: "dragon".into() });
/// let range = Query::new().filter(pk.eq("eu").and(rk.starts_with("d")));
/// assert_eq!(range.plan(), QueryPlan::RowRange { partition_key: "eu".into() });
/// let partition = Query::new().filter(pk.eq("eu").and(score.gt(10)));
/// assert_eq!(partition.plan(), QueryPlan::Partition { partition_key: "eu".into() });
/// assert_eq!(Query::new().filter(pk.ge("e")).plan(), QueryPlan::PartitionRange);
/// let scan = Query::new().filter(score.gt(10));
/// assert!(scan.plan().is_table_scan());
/// assert_eq!(scan.plan().to_string(), "table scan: every entity is read");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum QueryPlan {
    /// One entity, by both keys.
    PointRead {
        /// Its PartitionKey.
        partition_key: String,
        /// Its RowKey.
        row_key: String,
    },
    /// A RowKey range within one partition.
    RowRange {
        /// The partition.
        partition_key: String,
    },
    /// Every entity of one partition (other conditions filter them).
    Partition {
        /// The partition.
        partition_key: String,
    },
    /// A range of partitions.
    PartitionRange,
    /// Every entity of the table.
    TableScan,
    /// Unknown: the filter fixes no key with typed columns but has hand-written text, which
    /// may (the client does not parse it).
    Unknown,
}

impl QueryPlan {
    /// The plan of a filter with these key conditions.
    pub(crate) fn of(keys: KeyConditions) -> Self {
        let KeyConditions {
            partition,
            row,
            unread_text,
        } = keys;
        match (partition.equal, row.equal) {
            (Some(partition_key), Some(row_key)) => QueryPlan::PointRead {
                partition_key,
                row_key,
            },
            (Some(partition_key), None) if row.ranged => QueryPlan::RowRange { partition_key },
            (Some(partition_key), None) => QueryPlan::Partition { partition_key },
            (None, _) if partition.ranged => QueryPlan::PartitionRange,
            (None, _) if unread_text => QueryPlan::Unknown,
            (None, _) => QueryPlan::TableScan,
        }
    }

    /// Whether the query reads every entity of the table.
    pub fn is_table_scan(&self) -> bool {
        matches!(self, QueryPlan::TableScan)
    }

    /// Whether the query may read every entity: a [scan](QueryPlan::TableScan), or a plan
    /// that is [not known](QueryPlan::Unknown).
    pub fn may_scan(&self) -> bool {
        matches!(self, QueryPlan::TableScan | QueryPlan::Unknown)
    }
}

impl fmt::Display for QueryPlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QueryPlan::PointRead {
                partition_key,
                row_key,
            } => write!(f, "point read of ({partition_key:?}, {row_key:?})"),
            QueryPlan::RowRange { partition_key } => {
                write!(f, "RowKey range in partition {partition_key:?}")
            }
            QueryPlan::Partition { partition_key } => {
                write!(f, "whole partition {partition_key:?}")
            }
            QueryPlan::PartitionRange => f.write_str("range of partitions"),
            QueryPlan::TableScan => f.write_str("table scan: every entity is read"),
            QueryPlan::Unknown => f.write_str("unknown: hand-written filter text is not read"),
        }
    }
}
