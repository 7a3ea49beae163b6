//! Workload W1 against a Table service endpoint: prints ops/s and this process's CPU time per
//! phase.
//!
//! ```text
//! cargo bench --bench w1                           # the in-process emulator
//! cargo bench --bench w1 -- "<connection string>"   # the emulator, then that service
//! ```
//!
//! With a connection string (or `TABLEKIT_AZURITE_CONNECTION_STRING` set, as
//! `scripts/azurite.sh start` prints), the same run measures both, in `W1_ROUNDS` rounds
//! (default 9) that alternate the two servers, and prints per phase each server's median
//! ops/s and how many times faster the emulator was.
//!
//! Phases: 2000 single inserts (8 in flight, 10 partitions), 10000 inserts in 100-operation
//! batches (8 in flight), a full scan with paging, 1000 point gets (8 in flight), one filtered
//! query. The workload is [`run_w1`], a function of a client, so any backend (Azurite, the
//! emulator, a real account) runs the same code. A fresh table is used and deleted afterwards.
//!
//! On the emulator a `server (s)` column also shows the time the emulator itself spent
//! answering ([`Emulator::busy_time`](tablekit_testing::Emulator::busy_time)); the rest of
//! the process's CPU time is the client's (request encoding, response decoding).

use std::time::{Duration, Instant};

use futures::{stream, StreamExt, TryStreamExt};
use tablekit::client::{Table, TableServiceClient};
use tablekit::{DynamicEntity, Query};

/// How many operations a phase ran, how long it took and how much CPU this process spent.
#[derive(Debug, Clone)]
pub struct PhaseReport {
    /// The phase's name.
    pub name: &'static str,
    /// Operations (entities for scans and queries).
    pub operations: usize,
    /// Wall-clock time.
    pub elapsed: Duration,
    /// User + system CPU time of this process during the phase (`None` where unknown).
    pub cpu: Option<Duration>,
    /// Time the in-process emulator spent answering during the phase (`None` elsewhere).
    pub server: Option<Duration>,
}

/// Reads a server's cumulative busy time (`None` when the server is not in this process).
pub type ServerProbe<'a> = &'a (dyn Fn() -> Option<Duration> + Sync);

impl PhaseReport {
    /// Operations per second of wall-clock time.
    pub fn ops_per_second(&self) -> f64 {
        self.operations as f64 / self.elapsed.as_secs_f64().max(f64::EPSILON)
    }
}

const SINGLE_INSERTS: usize = 2000;
const PARTITIONS: usize = 10;
const BATCHED_INSERTS: usize = 10_000;
const POINT_GETS: usize = 1000;
const IN_FLIGHT: usize = 8;

fn sample_entity(partition: &str, row: usize) -> DynamicEntity {
    let mut e = DynamicEntity::new(partition, format!("{row:08}"));
    e.set("Name", format!("player-{row}"));
    e.set("Score", (row % 1000) as i32);
    e.set("Total", row as i64 * 1_000_003);
    e.set("Ratio", row as f64 / 7.0);
    e.set("Active", row % 3 == 0);
    e.set("Joined", chrono::Utc::now());
    e
}

/// Runs W1 on a fresh table of `client` and reports each phase.
pub async fn run_w1(client: &TableServiceClient) -> tablekit::Result<Vec<PhaseReport>> {
    run_w1_probed(client, &|| None).await
}

/// Runs W1 like [`run_w1`], also reporting the server's busy time per phase from `probe`.
pub async fn run_w1_probed(
    client: &TableServiceClient,
    probe: ServerProbe<'_>,
) -> tablekit::Result<Vec<PhaseReport>> {
    let name = format!("w1{}", &uuid::Uuid::new_v4().simple().to_string()[..12]);
    let table: Table = client.table_named(&name);
    table.create().await?;
    let result = phases(&table, probe).await;
    table.delete_table().await?;
    result
}

