//! Runs the pattern examples (`counter`, `logs`, `backup`) on a fresh in-process emulator and
//! asserts what each one reports.

// Each example includes the shared `support` module itself, as a standalone example must.
#![allow(clippy::duplicate_mod)]

#[path = "../../examples/backup.rs"]
mod backup_example;
#[path = "../../examples/counter.rs"]
mod counter_example;
#[path = "../../examples/logs.rs"]
mod logs_example;

use crate::support::servers::emulator;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_counter_example_loses_no_increment() {
    let client = emulator().await;
    let outcome = counter_example::run(&client, "Counters").await.unwrap();
    outcome.check().unwrap();
    println!("{} writes redone", outcome.conflicts);
    assert_eq!(
        outcome.value as u64,
        counter_example::TASKS * counter_example::INCREMENTS
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_logs_example_writes_queries_and_drops_days() {
    let client = emulator().await;
    let outcome = logs_example::run(&client, "Log").await.unwrap();
    outcome.check().unwrap();
    let per_day = logs_example::LINES_PER_DAY as usize;
    assert_eq!(outcome.written, per_day * logs_example::DAYS as usize);
    assert_eq!(outcome.in_range, 3 * per_day);
    assert_eq!(outcome.dropped, ["Log20100601", "Log20100602"]);
    assert_eq!(
        outcome.remaining,
        ["Log20100603", "Log20100604", "Log20100605"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_backup_example_restores_copies_and_refuses_a_cut_file() {
    let client = emulator().await;
    let outcome = backup_example::run(&client, "Players").await.unwrap();
    outcome.check().unwrap();
    let n = backup_example::ENTITIES;
    assert_eq!(outcome.backed_up, n as u64);
    assert_eq!((outcome.restored, outcome.copied), (n, n));
    assert!(
        outcome.truncated_error.contains("truncated at byte"),
        "{}",
        outcome.truncated_error
    );
}
