//! Bulk loads into an emulator that throttles as Azure does (20,000 entities/s per account,
//! 2,000 per partition, 503 Server Busy past them), side by side in one run:
//!
//! 1. the bulk writer with adaptive pacing (the default);
//! 2. the bulk writer with fixed pacing, 8 transactions in flight and the client's retries:
//!    how the writer sent before it paced itself;
//! 3. a thread-pool loader on Microsoft's Table SDK for Python (32 threads, one transaction
//!    of 100 per task, the SDK's own retries), on fewer entities: it is the slowest;
//! 4. the adaptive writer with one hot partition among many cold ones.
//!
//! Loads 1–3 insert N entities of about 1 KB (default 1,000,000) over 1,000 partitions, 100
//! to a partition in turn. Every load is checked: entities stored, lost, duplicated.
//!
//! ```text
//! cargo bench --bench bulk_load             # 1,000,000 entities
//! cargo bench --bench bulk_load -- 200000    # another number
//! ```

use std::collections::HashSet;
use std::process::Command;
use std::time::{Duration, Instant};

use tablekit::patterns::bulk::{BulkReport, BulkWriter, Pacing, WriteOp};
use tablekit::DynamicEntity;
use tablekit_testing::{Emulator, Throttle};

#[path = "../tests/interop/install.rs"]
#[allow(dead_code)]
mod install;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

const DEFAULT_ENTITIES: usize = 1_000_000;
const PARTITIONS: usize = 1_000;
/// The Python loader's share: it loads at most this many.
const PYTHON_ENTITIES: usize = 100_000;
const TABLE: &str = "Load";

fn entity(i: usize, partition: String) -> DynamicEntity {
    let mut e = DynamicEntity::new(partition, format!("{i:08}"));
    e.set("Data", "x".repeat(1_000));
    e
}

/// Entity `i`'s partition: blocks of 100 go to the partitions in turn.
fn partition_of(i: usize) -> String {
    format!("p{:04}", (i / 100) % PARTITIONS)
}

/// One load's figures.
struct Load {
    name: String,
    entities: usize,
    elapsed: Duration,
    stored: usize,
    duplicated: usize,
    throttled: u64,
    requests: u64,
}

impl Load {
    fn print(&self) {
        let rate = self.stored as f64 / self.elapsed.as_secs_f64();
        let share = 100.0 * self.throttled as f64 / self.requests.max(1) as f64;
        println!(
            "{:<44} {:>9} {:>8.1} s {:>8.0}/s {:>5.1}% of target  lost {:>6}  duplicated {}  \
             throttled {:>5} of {:>6} requests ({share:.1}%)",
            self.name,
            self.entities,
            self.elapsed.as_secs_f64(),
            rate,
            100.0 * rate / 20_000.0,
            self.entities - self.stored.min(self.entities),
            self.duplicated,
            self.throttled,
            self.requests,
        );
    }
}

async fn throttled_emulator() -> Result<Emulator, BoxError> {
    let emulator = Emulator::builder()
        .throttle(Throttle::azure())
        .start()
        .await?;
    emulator.client().create_table(TABLE).await?;
    Ok(emulator)
}

/// Stored rows, and how many keys were stored twice.
fn census(emulator: &Emulator) -> Result<(Vec<DynamicEntity>, usize), BoxError> {
    let rows = emulator.entities(TABLE)?;
    let keys: HashSet<(&str, &str)> = rows
        .iter()
        .map(|e| (e.partition_key(), e.row_key()))
        .collect();
    let duplicated = rows.len() - keys.len();
    Ok((rows, duplicated))
}

/// A load's figures, counted back from what `emulator` stored and answered.
fn counted(name: &str, n: usize, elapsed: Duration, emulator: &Emulator) -> Result<Load, BoxError> {
    let throttled = emulator.throttled().total();
    let (rows, duplicated) = census(emulator)?;
    Ok(Load {
        name: name.to_owned(),
        entities: n,
        elapsed,
        stored: rows.len() - duplicated,
        duplicated,
        throttled,
        // Less the table's creation.
        requests: emulator.requests().total() - 1,
    })
}

async fn writer_load(name: &str, n: usize, pacing: Pacing) -> Result<Load, BoxError> {
    let emulator = throttled_emulator().await?;
    let client = emulator.client();
    let writer = match pacing {
        Pacing::Fixed => BulkWriter::new(&client).pacing(pacing).concurrency(8)?,
        _ => BulkWriter::new(&client).pacing(pacing),
    };
    let ops = (0..n).map(|i| WriteOp::insert(TABLE, entity(i, partition_of(i))));
    let started = Instant::now();
    let report: BulkReport = writer.write_iter(ops).await;
    let elapsed = started.elapsed();
    if !report.is_complete() {
        println!(
            "  ({name}: {} of {n} reported not written, e.g. {:?})",
            report.not_committed(),
            report.failures().next().map(|(_, e)| e.to_string())
        );
    }
    counted(name, n, elapsed, &emulator)
}

