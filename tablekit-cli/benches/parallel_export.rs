//! `tablekit export --parallel 8` next to `--parallel 1` on a table of N entities (default
//! 200,000, about 1 KB each) over 100 partitions, every request delayed 50 ms by the
//! emulator, as a distant service would: a serial export waits one round trip per page, a
//! parallel one has 8 ranges' pages in flight. Both outputs are compared entity for entity.
//!
//! ```text
//! cargo bench -p tablekit-cli --bench parallel_export             # 200,000 entities
//! cargo bench -p tablekit-cli --bench parallel_export -- 50000    # another number
//! ```

use std::collections::BTreeSet;
use std::process::Command;
use std::time::{Duration, Instant};

use tablekit::patterns::bulk::{BulkWriter, WriteOp};
use tablekit::DynamicEntity;
use tablekit_testing::{Emulator, Faults};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

const DEFAULT_ENTITIES: usize = 200_000;
const PARTITIONS: usize = 100;
const LATENCY: Duration = Duration::from_millis(50);

fn entity(i: usize) -> DynamicEntity {
    let mut e = DynamicEntity::new(format!("p{:03}", i % PARTITIONS), format!("{i:08}"));
    e.set("Name", format!("player-{i}"));
    e.set("Bio", "x".repeat(800));
    e.set("Score", (i % 1000) as i32);
    e.set("Total", i as i64 * 7);
    e
}

/// Runs `tablekit export TABLE --parallel N`: the time it took and its lines, sorted.
fn export(
    connection_string: &str,
    table: &str,
    parallel: usize,
) -> Result<(Duration, BTreeSet<String>), BoxError> {
    let started = Instant::now();
    let output = Command::new(env!("CARGO_BIN_EXE_tablekit"))
        .args(["export", table, "--parallel", &parallel.to_string()])
        .env("TABLEKIT_CONNECTION_STRING", connection_string)
        .output()?;
    let elapsed = started.elapsed();
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).into_owned().into());
    }
    let text = String::from_utf8(output.stdout)?;
    let lines: BTreeSet<String> = text.lines().map(str::to_owned).collect();
    Ok((elapsed, lines))
}

fn main() -> Result<(), BoxError> {
    let n: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(DEFAULT_ENTITIES);
    let runtime = tokio::runtime::Runtime::new()?;
    let emulator = runtime.block_on(Emulator::start())?;
    runtime.block_on(async {
        let client = emulator.client();
        client.create_table("Exported").await?;
        let ops = (0..n).map(|i| WriteOp::insert("Exported", entity(i)));
        let report = BulkWriter::new(&client).write_iter(ops).await;
        if !report.is_complete() {
            return Err::<(), BoxError>("the table could not be loaded".into());
        }
        Ok(())
    })?;
    emulator.set_faults(Some(Faults::seeded(1).latency(LATENCY)));
    let connection_string = emulator.connection_string();
    println!("export of {n} entities over {PARTITIONS} partitions, {LATENCY:?} per request");
    let (serial, serial_lines) = export(&connection_string, "Exported", 1)?;
    let (parallel, parallel_lines) = export(&connection_string, "Exported", 8)?;
    for (name, time, lines) in [
        ("--parallel 1", serial, &serial_lines),
        ("--parallel 8", parallel, &parallel_lines),
    ] {
        println!(
            "{name}: {} entities in {:.2} s ({:.0} entities/s)",
            lines.len(),
            time.as_secs_f64(),
            lines.len() as f64 / time.as_secs_f64()
        );
    }
    println!(
        "--parallel 8 is {:.1}x --parallel 1; same entities out: {}",
        serial.as_secs_f64() / parallel.as_secs_f64(),
        serial_lines == parallel_lines && serial_lines.len() == n
    );
    Ok(())
}