async fn phases(table: &Table, probe: ServerProbe<'_>) -> tablekit::Result<Vec<PhaseReport>> {
    let mut reports = Vec::new();

    reports.push(
        measure("single inserts (8 in flight)", probe, || async {
            stream::iter(0..SINGLE_INSERTS)
                .map(|i| async move {
                    let mut e = sample_entity(&format!("p{}", i % PARTITIONS), i);
                    table.insert(&mut e).await
                })
                .buffer_unordered(IN_FLIGHT)
                .try_for_each(|()| async { Ok(()) })
                .await?;
            Ok(SINGLE_INSERTS)
        })
        .await?,
    );

    reports.push(
        measure(
            "batched inserts (100/batch, 8 in flight)",
            probe,
            || async {
                stream::iter(0..BATCHED_INSERTS / 100)
                    .map(|b| async move {
                        let mut batch = table.batch();
                        for i in 0..100 {
                            batch.insert(&sample_entity(&format!("b{b}"), i))?;
                        }
                        batch.submit().await.map(|_| ())
                    })
                    .buffer_unordered(IN_FLIGHT)
                    .try_for_each(|()| async { Ok(()) })
                    .await?;
                Ok(BATCHED_INSERTS)
            },
        )
        .await?,
    );

    reports.push(
        measure("full scan (paged)", probe, || async {
            let count = table.query_all().count().await?;
            let expected = SINGLE_INSERTS + BATCHED_INSERTS;
            if count != expected {
                return Err(tablekit::Error::decode(
                    "scan",
                    format!("expected {expected} entities, read {count}"),
                ));
            }
            Ok(count)
        })
        .await?,
    );

    reports.push(
        measure("point gets (8 in flight)", probe, || async {
            stream::iter(0..POINT_GETS)
                .map(|i| async move {
                    let row = (i * 7) % SINGLE_INSERTS;
                    let partition = format!("p{}", row % PARTITIONS);
                    match table.get(&partition, &format!("{row:08}")).await? {
                        Some(_) => Ok(()),
                        None => Err(tablekit::Error::decode("point get", "entity missing")),
                    }
                })
                .buffer_unordered(IN_FLIGHT)
                .try_for_each(|()| async { Ok(()) })
                .await?;
            Ok(POINT_GETS)
        })
        .await?,
    );

    reports.push(
        measure(
            "filtered query (Score lt 100 and Active)",
            probe,
            || async {
                let q = Query::new().filter_raw("Score lt 100 and Active eq true");
                table.query(q).count().await
            },
        )
        .await?,
    );
    Ok(reports)
}

async fn measure<F, Fut>(
    name: &'static str,
    probe: ServerProbe<'_>,
    phase: F,
) -> tablekit::Result<PhaseReport>
where
    F: FnOnce() -> Fut,
    Fut: std::future::Future<Output = tablekit::Result<usize>>,
{
    let server_before = probe();
    let cpu_before = process_cpu_time();
    let start = Instant::now();
    let operations = phase().await?;
    let elapsed = start.elapsed();
    let cpu = match (cpu_before, process_cpu_time()) {
        (Some(before), Some(after)) => after.checked_sub(before),
        _ => None,
    };
    let server = match (server_before, probe()) {
        (Some(before), Some(after)) => after.checked_sub(before),
        _ => None,
    };
    Ok(PhaseReport {
        name,
        operations,
        elapsed,
        cpu,
        server,
    })
}

/// User + system CPU time of this process, from `/proc/self/stat` (Linux; `None` elsewhere).
fn process_cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    let after_name = stat.get(stat.rfind(')')? + 2..)?;
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    // Linux reports clock ticks of 1/100 s (USER_HZ) to user space.
    Some(Duration::from_millis((utime + stime) * 10))
}

