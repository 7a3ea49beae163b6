//! What persistence costs, measured on 1 KB entities (twelve properties: four strings, one of
//! 400 characters, Int32, Int64, Double, Bool, DateTime, Guid, Binary): single inserts in
//! rounds that alternate the in-memory emulator (the baseline) and one with `persist_to`,
//! then 100-operation batches on each, side by side in one run, then the size of the data
//! directory and the time a restart on it takes:
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

/// Rounds of single inserts, the in-memory and the persisted emulator taking turns, so both
/// meet the same conditions on a machine whose speed drifts.
const ROUNDS: usize = 5;

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
        alternating_single_inserts().await;
        let baseline = Emulator::start().await.unwrap();
        println!("in memory:");
        batched_phase(&baseline, batched).await;
        baseline.shutdown().await;
        persisted(batched).await;
    });
}

/// [`ROUNDS`] rounds of single inserts into a fresh emulator in memory, then into a fresh
/// persisted one; each rate, the medians, and the median of the rounds' ratios.
async fn alternating_single_inserts() {
    let (mut memory, mut persisted, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for round in 1..=ROUNDS {
        let baseline = Emulator::start().await.unwrap();
        let in_memory = single_inserts(&baseline).await;
        baseline.shutdown().await;
        let dir = tempfile::tempdir().unwrap();
        let emulator = persisted_on(dir.path()).await;
        let durable = single_inserts(&emulator).await;
        emulator.shutdown().await;
        println!(
            "round {round}: single inserts ({IN_FLIGHT} in flight) {in_memory:.0} ops/s in memory, \
             {durable:.0} persisted ({:.0}%)",
            100.0 * durable / in_memory
        );
        memory.push(in_memory);
        persisted.push(durable);
        ratios.push(durable / in_memory);
    }
    println!(
        "single inserts, medians of {ROUNDS} rounds: {:.0} ops/s in memory, {:.0} persisted; \
         persisted at {:.0}% of in memory (median of the rounds' ratios)",
        median(&mut memory),
        median(&mut persisted),
        100.0 * median(&mut ratios)
    );
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// [`SINGLE_INSERTS`] single inserts into a new table, [`IN_FLIGHT`] at a time: ops/s.
async fn single_inserts(emulator: &Emulator) -> f64 {
    let table: Table = emulator.client().table_named("Singles");
    table.create().await.unwrap();
    let single = |i: usize| {
        let table = table.clone();
        async move { table.insert(&mut entity(&format!("s{}", i % 10), i)).await }
    };
    in_flight(SINGLE_INSERTS, SINGLE_INSERTS, single).await
}

/// An emulator persisted to `dir`.
async fn persisted_on(dir: &Path) -> Emulator {
    Emulator::builder().persist_to(dir).start().await.unwrap()
}

/// The batched phase with `persist_to`, then two restarts on what it stored.
async fn persisted(batched: usize) {
    let dir = tempfile::tempdir().unwrap();
    let emulator = persisted_on(dir.path()).await;
    println!("persisted:");
    batched_phase(&emulator, batched).await;
    println!(
        "data directory with {batched} entities, while running: {:.1} MiB",
        mib(dir_size(dir.path()))
    );
    emulator.shutdown().await;

    for restart in 1..=2 {
        let started = Instant::now();
        let emulator = persisted_on(dir.path()).await;
        println!(
            "start-up {restart} on {batched} entities: {:.2} s; data directory {:.1} MiB",
            started.elapsed().as_secs_f64(),
            mib(dir_size(dir.path()))
        );
        assert_eq!(emulator.entities("Bench").unwrap().len(), batched);
        emulator.shutdown().await;
    }
}

/// `batched` entities in 100-operation batches, into a new table.
async fn batched_phase(emulator: &Emulator, batched: usize) {
    let client = emulator.client();
    let table: Table = client.table_named("Bench");
    table.create().await.unwrap();

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
