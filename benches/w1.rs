//! Workload W1 on 1 KB entities against four servers in one run: the in-process emulator
//! over loopback HTTP, the same without sockets (its in-process transport,
//! `Emulator::in_process_client`), the `tablekit-emulator` binary in a child process, and
//! Azurite. Prints ops/s and CPU times per phase, and per phase how many times faster each
//! emulator was than Azurite.
//!
//! ```text
//! cargo bench --bench w1                            # all four, starting the pinned Azurite
//! cargo bench --bench w1 -- "<connection string>"   # that service in Azurite's place
//! cargo bench --bench w1 -- emulator                # the in-process emulator over HTTP alone
//! cargo bench --bench w1 -- in-process              # the in-process transport alone
//! cargo bench --bench w1 -- binary                  # the emulator binary alone
//! ```
//!
//! Azurite is the one `TABLEKIT_AZURITE_CONNECTION_STRING` names (as `scripts/azurite.sh
//! start` prints), else the pinned Azurite this process starts
//! ([`azurite_connection_string`](tablekit_testing::azurite_connection_string)). The run has
//! `W1_ROUNDS` rounds (default 15) that alternate the servers, so all meet the same conditions;
//! each round starts a fresh in-process emulator and a fresh binary, whose start-up (spawn to
//! first answered request) is reported too.
//!
//! Phases: 2000 single inserts (8 in flight, 10 partitions), 10000 inserts in 100-operation
//! batches (8 in flight), a full scan with paging, 1000 point gets (8 in flight), one filtered
//! query. The entity ([`common::entity_1kb`]) has 12 properties and about 1 KB of JSON. The
//! workload is [`run_w1`], a function of a client, so any backend runs the same code. A fresh
//! table is used and deleted afterwards.
//!
//! The `server (s)` column shows the CPU time the server spent: the in-process emulator's
//! busy time ([`Emulator::busy_time`](tablekit_testing::Emulator::busy_time)), or the child
//! process's CPU time (the binary's; Azurite's when this process started it). `cpu (s)` is
//! this process's, which for the in-process emulator includes the server's.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use futures::{stream, StreamExt, TryStreamExt};
use tablekit::client::{Table, TableServiceClient};
use tablekit::Query;

use common::{cpu_time, entity_1kb, BoxError, EmulatorProcess};

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
    /// CPU time the server spent during the phase (`None` where unknown).
    pub server: Option<Duration>,
}

