//! The READMEs' `Gamer` with the completed levels of the gamers in "Jeffrey Richter's Guide to
//! Working with Azure Storage Tables via C# and other .NET Languages", end to end through the
//! client: a `#[derive(Record)]` collection in `#[tablekit(records(max_properties = 4))]`, a
//! `#[tablekit(split(max_properties = 16))]` blob, version-0 data read by version-1 code, and
//! a shrink written with Merge. Runs on every server.

// Fixtures mirror the user code of the READMEs and examples; documenting them adds nothing.
#![allow(missing_docs)]

use chrono::{DateTime, Utc};
use futures::TryStreamExt;
use tablekit::client::{Table, TableServiceClient};
use tablekit::prelude::*;
use tablekit::record::encode_records;
use tablekit::split::{self, SplitError};
use tablekit::Record;

use crate::support::models::{CompletedLevel, Gamer, GamerEntity, Level};

/// The record as the previous release wrote it.
mod v0 {
    use super::*;

    #[derive(Debug, Clone, PartialEq, Record)]
    #[record(version = 0)]
    pub(crate) struct CompletedLevel {
        pub(crate) level: Level,
        pub(crate) completed: DateTime<Utc>,
    }
}

fn at(secs: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(secs, 0).unwrap()
}

fn level(i: usize) -> CompletedLevel {
    CompletedLevel {
        level: [Level::Dungeon, Level::Castle, Level::Forest][i % 3],
        completed: at(1_400_000_000 + i as i64),
        stars: (i % 4) as u8,
    }
}

/// The properties holding the completed levels (the field's own and its chunks).
fn level_properties(gamer: &GamerEntity) -> usize {
    gamer
        .as_dynamic()
        .properties()
        .filter(|(name, _)| name.starts_with("CompletedLevels"))
        .count()
}

async fn gamers(client: &TableServiceClient) -> Table<Gamer> {
    let name = format!("Gamers{}", &uuid::Uuid::new_v4().simple().to_string()[..12]);
    let table = client.table_named::<Gamer>(&name);
    table.create().await.unwrap();
    table
}

async fn read(table: &Table<Gamer>, tag: &str) -> GamerEntity {
    table.get(&tag.to_lowercase(), "").await.unwrap().unwrap()
}

/// The guide's SetCompletedLevelAsync: read, append, write back; old data reads with new code.
async fn completed_levels_survive_versions_and_appends(client: &TableServiceClient) {
    let table = gamers(client).await;
    let mut dragon = GamerEntity::new("Dragon");
    table.insert(&mut dragon).await.unwrap();
    assert!(read(&table, "Dragon").await.completed_levels().is_empty());

    // A version-0 writer (the previous release) stored two levels.
    let old = [
        v0::CompletedLevel {
            level: Level::Castle,
            completed: at(1_000),
        },
        v0::CompletedLevel {
            level: Level::Forest,
            completed: at(2_000),
        },
    ];
    let mut stored = read(&table, "Dragon").await;
    split::write_records(stored.as_dynamic_mut(), "CompletedLevels", &old, 4).unwrap();
    table.replace(&mut stored).await.unwrap();

    // Version-1 code reads them, stars defaulted, and appends one with stars.
    let mut gamer = read(&table, "Dragon").await;
    let mut levels = gamer.try_completed_levels().unwrap();
    assert_eq!(
        levels,
        [
            CompletedLevel {
                level: Level::Castle,
                completed: at(1_000),
                stars: 0
            },
            CompletedLevel {
                level: Level::Forest,
                completed: at(2_000),
                stars: 0
            },
        ]
    );
    levels.push(CompletedLevel {
        level: Level::Dungeon,
        completed: at(3_000),
        stars: 3,
    });
    gamer.set_completed_levels(&levels).unwrap();
    gamer.set_score(gamer.score() + 10);
    table.merge(&mut gamer).await.unwrap();

    let back = read(&table, "Dragon").await;
    assert_eq!(back.completed_levels(), levels);
    assert_eq!(back.score(), 10);
}