const PYTHON_LOADER: &str = r#"
import sys, time
from concurrent.futures import ThreadPoolExecutor
from azure.data.tables import TableClient

conn, table, n, partitions = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
client = TableClient.from_connection_string(conn, table)
payload = "x" * 1000

def block(b):
    rows = range(b * 100, min(n, b * 100 + 100))
    ops = [("create", {"PartitionKey": "p%04d" % (b % partitions), "RowKey": "%08d" % i,
                       "Data": payload}) for i in rows]
    try:
        client.submit_transaction(ops)
        return 0
    except Exception:
        return len(ops)

start = time.time()
with ThreadPoolExecutor(32) as pool:
    failed = sum(pool.map(block, range((n + 99) // 100)))
print(time.time() - start, failed)
"#;

async fn python_load(n: usize) -> Result<Load, BoxError> {
    // The interop suite's venv with the pinned SDK, installed the same way if it is not yet.
    let python = install::table_sdk_python()?;
    let emulator = throttled_emulator().await?;
    let script = std::env::temp_dir().join(format!("bulk_load_{}.py", std::process::id()));
    std::fs::write(&script, PYTHON_LOADER)?;
    let connection_string = emulator.connection_string();
    let started = Instant::now();
    let output = tokio::task::spawn_blocking(move || {
        Command::new(python)
            .arg(&script)
            .args([
                &connection_string,
                TABLE,
                &n.to_string(),
                &PARTITIONS.to_string(),
            ])
            .output()
    })
    .await??;
    let elapsed = started.elapsed();
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).into_owned().into());
    }
    counted("Python SDK, thread pool of 32", n, elapsed, &emulator)
}

/// 200,000 entities, one in ten to partition `hot` and the rest over 999 cold ones: the hot
/// partition's rate and the cold ones' together, from the stored Timestamps.
async fn hot_partition() -> Result<(), BoxError> {
    let emulator = throttled_emulator().await?;
    let client = emulator.client();
    let n = 200_000;
    let ops = (0..n).map(|i| {
        let partition = match i % 10 {
            0 => "hot".to_owned(),
            _ => format!("cold{:03}", (i / 100) % (PARTITIONS - 1)),
        };
        WriteOp::insert(TABLE, entity(i, partition))
    });
    let started = chrono::Utc::now();
    let writer = BulkWriter::new(&client);
    let report = writer.write_iter(ops).await;
    let (rows, duplicated) = census(&emulator)?;
    let rate = |hot: bool| {
        let (count, last) = rows
            .iter()
            .filter(|e| (e.partition_key() == "hot") == hot)
            .fold((0usize, started), |(n, last), e| {
                (n + 1, last.max(e.timestamp().unwrap_or(started)))
            });
        let secs = (last - started).num_milliseconds() as f64 / 1_000.0;
        (count, secs, count as f64 / secs)
    };
    let (hot, hot_secs, hot_rate) = rate(true);
    let (cold, cold_secs, cold_rate) = rate(false);
    println!(
        "one hot partition among 999 cold ones        hot: {hot} in {hot_secs:.1} s = \
         {hot_rate:.0}/s (target 2,000)  cold: {cold} in {cold_secs:.1} s = {cold_rate:.0}/s  \
         complete {}  duplicated {duplicated}  throttled {} (hot {})  hot's own limit {:?}",
        report.is_complete(),
        emulator.throttled().total(),
        emulator.throttled().partition(TABLE, "hot"),
        writer
            .rates()
            .partitions
            .iter()
            .find(|((_, pk), _)| pk == "hot")
            .map(|(_, r)| r.round()),
    );
    Ok(())
}

fn main() -> Result<(), BoxError> {
    let n: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(DEFAULT_ENTITIES);
    let runtime = tokio::runtime::Runtime::new()?;
    runtime.block_on(async {
        println!(
            "{n} entities of 1 KB over {PARTITIONS} partitions into an emulator throttled at \
             20,000 entities/s per account and 2,000 per partition:"
        );
        writer_load("bulk writer, adaptive pacing", n, Pacing::Adaptive)
            .await?
            .print();
        writer_load(
            "bulk writer, fixed: 8 in flight, client retries",
            n,
            Pacing::Fixed,
        )
        .await?
        .print();
        python_load(n.min(PYTHON_ENTITIES)).await?.print();
        hot_partition().await
    })
}
