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
//! The patterns are the top layer: they use the client and everything below it, and nothing
//! below imports them. Each owns its errors and boxes them into the client's
//! [`Error::Pattern`](crate::Error::Pattern) with `From`, so pattern and client calls share
//! `?` (see [`Error::pattern_error`](crate::Error::pattern_error)).
//!
//! They are a module of this crate rather than a crate of their own, because they extend the
//! client rather than only use its public API: [`Table::update_with_retry`] is a method of the
//! client's handle (a separate crate could add it only through an extension trait that every
//! caller would have to import), and the conflict retry settles a 412 after a lost answer with
//! the client's own crate-private rule for whether a write was applied, which a separate crate
//! would force into the public API. The one-way imports a crate boundary would enforce hold
//! all the same: nothing outside this module names it.
//!
//! [`Table::update_with_retry`]: crate::client::Table::update_with_retry
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let emulator = tablekit_testing::Emulator::start().await?;
//! use tablekit::patterns::bulk::{BulkWriter, WriteOp};
//! use tablekit::DynamicEntity;
//!
//! # let client = emulator.client();
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
pub mod index;
pub mod migrate;
pub mod period;
pub mod progress;
