//! The gamers of "Jeffrey Richter's Guide to Working with Azure Storage Tables via C# and other
//! .NET Languages" (its `GamerManager` demo), in tablekit.
//!
//! A gamer is keyed by the lower-cased tag (so "Dragon" and "DRAGON" are one gamer) and keeps
//! the tag as typed, a score that reads 0 when absent, and the levels completed as versioned
//! binary records in up to four 64 KiB properties. Scores grow by optimistic concurrency: read,
//! change, write with the ETag read; a 412 means someone else wrote first, so read again.
//! A gamer saved by the previous release (no score, version-0 level records) reads fine.
//!
//! Run with `cargo run --example gamers` (the embedded emulator), or against any service with
//! `TABLEKIT_CONNECTION_STRING` set.

#[path = "support/mod.rs"]
mod support;

use std::process::ExitCode;

use tablekit::client::ServiceError;
use tablekit::patterns::conflict_retry::{retry_on_conflict, ConflictRetry};
use tablekit::prelude::*;

use support::BoxError;

/// A game level, stored as its `Int32` discriminant (in entities and in records alike).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, TableValue)]
#[repr(i32)]
pub enum Level {
    /// The first level.
    #[default]
    Dungeon = 0,
    /// The second level.
    Castle = 1,
    /// The third level.
    Forest = 2,
}

/// One level a gamer completed: a versioned binary record. Version 0 (the guide's format) had
/// no stars; version-0 data still reads, with `stars` at its default.
#[derive(Debug, Clone, PartialEq, Record)]
#[record(version = 1)]
pub struct CompletedLevel {
    /// Which level.
    pub level: Level,
    /// When it was completed (100 ns precision, like the service's DateTime).
    pub completed: DateTime<Utc>,
    /// Stars earned, added in version 1.
    #[record(since = 1)]
    pub stars: u8,
}

/// What the previous release of the game wrote: version-0 level records, without stars.
pub mod legacy {
    use super::Level;
    use tablekit::prelude::*;

    /// A completed level as version 0 wrote it.
    #[derive(Debug, Clone, PartialEq, Record)]
    #[record(version = 0)]
    pub struct CompletedLevel {
        /// Which level.
        pub level: Level,
        /// When.
        pub completed: DateTime<Utc>,
    }

    /// The gamer entity of the previous release: no score yet.
    #[derive(Debug, Clone, PartialEq, TableEntity)]
    #[tablekit(table = "Gamers")]
    pub struct Gamer {
        /// The tag.
        #[tablekit(partition_key, transform = lowercase)]
        #[tablekit(rename = "GamerTag")]
        pub tag: String,
        /// Completed levels, version 0.
        #[tablekit(records(max_properties = 4))]
        pub completed_levels: Vec<CompletedLevel>,
    }
}

/// A gamer: PartitionKey = the tag in lower case, RowKey = "".
#[derive(Debug, Clone, PartialEq, TableEntity)]
#[tablekit(table = "Gamers")]
pub struct Gamer {
    /// The tag as the gamer typed it, stored as `GamerTag`.
    #[tablekit(partition_key, transform = lowercase)]
    #[tablekit(rename = "GamerTag")]
    pub tag: String,
    /// The score; entities written before it existed read 0.
    #[tablekit(default = 0)]
    pub score: i32,
    /// Completed levels, in up to 4 x 64 KiB binary properties (an error beyond, never cut).
    #[tablekit(records(max_properties = 4))]
    pub completed_levels: Vec<CompletedLevel>,
}

/// How many gamers each query step hands out: fixed-size chunks across service pages.
pub const CHUNK_SIZE: usize = 2;

/// How many +1s race on one gamer: each write conflicts with the others, and every one of
/// them must count.
pub const CONCURRENT_INCREASES: i32 = 8;

/// A gamer as one query showed it.
#[derive(Debug, Clone, PartialEq)]
pub struct Shown {
    /// The tag, case preserved.
    pub tag: String,
    /// The score.
    pub score: i32,
    /// The completed levels (empty when the query did not select them).
    pub levels: Vec<Level>,
}

/// What the demo observed, for the test suite to check.
#[derive(Debug, Default)]
pub struct Outcome {
    /// The gamers each of the three queries showed, in order.
    pub shown: Vec<Vec<Shown>>,
    /// A second gamer with the same tag in another case was refused (409).
    pub duplicate_refused: bool,
    /// A write from a stale copy was refused (412) instead of losing an update.
    pub stale_write_refused: bool,
    /// The levels and stars of a gamer written by the previous release (version-0 records,
    /// no score): read by this release.
    pub legacy_levels: Vec<(Level, u8)>,
    /// Dragon's score after the stale-write demonstration.
    pub final_dragon_score: i32,
    /// Creeper's score after [`CONCURRENT_INCREASES`] concurrent +1s.
    pub final_creeper_score: i32,
}

