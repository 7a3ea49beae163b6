//! Peak memory and time of the client while `repair` fixes an inter-partition index: the
//! table's entities (about 1.7 KB each, in 16 partitions) were written around the model, so
//! every index row is missing; a second `repair` then finds the index exact. The scan holds
//! one page and a bounded chunk of needed index rows, so the peak stays flat as the table
//! grows.
//!
//! ```text
//! cargo bench --bench repair_memory                     # 20,000 entities
//! cargo bench --bench repair_memory -- 5000 50000       # sizes of your choice
//! ```
//!
//! Only the client is measured, as in the `scan_memory` bench: the server is the
//! `tablekit-emulator` binary in a child process, a second run of this program loads the
//! table, and the peak resident set (`VmHWM`, Linux only) is reset just before each repair.

// The model mirrors user code; documenting it adds nothing.
#![allow(missing_docs)]

mod common;

use std::time::{Duration, Instant};

use common::{
    client_for, emulator_binary, load_elsewhere, reset_peak, status_kib, BoxError, EmulatorProcess,
    Invocation,
};
use tablekit::client::{Table, TableServiceClient};
use tablekit::patterns::bulk::{BulkWriter, WriteOp};
use tablekit::patterns::index::{repair, RepairReport};
use tablekit::prelude::*;

/// Table sizes measured when none are given.
const DEFAULT_SIZES: [usize; 1] = [20_000];

/// A badge, found by its holder across every site.
#[derive(TableEntity)]
pub struct Badge {
    #[tablekit(partition_key)]
    pub site: String,
    #[tablekit(row_key)]
    pub id: String,
    #[tablekit(index(partition = "ByHolder"))]
    pub holder: String,
    pub notes: String,
}

/// One measured repair.
struct Measured {
    report: RepairReport,
    took: Duration,
    rss_before_kib: u64,
    peak_kib: u64,
}

fn entity(i: usize) -> DynamicEntity {
    let mut e = DynamicEntity::new(format!("site{:02}", i % 16), format!("{i:08}"));
    e.set("Holder", format!("holder-{}", i % 5_000));
    e.set("Notes", "x".repeat(1_600));
    e
}

/// The loading run: creates `table` at `endpoint` and writes `n` entities untyped.
async fn load(endpoint: &str, table: &str, n: usize) -> Result<(), BoxError> {
    let client = client_for(endpoint)?;
    client.create_table(table).await?;
    let ops = (0..n).map(|i| WriteOp::insert(table, entity(i)));
    let report = BulkWriter::new(&client).write_iter(ops).await;
    match report.committed() == n {
        true => Ok(()),
        false => Err(format!("loaded {} of {n} entities", report.committed()).into()),
    }
}

/// Repairs `table`, recording the time and this process's peak resident set.
async fn measure(table: &Table<Badge>) -> Result<Measured, BoxError> {
    let rss_before_kib = status_kib("self", "VmRSS:").unwrap_or(0);
    reset_peak()?;
    let started = Instant::now();
    let report = repair(table).await?;
    Ok(Measured {
        report,
        took: started.elapsed(),
        rss_before_kib,
        peak_kib: status_kib("self", "VmHWM:").unwrap_or(0),
    })
}

/// Measures each size against the emulator binary and prints one line per repair.
async fn run(client: &TableServiceClient, endpoint: &str, sizes: &[usize]) -> Result<(), BoxError> {
    println!(
        "{:>10} {:>8} {:>10} {:>8} {:>18} {:>20}",
        "entities", "repair", "added", "secs", "peak (MiB)", "peak above (MiB)"
    );
    let mib = |kib: u64| kib as f64 / 1024.0;
    for &n in sizes {
        let name = format!("Badges{n}");
        load_elsewhere(endpoint, &name, n)?;
        let table = client.table_named::<Badge>(&name);
        for pass in ["missing", "exact"] {
            let m = measure(&table).await?;
            if m.report.entities != n {
                return Err(format!("the repair saw {} of {n} entities", m.report.entities).into());
            }
            println!(
                "{:>10} {:>8} {:>10} {:>8.1} {:>18.1} {:>20.1}",
                n,
                pass,
                m.report.missing_added,
                m.took.as_secs_f64(),
                mib(m.peak_kib),
                mib(m.peak_kib.saturating_sub(m.rss_before_kib))
            );
        }
        // The emulator keeps tables in memory: free this one before the next size.
        table.delete_table().await?;
    }
    Ok(())
}

fn main() -> Result<(), BoxError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let sizes = match Invocation::from_args(&DEFAULT_SIZES)? {
        Invocation::Load {
            endpoint,
            table,
            entities,
        } => return runtime.block_on(load(&endpoint, &table, entities)),
        Invocation::Measure(sizes) => sizes,
    };
    let emulator = EmulatorProcess::start(&emulator_binary()?)?;
    let client = client_for(&emulator.endpoint)?;
    runtime.block_on(run(&client, &emulator.endpoint, &sizes))
}
