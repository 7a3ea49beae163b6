//! `tablekit export` and `tablekit import` of N entities of W1's shape (12 properties, about
//! 1 KB of JSON), on the emulator binary and on Azurite, next to a Python script doing the
//! same with Microsoft's `azure-data-tables` 12.7.0. Each tool runs in a child process;
//! reported per run: entities per second, the child's CPU time (user + system, from
//! `wait4`'s `rusage`) and its peak resident set (`VmHWM`), on Linux.
//!
//! ```text
//! cargo bench -p tablekit-cli --bench export_import             # 100,000 entities
//! cargo bench -p tablekit-cli --bench export_import -- 20000    # another number
//! ```
//!
//! The Python side uses the venv the interop tests install (`cargo test --test interop
//! python` makes it once, in the cache directory); without it, only `tablekit` is measured.
//! The Python export writes one JSON object a line (`json.dumps` of each entity), the import
//! reads them back and sends 100-entity transactions per partition, as the SDK's
//! documentation shows. Azurite is the pinned one this process starts.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use tablekit::client::TableServiceClient;
use tablekit::patterns::bulk::{BulkWriter, WriteOp};
use tablekit::{DynamicEntity, Value};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

const DEFAULT_ENTITIES: usize = 100_000;
const PARTITIONS: usize = 100;

/// What one child process did.
struct Measured {
    elapsed: Duration,
    cpu: Duration,
    peak_kib: i64,
}

/// Runs `command` to its end: CPU time from `wait4`'s `rusage` (the child's own), the peak
/// resident set from `VmHWM` in `/proc/PID/status`, read until the child exits. (`ru_maxrss`
/// would do, but Linux carries the parent's high-water mark into a forked child: it would
/// report this process's size.)
#[allow(unsafe_code)]
fn measure(command: &mut Command) -> Result<Measured, BoxError> {
    let start = Instant::now();
    let child = command.stdin(Stdio::null()).stdout(Stdio::null()).spawn()?;
    let pid = libc::pid_t::try_from(child.id())?;
    let status_file = format!("/proc/{pid}/status");
    let mut peak_kib = 0;
    let mut status = 0;
    let usage = loop {
        if let Some(kib) = hwm_kib(&status_file) {
            peak_kib = peak_kib.max(kib);
        }
        // SAFETY: `rusage` is plain data that `wait4` fills; the pid is our own child's, and
        // only this loop waits for it (the `Child` handle is never waited on).
        let (done, usage) = unsafe {
            let mut usage: libc::rusage = std::mem::zeroed();
            let done = libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage);
            (done, usage)
        };
        match done {
            0 => std::thread::sleep(Duration::from_millis(2)),
            p if p == pid => break usage,
            _ => return Err("wait4 failed".into()),
        }
    };
    let elapsed = start.elapsed();
    if !libc::WIFEXITED(status) || libc::WEXITSTATUS(status) != 0 {
        // The command line holds the connection string: name the program only.
        return Err(format!("{:?} failed ({status})", command.get_program()).into());
    }
    let time = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    Ok(Measured {
        elapsed,
        cpu: time(usage.ru_utime) + time(usage.ru_stime),
        peak_kib,
    })
}

/// `VmHWM` (peak resident set) of a running process, in KiB.
fn hwm_kib(status_file: &str) -> Option<i64> {
    let status = std::fs::read_to_string(status_file).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The 1 KB entity of W1.
fn entity_1kb(partition: &str, row: usize) -> DynamicEntity {
    let mut e = DynamicEntity::new(partition, format!("{row:08}"));
    e.set(
        "Name",
        format!("player {row} of the weekly league, north-west"),
    );
    e.set(
        "Email",
        format!("player.{row}.of.the.weekly.league@example.com"),
    );
    let text = "The quick brown fox jumps over the lazy dog. ".repeat(10);
    e.set("Bio", Value::String(text[row % 45..row % 45 + 400].into()));
    e.set("Score", (row % 1000) as i32);
    e.set("Total", row as i64 * 1_000_003);
    e.set("Ratio", row as f64 / 7.0);
    e.set("Active", row % 3 == 0);
    e.set("Joined", chrono::Utc::now());
    e.set(
        "Id",
        uuid::Uuid::from_u128(row as u128 * 0x9E37_79B9_7F4A_7C15),
    );
    e
}

/// Creates `table` with `n` entities over `PARTITIONS` partitions.
async fn load(connection_string: &str, table: &str, n: usize) -> Result<(), BoxError> {
    let client = TableServiceClient::from_connection_string(connection_string)?;
    client.create_table(table).await?;
    let ops =
        (0..n).map(|i| WriteOp::insert(table, entity_1kb(&format!("p{:03}", i % PARTITIONS), i)));
    let report = BulkWriter::new(&client).write_iter(ops).await;
    if report.committed() != n {
        return Err(format!("loaded {} of {n}", report.committed()).into());
    }
    Ok(())
}

/// The emulator binary (`tablekit emulator`) on a free port; its connection string.
fn start_emulator() -> Result<(std::process::Child, String), BoxError> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tablekit"))
        .args(["emulator", "--port", "0"])
        .stdout(Stdio::piped())
        .spawn()?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line)?;
    let endpoint = line
        .trim()
        .rsplit(' ')
        .next()
        .ok_or("the emulator printed no endpoint")?
        .to_owned();
    let connection_string = format!(
        "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey={};TableEndpoint={endpoint}",
        tablekit_testing::DEV_KEY
    );
    Ok((child, connection_string))
}

