//! Secondary indexes under concurrency on every server: writers of the same entities race
//! (pairs and groups, every kind of write, unique and non-unique indexes inside and across
//! partitions), then the table, read untyped, must hold the index invariants: every entity
//! has exactly its index rows, no index row lacks its entity, one owner per unique value.
//! Also the writes that meet an index drifted from its entities (a missing row, a value two
//! entities hold) and unconditional writes under contention.

// Fixtures mirror user code; documenting them adds nothing.
#![allow(missing_docs)]

use std::collections::BTreeMap;

use futures::future::join_all;
use tablekit::client::{Table, TableServiceClient};
use tablekit::index::{TARGET_PARTITION_PROPERTY, TARGET_PROPERTY};
use tablekit::patterns::index::repair;
use tablekit::plan::StoragePlan;
use tablekit::prelude::*;
use tablekit::spread::AUXILIARY_PROPERTY;
use tablekit::{ETag, Error};

use crate::support::servers::unique_name;

/// A racer: a unique email and a level in its team's partition, a city across partitions.
#[derive(TableEntity)]
pub struct Racer {
    #[tablekit(partition_key)]
    pub team: String,
    #[tablekit(row_key)]
    pub id: String,
    #[tablekit(index(unique))]
    pub email: String,
    #[tablekit(index)]
    pub level: String,
    #[tablekit(index(partition = "ByCity"))]
    pub city: String,
}

/// A logbook whose pages spread over continuation rows.
#[derive(TableEntity)]
pub struct Logbook {
    #[tablekit(partition_key)]
    pub team: String,
    #[tablekit(row_key)]
    pub id: String,
    #[tablekit(split(rows = 2))]
    pub pages: Vec<u8>,
}

async fn racers(client: &TableServiceClient) -> Table<Racer> {
    let table = client.table_named::<Racer>(&unique_name("Racers"));
    table.create().await.unwrap();
    table
}

fn racer(team: &str, id: &str, email: &str, level: &str, city: &str) -> RacerEntity {
    let mut r = RacerEntity::new(team, id);
    r.set_email(email);
    r.set_level(level);
    r.set_city(city);
    r
}

/// (PartitionKey, RowKey) of a row.
type Key = (String, String);

/// Asserts the index invariants over every row of the table, read untyped.
async fn assert_exact_index(table: &Table<Racer>, context: &str) {
    let raw: Table = table.client().table_named(table.name());
    let rows = raw.query_all().collect_all().await.unwrap();
    let (index_rows, entities): (Vec<_>, Vec<_>) = rows
        .into_iter()
        .partition(|row| row.get::<String>(AUXILIARY_PROPERTY).is_some());
    let mut needed: BTreeMap<Key, Key> = BTreeMap::new();
    for entity in &entities {
        let target = (
            entity.partition_key().to_owned(),
            entity.row_key().to_owned(),
        );
        for index in StoragePlan::of::<Racer>().indexes {
            let Some(row) = index.row_of(entity).unwrap() else {
                continue;
            };
            let key = (row.partition_key().to_owned(), row.row_key().to_owned());
            let other = needed.insert(key.clone(), target.clone());
            assert!(
                other.is_none(),
                "{context}: {key:?} owned by {other:?} and {target:?}"
            );
        }
    }
    let present: BTreeMap<Key, Key> = index_rows
        .iter()
        .map(|row| {
            let partition = row
                .get::<String>(TARGET_PARTITION_PROPERTY)
                .unwrap_or_else(|| row.partition_key().to_owned());
            let target = (
                partition,
                row.get::<String>(TARGET_PROPERTY).unwrap_or_default(),
            );
            (
                (row.partition_key().to_owned(), row.row_key().to_owned()),
                target,
            )
        })
        .collect();
    assert_eq!(
        present, needed,
        "{context}: index rows (left) and entities' (right)"
    );
}

