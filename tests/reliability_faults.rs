//! Workload W1 (sized for CI) against the emulator with 10% of requests failing, through the
//! client's default retry policy.
//!
//! A ledger records what the caller was told for every write. Afterwards the table is read
//! straight from the emulator's store (not through the client under test) and checked:
//! every write reported as succeeded is present exactly once with the written content, a
//! transaction reported as failed is either wholly applied (its answer was lost) or not at
//! all, a retried insert never produced a second copy, and nothing appears that was never
//! written.

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use futures::{stream, StreamExt};
use tablekit::client::{Table, TableServiceClient};
use tablekit::{DynamicEntity, Query};
use tablekit_testing::{Emulator, Fault, Faults, Operation};

const SINGLE_INSERTS: usize = 400;
const PARTITIONS: usize = 10;
const BATCHES: usize = 20;
const BATCH_SIZE: usize = 100;
const POINT_GETS: usize = 200;
const IN_FLIGHT: usize = 8;

/// 10% of requests fail, spread over every kind of fault the emulator can inject.
fn ten_percent_faults(seed: u64) -> Faults {
    Faults::seeded(seed)
        .rate(Fault::InternalError, 0.02)
        .rate(Fault::ServerBusy, 0.02)
        .rate(Fault::Timeout, 0.015)
        .rate(Fault::DropConnection, 0.015)
        .rate(Fault::AppliedThenDropped, 0.015)
        .rate(Fault::AppliedThenInternalError, 0.015)
        // A held request outlives the client's timeout, so the client sees a timeout.
        .hold(Duration::from_millis(2500))
}

fn client_for(emulator: &Emulator) -> TableServiceClient {
    TableServiceClient::builder()
        .connection_string(&emulator.connection_string())
        // Long enough for a 100-operation transaction on a loaded machine, so the only
        // timeouts are the injected ones.
        .timeout(Duration::from_secs(2))
        .build()
        .expect("client for the emulator")
}

/// Each entity carries its own keys in a property, so a misplaced write is visible.
fn entity(partition: &str, row: usize) -> DynamicEntity {
    let mut e = DynamicEntity::new(partition, format!("{row:08}"));
    e.set("Origin", format!("{partition}/{row:08}"));
    e.set("Score", (row % 1000) as i32);
    e.set("Total", row as i64 * 1_000_003);
    e
}

/// What the caller was told about one write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Told {
    Succeeded,
    Failed,
}

/// One group of entities written together: a single insert or a transaction.
struct Write {
    keys: Vec<(String, String)>,
    told: Told,
    error: Option<String>,
}

#[derive(Default)]
struct Ledger {
    writes: Vec<Write>,
}

impl Ledger {
    fn record(&mut self, keys: Vec<(String, String)>, result: tablekit::Result<()>) {
        let (told, error) = match result {
            Ok(()) => (Told::Succeeded, None),
            Err(e) => (Told::Failed, Some(e.to_string())),
        };
        self.writes.push(Write { keys, told, error });
    }
}

async fn single_inserts(table: &Table, ledger: &mut Ledger) {
    let results: Vec<_> = stream::iter(0..SINGLE_INSERTS)
        .map(|i| async move {
            let mut e = entity(&format!("p{}", i % PARTITIONS), i);
            let keys = vec![(e.partition_key().to_owned(), e.row_key().to_owned())];
            (keys, table.insert(&mut e).await)
        })
        .buffer_unordered(IN_FLIGHT)
        .collect()
        .await;
    for (keys, result) in results {
        ledger.record(keys, result);
    }
}

async fn batched_inserts(table: &Table, ledger: &mut Ledger) {
    let results: Vec<_> = stream::iter(0..BATCHES)
        .map(|b| async move {
            let partition = format!("b{b}");
            let mut batch = table.batch();
            let mut keys = Vec::new();
            for i in 0..BATCH_SIZE {
                let e = entity(&partition, i);
                keys.push((partition.clone(), e.row_key().to_owned()));
                batch.insert(&e).expect("a valid transaction");
            }
            (keys, batch.submit().await.map(|_| ()))
        })
        .buffer_unordered(IN_FLIGHT)
        .collect()
        .await;
    for (keys, result) in results {
        ledger.record(keys, result);
    }
}