fn print(reports: &[PhaseReport]) {
    println!(
        "{:<44} {:>8} {:>10} {:>10} {:>10} {:>11}",
        "phase", "ops", "seconds", "ops/s", "cpu (s)", "server (s)"
    );
    let seconds = |d: Option<Duration>| {
        d.map_or_else(|| "n/a".to_owned(), |d| format!("{:.3}", d.as_secs_f64()))
    };
    for r in reports {
        println!(
            "{:<44} {:>8} {:>10.3} {:>10.0} {:>10} {:>11}",
            r.name,
            r.operations,
            r.elapsed.as_secs_f64(),
            r.ops_per_second(),
            seconds(r.cpu),
            seconds(r.server)
        );
    }
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

#[tokio::main]
async fn main() -> Result<(), BoxError> {
    // On the runtime's worker threads, as a service's request handlers run, rather than on
    // the thread blocked in `main`, whose every wake-up is a hand-off between threads.
    tokio::spawn(compare()).await?
}

/// Rounds when `W1_ROUNDS` does not say: a phase's run varies by 30% and more on a shared
/// machine, and the median of nine moves much less than the median of five.
const DEFAULT_ROUNDS: usize = 9;

/// W1 on the emulator and, when one is given, on another service, then the ratios.
///
/// A phase lasts from milliseconds to a few seconds, so one run says as much about the
/// machine's other work as about the servers. With another service the workload therefore
/// runs several rounds (`W1_ROUNDS`, default [`DEFAULT_ROUNDS`]), alternating the two
/// servers so that both meet the same conditions, and compares each phase's median.
async fn compare() -> Result<(), BoxError> {
    // `cargo bench` adds `--bench`: the first other argument is the connection string.
    let other = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with("--"))
        .or_else(|| std::env::var("TABLEKIT_AZURITE_CONNECTION_STRING").ok());
    let Some(connection_string) = other else {
        print(&on_emulator().await?);
        println!(
            "\n(pass a connection string, or set TABLEKIT_AZURITE_CONNECTION_STRING, to compare)"
        );
        return Ok(());
    };
    let rounds: usize = std::env::var("W1_ROUNDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(DEFAULT_ROUNDS)
        .max(1);
    let client = TableServiceClient::from_connection_string(&connection_string)?;
    let mut emulator_runs = Vec::new();
    let mut other_runs = Vec::new();
    for round in 1..=rounds {
        emulator_runs.push(on_emulator().await?);
        other_runs.push(run_w1(&client).await?);
        println!(
            "\nround {round} of {rounds}: the emulator, then {}",
            client.endpoint().base_url()
        );
        print(&emulator_runs[round - 1]);
        print(&other_runs[round - 1]);
    }
    summarize(&emulator_runs, &other_runs);
    Ok(())
}

/// One W1 run on a freshly started in-process emulator.
async fn on_emulator() -> Result<Vec<PhaseReport>, BoxError> {
    let emulator = tablekit_testing::Emulator::start().await?;
    let client = emulator.client();
    let reports = run_w1_probed(&client, &|| Some(emulator.busy_time())).await?;
    emulator.shutdown().await;
    Ok(reports)
}

/// Per phase: each server's median ops/s with its range, the ratio of the medians, and the
/// range of the rounds' own ratios.
fn summarize(emulator: &[Vec<PhaseReport>], other: &[Vec<PhaseReport>]) {
    println!(
        "\nmedians of {} rounds (ops/s, min-max)\n{:<44} {:>24} {:>20} {:>12} {:>14}",
        emulator.len(),
        "phase",
        "emulator",
        "other",
        "emulator x",
        "rounds' x"
    );
    for (phase, first) in emulator[0].iter().enumerate() {
        let rates = |runs: &[Vec<PhaseReport>]| -> Vec<f64> {
            runs.iter().map(|r| r[phase].ops_per_second()).collect()
        };
        let (ours, theirs) = (rates(emulator), rates(other));
        let ratios: Vec<f64> = ours
            .iter()
            .zip(&theirs)
            .map(|(a, b)| a / b.max(f64::EPSILON))
            .collect();
        let (low, high) = spread(&ratios);
        println!(
            "{:<44} {:>24} {:>20} {:>11.1}x {:>6.1}-{:.1}x",
            first.name,
            median_and_range(&ours),
            median_and_range(&theirs),
            median(&ours) / median(&theirs).max(f64::EPSILON),
            low,
            high
        );
    }
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    match sorted.len() % 2 {
        1 => sorted[mid],
        _ => (sorted[mid - 1] + sorted[mid]) / 2.0,
    }
}

fn spread(values: &[f64]) -> (f64, f64) {
    let low = values.iter().copied().fold(f64::INFINITY, f64::min);
    let high = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (low, high)
}

fn median_and_range(values: &[f64]) -> String {
    let (low, high) = spread(values);
    format!("{:.0} ({:.0}-{:.0})", median(values), low, high)
}