/// A delete racing an upsert of the same entity, 30 times: whichever applies last, its index
/// rows (inside and across partitions) are exactly the entity's.
async fn a_delete_racing_an_upsert_leaves_an_exact_index(client: &TableServiceClient) {
    let table = racers(client).await;
    for round in 0..30 {
        let city = format!("c{}", round % 3);
        let mut entity = racer("red", "x", &format!("e{round}"), "l1", &city);
        let any = ETag::any();
        let (deleted, upserted) = tokio::join!(
            table.delete_by_key("red", "x", &any),
            table.upsert_merge(&mut entity),
        );
        if let Err(e) = deleted {
            assert!(e.is_not_found(), "round {round}: {e}");
        }
        upserted.unwrap();
        assert_exact_index(&table, &format!("round {round}")).await;
    }
    table.delete_table().await.unwrap();
}

/// Six unconditional upserts of one entity at once, three times, for an indexed and a spread
/// model: every one succeeds.
async fn unconditional_upserts_under_contention_succeed(client: &TableServiceClient) {
    let table = racers(client).await;
    for round in 0..3 {
        let writes = (0..6).map(|w| {
            let table = table.clone();
            tokio::spawn(async move {
                let (level, city) = (format!("l{w}"), format!("c{}", (w + round) % 3));
                let mut r = racer("red", "x", &format!("e{w}"), &level, &city);
                if w % 2 == 0 {
                    table.upsert_replace(&mut r).await
                } else {
                    table.upsert_merge(&mut r).await
                }
            })
        });
        for written in join_all(writes).await {
            written.unwrap().unwrap();
        }
        assert_exact_index(&table, &format!("round {round}")).await;
    }
    table.delete_table().await.unwrap();

    let logbooks = client.table_named::<Logbook>(&unique_name("Logbooks"));
    logbooks.create().await.unwrap();
    for _ in 0..3 {
        let writes = (0..6u8).map(|w| {
            let logbooks = logbooks.clone();
            tokio::spawn(async move {
                let mut book = LogbookEntity::new("red", "book");
                book.set_pages(&vec![w; 40_000 * (1 + usize::from(w % 2))])?;
                logbooks.upsert_replace(&mut book).await
            })
        });
        for written in join_all(writes).await {
            written.unwrap().unwrap();
        }
    }
    let book = logbooks.get("red", "book").await.unwrap().unwrap();
    let pages = book.pages();
    assert!(
        pages.iter().all(|b| *b == pages[0]),
        "pages of two writes mixed"
    );
    logbooks.delete_table().await.unwrap();
}

/// Two entities hold one unique value (written untyped); the index row names the first.
/// Moving the second to another value leaves the first's row where it is.
async fn moving_a_non_owner_of_a_shared_unique_value_keeps_the_owners_row(
    client: &TableServiceClient,
) {
    let table = racers(client).await;
    let raw: Table = client.table_named(table.name());
    for id in ["a", "b"] {
        let mut row = DynamicEntity::new("red", id);
        row.set("Email", "dup@x");
        raw.insert(&mut row).await.unwrap();
    }
    let report = repair(&table).await.unwrap();
    assert_eq!(report.unique_conflicts, 1);
    let owner = Racer::by_email(&table, "red", "dup@x")
        .await
        .unwrap()
        .unwrap();
    let (owner, other) = match owner.as_dynamic().row_key() {
        "a" => ("a", "b"),
        _ => ("b", "a"),
    };
    let mut moved = table.get("red", other).await.unwrap().unwrap();
    moved.set_email("new@x");
    table.replace(&mut moved).await.unwrap();
    let found = Racer::by_email(&table, "red", "dup@x").await.unwrap();
    assert_eq!(
        found.as_ref().map(|r| r.as_dynamic().row_key()),
        Some(owner)
    );
    assert_exact_index(&table, "after the move").await;
    table.delete_table().await.unwrap();
}