#[cfg_attr(test, allow(dead_code))]
fn main() -> ExitCode {
    support::main("gamers", async |client| {
        run(client).await?;
        Ok(())
    })
}

/// The guide's `GamerManager.DemoAsync`, plus the failures optimistic concurrency prevents.
pub async fn run(client: &TableServiceClient) -> Result<Outcome, BoxError> {
    let table = support::fresh_table::<Gamer>(client, "Gamers").await?;
    support::cleaning_up(client, table.name(), demo(&table)).await
}

async fn demo(table: &Table<Gamer>) -> Result<Outcome, BoxError> {
    let mut outcome = Outcome::default();

    support::heading("create two gamers");
    create_gamer(table, "Dragon").await?;
    create_gamer(table, "Creeper").await?;
    // The key is the lower-cased tag, so another spelling of a taken tag is the same gamer.
    match create_gamer(table, "DRAGON").await {
        Err(e) if e.is_conflict() => {
            println!(
                "DRAGON refused: that tag is taken ({})",
                e.code().unwrap_or("409")
            );
            outcome.duplicate_refused = true;
        }
        other => return Err(format!("a duplicate tag was not refused: {other:?}").into()),
    }

    support::heading("Dragon +10, completes the Castle");
    increase_score(table, "Dragon", 10).await?;
    set_completed_level(table, "Dragon", Level::Castle, 3).await?;
    outcome.shown.push(show_gamers(table, 20, 40, true).await?); // shows 0 gamers

    support::heading("Creeper +20, completes the Forest");
    increase_score(table, "Creeper", 20).await?;
    set_completed_level(table, "Creeper", Level::Forest, 2).await?;
    outcome.shown.push(show_gamers(table, 20, 40, false).await?); // shows 1 gamer

    support::heading("Dragon +20, completes the Forest (and the Castle again: no change)");
    increase_score(table, "Dragon", 20).await?;
    set_completed_level(table, "Dragon", Level::Forest, 1).await?;
    set_completed_level(table, "Dragon", Level::Castle, 1).await?;
    outcome.shown.push(show_gamers(table, 20, 40, true).await?); // shows 2 gamers

    support::heading("a gamer saved by the previous release");
    outcome.legacy_levels = read_legacy_gamer(table).await?;

    support::heading("two writers, one stale copy");
    outcome.stale_write_refused = stale_write_is_refused(table).await?;
    outcome.final_dragon_score = find_gamer(table, "Dragon").await?.score();
    println!("Dragon's score: {}", outcome.final_dragon_score);

    support::heading("eight concurrent +1s for Creeper");
    let increases = (0..CONCURRENT_INCREASES).map(|_| increase_score(table, "Creeper", 1));
    futures::future::try_join_all(increases).await?;
    outcome.final_creeper_score = find_gamer(table, "Creeper").await?.score();
    println!("Creeper's score: {}", outcome.final_creeper_score);
    Ok(outcome)
}

/// Inserts a new gamer; a taken tag is a conflict error (409), never an overwrite.
async fn create_gamer(table: &Table<Gamer>, tag: &str) -> tablekit::Result<GamerEntity> {
    let mut gamer = GamerEntity::try_new(tag)?;
    table.insert(&mut gamer).await?;
    println!("created {tag} (PartitionKey `{}`)", gamer.partition_key());
    Ok(gamer)
}

/// Reads a gamer by tag, in any case.
async fn find_gamer(table: &Table<Gamer>, tag: &str) -> tablekit::Result<GamerEntity> {
    let key = Gamer::partition_key_of(tag);
    table.get(&key, "").await?.ok_or_else(|| not_found(tag))
}

/// Adds `increase` to a gamer's score: read, change, write with If-Match on the version
/// read; on 412 (someone else wrote since the read) `update_with_retry` reads again and redoes
/// the change, so no increase is lost.
async fn increase_score(table: &Table<Gamer>, tag: &str, increase: i32) -> Result<i32, BoxError> {
    let key = Gamer::partition_key_of(tag);
    let gamer = table
        .update_with_retry((&key, ""), |g: &mut GamerEntity| {
            g.set_score(g.score() + increase)
        })
        .await?;
    println!("{tag}: score {increase:+} -> {}", gamer.score());
    Ok(gamer.score())
}

/// What recording a completed level did.
enum Recorded {
    /// The level was added; the gamer now has this many.
    Added(usize),
    /// The gamer had already completed it: nothing was written.
    AlreadyCompleted,
}

