//! Counts requests by operation kind, so a test can prove that input a client rejects
//! never reached the server.

use std::sync::atomic::{AtomicU64, Ordering};

/// The kind of a request the emulator received.
///
/// ```
/// use tablekit_emulator::Operation;
/// assert_eq!(Operation::Insert.to_string(), "Insert");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Operation {
    /// `POST /Tables`.
    CreateTable,
    /// `DELETE /Tables('T')`.
    DeleteTable,
    /// `GET /Tables` or `GET /Tables('T')`.
    QueryTables,
    /// `POST /T`.
    Insert,
    /// `PUT /T(...)` with `If-Match`.
    Replace,
    /// `MERGE` or `PATCH /T(...)` with `If-Match`.
    Merge,
    /// `PUT /T(...)` without `If-Match`.
    InsertOrReplace,
    /// `MERGE` or `PATCH /T(...)` without `If-Match`.
    InsertOrMerge,
    /// `DELETE /T(...)`.
    Delete,
    /// `GET /T(PartitionKey='..',RowKey='..')`.
    Get,
    /// `GET /T()` with `$filter` / `$top` / `$select`.
    Query,
    /// `POST /$batch`.
    Batch,
    /// Anything else (service properties, ACLs, unknown paths).
    Other,
}

impl Operation {
    /// Every kind, in declaration order.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use tablekit_emulator::{Emulator, Operation};
    /// let emulator = Emulator::start().await?;
    /// let client = emulator.client();
    /// client.create_table("Gamers").await?;
    /// let requests = emulator.requests();
    /// let seen: Vec<Operation> = Operation::ALL
    ///     .into_iter()
    ///     .filter(|op| requests.count(*op) > 0)
    ///     .collect();
    /// assert_eq!(seen, [Operation::CreateTable]);
    /// # Ok(()) }
    /// ```
    pub const ALL: [Operation; 13] = [
        Operation::CreateTable,
        Operation::DeleteTable,
        Operation::QueryTables,
        Operation::Insert,
        Operation::Replace,
        Operation::Merge,
        Operation::InsertOrReplace,
        Operation::InsertOrMerge,
        Operation::Delete,
        Operation::Get,
        Operation::Query,
        Operation::Batch,
        Operation::Other,
    ];

    fn index(self) -> usize {
        Operation::ALL
            .iter()
            .position(|op| *op == self)
            .unwrap_or(Operation::ALL.len() - 1)
    }

    /// Whether the operation changes data.
    ///
    /// ```
    /// use tablekit_emulator::Operation;
    /// assert!(Operation::Merge.is_write());
    /// assert!(Operation::DeleteTable.is_write());
    /// assert!(!Operation::Query.is_write());
    /// assert!(!Operation::Get.is_write());
    /// ```
    pub fn is_write(self) -> bool {
        !matches!(
            self,
            Operation::QueryTables | Operation::Get | Operation::Query | Operation::Other
        )
    }
}

impl std::fmt::Display for Operation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self, f)
    }
}

/// Live counters, shared by the server's tasks.
#[derive(Debug, Default)]
pub(crate) struct RequestCounter {
    counts: [AtomicU64; Operation::ALL.len()],
    /// Nanoseconds spent answering requests.
    busy_nanos: AtomicU64,
}

impl RequestCounter {
    pub(crate) fn record_busy(&self, time: std::time::Duration) {
        let nanos = u64::try_from(time.as_nanos()).unwrap_or(u64::MAX);
        self.busy_nanos.fetch_add(nanos, Ordering::Relaxed);
    }

    pub(crate) fn busy(&self) -> std::time::Duration {
        std::time::Duration::from_nanos(self.busy_nanos.load(Ordering::Relaxed))
    }

    pub(crate) fn record(&self, op: Operation) {
        if let Some(count) = self.counts.get(op.index()) {
            count.fetch_add(1, Ordering::Relaxed);
        }
    }

    pub(crate) fn snapshot(&self) -> RequestCounts {
        let mut counts = [0; Operation::ALL.len()];
        for (slot, count) in counts.iter_mut().zip(&self.counts) {
            *slot = count.load(Ordering::Relaxed);
        }
        RequestCounts { counts }
    }

    pub(crate) fn reset(&self) {
        for count in &self.counts {
            count.store(0, Ordering::Relaxed);
        }
    }
}

/// How many requests of each kind the emulator has received (a snapshot).
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), tablekit_emulator::Error> {
/// use tablekit_emulator::{Emulator, Operation};
/// let emulator = Emulator::start().await?;
/// let requests = emulator.requests();
/// assert_eq!(requests.total(), 0);
/// assert_eq!(requests.count(Operation::Insert), 0);
/// # Ok(()) }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RequestCounts {
    counts: [u64; Operation::ALL.len()],
}

impl RequestCounts {
    /// Requests of one kind.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use tablekit::DynamicEntity;
    /// use tablekit_emulator::{Emulator, Operation};
    /// let emulator = Emulator::start().await?;
    /// let client = emulator.client();
    /// let table = client.table_named::<DynamicEntity>("Gamers");
    /// // '/' cannot appear in a key: the client refuses the entity before sending it.
    /// let err = table.insert(&mut DynamicEntity::new("a/b", "")).await.unwrap_err();
    /// assert!(err.is_invalid_input());
    /// assert_eq!(emulator.requests().count(Operation::Insert), 0);
    /// # Ok(()) }
    /// ```
    pub fn count(&self, op: Operation) -> u64 {
        self.counts.get(op.index()).copied().unwrap_or(0)
    }

    /// All requests.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use tablekit_emulator::Emulator;
    /// let emulator = Emulator::start().await?;
    /// let client = emulator.client();
    /// client.create_table("Gamers").await?;
    /// assert!(client.table_exists("Gamers").await?);
    /// assert_eq!(emulator.requests().total(), 2);
    /// # Ok(()) }
    /// ```
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Requests that change data (see [`Operation::is_write`]).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use tablekit::DynamicEntity;
    /// use tablekit_emulator::Emulator;
    /// let emulator = Emulator::start().await?;
    /// let client = emulator.client();
    /// let table = client.table_named::<DynamicEntity>("Gamers");
    /// table.create().await?;
    /// table.insert(&mut DynamicEntity::new("dragon", "")).await?;
    /// assert!(table.get("dragon", "").await?.is_some());
    /// let requests = emulator.requests();
    /// assert_eq!((requests.total(), requests.writes()), (3, 2)); // the point get only reads
    /// # Ok(()) }
    /// ```
    pub fn writes(&self) -> u64 {
        Operation::ALL
            .iter()
            .filter(|op| op.is_write())
            .map(|op| self.count(*op))
            .sum()
    }
}
