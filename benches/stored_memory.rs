//! Memory per stored entity: the `tablekit-emulator` binary and Azurite, both in child
//! processes, each loaded with the same N entities of W1's shape (12 properties, about 1 KB of
//! JSON). Reports each server's resident set (`VmRSS` from `/proc/PID/status`) before and after
//! the load and the bytes per stored entity above the resident set before it (Linux).
//!
//! ```text
//! cargo bench --bench stored_memory                 # 100,000 entities
//! cargo bench --bench stored_memory -- 20000        # another number
//! ```
//!
//! Azurite is the pinned one, started by this process on a free loopback port with telemetry
//! off ([`azurite_connection_string`](tablekit_testing::azurite_connection_string)), whatever
//! `TABLEKIT_AZURITE_CONNECTION_STRING` says: its process must be this one's child to be
//! measured. Both servers are stopped when the bench ends.

mod common;

use std::time::Duration;

use futures::{stream, StreamExt, TryStreamExt};
use tablekit::client::{Table, TableServiceClient};

use common::{entity_1kb, status_kib, BoxError, EmulatorProcess};

const DEFAULT_ENTITIES: usize = 100_000;
const PARTITIONS: usize = 100;
const IN_FLIGHT: usize = 8;
/// How long a server is left alone before its resident set is read: a garbage-collected
/// server (Azurite on Node.js) may still be collecting the load's garbage.
const SETTLE: Duration = Duration::from_secs(3);

/// One server's resident set around a load.
struct Measured {
    before_kib: u64,
    after_kib: u64,
}

impl Measured {
    fn bytes_per_entity(&self, n: usize) -> f64 {
        self.after_kib.saturating_sub(self.before_kib) as f64 * 1024.0 / n as f64
    }
}

/// Creates a table and loads `n` entities in 100-operation transactions, `IN_FLIGHT` at once.
async fn load(client: &TableServiceClient, n: usize) -> Result<(), BoxError> {
    let table: Table = client.table_named("StoredMemory");
    table.create().await?;
    let batches = n.div_ceil(100);
    stream::iter(0..batches)
        .map(|b| {
            let table = &table;
            async move {
                let partition = format!("p{:03}", b % PARTITIONS);
                let mut batch = table.batch();
                for row in b * 100..((b + 1) * 100).min(n) {
                    batch.insert(&entity_1kb(&partition, row))?;
                }
                batch.submit().await.map(|_| ())
            }
        })
        .buffer_unordered(IN_FLIGHT)
        .try_for_each(|()| async { Ok(()) })
        .await?;
    Ok(())
}

/// The resident set of process `pid` before and after loading `n` entities through `client`.
async fn measure(client: &TableServiceClient, pid: u32, n: usize) -> Result<Measured, BoxError> {
    let pid = pid.to_string();
    let rss = || status_kib(&pid, "VmRSS:").ok_or("cannot read the server's resident set");
    // One small table first, so that the baseline includes a served connection and a table.
    let warm: Table = client.table_named("Warm");
    warm.create().await?;
    warm.insert(&mut entity_1kb("w", 0)).await?;
    tokio::time::sleep(SETTLE).await;
    let before_kib = rss()?;
    load(client, n).await?;
    tokio::time::sleep(SETTLE).await;
    let after_kib = rss()?;
    let stored: Table = client.table_named("StoredMemory");
    let counted = stored.query_all().count().await?;
    if counted != n {
        return Err(format!("the server holds {counted} of {n} entities").into());
    }
    Ok(Measured {
        before_kib,
        after_kib,
    })
}

fn print(name: &str, m: &Measured, n: usize) {
    let mib = |kib: u64| kib as f64 / 1024.0;
    println!(
        "{:<20} {:>16.1} {:>16.1} {:>16.1} {:>18.0}",
        name,
        mib(m.before_kib),
        mib(m.after_kib),
        mib(m.after_kib.saturating_sub(m.before_kib)),
        m.bytes_per_entity(n)
    );
}

async fn run(n: usize) -> Result<(), BoxError> {
    let sample = entity_1kb("p000", 0);
    println!(
        "{n} entities of {} bytes of JSON, {} bytes by the service's size formula",
        tablekit::codec::encode_entity(&sample).len(),
        tablekit::limits::entity_size(&sample)
    );
    let binary = tokio::task::spawn_blocking(common::emulator_binary).await??;
    let emulator = EmulatorProcess::start(&binary)?;
    let ours = measure(&common::client_for(&emulator.endpoint)?, emulator.pid(), n).await?;
    drop(emulator);

    // A named Azurite would not be this process's child.
    std::env::remove_var(tablekit_testing::AZURITE_CONNECTION_STRING_VAR);
    let azurite = tokio::task::spawn_blocking(tablekit_testing::azurite_client).await?;
    let pid = *common::children_named("azurite")
        .first()
        .ok_or("cannot find the Azurite process")?;
    let theirs = measure(&azurite, pid, n).await?;

    println!(
        "{:<20} {:>16} {:>16} {:>16} {:>18}",
        "server", "before (MiB)", "after (MiB)", "above (MiB)", "bytes per entity"
    );
    print("emulator binary", &ours, n);
    print("Azurite", &theirs, n);
    println!(
        "the emulator holds a stored entity in {:.2}x Azurite's bytes",
        ours.bytes_per_entity(n) / theirs.bytes_per_entity(n).max(f64::EPSILON)
    );
    Ok(())
}

fn main() -> Result<(), BoxError> {
    // `cargo bench` adds `--bench`; another argument is the number of entities.
    let n = match std::env::args().skip(1).find(|a| !a.starts_with("--")) {
        Some(n) => n.parse().map_err(|_| format!("not a number: `{n}`"))?,
        None => DEFAULT_ENTITIES,
    };
    tokio::runtime::Runtime::new()?.block_on(run(n))
}
