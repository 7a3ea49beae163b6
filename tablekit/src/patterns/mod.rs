//! Storage patterns built on the client: the recipes of Richter's guide, the service whitepaper
//! and the table-name key pattern, as library features.
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

pub mod backup;
pub mod bulk;
pub mod conflict_retry;
pub mod migrate;
pub mod period;
pub mod progress;
