//! Storage patterns built on the client, as library features: the recipes of "Jeffrey Richter's
//! Guide to Working with Azure Storage Tables via C# and other .NET Languages", of Microsoft's
//! "Windows Azure Table" whitepaper, and the "Table Name Key Pattern" of the series "Windows
//! Azure Table Design Patterns".
//!
//! Each pattern is one module:
//!
//! | module | pattern |
//! |---|---|
//! | [`progress`] | counts, bytes and rate reported by long-running operations |
//! | [`conflict_retry`] | optimistic concurrency: retry a read-modify-write on 412 |
//! | [`bulk`] | the batch planner and the bulk writer: any number of writes as valid transactions, run concurrently, every input's outcome reported |
//! | [`period`] | table-per-period families (`Log20240101`): create on first use, range queries, dropping old tables; period-based partition keys |
//! | [`backup`] | backup to a versioned, checksummed file; restore (resumable) and table-to-table copy |
//! | [`migrate`] | property migrations: keep-only, rename, remove, or a closure per entity; dry runs, 412 retries, checkpoints |
//!
//! They exist because each one is easy to get subtly wrong by hand: a batch splitter that drops
//! operations, a backup reader that loops on a truncated file, a migration that silently loses
//! a concurrent write.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let emulator = tablekit_testing::Emulator::start().await?;
//! use tablekit::client::TableServiceClient;
//! use tablekit::patterns::bulk::{BulkWriter, WriteOp};
//! use tablekit::DynamicEntity;
//!
//! let client = TableServiceClient::from_connection_string(&emulator.connection_string())?;
//! client.create_table("Readings").await?;
//! // 250 writes to two partitions: planned as 100 + 25 per partition, sent concurrently.
//! let ops = (0..250).map(|i| {
//!     let mut e = DynamicEntity::new(format!("sensor{}", i % 2), format!("{i:05}"));
//!     e.set("Value", i);
//!     WriteOp::upsert("Readings", e)
//! });
//! let report = BulkWriter::new(&client).write_iter(ops).await;
//! assert!(report.is_complete());
//! assert_eq!(report.transactions().len(), 4);
//! # Ok(()) }
//! ```

pub mod backup;
pub mod bulk;
pub mod conflict_retry;
pub mod migrate;
pub mod period;
pub mod progress;
