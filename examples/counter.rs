//! Optimistic concurrency, as in "Jeffrey Richter's Guide to Working with Azure Storage Tables
//! via C# and other .NET Languages": many tasks increment one counter at once, each with a
//! read-modify-write that is retried on 412, and no increment is lost.
//!
//! Run with `cargo run --example counter` (the embedded emulator), or against any service
//! with `TABLEKIT_CONNECTION_STRING` set.

#[path = "support/mod.rs"]
mod support;

use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use tablekit::client::{Table, TableServiceClient};
use tablekit::patterns::conflict_retry::ConflictRetry;
use tablekit::DynamicEntity;

use support::BoxError;

/// Tasks incrementing at once.
pub(crate) const TASKS: u64 = 8;
/// Increments per task.
pub(crate) const INCREMENTS: u64 = 25;

/// What the run observed.
#[derive(Debug)]
pub(crate) struct Outcome {
    /// The counter's final value.
    pub(crate) value: i64,
    /// Writes that lost a race and were redone.
    pub(crate) conflicts: u64,
}

impl Outcome {
    /// Whether every increment counted.
    pub(crate) fn check(&self) -> Result<(), String> {
        let expected = TASKS * INCREMENTS;
        if u64::try_from(self.value) == Ok(expected) {
            Ok(())
        } else {
            Err(format!("counter is {}, expected {expected}", self.value))
        }
    }
}

/// Creates the table, runs `TASKS` x `INCREMENTS` concurrent increments, reads the result,
/// and deletes the table.
pub(crate) async fn run(
    client: &TableServiceClient,
    table_name: &str,
) -> Result<Outcome, BoxError> {
    support::cleaning_up(client, table_name, demo(client, table_name)).await
}

async fn demo(client: &TableServiceClient, table_name: &str) -> Result<Outcome, tablekit::Error> {
    let table: Table = client.table_named(table_name);
    table.create_if_not_exists().await?;
    let mut counter = DynamicEntity::new("counters", "visits");
    counter.set("Count", 0i64);
    table.upsert_replace(&mut counter).await?;
    println!("{TASKS} tasks x {INCREMENTS} increments of one counter in `{table_name}`");

    let conflicts = Arc::new(AtomicU64::new(0));
    let policy = ConflictRetry::new().max_attempts(200)?;
    let tasks: Vec<_> = (0..TASKS)
        .map(|_| {
            let table = table.clone();
            let conflicts = Arc::clone(&conflicts);
            tokio::spawn(async move {
                for _ in 0..INCREMENTS {
                    let mut tries = 0u64;
                    table
                        .update_with_retry_policy(("counters", "visits"), &policy, |c| {
                            tries += 1;
                            c.set("Count", c.get_or("Count", 0i64) + 1);
                        })
                        .await?;
                    conflicts.fetch_add(tries - 1, Ordering::Relaxed);
                }
                Ok::<(), tablekit::Error>(())
            })
        })
        .collect();
    for task in tasks {
        task.await
            .map_err(|e| tablekit::Error::Configuration(format!("task failed: {e}")))??;
    }
    let value = table
        .get("counters", "visits")
        .await?
        .map_or(0, |c| c.get_or("Count", 0i64));
    let conflicts = conflicts.load(Ordering::Relaxed);
    println!("final count {value} (expected {})", TASKS * INCREMENTS);
    Ok(Outcome { value, conflicts })
}

#[cfg_attr(test, allow(dead_code))]
fn main() -> ExitCode {
    support::main("counter", async |client| {
        let outcome = run(client, &support::fresh_name("Counters")).await?;
        println!(
            "{} writes were redone after losing a race (412)",
            outcome.conflicts
        );
        Ok(outcome.check()?)
    })
}