/// Many levels take several properties; too many is a typed error, nothing cut, nothing
/// sent; a shrink written with Merge reads correctly despite the chunks the service keeps.
async fn many_levels_split_and_shrink_under_merge(client: &TableServiceClient) {
    let table = gamers(client).await;
    let mut gamer = GamerEntity::new("Creeper");
    // 13 bytes a record (the enum's i32, ticks, stars): 18,000 need 4 properties.
    let many: Vec<CompletedLevel> = (0..18_000).map(level).collect();
    gamer.set_completed_levels(&many).unwrap();
    assert_eq!(level_properties(&gamer), 4);
    table.insert(&mut gamer).await.unwrap();
    assert_eq!(read(&table, "Creeper").await.completed_levels(), many);

    let too_many: Vec<CompletedLevel> = (0..21_000).map(level).collect();
    let err = gamer.set_completed_levels(&too_many).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Split(SplitError::TooLarge {
                max_properties: 4,
                ..
            })
        ),
        "{err}"
    );
    assert_eq!(gamer.completed_levels(), many, "the entity is unchanged");

    let few: Vec<CompletedLevel> = (0..2).map(level).collect();
    let mut update = read(&table, "Creeper").await;
    update.set_completed_levels(&few).unwrap();
    // The local entity drops the unused chunks, so the Merge does not send them.
    assert_eq!(level_properties(&update), 1);
    table.merge(&mut update).await.unwrap();

    let merged = read(&table, "Creeper").await;
    assert_eq!(merged.completed_levels(), few);
    assert_eq!(
        split::stale_chunks(merged.as_dynamic(), "CompletedLevels"),
        [
            "CompletedLevels__1",
            "CompletedLevels__2",
            "CompletedLevels__3"
        ],
        "the service keeps chunks a Merge does not send; the header makes them unread"
    );
}

/// A select of the records field fetches all its chunk properties: the levels read whole.
async fn select_of_a_split_field_fetches_every_chunk(client: &TableServiceClient) {
    let table = gamers(client).await;
    let many: Vec<CompletedLevel> = (0..10_000).map(level).collect();
    let mut gamer = GamerEntity::new("Dragon");
    gamer.set_completed_levels(&many).unwrap();
    gamer.set_score(30);
    table.insert(&mut gamer).await.unwrap();
    assert_eq!(
        level_properties(&gamer),
        2,
        "10,000 levels take 2 properties"
    );

    let q = Query::<Gamer>::new().select((Gamer::TAG, Gamer::COMPLETED_LEVELS));
    let found: Vec<GamerEntity> = table.query(q).entities().try_collect().await.unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].try_completed_levels().unwrap(), many);
    assert!(!found[0].as_dynamic().contains("Score"), "not selected");
}

/// A 300 KiB split blob round-trips bit-exactly; the entity size counts every chunk, so a
/// value that fits 16 properties but not a 1 MiB entity is refused before sending.
async fn split_blob_round_trips_and_counts_toward_the_entity_size(client: &TableServiceClient) {
    let table = gamers(client).await;
    let avatar: Vec<u8> = (0..300 * 1024)
        .map(|i: usize| (i * 7 % 253) as u8)
        .collect();
    let mut gamer = GamerEntity::new("Pixel");
    gamer.set_avatar(&avatar).unwrap();
    table.insert(&mut gamer).await.unwrap();
    assert_eq!(read(&table, "Pixel").await.try_avatar().unwrap(), avatar);

    let mut huge = GamerEntity::new("Huge");
    huge.set_avatar(&vec![1; split::max_bytes(16)]).unwrap();
    let err = table.insert(&mut huge).await.unwrap_err();
    assert!(err.is_invalid_input(), "{err}");
    assert!(
        table.get("huge", "").await.unwrap().is_none(),
        "nothing was sent"
    );
}

/// What encode_records writes is what the records property holds (header aside).
#[test]
fn the_property_holds_the_encoded_records_behind_the_split_header() {
    let levels: Vec<CompletedLevel> = (0..3).map(level).collect();
    let mut gamer = GamerEntity::new("Dragon");
    gamer.set_completed_levels(&levels).unwrap();
    let Some(Value::Binary(stored)) = gamer.as_dynamic().value("CompletedLevels") else {
        panic!("not binary")
    };
    assert_eq!(
        stored[split::HEADER_LEN..],
        encode_records(&levels).unwrap()
    );
}

on_servers!(
    completed_levels_survive_versions_and_appends,
    many_levels_split_and_shrink_under_merge,
    select_of_a_split_field_fetches_every_chunk,
    split_blob_round_trips_and_counts_toward_the_entity_size,
);
