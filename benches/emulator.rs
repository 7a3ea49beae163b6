//! The in-process emulator's speed: start-up (meant to stay well under 20 ms), one
//! upsert and one point get through tablekit's client over real HTTP, and a narrow RowKey
//! range in a 100,000-entity partition read by a range seek and, side by side, by the same
//! query written so the seek cannot apply (`not (RowKey lt ..)`): a scan of the partition.
//!
//! `cargo bench --bench emulator`; compare runs with criterion's saved baselines
//! (`-- --save-baseline before` / `-- --baseline before`).

// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion};
use tablekit::client::{Table, TableServiceClient};
use tablekit::{DynamicEntity, Query};
use tablekit_testing::Emulator;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

fn start(c: &mut Criterion) {
    let rt = runtime();
    c.bench_function("emulator start and shutdown", |b| {
        b.iter(|| {
            rt.block_on(async {
                let emulator = Emulator::start().await.expect("start");
                emulator.shutdown().await;
            })
        })
    });
}

fn round_trips(c: &mut Criterion) {
    let rt = runtime();
    let (emulator, table) = rt.block_on(async {
        let emulator = Emulator::start().await.expect("start");
        let client = TableServiceClient::from_connection_string(&emulator.connection_string())
            .expect("connection string");
        let table: Table = client.table_named("Bench");
        table.create().await.expect("create");
        (emulator, table)
    });
    let mut entity = DynamicEntity::new("p", "r");
    entity.set("Name", "player");
    entity.set("Score", 42);
    c.bench_function("upsert over HTTP", |b| {
        b.iter(|| {
            rt.block_on(table.upsert_replace(&mut entity))
                .expect("upsert")
        })
    });
    c.bench_function("point get over HTTP", |b| {
        b.iter(|| rt.block_on(table.get("p", "r")).expect("get"))
    });
    drop(emulator);
}

/// Entities in the partition the range benchmarks read.
const PARTITION_SIZE: usize = 100_000;

fn row_range(c: &mut Criterion) {
    let rt = runtime();
    let (emulator, table) = rt.block_on(async {
        let emulator = Emulator::start().await.expect("start");
        emulator.create_table("Ranges").expect("create");
        let rows = (0..PARTITION_SIZE).map(|n| {
            let mut e = DynamicEntity::new("p", format!("{n:08}"));
            e.set("N", n as i32);
            e
        });
        emulator.seed("Ranges", rows).expect("seed");
        let client = TableServiceClient::from_connection_string(&emulator.connection_string())
            .expect("connection string");
        (emulator, client.table_named::<DynamicEntity>("Ranges"))
    });
    // The same 100 rows from the middle of the partition, both ways.
    let seek = "PartitionKey eq 'p' and RowKey ge '00050000' and RowKey lt '00050100'";
    let scan = "PartitionKey eq 'p' and not (RowKey lt '00050000') and not (RowKey ge '00050100')";
    let mut group = c.benchmark_group("100 rows of a 100k-entity partition");
    for (name, filter) in [("range seek", seek), ("partition scan", scan)] {
        group.bench_function(name, |b| {
            b.iter(|| {
                let q = Query::<DynamicEntity>::new().filter_raw(filter);
                let rows = rt.block_on(table.query(q).collect_all()).expect("query");
                assert_eq!(rows.len(), 100);
            })
        });
    }
    group.finish();
    drop(emulator);
}

criterion_group! {
    name = benches;
    config = Criterion::default();
    targets = start, round_trips, row_range
}
criterion_main!(benches);
