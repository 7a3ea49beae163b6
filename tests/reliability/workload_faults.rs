//! Workload W1 (sized for CI) against the emulator with 10% of requests failing, through the
//! client's retries; then transactions alone under lost answers, in a replayable order.
//!
//! A ledger records what the caller was told for every write. Afterwards the table is read
//! straight from the emulator's store (not through the client under test) and checked:
//! every write reported as succeeded is present exactly once with the written content, a
//! transaction reported as failed is either wholly applied (its answer was lost) or not at
//! all, a retried insert never produced a second copy, and nothing appears that was never
//! written. A write whose answer was lost after it was applied must be reported applied
//! where the client can prove it (no transaction may be applied yet reported failed), and
//! any write reported failed that was in fact applied must say it may have been
//! (`may_have_been_applied`).

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use futures::{stream, StreamExt};
use tablekit::client::{BatchOutcome, RetryPolicy, Table, TableServiceClient};
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
    emulator
        .client_builder()
        // Long enough for a 100-operation transaction on a loaded machine, so the only
        // timeouts are the injected ones.
        .timeout(Duration::from_secs(2))
        // Six attempts: with 10% of requests failing, a write (or a row the client re-reads
        // to settle a lost answer) fails every attempt once in a million, not once in ten
        // thousand, so an applied transaction is reported applied in every run.
        .retry_policy(RetryPolicy::default().max_attempts(6))
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
    transaction: bool,
    told: Told,
    error: Option<String>,
    /// The transaction's answer was lost and a re-read established that it was applied.
    verified: bool,
    /// The error's `may_have_been_applied`.
    may_have_been_applied: bool,
    /// The error's `after_uncertain_attempt`.
    after_uncertain_attempt: bool,
}

#[derive(Default)]
struct Ledger {
    writes: Vec<Write>,
}

impl Ledger {
    fn record(&mut self, keys: Vec<(String, String)>, result: tablekit::Result<()>) {
        self.push(keys, false, result.map(|()| false));
    }

    fn record_transaction(
        &mut self,
        keys: Vec<(String, String)>,
        result: tablekit::Result<BatchOutcome>,
    ) {
        self.push(keys, true, result.map(|outcome| outcome.verified()));
    }

    fn push(
        &mut self,
        keys: Vec<(String, String)>,
        transaction: bool,
        result: tablekit::Result<bool>,
    ) {
        let mut write = Write {
            keys,
            transaction,
            told: Told::Succeeded,
            error: None,
            verified: false,
            may_have_been_applied: false,
            after_uncertain_attempt: false,
        };
        match result {
            Ok(verified) => write.verified = verified,
            Err(e) => {
                write.told = Told::Failed;
                write.may_have_been_applied = e.may_have_been_applied();
                write.after_uncertain_attempt = e.after_uncertain_attempt();
                write.error = Some(e.to_string());
            }
        }
        self.writes.push(write);
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
            (keys, batch.submit().await)
        })
        .buffer_unordered(IN_FLIGHT)
        .collect()
        .await;
    for (keys, result) in results {
        ledger.record_transaction(keys, result);
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
    let report = check(&ledger, &stored, SINGLE_INSERTS + BATCHES * BATCH_SIZE);
    println!(
        "W1 under 10% faults: {} requests; entities stored {}",
        requests.total(),
        stored.len()
    );
    report.print(&ledger);
    report.assert_every_applied_transaction_reported_applied();
    // The faults really happened: more requests than the workload's own count.
    let workload_requests = (SINGLE_INSERTS + BATCHES + POINT_GETS) as u64;
    assert!(
        requests.total() > workload_requests,
        "no retries seen: {requests:?}"
    );
    assert!(requests.count(Operation::Insert) > SINGLE_INSERTS as u64);
}

/// Transactions sent one after the other, each of these inserts.
const SEQUENTIAL_TRANSACTIONS: usize = 40;
const SEQUENTIAL_SIZE: usize = 20;
/// Single inserts sent one after the other.
const SEQUENTIAL_INSERTS: usize = 100;

/// Only writes fail, 35% of attempts, most of them applied before their answer is lost.
/// Reads are untouched and draw nothing, and the writes are sent one at a time, so every run
/// meets the same faults in the same places.
fn lost_write_answers(seed: u64) -> Faults {
    Faults::seeded(seed)
        .rate(Fault::AppliedThenDropped, 0.15)
        .rate(Fault::AppliedThenInternalError, 0.10)
        .rate(Fault::DropConnection, 0.05)
        .rate(Fault::ServerBusy, 0.05)
        .only(&[Operation::Batch, Operation::Insert])
}

fn sequential_client(emulator: &Emulator, attempts: u32) -> TableServiceClient {
    emulator
        .client_builder()
        .retry_policy(
            RetryPolicy::default()
                .max_attempts(attempts)
                .base_delay(Duration::from_millis(1))
                .max_delay(Duration::from_millis(20)),
        )
        .build()
        .expect("client for the emulator")
}

