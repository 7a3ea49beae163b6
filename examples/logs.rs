//! The "Table Name Key Pattern" (of the series "Windows Azure Table Design Patterns"): one log
//! table per day. Writes log lines over several days (each day's table created on first use),
//! queries a time range that spans several tables, and drops the old days with one table
//! delete each. A line's RowKey is its time's ticks, so the generated
//! `LogLine::row_key_between` cuts the range's edges out of the first and last day's tables
//! exactly.
//!
//! Run with `cargo run --example logs` (the embedded emulator), or against any service
//! with `TABLEKIT_CONNECTION_STRING` set.

#[path = "support/mod.rs"]
mod support;

use std::process::ExitCode;

use chrono::{DateTime, Duration, TimeZone, Utc};
use futures::TryStreamExt;
use tablekit::client::TableServiceClient;
use tablekit::patterns::period::{Period, PeriodTables, TableFamily};
use tablekit::{Query, TableEntity};

use support::BoxError;

/// One log line: PartitionKey the worker, RowKey the time's ticks (oldest first).
#[derive(Debug, Clone, PartialEq, TableEntity)]
pub(crate) struct LogLine {
    /// The worker that wrote it.
    #[tablekit(partition_key)]
    pub(crate) worker: String,
    /// When: the RowKey, and stored as the `At` property too.
    #[tablekit(row_key(ticks))]
    pub(crate) at: DateTime<Utc>,
    /// `info` or `error`.
    pub(crate) level: String,
    /// The text.
    pub(crate) message: String,
}

/// Days of logs written.
pub(crate) const DAYS: i64 = 5;
/// Log lines per day.
pub(crate) const LINES_PER_DAY: i64 = 40;

/// What the run observed.
#[derive(Debug)]
pub(crate) struct Outcome {
    /// Lines written.
    pub(crate) written: usize,
    /// Lines read back between 20:00 on day 1 and 20:00 on day 4: all of days 2 to 4.
    pub(crate) in_range: usize,
    /// Tables dropped (days 1 and 2).
    pub(crate) dropped: Vec<String>,
    /// The family's tables left.
    pub(crate) remaining: Vec<String>,
}

fn first_day() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2010, 6, 1, 0, 0, 0)
        .single()
        .unwrap_or_default()
}

impl Outcome {
    /// Whether the run saw what the pattern promises.
    pub(crate) fn check(&self) -> Result<(), String> {
        let per_day = LINES_PER_DAY as usize;
        if self.written != per_day * DAYS as usize || self.in_range != 3 * per_day {
            return Err(format!(
                "wrote {}, read {} in range",
                self.written, self.in_range
            ));
        }
        if self.dropped.len() != 2 || self.remaining.len() != (DAYS - 2) as usize {
            return Err(format!(
                "dropped {:?}, left {:?}",
                self.dropped, self.remaining
            ));
        }
        Ok(())
    }
}

/// Writes, queries and prunes the family `{prefix}yyyyMMdd`, then deletes the days left.
pub(crate) async fn run(client: &TableServiceClient, prefix: &str) -> Result<Outcome, BoxError> {
    support::cleaning_up(client, prefix, demo(client, prefix)).await
}

async fn demo(client: &TableServiceClient, prefix: &str) -> Result<Outcome, tablekit::Error> {
    let logs: PeriodTables<LogLine> =
        PeriodTables::new(client, TableFamily::new(prefix, Period::Day)?);
    let start = first_day();
    let mut written = 0;
    for day in 0..DAYS {
        // Every 30 minutes from midnight to 19:30.
        for line in 0..LINES_PER_DAY {
            let at = start + Duration::days(day) + Duration::minutes(line * 30);
            let mut entity = LogLineEntity::new(format!("worker{}", line % 3), at);
            entity.set_level(if line % 10 == 0 { "error" } else { "info" });
            entity.set_message(format!("line {line} of day {}", day + 1));
            logs.table_for_write(at).await?.insert(&mut entity).await?;
            written += 1;
        }
        println!(
            "wrote {LINES_PER_DAY} lines to {}",
            logs.family().name_for(start + Duration::days(day))
        );
    }

    // The tables of days 1 to 4 may hold lines of the range; the RowKey range keeps exactly
    // those in it: none of day 1 (its last line is at 19:30), all of days 2 to 4.
    let from = start + Duration::hours(20);
    let to = start + Duration::days(3) + Duration::hours(20);
    let query = Query::new().filter(LogLine::row_key_between(from..to));
    println!("filter: {}", query.filter_string().unwrap_or_default());
    let in_range: Vec<LogLineEntity> = logs.query_between(from, to, query).try_collect().await?;
    println!(
        "{} lines from {from} to {to} across {:?}",
        in_range.len(),
        logs.family().names_between(from, to)
    );

    let cutoff = start + Duration::days(2);
    let dropped = logs.drop_older_than(cutoff).await?;
    println!("dropped {dropped:?} (older than {})", cutoff.date_naive());
    let remaining: Vec<String> = logs.list().await?.into_iter().map(|(n, _)| n).collect();
    println!("left: {remaining:?}");
    Ok(Outcome {
        written,
        in_range: in_range.len(),
        dropped,
        remaining,
    })
}

#[cfg_attr(test, allow(dead_code))]
fn main() -> ExitCode {
    support::main("logs", async |client| {
        Ok(run(client, &support::fresh_name("Log")).await?.check()?)
    })
}