/// Reads a server's cumulative CPU or busy time (`None` where unknown).
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
                    let mut e = entity_1kb(&format!("p{}", i % PARTITIONS), i);
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
                            batch.insert(&entity_1kb(&format!("b{b}"), i))?;
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
    let cpu_before = cpu_time("self");
    let start = Instant::now();
    let operations = phase().await?;
    let elapsed = start.elapsed();
    let cpu = match (cpu_before, cpu_time("self")) {
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

#[tokio::main]
async fn main() -> Result<(), BoxError> {
    // On the runtime's worker threads, as a service's request handlers run, rather than on
    // the thread blocked in `main`, whose every wake-up is a hand-off between threads.
    tokio::spawn(compare()).await?
}

/// Rounds when `W1_ROUNDS` does not say: a phase's run varies by 30% and more on a shared
/// machine (a whole phase can last 10 ms), and the median of fifteen moves less than the
/// median of nine, which moved less than the median of five.
const DEFAULT_ROUNDS: usize = 15;

/// One server's runs, one report per round.
struct Runs {
    name: &'static str,
    rounds: Vec<Vec<PhaseReport>>,
}

/// W1 on the three servers, round after round, then the medians and ratios.
///
/// A phase lasts from milliseconds to a few seconds, so one run says as much about the
/// machine's other work as about the servers. The workload therefore runs several rounds
/// (`W1_ROUNDS`, default [`DEFAULT_ROUNDS`]), alternating the servers so that all meet the
/// same conditions, and compares each phase's median.
async fn compare() -> Result<(), BoxError> {
    // `cargo bench` adds `--bench`: the first other argument says what to measure.
    let argument = std::env::args().skip(1).find(|a| !a.starts_with("--"));
    match argument.as_deref() {
        Some("emulator") => {
            print(&on_emulator(Transport::Http).await?);
            return Ok(());
        }
        Some("in-process") => {
            print(&on_emulator(Transport::InProcess).await?);
            return Ok(());
        }
        Some("binary") => {
            let binary = tokio::task::spawn_blocking(common::emulator_binary).await??;
            let (reports, start_up) = on_binary(&binary).await?;
            println!("started in {:.1} ms", start_up.as_secs_f64() * 1000.0);
            print(&reports);
            return Ok(());
        }
        _ => {}
    }
    let connection_string = argument
        .or_else(|| std::env::var(tablekit_testing::AZURITE_CONNECTION_STRING_VAR).ok())
        .map_or_else(
            || tokio::task::spawn_blocking(tablekit_testing::azurite_connection_string),
            |named| tokio::task::spawn_blocking(move || named),
        )
        .await?;
    let other = TableServiceClient::from_connection_string(&connection_string)?;
    // Azurite's CPU time when this process started it.
    let azurite_pid = common::children_named("azurite")
        .first()
        .map(u32::to_string);
    let binary = tokio::task::spawn_blocking(common::emulator_binary).await??;
    let rounds: usize = std::env::var("W1_ROUNDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(DEFAULT_ROUNDS)
        .max(1);
    let mut in_process = Runs::new("in-process emulator");
    let mut no_sockets = Runs::new("in-process transport");
    let mut standalone = Runs::new("emulator binary");
    let mut azurite = Runs::new("Azurite");
    let mut start_ups = Vec::new();
    for round in 1..=rounds {
        in_process.rounds.push(on_emulator(Transport::Http).await?);
        no_sockets
            .rounds
            .push(on_emulator(Transport::InProcess).await?);
        let (reports, start_up) = on_binary(&binary).await?;
        standalone.rounds.push(reports);
        start_ups.push(start_up.as_secs_f64() * 1000.0);
        let probe = || azurite_pid.as_deref().and_then(cpu_time);
        azurite.rounds.push(run_w1_probed(&other, &probe).await?);
        println!(
            "\nround {round} of {rounds}: the in-process emulator over HTTP, then without \
             sockets, the binary (started in {:.1} ms), then {}",
            start_up.as_secs_f64() * 1000.0,
            other.endpoint().base_url()
        );
        for runs in [&in_process, &no_sockets, &standalone, &azurite] {
            print(&runs.rounds[round - 1]);
        }
    }
    summarize(&in_process, &azurite);
    summarize(&no_sockets, &azurite);
    summarize(&standalone, &azurite);
    println!(
        "\nthe binary's start-up, spawn to first answered request: median {:.1} ms ({:.1}-{:.1})",
        median(&start_ups),
        spread(&start_ups).0,
        spread(&start_ups).1
    );
    Ok(())
}

impl Runs {
    fn new(name: &'static str) -> Self {
        Runs {
            name,
            rounds: Vec::new(),
        }
    }
}

/// How the client reaches the in-process emulator.
#[derive(Clone, Copy)]
enum Transport {
    /// Loopback TCP.
    Http,
    /// No sockets: `Emulator::in_process_client`.
    InProcess,
}

/// One W1 run on a freshly started in-process emulator.
async fn on_emulator(transport: Transport) -> Result<Vec<PhaseReport>, BoxError> {
    let emulator = tablekit_testing::Emulator::start().await?;
    let client = match transport {
        Transport::Http => emulator.client(),
        Transport::InProcess => emulator.in_process_client(),
    };
    let reports = run_w1_probed(&client, &|| Some(emulator.busy_time())).await?;
    emulator.shutdown().await;
    Ok(reports)
}

/// One W1 run on a freshly started emulator binary, and the binary's start-up time.
async fn on_binary(binary: &Path) -> Result<(Vec<PhaseReport>, Duration), BoxError> {
    let (process, start_up) = EmulatorProcess::start_timed(binary).await?;
    let client = common::client_for(&process.endpoint)?;
    let pid = process.pid().to_string();
    let reports = run_w1_probed(&client, &|| cpu_time(&pid)).await?;
    Ok((reports, start_up))
}

/// Per phase: each server's median ops/s with its range, the ratio of the medians, and the
/// range of the rounds' own ratios.
fn summarize(ours: &Runs, other: &Runs) {
    println!(
        "\n{} against {}, medians of {} rounds (ops/s, min-max)\n{:<44} {:>24} {:>20} {:>12} {:>14}",
        ours.name,
        other.name,
        ours.rounds.len(),
        "phase",
        "emulator",
        "other",
        "emulator x",
        "rounds' x"
    );
    for (phase, first) in ours.rounds[0].iter().enumerate() {
        let rates = |runs: &Runs| -> Vec<f64> {
            runs.rounds
                .iter()
                .map(|r| r[phase].ops_per_second())
                .collect()
        };
        let (mine, theirs) = (rates(ours), rates(other));
        let ratios: Vec<f64> = mine
            .iter()
            .zip(&theirs)
            .map(|(a, b)| a / b.max(f64::EPSILON))
            .collect();
        let (low, high) = spread(&ratios);
        println!(
            "{:<44} {:>24} {:>20} {:>11.1}x {:>6.1}-{:.1}x",
            first.name,
            median_and_range(&mine),
            median_and_range(&theirs),
            median(&mine) / median(&theirs).max(f64::EPSILON),
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
