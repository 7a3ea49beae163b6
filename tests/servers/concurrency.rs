//! Concurrency on every server: optimistic increments from 16 tasks, and two bulk writers over
//! the same partitions.

use std::collections::HashMap;
use std::time::Duration;

use tablekit::client::TableServiceClient;
use tablekit::patterns::bulk::{BulkWriter, WriteOp};
use tablekit::patterns::conflict_retry::ConflictRetry;
use tablekit::DynamicEntity;

use crate::support::servers::fresh_table;

pub(crate) const TASKS: usize = 16;
pub(crate) const INCREMENTS: usize = 100;

/// 16 tasks each add 1 to one counter 100 times with read-modify-write under If-Match:
/// the counter must end at exactly 1600, every lost race retried, none counted twice.
pub(crate) async fn sixteen_tasks_of_a_hundred_optimistic_increments_make_exactly_1600(
    client: &TableServiceClient,
) {
    let table = fresh_table(client, "counter").await;
    let mut counter = DynamicEntity::new("hits", "");
    counter.set("N", 0i64);
    table.insert(&mut counter).await.expect("seed the counter");

    // Sixteen writers on one entity lose most races: allow many attempts, short waits.
    let policy = ConflictRetry::new()
        .max_attempts(10_000)
        .and_then(|p| p.backoff(Duration::from_millis(1), Duration::from_millis(20)))
        .expect("a valid policy");
    let tasks = (0..TASKS).map(|_| {
        let table = table.clone();
        tokio::spawn(async move {
            for _ in 0..INCREMENTS {
                table
                    .update_with_retry_policy(("hits", ""), &policy, |c: &mut DynamicEntity| {
                        c.set("N", c.get_or("N", 0i64) + 1)
                    })
                    .await?;
            }
            Ok::<_, tablekit::Error>(())
        })
    });
    for joined in futures::future::join_all(tasks).await {
        joined.expect("task").expect("increments");
    }
    let stored = table.get("hits", "").await.expect("read").expect("counter");
    let n: i64 = stored.get_or("N", -1);
    table.delete_table().await.expect("drop table");
    assert_eq!(n, (TASKS * INCREMENTS) as i64);
}

/// Two bulk writers at once over the same partitions: each writes its own rows and both
/// upsert a shared set of rows. Everything reported committed is stored, nothing is lost,
/// the shared rows exist once each.
pub(crate) async fn two_bulk_writers_on_overlapping_partitions_lose_nothing(
    client: &TableServiceClient,
) {
    let table = fresh_table(client, "bulk").await;
    let name = table.name().to_owned();
    let ops = |writer: &'static str| {
        let name = name.clone();
        (0..600).map(move |i| {
            let partition = format!("p{}", i % 6);
            // Rows 0..100 are shared by both writers; the rest are the writer's own.
            let row = if i < 100 {
                format!("shared{i:03}")
            } else {
                format!("{writer}{i:03}")
            };
            let mut e = DynamicEntity::new(partition, row);
            e.set("Writer", writer);
            e.set("Seq", i);
            WriteOp::upsert(name.clone(), e)
        })
    };
    let a = BulkWriter::new(client).concurrency(4).expect("concurrency");
    let b = BulkWriter::new(client).concurrency(4).expect("concurrency");
    let (ra, rb) = tokio::join!(a.write_iter(ops("a")), b.write_iter(ops("b")));
    assert!(ra.is_complete(), "writer a: {:?}", ra.failures().next());
    assert!(rb.is_complete(), "writer b: {:?}", rb.failures().next());
    assert_eq!((ra.committed(), rb.committed()), (600, 600));

    let stored = table.query_all().collect_all().await.expect("scan");
    let mut by_key: HashMap<(String, String), Vec<String>> = HashMap::new();
    for e in &stored {
        by_key
            .entry((e.partition_key().to_owned(), e.row_key().to_owned()))
            .or_default()
            .push(e.get_or("Writer", String::new()));
    }
    table.delete_table().await.expect("drop table");
    // 500 own rows per writer + 100 shared rows.
    assert_eq!(stored.len(), 1100);
    assert_eq!(by_key.len(), 1100, "a key came back twice");
    for ((_, row), writers) in &by_key {
        let expected_writer = row.get(..1).unwrap_or_default();
        if !row.starts_with("shared") {
            assert_eq!(writers, &[expected_writer.to_owned()], "row {row}");
        } else {
            assert!(
                writers == &["a"] || writers == &["b"],
                "row {row}: {writers:?}"
            );
        }
    }
}

on_servers!(
    sixteen_tasks_of_a_hundred_optimistic_increments_make_exactly_1600,
    two_bulk_writers_on_overlapping_partitions_lose_nothing,
);
