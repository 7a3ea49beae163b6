//! `stats`: entities, partitions and the approximate stored size per partition (the
//! service's size formula for each entity), in one streaming pass.

use std::io::Write;

use futures::TryStreamExt;
use tablekit::DynamicEntity;

use crate::cli::StatsArgs;
use crate::common::require_table;
use crate::connect::client;
use crate::exit::Outcome;
use crate::jsonl::write_failed;
use crate::progress::bar;

/// One partition's counts.
#[derive(Default)]
struct Partition {
    key: String,
    entities: u64,
    bytes: u64,
}

/// Runs `stats`. Entities arrive sorted by PartitionKey, so a partition is complete when the
/// next begins: memory holds one partition's counts, whatever the table's size.
pub(crate) async fn run(args: StatsArgs) -> Outcome {
    let client = client(&args.connection)?;
    require_table(&client, &args.table).await?;
    let table = client.table_named::<DynamicEntity>(&args.table);
    let progress = bar("entities", None);
    let mut out = std::io::stdout().lock();
    let (mut entities, mut partitions, mut bytes) = (0u64, 0u64, 0u64);
    let mut largest = Partition::default();
    let mut current: Option<Partition> = None;
    let mut pages = table.query_all().read_ahead(true).pages();
    while let Some(page) = pages.try_next().await? {
        for entity in page.entities() {
            let size = entity.size() as u64;
            entities += 1;
            bytes += size;
            if current
                .as_ref()
                .is_none_or(|p| p.key != entity.partition_key())
            {
                if let Some(done) = current.take() {
                    close(&mut out, args.partitions, done, &mut largest)?;
                }
                partitions += 1;
                current = Some(Partition {
                    key: entity.partition_key().to_owned(),
                    ..Partition::default()
                });
            }
            if let Some(p) = current.as_mut() {
                p.entities += 1;
                p.bytes += size;
            }
        }
        progress.inc(page.len() as u64);
    }
    if let Some(done) = current.take() {
        close(&mut out, args.partitions, done, &mut largest)?;
    }
    progress.finish_and_clear();
    writeln!(out, "table:       {}", args.table).map_err(write_failed)?;
    writeln!(out, "entities:    {entities}").map_err(write_failed)?;
    writeln!(out, "partitions:  {partitions}").map_err(write_failed)?;
    writeln!(out, "approx size: {}", human(bytes)).map_err(write_failed)?;
    if partitions > 0 {
        writeln!(
            out,
            "largest partition: {:?}, {} entities, {}",
            largest.key,
            largest.entities,
            human(largest.bytes)
        )
        .map_err(write_failed)?;
    }
    Ok(())
}

fn close(out: &mut impl Write, print: bool, done: Partition, largest: &mut Partition) -> Outcome {
    if print {
        writeln!(
            out,
            "partition {:?}: {} entities, {}",
            done.key,
            done.entities,
            human(done.bytes)
        )
        .map_err(write_failed)?;
    }
    if done.bytes > largest.bytes {
        *largest = done;
    }
    Ok(())
}

/// Bytes in KiB, MiB or GiB, one decimal.
fn human(bytes: u64) -> String {
    let units = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < units.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} bytes")
    } else {
        format!("{value:.1} {}", units[unit])
    }
}
