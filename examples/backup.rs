//! Backup, restore and copy, which the C# library that accompanies "Jeffrey Richter's Guide to
//! Working with Azure Storage Tables via C# and other .NET Languages" also offers: a table
//! streamed to a checksummed backup file, restored into another table with progress, and
//! copied table to table. A damaged copy of the file is refused with the byte position of the
//! damage.
//!
//! Run with `cargo run --example backup` (the embedded emulator), or against any service
//! with `TABLEKIT_CONNECTION_STRING` set.

#[path = "support/mod.rs"]
mod support;

use std::process::ExitCode;

use indicatif::{ProgressBar, ProgressStyle};
use tablekit::client::{Table, TableServiceClient};
use tablekit::patterns::backup::{self, RestoreOptions};
use tablekit::patterns::bulk::{BulkWriter, WriteOp};
use tablekit::patterns::progress::Progress;
use tablekit::{DynamicEntity, Query};

use support::BoxError;

/// Entities in the source table.
pub(crate) const ENTITIES: usize = 2_500;

/// What the run observed.
#[derive(Debug)]
pub(crate) struct Outcome {
    /// Entities in the backup file.
    pub(crate) backed_up: u64,
    /// Entities in the restored table.
    pub(crate) restored: usize,
    /// Entities in the copied table.
    pub(crate) copied: usize,
    /// The error for the truncated file.
    pub(crate) truncated_error: String,
}

impl Outcome {
    /// Whether every table holds every entity and the cut file was refused.
    pub(crate) fn check(&self) -> Result<(), String> {
        let n = ENTITIES;
        if self.backed_up != n as u64 || self.restored != n || self.copied != n {
            return Err(format!("{self:?}"));
        }
        if !self.truncated_error.contains("truncated") {
            return Err(format!("the cut file gave `{}`", self.truncated_error));
        }
        Ok(())
    }
}

/// A terminal progress bar fed by the library's progress reports.
fn bar(total: u64, what: &'static str) -> impl Fn(&Progress) + Send + Sync + 'static {
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template("{msg:>9} [{bar:30}] {pos}/{len} {per_sec}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_message(what);
    move |p: &Progress| {
        bar.set_position(p.items());
        if p.is_finished() {
            bar.finish();
        }
    }
}

/// Fills `{prefix}Src`, backs it up, restores it into `{prefix}Restored`, copies it to
/// `{prefix}Copy`, checks a truncated backup is refused, and deletes the three tables.
pub(crate) async fn run(client: &TableServiceClient, prefix: &str) -> Result<Outcome, BoxError> {
    support::cleaning_up(client, prefix, demo(client, prefix)).await
}

async fn demo(client: &TableServiceClient, prefix: &str) -> Result<Outcome, BoxError> {
    let source: Table = client.table_named(&format!("{prefix}Src"));
    let restored: Table = client.table_named(&format!("{prefix}Restored"));
    let copy: Table = client.table_named(&format!("{prefix}Copy"));
    for t in [&source, &restored, &copy] {
        t.create_if_not_exists().await?;
    }

    let ops = (0..ENTITIES).map(|i| {
        let mut e = DynamicEntity::new(format!("region{}", i % 10), format!("player{i:05}"));
        e.set("Score", (i * 7 % 1000) as i32);
        e.set("Joined", chrono::Utc::now());
        e.set("Avatar", vec![(i % 256) as u8; 64]);
        WriteOp::upsert(source.name(), e)
    });
    let report = BulkWriter::new(client)
        .progress(bar(ENTITIES as u64, "load"))
        .write_iter(ops)
        .await;
    println!(
        "loaded {} entities in {} transactions",
        report.committed(),
        report.transactions().len()
    );

    let dir = tempfile::tempdir()?;
    let path = dir.path().join("players.tkb");
    let file = tokio::fs::File::create(&path).await?;
    let summary =
        backup::backup_table(&source, Query::new(), file, bar(ENTITIES as u64, "backup")).await?;
    println!(
        "backup: {} entities, {} bytes, crc32 {:08x}",
        summary.entities, summary.bytes, summary.crc32
    );

    let input = tokio::io::BufReader::new(tokio::fs::File::open(&path).await?);
    let options = RestoreOptions::new().progress(bar(summary.entities, "restore"));
    let restore = backup::restore(input, &restored, options).await?;
    println!(
        "restore complete: {}, checkpoint {}",
        restore.is_complete(),
        restore.checkpoint
    );

    let bytes = tokio::fs::read(&path).await?;
    let cut = &bytes[..bytes.len() / 2];
    let target: Table = client.table_named(&format!("{prefix}Restored"));
    let damaged = backup::restore(cut, &target, RestoreOptions::new()).await?;
    let truncated_error = damaged
        .read_error()
        .map(ToString::to_string)
        .unwrap_or_default();
    println!("half a file: {truncated_error}");

    let copied = backup::copy_table(&source, Query::new(), &copy, RestoreOptions::new()).await?;
    println!("copied {} entities", copied.committed());

    Ok(Outcome {
        backed_up: summary.entities,
        restored: restored.query_all().count().await?,
        copied: copy.query_all().count().await?,
        truncated_error,
    })
}

#[cfg_attr(test, allow(dead_code))]
fn main() -> ExitCode {
    support::main("backup", async |client| {
        Ok(run(client, &support::fresh_name("Players"))
            .await?
            .check()?)
    })
}
