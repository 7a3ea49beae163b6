//! Peak memory of the client while it scans a table through the page stream: it holds one page
//! at a time, so its peak stays flat whether the table has a thousand entities or a hundred
//! thousand.
//!
//! ```text
//! cargo bench --bench scan_memory                       # 1,000, 10,000 and 100,000 entities
//! cargo bench --bench scan_memory -- 1000 100000        # sizes of your choice
//! ```
//!
//! Only the client is measured. The server is the `tablekit-emulator` binary, built (release)
//! into `target/scan_memory` and started as a child process on a free loopback port; it
//! is stopped when the bench ends, even on a panic. For each size, a second run of this
//! program loads the table over HTTP, so the measuring process never allocates for the data
//! it is about to scan; then this process drains the page stream, counting entities. Linux
//! only: the peak resident set (`VmHWM`) is reset through `/proc/self/clear_refs` just before
//! each scan, and the report is the peak during the scan, absolute and above the resident set
//! before it.

mod common;

use common::{
    client_for, emulator_binary, load_elsewhere, reset_peak, status_kib, BoxError, EmulatorProcess,
    Invocation,
};
use futures::TryStreamExt;
use tablekit::client::{Table, TableServiceClient};
use tablekit::patterns::bulk::{BulkWriter, WriteOp};
use tablekit::DynamicEntity;

/// Table sizes measured when none are given.
const DEFAULT_SIZES: [usize; 3] = [1_000, 10_000, 100_000];

/// One measured scan.
struct Measured {
    entities: usize,
    pages: usize,
    rss_before_kib: u64,
    peak_kib: u64,
}

fn entity(i: usize) -> DynamicEntity {
    let mut e = DynamicEntity::new(format!("p{}", i % 16), format!("{i:08}"));
    e.set("Name", format!("player-{i}"));
    e.set("Score", (i % 1000) as i32);
    e.set("Total", i as i64 * 1_000_003);
    e.set("Bio", "x".repeat(200));
    e
}

/// The loading run: creates `table` at `endpoint` and writes `n` entities in transactions.
async fn load(endpoint: &str, table: &str, n: usize) -> Result<(), BoxError> {
    let client = client_for(endpoint)?;
    client.create_table(table).await?;
    let ops = (0..n).map(|i| WriteOp::insert(table, entity(i)));
    let report = BulkWriter::new(&client).write_iter(ops).await;
    if let Some((index, error)) = report.failures().next() {
        return Err(format!("loading operation {index} failed: {error}").into());
    }
    match report.committed() == n {
        true => Ok(()),
        false => Err(format!("loaded {} of {n} entities", report.committed()).into()),
    }
}

/// Scans a loaded table of `n` entities, recording this process's peak resident set.
async fn measure(
    client: &TableServiceClient,
    endpoint: &str,
    n: usize,
) -> Result<Measured, BoxError> {
    let name = format!("Scan{n}");
    load_elsewhere(endpoint, &name, n)?;
    let table: Table = client.table_named(&name);
    let rss_before_kib = status_kib("self", "VmRSS:").unwrap_or(0);
    reset_peak()?;
    let mut pages = table.query_all().pages();
    let (mut entities, mut page_count) = (0, 0);
    while let Some(page) = pages.try_next().await? {
        entities += page.len();
        page_count += 1;
    }
    let peak_kib = status_kib("self", "VmHWM:").unwrap_or(0);
    // The emulator keeps tables in memory: free this one before the next size.
    table.delete_table().await?;
    Ok(Measured {
        entities,
        pages: page_count,
        rss_before_kib,
        peak_kib,
    })
}

/// Measures each size against the emulator binary and prints one line per size.
async fn run(sizes: &[usize]) -> Result<(), BoxError> {
    let emulator = EmulatorProcess::start(&emulator_binary()?)?;
    let client = client_for(&emulator.endpoint)?;
    println!(
        "{:>10} {:>7} {:>18} {:>18} {:>20}",
        "entities", "pages", "rss before (MiB)", "peak (MiB)", "peak above (MiB)"
    );
    let mib = |kib: u64| kib as f64 / 1024.0;
    for &n in sizes {
        let m = measure(&client, &emulator.endpoint, n).await?;
        if m.entities != n {
            return Err(format!("the scan saw {} of {n} entities", m.entities).into());
        }
        println!(
            "{:>10} {:>7} {:>18.1} {:>18.1} {:>20.1}",
            m.entities,
            m.pages,
            mib(m.rss_before_kib),
            mib(m.peak_kib),
            mib(m.peak_kib.saturating_sub(m.rss_before_kib))
        );
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
    runtime.block_on(run(&sizes))
}