/// An entity whose index rows were deleted behind the model's back: an update and a delete
/// still succeed, and leave an exact index.
async fn writes_succeed_over_missing_index_rows(client: &TableServiceClient) {
    let table = racers(client).await;
    let raw: Table = client.table_named(table.name());
    let mut kim = racer("red", "k", "kim@x", "l1", "Oslo");
    table.insert(&mut kim).await.unwrap();
    for index in StoragePlan::of::<Racer>().indexes {
        let row = index.row_of(kim.as_dynamic()).unwrap().unwrap();
        raw.delete_by_key(row.partition_key(), row.row_key(), &ETag::any())
            .await
            .unwrap();
    }
    let mut kim = table.get("red", "k").await.unwrap().unwrap();
    kim.set_email("kim2@x");
    kim.set_level("l2");
    kim.set_city("Bergen");
    table.replace(&mut kim).await.unwrap();
    assert_exact_index(&table, "after the update").await;
    let index = &StoragePlan::of::<Racer>().indexes[1];
    let row = index.row_of(kim.as_dynamic()).unwrap().unwrap();
    raw.delete_by_key(row.partition_key(), row.row_key(), &ETag::any())
        .await
        .unwrap();
    table.delete_by_key("red", "k", &ETag::any()).await.unwrap();
    assert_exact_index(&table, "after the delete").await;
    table.delete_table().await.unwrap();
}

/// A small deterministic pseudo-random sequence (no seed to share between servers).
struct Dice(u64);

impl Dice {
    fn roll(&mut self, sides: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) % sides as u64) as usize
    }
}

/// One writer's step on one of four entities in two partitions: insert, upsert (merge or
/// replace), merge or replace of what it read, delete. Values come from small sets, so
/// unique values collide. Errors a write may answer under contention are allowed: a taken
/// unique value, a caller's condition that failed, a key created or deleted meanwhile.
async fn step(table: &Table<Racer>, dice: &mut Dice) {
    let (team, id) = [("red", "a"), ("red", "b"), ("blue", "a"), ("blue", "b")][dice.roll(4)];
    let email = ["x@x", "y@x", "z@x"][dice.roll(3)];
    let level = ["l1", "l2"][dice.roll(2)];
    let city = ["Oslo", "Rome"][dice.roll(2)];
    let mut fresh = racer(team, id, email, level, city);
    let result = match dice.roll(6) {
        0 => table.insert(&mut fresh).await,
        1 => table.upsert_merge(&mut fresh).await,
        2 => table.upsert_replace(&mut fresh).await,
        3 | 4 => match table.get(team, id).await.unwrap() {
            None => Ok(()),
            Some(mut read) => {
                read.set_email(email);
                read.set_city(city);
                if dice.roll(2) == 0 {
                    table.merge(&mut read).await
                } else {
                    table.replace(&mut read).await
                }
            }
        },
        _ => table.delete_by_key(team, id, &ETag::any()).await,
    };
    match result {
        Ok(()) | Err(Error::UniqueViolation(_)) => {}
        Err(e) if e.is_not_found() || e.is_conflict() || e.is_precondition_failed() => {}
        Err(e) => panic!("{team}/{id}: {e}"),
    }
}

/// Six writers of 15 steps each over the same four entities, three times: the index stays
/// exact.
async fn groups_of_writers_leave_an_exact_index(client: &TableServiceClient) {
    let table = racers(client).await;
    for group in 0..3u64 {
        let writers = (0..6u64).map(|w| {
            let table = table.clone();
            tokio::spawn(async move {
                let mut dice = Dice(group * 100 + w);
                for _ in 0..15 {
                    step(&table, &mut dice).await;
                }
            })
        });
        for writer in join_all(writers).await {
            writer.unwrap();
        }
        assert_exact_index(&table, &format!("group {group}")).await;
    }
    table.delete_table().await.unwrap();
}

on_servers!(
    a_delete_racing_an_upsert_leaves_an_exact_index,
    unconditional_upserts_under_contention_succeed,
    moving_a_non_owner_of_a_shared_unique_value_keeps_the_owners_row,
    writes_succeed_over_missing_index_rows,
    groups_of_writers_leave_an_exact_index,
);
