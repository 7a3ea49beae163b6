//! The bulk writer's pacing against an emulator that throttles as Azure does (503 Server Busy
//! past a partition's or the account's rate; 429 with `x-ms-retry-after-ms` as Cosmos DB):
//! every entity is applied once, few requests are refused, and a hot partition slows only
//! itself. (The writer's correctness without throttling runs on every server in `patterns`.)

use std::time::Duration;

use futures::TryStreamExt;
use tablekit::limits::Flavor;
use tablekit::patterns::bulk::{BulkWriter, WriteOp};
use tablekit::patterns::progress::Progress;
use tablekit::DynamicEntity;
use tablekit_testing::{Emulator, Throttle};

/// An emulator serving `partition` entities a second per partition and `account` in all.
async fn throttled(partition: u32, account: u32, flavor: Flavor) -> Emulator {
    let throttle = Throttle::azure()
        .with_partition_rate(partition)
        .with_account_rate(account)
        .with_burst(Duration::from_millis(50));
    Emulator::builder()
        .throttle(throttle)
        .flavor(flavor)
        .start()
        .await
        .expect("start the emulator")
}

/// Inserts of `count` entities, 100 to a partition in turn over `partitions` partitions.
fn inserts(table: &str, count: usize, partitions: usize) -> Vec<WriteOp> {
    (0..count)
        .map(|i| {
            let mut e =
                DynamicEntity::new(format!("p{:03}", (i / 100) % partitions), format!("{i:06}"));
            e.set("Data", "x".repeat(200));
            WriteOp::insert(table, e)
        })
        .collect()
}

async fn stored(emulator: &Emulator, table: &str) -> Vec<DynamicEntity> {
    emulator
        .client()
        .table_named::<DynamicEntity>(table)
        .query_all()
        .entities()
        .try_collect()
        .await
        .expect("read back")
}

/// Loads 8,000 entities into a service taking 4,000 a second, as Azure Storage and as Cosmos
/// DB answer throttling: all applied once, and refusals stay a small share of the requests.
async fn a_throttled_load_is_applied_once(flavor: Flavor) {
    let emulator = throttled(1_000, 4_000, flavor).await;
    let client = emulator.client();
    client.create_table("Load").await.expect("create");
    let last = std::sync::Arc::new(std::sync::Mutex::new(None));
    let seen = std::sync::Arc::clone(&last);
    let writer = BulkWriter::new(&client).progress(move |p: &Progress| {
        *seen.lock().unwrap() = Some(p.clone());
    });
    let report = writer.write_iter(inserts("Load", 8_000, 40)).await;
    assert!(report.is_complete(), "{:?}", report.failures().next());
    let refused = emulator.throttled().total(); // before reading back, which counts too
    assert_eq!(stored(&emulator, "Load").await.len(), 8_000);
    assert!(
        refused > 0,
        "the load never met the throttle: it tested nothing"
    );
    assert_eq!(
        report.throttled(),
        refused,
        "every refusal seen and counted"
    );
    // Most refusals come at the start, before a rate is known: over 80 transactions, under
    // a third (a writer that kept 32 in flight would see most refused).
    let requests = report.transactions().len() as u64 + report.retried();
    assert!(
        refused * 100 <= requests * 30,
        "{refused} of {requests} requests refused"
    );
    let progress = last.lock().unwrap().clone().expect("reported");
    assert_eq!(
        (progress.items(), progress.throttled(), progress.failed()),
        (8_000, refused, 0)
    );
    assert!(
        writer.rates().overall.is_some(),
        "the overall rate was found"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_load_throttled_as_azure_storage_does_is_applied_once() {
    a_throttled_load_is_applied_once(Flavor::Storage).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_load_throttled_as_cosmos_does_is_applied_once() {
    a_throttled_load_is_applied_once(Flavor::Cosmos).await;
}

/// One hot partition (1,500 entities, served at 500 a second) among 20 cold ones (150 each):
/// the hot one is paced at its own rate, and the cold ones finish while it is still loading.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hot_partition_slows_only_itself() {
    let emulator = throttled(500, 20_000, Flavor::Storage).await;
    let client = emulator.client();
    client.create_table("Hot").await.expect("create");
    let ops = (0..4_500).map(|i| {
        let (pk, rk) = match i % 3 {
            0 => ("hot".to_owned(), format!("{i:06}")),
            _ => (format!("cold{:02}", i % 20), format!("{i:06}")),
        };
        WriteOp::insert("Hot", DynamicEntity::new(pk, rk))
    });
    let writer = BulkWriter::new(&client);
    let report = writer.write_iter(ops).await;
    assert!(report.is_complete(), "{:?}", report.failures().next());
    let throttled = emulator.throttled();
    assert!(
        throttled.partition("Hot", "hot") > 0,
        "the hot partition was never refused"
    );
    let rates = writer.rates();
    let limited: Vec<&str> = rates
        .partitions
        .iter()
        .map(|((_, pk), _)| pk.as_str())
        .collect();
    // No cold partition is limited. The hot one ends with a rate of its own unless, on a
    // machine too busy to outrun its target again, only the overall rate ever came down:
    // the order of the stored rows below still shows that it alone was held back.
    assert!(
        limited.iter().all(|pk| *pk == "hot"),
        "only the hot partition has a rate of its own: {limited:?}"
    );
    assert!(
        rates.partitions.iter().all(|(_, rate)| *rate < 1_000.0),
        "{:?}",
        rates.partitions
    );

    // By the time the last cold entity was stored, most hot ones were still to come.
    let rows = stored(&emulator, "Hot").await;
    assert_eq!(rows.len(), 4_500);
    let at = |e: &DynamicEntity| e.timestamp().expect("stored rows have a Timestamp");
    let cold_done = rows
        .iter()
        .filter(|e| e.partition_key() != "hot")
        .map(at)
        .max()
        .expect("cold rows");
    let hot_after = rows
        .iter()
        .filter(|e| e.partition_key() == "hot" && at(e) > cold_done)
        .count();
    assert!(
        hot_after >= 750,
        "only {hot_after} of 1,500 hot entities came after the cold ones"
    );
}
