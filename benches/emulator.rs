//! The in-process emulator's speed: start-up (the issue asks for well under 20 ms), and one
//! upsert and one point get through tablekit's client over real HTTP.
//!
//! `cargo bench --bench emulator`; compare runs with criterion's saved baselines
//! (`-- --save-baseline before` / `-- --baseline before`).

// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion};
use tablekit::client::{Table, TableServiceClient};
use tablekit::DynamicEntity;
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

criterion_group! {
    name = benches;
    config = Criterion::default();
    targets = start, round_trips
}
criterion_main!(benches);
