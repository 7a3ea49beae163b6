//! A large table: seeding and scanning 100,000 entities stays fast even in a debug build
//! (both used to be quadratic), and every entity comes back once, in key order, across
//! continuation pages.

use std::time::Instant;

use futures::TryStreamExt;
use tablekit::{DynamicEntity, Query};
use tablekit_testing::Emulator;

/// 100,000 entities unless `TABLEKIT_LARGE_ENTITIES` says otherwise (for measuring).
fn entity_count() -> usize {
    std::env::var("TABLEKIT_LARGE_ENTITIES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(100_000)
}

fn entity(n: usize) -> DynamicEntity {
    let mut e = DynamicEntity::new(format!("p{}", n % 4), format!("{n:08}"));
    e.set("N", n as i64);
    e
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hundred_thousand_entities_seed_and_scan_in_order() {
    let count = entity_count();
    let emulator = Emulator::start().await.unwrap();
    let table = emulator.unique_table("Large").unwrap();

    let started = Instant::now();
    assert_eq!(table.seed((0..count).map(entity)).unwrap(), count);
    let seeded = started.elapsed();

    let client = emulator.client();
    let started = Instant::now();
    let mut pages = client
        .table_named::<DynamicEntity>(table.name())
        .query_all()
        .pages();
    let (mut seen, mut page_count) = (0usize, 0usize);
    let mut last: Option<(String, String)> = None;
    while let Some(page) = pages.try_next().await.unwrap() {
        page_count += 1;
        assert!(page.len() <= 1000);
        for e in page.into_entities() {
            let key = (e.partition_key().to_owned(), e.row_key().to_owned());
            assert!(
                last.as_ref().is_none_or(|l| *l < key),
                "{key:?} out of order"
            );
            last = Some(key);
            seen += 1;
        }
    }
    let scanned = started.elapsed();
    assert_eq!(seen, count);
    assert!(page_count >= count / 1000);

    // A narrow RowKey range in one partition reads only its own entities.
    let q = Query::<DynamicEntity>::new()
        .filter_raw("PartitionKey eq 'p1' and RowKey ge '00000100' and RowKey lt '00000200'");
    let hits = client
        .table_named::<DynamicEntity>(table.name())
        .query(q)
        .collect_all()
        .await
        .unwrap();
    assert_eq!(hits.len(), 25);
    assert!(hits.iter().all(|e| e.partition_key() == "p1"));
    eprintln!(
        "{count} entities: seeded in {seeded:?}, scanned in {page_count} pages in {scanned:?}"
    );
}
