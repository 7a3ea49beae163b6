//! Parallel scans: the ranges' pages together are exactly the table's entities, every one
//! once, whether the ranges are probed or given, read as shards, or resumed from a checkpoint.

use std::collections::BTreeSet;

use futures::TryStreamExt;
use tablekit::client::{ParallelScan, ScanCheckpoint, Table, TableServiceClient};
use tablekit::{Column, DynamicEntity, Query};

use crate::support::servers::unique_name;

type Keys = BTreeSet<(String, String)>;

/// A table of `partitions` partitions of `rows` entities, keys with odd characters among
/// them, each with a Score.
async fn filled(client: &TableServiceClient, partitions: usize, rows: usize) -> Table {
    let table = client.table_named::<DynamicEntity>(&unique_name("Scan"));
    table.create().await.expect("create");
    let odd = ["", " lead", "O'Brien", "東京", "😀", "~tilde", "Zz"];
    let mut batch_entities = Vec::new();
    for p in 0..partitions {
        let pk = format!("{}{p:03}", odd[p % odd.len()]);
        for r in 0..rows {
            let mut e = DynamicEntity::new(pk.clone(), format!("{r:04}"));
            e.set("Score", (p * rows + r) as i32);
            batch_entities.push(e);
        }
    }
    let writer = tablekit::patterns::bulk::BulkWriter::new(client);
    let ops = batch_entities
        .into_iter()
        .map(|e| tablekit::patterns::bulk::WriteOp::insert(table.name(), e));
    assert!(writer.write_iter(ops).await.is_complete());
    table
}

fn keys_of<'a>(entities: impl IntoIterator<Item = &'a DynamicEntity>) -> Keys {
    entities
        .into_iter()
        .map(|e| (e.partition_key().to_owned(), e.row_key().to_owned()))
        .collect()
}

async fn serial(table: &Table, query: Query<DynamicEntity>) -> Keys {
    let all = table
        .query(query.allow_table_scan())
        .collect_all()
        .await
        .expect("serial scan");
    keys_of(&all)
}

/// Every key the scan's pages hold, checked to be read once, and the ranges it used.
async fn scanned(scan: ParallelScan<DynamicEntity>) -> (Keys, usize) {
    let ranges = scan.plan().await.expect("plan").ranges.len();
    let pages: Vec<_> = scan.pages().try_collect().await.expect("parallel scan");
    let mut keys = Keys::new();
    for page in &pages {
        for key in keys_of(page.page.entities()) {
            assert!(keys.insert(key.clone()), "{key:?} read twice");
        }
    }
    (keys, ranges)
}

pub async fn probed_and_given_ranges_read_every_entity_once(client: &TableServiceClient) {
    for (partitions, rows) in [(0, 0), (1, 30), (40, 3)] {
        let table = filled(client, partitions, rows).await;
        let expected = serial(&table, Query::new()).await;
        assert_eq!(expected.len(), partitions * rows);
        let probed = table
            .parallel_scan(Query::new())
            .concurrency(4)
            .unwrap()
            .sampled_ranges(8)
            .unwrap();
        let (keys, ranges) = scanned(probed).await;
        assert_eq!(keys, expected, "{partitions} partitions");
        if partitions >= 40 {
            assert!(ranges >= 4, "{ranges} ranges for {partitions} partitions");
        }
        let given = table
            .parallel_scan(Query::new())
            .split_at(["O", "Z", "東", "b"]);
        assert_eq!(scanned(given).await.0, expected);
    }
}

pub async fn a_filter_holds_in_every_range(client: &TableServiceClient) {
    let table = filled(client, 20, 5).await;
    let score: Column<DynamicEntity, i32> = Column::dynamic("Score");
    let query = Query::new().filter(score.lt(37));
    let expected = serial(&table, query.clone()).await;
    assert_eq!(expected.len(), 37);
    let scan = table.parallel_scan(query).sampled_ranges(6).unwrap();
    assert_eq!(scanned(scan).await.0, expected);
}

pub async fn shards_of_one_plan_cover_the_table_without_overlap(client: &TableServiceClient) {
    let table = filled(client, 30, 2).await;
    let expected = serial(&table, Query::new()).await;
    let plan = table
        .parallel_scan(Query::new())
        .sampled_ranges(7)
        .unwrap()
        .plan()
        .await
        .unwrap();
    let mut union = Keys::new();
    for index in 0..3 {
        let shard = table
            .parallel_scan(Query::new())
            .resume(plan.clone())
            .shard(index, 3)
            .unwrap();
        for key in scanned(shard).await.0 {
            assert!(union.insert(key.clone()), "{key:?} in two shards");
        }
    }
    assert_eq!(union, expected);
    assert!(table.parallel_scan(Query::new()).shard(3, 3).is_err());
}

pub async fn a_resumed_scan_reads_the_rest_exactly_once(client: &TableServiceClient) {
    let table = filled(client, 12, 10).await;
    let expected = serial(&table, Query::new()).await;
    // Pages of 7, so ranges stop midway.
    let query = || Query::new().top(7).unwrap();
    let scan = table.parallel_scan(query()).concurrency(2).unwrap();
    let mut checkpoint: ScanCheckpoint = scan.plan().await.unwrap();
    let mut pages = table
        .parallel_scan(query())
        .resume(checkpoint.clone())
        .concurrency(2)
        .unwrap()
        .pages();
    let mut keys = Keys::new();
    for _ in 0..5 {
        let page = pages.try_next().await.unwrap().expect("more pages");
        keys.extend(keys_of(page.page.entities()));
        checkpoint.record(&page);
    }
    drop(pages); // stopped, as by Ctrl-C, with pages read ahead and dropped
    assert!(!checkpoint.is_complete());
    let saved = serde_json::to_string(&checkpoint).unwrap();
    let resumed = table
        .parallel_scan(query())
        .resume(serde_json::from_str(&saved).unwrap());
    for key in scanned(resumed).await.0 {
        assert!(
            keys.insert(key.clone()),
            "{key:?} read before and after the resume"
        );
    }
    assert_eq!(keys, expected);
}

on_servers!(
    probed_and_given_ranges_read_every_entity_once,
    a_filter_holds_in_every_range,
    shards_of_one_plan_cover_the_table_without_overlap,
    a_resumed_scan_reads_the_rest_exactly_once,
);