async fn sequential_transactions(table: &Table, ledger: &mut Ledger) {
    for b in 0..SEQUENTIAL_TRANSACTIONS {
        let partition = format!("t{b}");
        let mut batch = table.batch();
        let mut keys = Vec::new();
        for i in 0..SEQUENTIAL_SIZE {
            let e = entity(&partition, i);
            keys.push((partition.clone(), e.row_key().to_owned()));
            batch.insert(&e).expect("a valid transaction");
        }
        ledger.record_transaction(keys, batch.submit().await);
    }
}

async fn sequential_inserts(table: &Table, ledger: &mut Ledger) {
    for i in 0..SEQUENTIAL_INSERTS {
        let mut e = entity("s", i);
        let keys = vec![(e.partition_key().to_owned(), e.row_key().to_owned())];
        ledger.record(keys, table.insert(&mut e).await);
    }
}

/// Runs `phases` one write at a time through a client with `attempts` attempts per request,
/// under [`lost_write_answers`]; checks and prints the ledger.
async fn one_at_a_time(attempts: u32, inserts: bool) -> Report {
    let emulator = Emulator::start().await.expect("emulator");
    let test_table = emulator.unique_table("LostAnswers").expect("table");
    let client = sequential_client(&emulator, attempts);
    let table: Table = client.table_named(test_table.name());
    emulator.set_faults(Some(lost_write_answers(7)));
    let mut ledger = Ledger::default();
    sequential_transactions(&table, &mut ledger).await;
    if inserts {
        sequential_inserts(&table, &mut ledger).await;
    }
    let requests = emulator.requests();
    emulator.set_faults(None);

    let stored = test_table.entities().expect("stored entities");
    let written =
        SEQUENTIAL_TRANSACTIONS * SEQUENTIAL_SIZE + if inserts { SEQUENTIAL_INSERTS } else { 0 };
    let report = check(&ledger, &stored, written);
    println!(
        "writes one at a time, 35% of write attempts failing, {attempts} attempts each: {} \
         requests",
        requests.total()
    );
    report.print(&ledger);
    report
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn transactions_whose_answer_was_lost_are_reported_applied() {
    // Ten attempts outlast the faults: every transaction gets an answer in the end.
    let report = one_at_a_time(10, false).await;
    assert!(
        report.verified > 0,
        "no transaction lost its answer after it was applied: the case was not exercised"
    );
    report.assert_every_applied_transaction_reported_applied();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_out_of_attempts_after_a_lost_answer_say_they_may_have_been_applied() {
    // Two attempts do not: some writes are applied, then every answer is lost. `check`
    // asserts that each such write's error says it may have been applied.
    let report = one_at_a_time(2, true).await;
    assert!(
        report.failed_applied > 0,
        "no applied write was reported failed: the case was not exercised"
    );
}

/// What the ledger and the store say together.
struct Report {
    succeeded: usize,
    /// Transactions told succeeded after a lost answer, established by a re-read.
    verified: usize,
    failed: usize,
    /// Writes told failed although applied, each saying it may have been.
    failed_applied: usize,
    /// Of those, the ones whose error also came after an uncertain attempt.
    failed_applied_after_uncertain: usize,
    /// Transactions told failed although applied: there must be none.
    failed_applied_transactions: usize,
    failed_not_applied: usize,
}

impl Report {
    fn print(&self, ledger: &Ledger) {
        println!(
            "  writes told succeeded {} (transactions applied, answer lost, reported applied \
             after a re-read: {}); told failed {}: applied {} (all saying they may have been, \
             {} after an uncertain attempt; transactions {}), not applied {}",
            self.succeeded,
            self.verified,
            self.failed,
            self.failed_applied,
            self.failed_applied_after_uncertain,
            self.failed_applied_transactions,
            self.failed_not_applied,
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
    }

    fn assert_every_applied_transaction_reported_applied(&self) {
        assert_eq!(
            self.failed_applied_transactions, 0,
            "transactions applied but reported failed"
        );
    }
}

/// Checks the ledger against the stored entities (`written` entities in all); panics naming
/// the first violation.
fn check(ledger: &Ledger, stored: &[DynamicEntity], written: usize) -> Report {
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
        verified: 0,
        failed: 0,
        failed_applied: 0,
        failed_applied_after_uncertain: 0,
        failed_applied_transactions: 0,
        failed_not_applied: 0,
    };
    let mut keys_written = 0;
    for w in &ledger.writes {
        keys_written += w.keys.len();
        let present = w.keys.iter().filter(|k| copies.contains_key(*k)).count();
        match w.told {
            Told::Succeeded => {
                report.succeeded += 1;
                report.verified += usize::from(w.verified);
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
                    continue;
                }
                assert!(
                    w.may_have_been_applied,
                    "a write told failed was applied, and its error does not say it may \
                     have been: {:?}",
                    w.error
                );
                report.failed_applied += 1;
                report.failed_applied_after_uncertain += usize::from(w.after_uncertain_attempt);
                report.failed_applied_transactions += usize::from(w.transaction);
            }
        }
    }
    assert_eq!(keys_written, written);
    let ledger_keys: std::collections::HashSet<_> =
        ledger.writes.iter().flat_map(|w| w.keys.iter()).collect();
    let phantoms = copies.keys().filter(|k| !ledger_keys.contains(k)).count();
    assert_eq!(phantoms, 0, "entities nobody wrote");
    report
}