/// Records that a gamer completed a level, once: a level already completed is left as is.
/// The whole read-check-write is retried on 412, like the guide's `OptimisticRetryAsync`.
async fn set_completed_level(
    table: &Table<Gamer>,
    tag: &str,
    level: Level,
    stars: u8,
) -> Result<(), BoxError> {
    let recorded = retry_on_conflict(&ConflictRetry::new(), || async {
        let mut gamer = find_gamer(table, tag).await?;
        // The `try_` form: damaged record bytes are an error here, not an empty list that the
        // write below would then store over the real data.
        let mut levels = gamer.try_completed_levels()?;
        if levels.iter().any(|l| l.level == level) {
            return Ok(Recorded::AlreadyCompleted);
        }
        levels.push(CompletedLevel {
            level,
            completed: Utc::now(),
            stars,
        });
        gamer.set_completed_levels(&levels)?;
        table.merge(&mut gamer).await?;
        Ok(Recorded::Added(levels.len()))
    })
    .await?;
    match recorded {
        Recorded::Added(n) => println!("{tag}: completed {level:?} ({n} levels)"),
        Recorded::AlreadyCompleted => println!("{tag}: {level:?} already completed"),
    }
    Ok(())
}

/// The error for a tag nobody has: a 404, like the service's for a missing entity.
fn not_found(tag: &str) -> tablekit::Error {
    let message = format!("no gamer tagged {tag}");
    tablekit::Error::Service(Box::new(ServiceError::new(
        404,
        Some("ResourceNotFound"),
        &message,
    )))
}

/// Shows the gamers whose score is in `low..=high`, reading only the selected properties,
/// in chunks of [`CHUNK_SIZE`] whatever the service's page size.
async fn show_gamers(
    table: &Table<Gamer>,
    low: i32,
    high: i32,
    show_levels: bool,
) -> Result<Vec<Shown>, BoxError> {
    println!("GAMERS WITH SCORES BETWEEN {low} AND {high}:");
    let query = Query::<Gamer>::new().filter(Gamer::SCORE.ge(low).and(Gamer::SCORE.le(high)));
    // A typed select: only `Gamer` columns compile here.
    let query = if show_levels {
        query.select((Gamer::TAG, Gamer::SCORE, Gamer::COMPLETED_LEVELS))
    } else {
        query.select((Gamer::TAG, Gamer::SCORE))
    };
    let mut shown = Vec::new();
    let mut chunks = table.query(query).chunks();
    while chunks.has_more() {
        let chunk = chunks.next_chunk(CHUNK_SIZE).await?;
        if chunk.is_empty() {
            break;
        }
        println!("  (a chunk of {})", chunk.len());
        for gamer in chunk {
            println!("  Tag={}, Score={}", gamer.tag(), gamer.score());
            // A level list the query did not fetch is unknown, not empty: its `try_` getter
            // would say so, so it is read only when selected.
            let levels = match show_levels {
                true => gamer.try_completed_levels()?,
                false => Vec::new(),
            };
            for l in &levels {
                println!(
                    "    {:<10} {} ({} stars)",
                    format!("{:?}", l.level),
                    tablekit::codec::format_datetime(&l.completed),
                    l.stars
                );
            }
            shown.push(Shown {
                tag: gamer.tag(),
                score: gamer.score(),
                levels: levels.iter().map(|l| l.level).collect(),
            });
        }
    }
    println!("  {} gamer(s)", shown.len());
    Ok(shown)
}

/// Writes a gamer the way the previous release did (no `Score`, version-0 level records) and
/// reads it with this release: the score reads its default and the old records read with
/// `stars` at its default, nothing converted in storage.
async fn read_legacy_gamer(table: &Table<Gamer>) -> Result<Vec<(Level, u8)>, BoxError> {
    let old_table: Table<legacy::Gamer> = table.client().table_named(table.name());
    let mut steve = legacy::GamerEntity::try_new("Steve")?;
    steve.set_completed_levels(&[legacy::CompletedLevel {
        level: Level::Dungeon,
        completed: DateTime::UNIX_EPOCH,
    }])?;
    old_table.insert(&mut steve).await?;

    let steve = find_gamer(table, "Steve").await?;
    let levels = steve.try_completed_levels()?;
    println!(
        "Steve: score {} (absent: the default), levels {:?}",
        steve.score(),
        levels
            .iter()
            .map(|l| format!("{:?} with {} stars", l.level, l.stars))
            .collect::<Vec<_>>()
    );
    Ok(levels.iter().map(|l| (l.level, l.stars)).collect())
}

/// Two copies of Dragon are read; the first write wins, the second is refused with 412
/// because its ETag is stale, and redoing it from a fresh read keeps both changes.
async fn stale_write_is_refused(table: &Table<Gamer>) -> Result<bool, BoxError> {
    let mut first = find_gamer(table, "Dragon").await?;
    let mut second = find_gamer(table, "Dragon").await?;
    first.set_score(first.score() + 1);
    table.merge(&mut first).await?;
    println!("writer 1: score -> {}", first.score());
    second.set_score(second.score() + 100);
    let refused = match table.merge(&mut second).await {
        Err(e) if e.is_precondition_failed() => {
            println!("writer 2: refused, its copy is stale (412); the +1 was not lost");
            true
        }
        Ok(()) => false,
        Err(e) => return Err(e.into()),
    };
    increase_score(table, "Dragon", 100).await?;
    Ok(refused)
}