/// The interop tests' venv Python, if it is installed.
fn python() -> Option<PathBuf> {
    let cache = std::env::var_os("TABLEKIT_CACHE_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("XDG_CACHE_HOME").map(|d| PathBuf::from(d).join("tablekit")))
        .or_else(|| std::env::var_os("HOME").map(|d| PathBuf::from(d).join(".cache/tablekit")))?;
    let python = cache.join("python-azure-data-tables-12.7.0/bin/python");
    python.exists().then_some(python)
}

const PYTHON: &str = r#"
import json, sys
from itertools import groupby
from azure.data.tables import EdmType, EntityProperty, TableServiceClient
mode, conn, table, path = sys.argv[1:5]
service = TableServiceClient.from_connection_string(conn)
if mode == "export":
    with open(path, "w") as f:
        for e in service.get_table_client(table).list_entities(results_per_page=1000):
            # An Int64 comes as (value, type): kept so the import can send it back typed.
            plain = {k: ([v.value, v.edm_type.value] if isinstance(v, EntityProperty) else v)
                     for k, v in e.items()}
            f.write(json.dumps(plain, default=str) + "\n")
else:
    client = service.create_table(table)
    with open(path) as f:
        typed = lambda v: EntityProperty(v[0], EdmType(v[1])) if isinstance(v, list) else v
        rows = ({k: typed(v) for k, v in json.loads(line).items()} for line in f)
        for pk, group in groupby(rows, key=lambda e: e["PartitionKey"]):
            batch = []
            for e in group:
                batch.append(("upsert", e))
                if len(batch) == 100:
                    client.submit_transaction(batch)
                    batch = []
            if batch:
                client.submit_transaction(batch)
"#;

fn row(tool: &str, server: &str, op: &str, n: usize, m: &Measured) {
    println!(
        "{tool:<8} {server:<9} {op:<7} {:>9.0} entities/s  cpu {:>7.2} s  peak {:>6.1} MiB",
        n as f64 / m.elapsed.as_secs_f64(),
        m.cpu.as_secs_f64(),
        m.peak_kib as f64 / 1024.0
    );
}

fn compare(op: &str, rust: &Measured, python: &Measured) {
    println!(
        "  {op}: tablekit {:.1}x the SDK's throughput at {:.2} of its CPU",
        python.elapsed.as_secs_f64() / rust.elapsed.as_secs_f64(),
        rust.cpu.as_secs_f64() / python.cpu.as_secs_f64()
    );
}

async fn bench(
    server: &str,
    connection_string: &str,
    n: usize,
    dir: &Path,
) -> Result<(), BoxError> {
    load(connection_string, "BenchSource", n).await?;
    let file = dir.join(format!("{server}.jsonl"));
    let tablekit = |args: &[&str]| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_tablekit"));
        command
            .args(args)
            .env("TABLEKIT_CONNECTION_STRING", connection_string);
        command
    };
    let path = file.to_str().ok_or("path")?;
    let export = measure(&mut tablekit(&["export", "BenchSource", "-o", path]))?;
    row("tablekit", server, "export", n, &export);
    let import = measure(&mut tablekit(&["import", "BenchCopy", "-i", path]))?;
    row("tablekit", server, "import", n, &import);
    let Some(python) = python() else {
        println!("(no Python venv: run `cargo test --test interop python` once to compare)");
        return Ok(());
    };
    let script = dir.join("sdk.py");
    std::fs::write(&script, PYTHON)?;
    let py_file = dir.join(format!("{server}-sdk.jsonl"));
    let sdk = |mode: &str, table: &str| {
        let mut command = Command::new(&python);
        command
            .arg(&script)
            .args([mode, connection_string, table])
            .arg(&py_file);
        command
    };
    let py_export = measure(&mut sdk("export", "BenchSource"))?;
    row("python", server, "export", n, &py_export);
    let py_import = measure(&mut sdk("import", "BenchSdkCopy"))?;
    row("python", server, "import", n, &py_import);
    compare("export", &export, &py_export);
    compare("import", &import, &py_import);
    Ok(())
}

fn main() -> Result<(), BoxError> {
    let n = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(DEFAULT_ENTITIES);
    let runtime = tokio::runtime::Runtime::new()?;
    let dir = tempfile::tempdir()?;
    println!("export and import of {n} entities of about 1 KB");
    let (mut emulator, connection_string) = start_emulator()?;
    let result = runtime.block_on(bench("emulator", &connection_string, n, dir.path()));
    let _ = emulator.kill();
    let _ = emulator.wait();
    result?;
    let azurite = tablekit_testing::azurite_connection_string();
    runtime.block_on(bench("azurite", &azurite, n, dir.path()))
}
