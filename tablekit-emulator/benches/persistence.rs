//! What persistence costs, measured on 1 KB entities (twelve properties: four strings, one of
//! 400 characters, Int32, Int64, Double, Bool, DateTime, Guid, Binary): single inserts and
//! 100-operation batches on the in-memory emulator (the baseline) and with `persist_to`, side
//! by side in one run, then the size of the data directory and the time a restart on it takes:
//!
//! ```text
//! cargo bench -p tablekit-emulator --bench persistence
//! ```
//!
//! `PERSIST_BENCH_ENTITIES` sets how many entities the batched phase stores (default 100000).

use std::path::Path;
use std::time::Instant;

use futures::{stream, StreamExt, TryStreamExt};
use tablekit::client::Table;
use tablekit::DynamicEntity;
use tablekit_emulator::Emulator;

const SINGLE_INSERTS: usize = 10_000;
const IN_FLIGHT: usize = 8;

/// An entity of about 1 KB of JSON.
fn entity(partition: &str, row: usize) -> DynamicEntity {
    let mut e = DynamicEntity::new(partition, format!("{row:08}"));
    e.set("Name", format!("player-{row}"));
    e.set("Email", format!("player-{row}@example.com"));
    e.set("City", "Reykjavik");
    e.set("Bio", "x".repeat(400));
    e.set("Score", (row % 1000) as i32);
    e.set("Total", row as i64 * 1_000_003);
    e.set("Ratio", row as f64 / 7.0);
    e.set("Active", row % 3 == 0);
    e.set("Joined", chrono::Utc::now());
    e.set("Id", uuid::Uuid::from_u128(row as u128));
    e.set("Blob", vec![7u8; 200]);
    e.set("Note", "y".repeat(100));
    e
}

fn dir_size(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().len())
        .sum()
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

fn main() {
    let batched: usize = std::env::var("PERSIST_BENCH_ENTITIES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(100_000);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    println!(
        "1 KB entity: {} bytes of JSON",
        tablekit::codec::encode_entity(&entity("p", 0)).len()
    );
    runtime.block_on(async {
        let baseline = Emulator::start().await.unwrap();
        println!("in memory:");
        write_phases(&baseline, batched).await;
        baseline.shutdown().await;
        persisted(batched).await;
    });
}

/// The write phases with `persist_to`, then two restarts on what they stored.
async fn persisted(batched: usize) {
    let dir = tempfile::tempdir().unwrap();
    let emulator = Emulator::builder()
        .persist_to(dir.path())
        .start()
        .await
        .unwrap();
    println!("persisted:");
    write_phases(&emulator, batched).await;
    let stored = SINGLE_INSERTS + batched;
    println!(
        "data directory with {stored} entities, while running: {:.1} MiB",
        mib(dir_size(dir.path()))
    );
    emulator.shutdown().await;

    for restart in 1..=2 {
        let started = Instant::now();
        let emulator = Emulator::builder()
            .persist_to(dir.path())
            .start()
            .await
            .unwrap();
        println!(
            "start-up {restart} on {stored} entities: {:.2} s; data directory {:.1} MiB",
            started.elapsed().as_secs_f64(),
            mib(dir_size(dir.path()))
        );
        assert_eq!(emulator.entities("Bench").unwrap().len(), stored);
        emulator.shutdown().await;
    }
}

/// Single inserts, then `batched` entities in 100-operation batches, into a new table.
async fn write_phases(emulator: &Emulator, batched: usize) {
    let client = emulator.client();
    let table: Table = client.table_named("Bench");
    table.create().await.unwrap();
    let single = |i: usize| {
        let table = table.clone();
        async move { table.insert(&mut entity(&format!("s{}", i % 10), i)).await }
    };
    let rate = in_flight(SINGLE_INSERTS, SINGLE_INSERTS, single).await;
    println!("single inserts ({IN_FLIGHT} in flight): {rate:.0} ops/s");

    let batch = |b: usize| {
        let table = table.clone();
        async move {
            let mut batch = table.batch();
            for i in 0..100 {
                batch.insert(&entity(&format!("b{b}"), i))?;
            }
            batch.submit().await.map(|_| ())
        }
    };
    let rate = in_flight(batched / 100, batched, batch).await;
    println!("batched inserts (100/batch, {IN_FLIGHT} in flight): {rate:.0} ops/s");
}

/// Runs `request(0..requests)` with [`IN_FLIGHT`] at a time; entities written per second.
async fn in_flight<F>(requests: usize, entities: usize, request: impl Fn(usize) -> F) -> f64
where
    F: std::future::Future<Output = tablekit::Result<()>>,
{
    let started = Instant::now();
    stream::iter(0..requests)
        .map(request)
        .buffer_unordered(IN_FLIGHT)
        .try_for_each(|()| async { Ok(()) })
        .await
        .unwrap();
    entities as f64 / started.elapsed().as_secs_f64()
}