/// The read phases of W1 under faults: they must succeed through retries.
async fn reads(table: &Table, expected_at_least: usize) {
    let scanned = table
        .query_all()
        .count()
        .await
        .expect("a full scan survives 10% faults");
    assert!(scanned >= expected_at_least, "scan saw {scanned}");

    let found: Vec<bool> = stream::iter(0..POINT_GETS)
        .map(|i| async move {
            let row = (i * 7) % SINGLE_INSERTS;
            table
                .get(&format!("p{}", row % PARTITIONS), &format!("{row:08}"))
                .await
                .map(|e| e.is_some())
        })
        .buffer_unordered(IN_FLIGHT)
        .map(|r| r.expect("point gets survive 10% faults"))
        .collect()
        .await;
    assert_eq!(found.len(), POINT_GETS);

    let filtered = table
        .query(Query::new().filter_raw("Score lt 100"))
        .count()
        .await
        .expect("a filtered query survives 10% faults");
    assert!(filtered > 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn w1_with_ten_percent_faults_keeps_every_reported_write_exactly_once() {
    let emulator = Emulator::start().await.expect("emulator");
    let test_table = emulator.unique_table("Faults").expect("table");
    let client = client_for(&emulator);
    let table: Table = client.table_named(test_table.name());

    emulator.set_faults(Some(ten_percent_faults(2026)));
    let mut ledger = Ledger::default();
    single_inserts(&table, &mut ledger).await;
    batched_inserts(&table, &mut ledger).await;
    let reported_ok: usize = ledger
        .writes
        .iter()
        .filter(|w| w.told == Told::Succeeded)
        .map(|w| w.keys.len())
        .sum();
    reads(&table, reported_ok).await;
    let requests = emulator.requests();
    emulator.set_faults(None);

    let stored = test_table.entities().expect("stored entities");
    let report = check(&ledger, &stored);
    println!(
        "W1 under 10% faults: {} requests; writes told succeeded {}, told failed {} \
         (of which applied {}, not applied {}); entities stored {}",
        requests.total(),
        report.succeeded,
        report.failed,
        report.failed_applied,
        report.failed_not_applied,
        stored.len()
    );
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    for w in ledger.writes.iter().filter(|w| w.told == Told::Failed) {
        let reason = w
            .error
            .as_deref()
            .unwrap_or("")
            .split(" (request id")
            .next();
        *reasons.entry(reason.unwrap_or("").to_owned()).or_default() += 1;
    }
    for (reason, n) in &reasons {
        println!("  told failed x{n}: {reason}");
    }
    // The faults really happened: more requests than the workload's own count.
    let workload_requests = (SINGLE_INSERTS + BATCHES + POINT_GETS) as u64;
    assert!(
        requests.total() > workload_requests,
        "no retries seen: {requests:?}"
    );
    assert!(requests.count(Operation::Insert) > SINGLE_INSERTS as u64);
}

struct Report {
    succeeded: usize,
    failed: usize,
    failed_applied: usize,
    failed_not_applied: usize,
}

/// Checks the ledger against the stored entities; panics naming the first violation.
fn check(ledger: &Ledger, stored: &[DynamicEntity]) -> Report {
    let mut copies: HashMap<(String, String), usize> = HashMap::new();
    for e in stored {
        *copies
            .entry((e.partition_key().to_owned(), e.row_key().to_owned()))
            .or_default() += 1;
        let origin: Option<String> = e.get("Origin");
        assert_eq!(
            origin.as_deref(),
            Some(format!("{}/{}", e.partition_key(), e.row_key()).as_str()),
            "stored content does not match its keys"
        );
    }
    let duplicates: BTreeMap<_, _> = copies.iter().filter(|(_, n)| **n > 1).collect();
    assert!(duplicates.is_empty(), "duplicated entities: {duplicates:?}");

    let mut report = Report {
        succeeded: 0,
        failed: 0,
        failed_applied: 0,
        failed_not_applied: 0,
    };
    let mut written = 0;
    for w in &ledger.writes {
        written += w.keys.len();
        let present = w.keys.iter().filter(|k| copies.contains_key(*k)).count();
        match w.told {
            Told::Succeeded => {
                report.succeeded += 1;
                assert_eq!(present, w.keys.len(), "a write told succeeded is missing");
            }
            Told::Failed => {
                report.failed += 1;
                assert!(
                    present == 0 || present == w.keys.len(),
                    "a failed transaction is half-applied: {present} of {} ({:?})",
                    w.keys.len(),
                    w.error
                );
                if present == 0 {
                    report.failed_not_applied += 1;
                } else {
                    report.failed_applied += 1;
                }
            }
        }
    }
    assert_eq!(written, SINGLE_INSERTS + BATCHES * BATCH_SIZE);
    let ledger_keys: std::collections::HashSet<_> =
        ledger.writes.iter().flat_map(|w| w.keys.iter()).collect();
    let phantoms = copies.keys().filter(|k| !ledger_keys.contains(k)).count();
    assert_eq!(phantoms, 0, "entities nobody wrote");
    report
}
