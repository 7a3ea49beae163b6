//! Peak memory of scanning a table through the page stream: the client must hold one page at
//! a time, so the peak stays flat whether the table has a thousand entities or a hundred
//! thousand.
//!
//! ```text
//! cargo run --release --example scan_memory -- 1000 100000
//! ```
//!
//! For each size (default 1,000 and 100,000) the in-process emulator is seeded directly
//! (no requests), then the page stream is drained while counting entities. Linux only: the
//! peak resident set (`VmHWM`) is reset through `/proc/self/clear_refs` before each scan, and
//! the report is the peak during the scan above the resident set before it. The emulator
//! serves the pages from the same process, so its per-page work is included; the stored
//! table is not (it is resident before the scan starts).

use futures::TryStreamExt;
use tablekit::client::{Table, TableServiceClient};
use tablekit::DynamicEntity;
use tablekit_testing::Emulator;

/// One measured scan.
struct Measured {
    entities: usize,
    pages: usize,
    rss_before_kib: u64,
    peak_during_kib: u64,
}

/// A field of `/proc/self/status`, in KiB.
fn status_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Sets the peak resident set back to the current one (Linux 4.0 and later).
fn reset_peak() -> std::io::Result<()> {
    std::fs::write("/proc/self/clear_refs", "5")
}

fn entity(i: usize) -> DynamicEntity {
    let mut e = DynamicEntity::new(format!("p{}", i % 16), format!("{i:08}"));
    e.set("Name", format!("player-{i}"));
    e.set("Score", (i % 1000) as i32);
    e.set("Total", i as i64 * 1_000_003);
    e.set("Bio", "x".repeat(200));
    e
}

async fn measure(emulator: &Emulator, client: &TableServiceClient, n: usize) -> Measured {
    let test_table = emulator.unique_table("Scan").expect("table");
    for start in (0..n).step_by(10_000) {
        test_table
            .seed((start..n.min(start + 10_000)).map(entity))
            .expect("seed");
    }
    let table: Table = client.table_named(test_table.name());
    // Let the allocator settle so the baseline is the seeded table, not seeding garbage.
    let rss_before_kib = status_kib("VmRSS:").unwrap_or(0);
    reset_peak().expect("reset the peak resident set (Linux only)");
    let mut pages = table.query_all().pages();
    let (mut entities, mut page_count) = (0, 0);
    while let Some(page) = pages.try_next().await.expect("page") {
        entities += page.len();
        page_count += 1;
    }
    let peak_kib = status_kib("VmHWM:").unwrap_or(0);
    Measured {
        entities,
        pages: page_count,
        rss_before_kib,
        peak_during_kib: peak_kib.saturating_sub(rss_before_kib),
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![1_000, 100_000]
    } else {
        sizes
    };
    let emulator = Emulator::start().await.expect("emulator");
    let client =
        TableServiceClient::from_connection_string(&emulator.connection_string()).expect("client");
    println!(
        "{:>10} {:>7} {:>16} {:>22}",
        "entities", "pages", "rss before (MiB)", "peak above it (MiB)"
    );
    for n in sizes {
        let m = measure(&emulator, &client, n).await;
        assert_eq!(m.entities, n, "the scan saw every entity");
        println!(
            "{:>10} {:>7} {:>16.1} {:>22.1}",
            m.entities,
            m.pages,
            m.rss_before_kib as f64 / 1024.0,
            m.peak_during_kib as f64 / 1024.0
        );
    }
}
