//! The storage patterns (bulk writes, optimistic retry, period tables, backup and restore,
//! copies, migrations) on every server, plus what only the emulator can host: a copy between
//! two accounts.
//!
//! Each case uses its own uniquely named tables, so cases run in parallel.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::{TimeZone, Utc};
use futures::TryStreamExt;
use tablekit::client::{Table, TableServiceClient};
use tablekit::patterns::backup::{self, BackupError, BackupReader, RestoreOptions, WriteMode};
use tablekit::patterns::bulk::{BulkWriter, ItemOutcome, WriteOp};
use tablekit::patterns::conflict_retry::{retry_on_conflict, ConflictRetry, RetriesExhausted};
use tablekit::patterns::migrate::{MigrateOptions, Migration};
use tablekit::patterns::period::{Period, PeriodTables, TableFamily};
use tablekit::patterns::progress::Progress;
use tablekit::{DynamicEntity, Error, Query, Value};
use tablekit_testing::Emulator;
use uuid::Uuid;

use crate::support::servers::{fresh_table, unique_name};

async fn count(table: &Table) -> usize {
    table.query_all().count().await.expect("count the table")
}

fn patient() -> ConflictRetry {
    ConflictRetry::new()
        .max_attempts(1_000)
        .and_then(|p| p.backoff(Duration::from_millis(1), Duration::from_millis(8)))
        .expect("a valid policy")
}

// ---- optimistic concurrency ----

pub async fn sixteen_tasks_times_a_hundred_increments_make_1600(client: &TableServiceClient) {
    let table = fresh_table(client, "Counter").await;
    let mut counter = DynamicEntity::new("c", "");
    counter.set("N", 0i64);
    table.insert(&mut counter).await.unwrap();
    let policy = patient();
    let tasks: Vec<_> = (0..16)
        .map(|_| {
            let table = table.clone();
            tokio::spawn(async move {
                for _ in 0..100 {
                    table
                        .update_with_retry_policy(("c", ""), &policy, |c| {
                            c.set("N", c.get_or("N", 0i64) + 1)
                        })
                        .await
                        .expect("an increment");
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    let n = table.get("c", "").await.unwrap().unwrap().get_or("N", 0i64);
    assert_eq!(n, 1600);
    table.delete_table().await.unwrap();
}

pub async fn update_with_retry_of_a_missing_entity_is_not_found(client: &TableServiceClient) {
    let table = fresh_table(client, "Missing").await;
    let mut calls = 0;
    let err = table
        .update_with_retry(("nobody", ""), |_| calls += 1)
        .await
        .unwrap_err();
    assert!(err.is_not_found(), "{err}");
    assert_eq!(calls, 0, "the change never runs without an entity");
    table.delete_table().await.unwrap();
}

pub async fn retry_on_conflict_gives_up_after_its_attempts(client: &TableServiceClient) {
    let table = fresh_table(client, "Exhaust").await;
    let mut e = DynamicEntity::new("p", "r");
    e.set("N", 0);
    table.insert(&mut e).await.unwrap();
    let policy = ConflictRetry::new()
        .max_attempts(3)
        .unwrap()
        .backoff(Duration::ZERO, Duration::ZERO)
        .unwrap();
    let attempts = Arc::new(Mutex::new(0));
    let err = retry_on_conflict(&policy, || {
        let table = table.clone();
        let attempts = Arc::clone(&attempts);
        async move {
            *attempts.lock().unwrap() += 1;
            let mut stale = table.get("p", "r").await?.unwrap();
            // Another writer wins between our read and our write, every time.
            let mut other = stale.clone();
            other.set("N", 99);
            table.replace(&mut other).await?;
            stale.set("N", 1);
            table.replace(&mut stale).await
        }
    })
    .await
    .unwrap_err();
    let exhausted = err.pattern_error::<RetriesExhausted>();
    assert_eq!(exhausted.map(|e| e.attempts), Some(3), "{err}");
    assert_eq!(*attempts.lock().unwrap(), 3);
    table.delete_table().await.unwrap();
}

// ---- bulk writer ----

pub async fn bulk_writes_25000_entities_over_30_partitions_exactly_once(
    client: &TableServiceClient,
) {
    let table = fresh_table(client, "Bulk").await;
    let name = table.name().to_owned();
    let ops = (0..25_000).map(|i| {
        let mut e = DynamicEntity::new(format!("p{:02}", i % 30), format!("{i:06}"));
        e.set("I", i);
        WriteOp::insert(&name, e)
    });
    let last = Arc::new(Mutex::new(None));
    let seen = Arc::clone(&last);
    let report = BulkWriter::new(client)
        .concurrency(8)
        .unwrap()
        .progress(move |p: &Progress| *seen.lock().unwrap() = Some(p.clone()))
        .write_iter(ops)
        .await;
    assert!(report.is_complete(), "{:?}", report.failures().next());
    assert_eq!(report.committed(), 25_000);
    for t in report.transactions() {
        assert!(t.items.len() <= 100 && t.committed);
        assert!(t
            .items
            .iter()
            .all(|&i| format!("p{:02}", i % 30) == t.partition_key));
    }
    let progress = last.lock().unwrap().clone().unwrap();
    assert!(progress.is_finished());
    assert_eq!(progress.items(), 25_000);

    let mut keys = HashSet::new();
    let mut rows = 0;
    let mut entities = table.query_all().entities();
    while let Some(e) = entities.try_next().await.unwrap() {
        rows += 1;
        let i: i32 = e.get("I").unwrap();
        assert_eq!(e.partition_key(), format!("p{:02}", i % 30));
        keys.insert(e.row_key().to_owned());
    }
    assert_eq!((rows, keys.len()), (25_000, 25_000));
    table.delete_table().await.unwrap();
}

pub async fn bulk_maps_a_failed_transaction_back_to_its_inputs(client: &TableServiceClient) {
    let table = fresh_table(client, "BulkFail").await;
    let mut existing = DynamicEntity::new("a", "005");
    table.insert(&mut existing).await.unwrap();
    let ops: Vec<WriteOp> = (0..10)
        .map(|i| {
            let pk = if i < 8 { "a" } else { "b" };
            WriteOp::insert(table.name(), DynamicEntity::new(pk, format!("{i:03}")))
        })
        .chain([WriteOp::insert(
            table.name(),
            DynamicEntity::new("c/d", "x"),
        )])
        .collect();
    let report = BulkWriter::new(client).write_iter(ops).await;
    let outcomes = report.outcomes();
    // Partition a: input 5 collides, so 0..8 are not applied; 5 is the cause.
    assert!(matches!(&outcomes[5], ItemOutcome::Failed { error, .. } if error.is_conflict()));
    for i in [0, 1, 2, 3, 4, 6, 7] {
        assert!(
            matches!(
                outcomes[i],
                ItemOutcome::RolledBack {
                    failed: Some(5),
                    ..
                }
            ),
            "{i}: {:?}",
            outcomes[i]
        );
    }
    // Partition b is its own transaction, committed.
    assert!(outcomes[8].is_committed() && outcomes[9].is_committed());
    // The invalid key is refused before sending.
    assert!(matches!(
        &outcomes[10],
        ItemOutcome::Failed { transaction: None, error } if error.is_invalid_input()
    ));
    assert_eq!(count(&table).await, 3);
    assert_eq!(report.committed_prefix(), 0);
    table.delete_table().await.unwrap();
}

pub async fn bulk_splits_by_encoded_size(client: &TableServiceClient) {
    let table = fresh_table(client, "BulkBig").await;
    // Three 60 KB binaries per entity: about 240 KB of base64 each, so 4 MiB holds ~17.
    let ops = (0..60).map(|i| {
        let mut e = DynamicEntity::new("p", format!("{i:03}"));
        for n in 0..3 {
            e.set(format!("B{n}"), vec![i as u8; 60_000]);
        }
        WriteOp::upsert(table.name(), e)
    });
    let report = BulkWriter::new(client).write_iter(ops).await;
    assert!(report.is_complete(), "{:?}", report.failures().next());
    assert!(report.transactions().len() >= 4);
    assert!(report.transactions().iter().all(|t| t.items.len() < 20));
    let back = table.get("p", "042").await.unwrap().unwrap();
    assert_eq!(back.get::<Vec<u8>>("B2"), Some(vec![42u8; 60_000]));
    table.delete_table().await.unwrap();
}

pub async fn bulk_applies_operations_on_one_entity_in_input_order(client: &TableServiceClient) {
    let table = fresh_table(client, "BulkOrder").await;
    let ops = (0..250).map(|i| {
        let mut e = DynamicEntity::new("p", format!("r{}", i % 3));
        e.set("Last", i);
        WriteOp::upsert(table.name(), e)
    });
    let report = BulkWriter::new(client)
        .concurrency(8)
        .unwrap()
        .write_iter(ops)
        .await;
    assert!(report.is_complete());
    // Three rows, each written many times: one per transaction, in order.
    assert!(report.transactions().iter().all(|t| t.items.len() <= 3));
    for (row, last) in [("r0", 249), ("r1", 247), ("r2", 248)] {
        let e = table.get("p", row).await.unwrap().unwrap();
        assert_eq!(e.get::<i32>("Last"), Some(last), "{row}");
    }
    table.delete_table().await.unwrap();
}

// ---- table-per-period ----

pub async fn period_tables_create_once_list_query_and_drop(client: &TableServiceClient) {
    let prefix = unique_name("Log");
    let logs: PeriodTables =
        PeriodTables::new(client, TableFamily::new(&prefix, Period::Day).unwrap());
    let day = |d| Utc.with_ymd_and_hms(2024, 3, d, 12, 0, 0).unwrap();
    for d in 1..=4 {
        for i in 0..5 {
            let mut e = DynamicEntity::new("w", format!("{d}-{i}"));
            e.set("Day", d as i32);
            logs.table_for_write(day(d))
                .await
                .unwrap()
                .insert(&mut e)
                .await
                .unwrap();
        }
    }
    let names: Vec<String> = logs
        .list()
        .await
        .unwrap()
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert_eq!(
        names,
        (1..=4)
            .map(|d| format!("{prefix}202403{d:02}"))
            .collect::<Vec<_>>()
    );

    // Created once, then cached: a table deleted behind the handle's back is not re-created
    // by the next write, which proves no create request per insert.
    client.delete_table(&names[3]).await.unwrap();
    let err = logs
        .table_for_write(day(4))
        .await
        .unwrap()
        .insert(&mut DynamicEntity::new("w", "late"))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("TableNotFound"), "{err}");
    logs.forget(&names[3]);
    logs.table_for_write(day(4)).await.unwrap();

    // Days 2 and 3 (the range ends at the start of day 4), from two tables.
    let from = Utc.with_ymd_and_hms(2024, 3, 2, 0, 0, 0).unwrap();
    let to = Utc.with_ymd_and_hms(2024, 3, 4, 0, 0, 0).unwrap();
    let found: Vec<DynamicEntity> = logs
        .query_between(from, to, Query::new())
        .try_collect()
        .await
        .unwrap();
    let days: Vec<i32> = found.iter().map(|e| e.get_or("Day", 0)).collect();
    assert_eq!(days, [2, 2, 2, 2, 2, 3, 3, 3, 3, 3]);

    let dropped = logs.drop_older_than(from).await.unwrap();
    assert_eq!(dropped, [names[0].clone()]);
    let left: Vec<String> = logs
        .list()
        .await
        .unwrap()
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert_eq!(left, names[1..].to_vec());
    for name in left {
        client.delete_table(&name).await.unwrap();
    }
}

// ---- backup, restore, copy ----

fn every_type(i: usize) -> DynamicEntity {
    let mut e = DynamicEntity::new(format!("p{}", i % 4), format!("r{i:04}"));
    e.set("Bool", i % 2 == 0);
    e.set("Int32", i as i32 - 50);
    e.set("Int64", (i as i64) << 40);
    e.set("Double", i as f64 / 3.0);
    e.set("Whole", 2.0f64);
    e.set(
        "When",
        Utc.with_ymd_and_hms(2020, 1, 2, 3, 4, 5).unwrap()
            + chrono::Duration::nanoseconds(i as i64 * 100),
    );
    e.set("Id", Uuid::from_u128(i as u128));
    e.set("Text", format!("it's line {i} \u{1F600}"));
    e.set("Bytes", vec![i as u8; 10]);
    e
}

async fn fill(client: &TableServiceClient, table: &Table, n: usize) {
    let ops = (0..n).map(|i| WriteOp::upsert(table.name(), every_type(i)));
    let report = BulkWriter::new(client).write_iter(ops).await;
    assert!(report.is_complete(), "{:?}", report.failures().next());
}

async fn sorted_entities(table: &Table) -> Vec<(String, String, Vec<(String, Value)>)> {
    let mut all: Vec<_> = table
        .query_all()
        .collect_all()
        .await
        .unwrap()
        .into_iter()
        .map(|e| {
            let mut props: Vec<_> = e
                .properties()
                .map(|(n, v)| (n.to_owned(), v.clone()))
                .collect();
            props.sort_by(|a, b| a.0.cmp(&b.0));
            (e.partition_key().to_owned(), e.row_key().to_owned(), props)
        })
        .collect();
    all.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    all
}

async fn backup_bytes(table: &Table, query: Query<DynamicEntity>) -> Vec<u8> {
    let mut file = Vec::new();
    backup::backup_table(table, query, &mut file, |_: &Progress| {})
        .await
        .unwrap();
    file
}

pub async fn backup_and_restore_round_trip_every_type(client: &TableServiceClient) {
    let source = fresh_table(client, "BakSrc").await;
    fill(client, &source, 1_234).await;
    let reports = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&reports);
    let mut file = Vec::new();
    let summary = backup::backup_table(&source, Query::new(), &mut file, move |p: &Progress| {
        sink.lock().unwrap().push(p.items())
    })
    .await
    .unwrap();
    assert_eq!(summary.entities, 1_234);
    assert_eq!(summary.bytes, file.len() as u64);
    assert_eq!(reports.lock().unwrap().last(), Some(&1_234));
    let header = BackupReader::open(&file[..]).await.unwrap();
    assert_eq!(header.header().table.as_deref(), Some(source.name()));

    let target = fresh_table(client, "BakDst").await;
    let report = backup::restore(&file[..], &target, RestoreOptions::new())
        .await
        .unwrap();
    assert!(report.is_complete());
    assert_eq!(report.checkpoint, 1_234);
    assert_eq!(
        sorted_entities(&target).await,
        sorted_entities(&source).await
    );
    source.delete_table().await.unwrap();
    target.delete_table().await.unwrap();
}

pub async fn a_truncated_backup_stops_the_restore_which_resumes_from_its_checkpoint(
    client: &TableServiceClient,
) {
    let source = fresh_table(client, "CutSrc").await;
    fill(client, &source, 3_000).await;
    let file = backup_bytes(&source, Query::new()).await;

    let target = fresh_table(client, "CutDst").await;
    let cut = &file[..file.len() * 2 / 3];
    let first = tokio::time::timeout(
        Duration::from_secs(120),
        backup::restore(cut, &target, RestoreOptions::new().mode(WriteMode::Insert)),
    )
    .await
    .expect("a truncated file never hangs")
    .unwrap();
    let err = first.read_error().expect("the cut is reported");
    match err.pattern_error::<BackupError>() {
        Some(e) => {
            assert!(e.is_truncated(), "{e}");
            assert!(e.offset().unwrap() <= cut.len() as u64);
        }
        None => panic!("expected a backup error, got {err}"),
    }
    assert!(!first.is_complete());
    assert!(
        first.checkpoint > 1_000 && first.checkpoint < 3_000,
        "{}",
        first.checkpoint
    );
    assert_eq!(count(&target).await as u64, first.checkpoint);

    // Resume from the checkpoint with the whole file, still insert-only: nothing written twice.
    let second = backup::restore(
        &file[..],
        &target,
        RestoreOptions::new()
            .mode(WriteMode::Insert)
            .resume_after(first.checkpoint),
    )
    .await
    .unwrap();
    assert!(
        second.is_complete(),
        "{:?}",
        second.writes.failures().next()
    );
    assert_eq!(second.checkpoint, 3_000);
    assert_eq!(
        sorted_entities(&target).await,
        sorted_entities(&source).await
    );

    // A changed byte is found, named by position, and nothing after it is written.
    let mut damaged = file.clone();
    let at = damaged.len() / 2;
    damaged[at] ^= 0x20;
    let third_target = fresh_table(client, "BadDst").await;
    let third = backup::restore(&damaged[..], &third_target, RestoreOptions::new())
        .await
        .unwrap();
    match third
        .read_error()
        .and_then(Error::pattern_error::<BackupError>)
    {
        Some(e) => {
            assert!(e.is_corrupt(), "{e}");
            assert!(e.offset().unwrap() <= at as u64);
        }
        None => panic!("expected a corruption error, got {:?}", third.read_error()),
    }
    assert!(count(&third_target).await < 3_000);
    for t in [source, target, third_target] {
        t.delete_table().await.unwrap();
    }
}

/// Restores the backup `file` into `target`, writing each entity in `mode`.
async fn restore_in(file: &[u8], target: &Table, mode: WriteMode) -> backup::RestoreReport {
    let options = RestoreOptions::new().mode(mode);
    backup::restore(file, target, options).await.unwrap()
}

pub async fn restore_modes_insert_and_replace_keep_their_promises(client: &TableServiceClient) {
    let source = fresh_table(client, "ModeSrc").await;
    fill(client, &source, 10).await;
    let file = backup_bytes(&source, Query::new()).await;
    let target = fresh_table(client, "ModeDst").await;

    // Replace: nothing exists yet, so every entity fails and nothing is created.
    let replace = restore_in(&file, &target, WriteMode::Replace).await;
    assert_eq!(replace.writes.committed(), 0);
    assert_eq!(count(&target).await, 0);

    // Insert: all new, all written; a second insert run changes nothing.
    let insert = restore_in(&file, &target, WriteMode::Insert).await;
    assert!(insert.is_complete());
    let mut changed = target.get("p1", "r0001").await.unwrap().unwrap();
    changed.set("Text", "edited");
    target.replace(&mut changed).await.unwrap();
    let again = restore_in(&file, &target, WriteMode::Insert).await;
    assert_eq!(again.writes.committed(), 0);
    let kept = target.get("p1", "r0001").await.unwrap().unwrap();
    assert_eq!(kept.get::<String>("Text").as_deref(), Some("edited"));

    // Upsert puts the backup's version back.
    let upsert = restore_in(&file, &target, WriteMode::Upsert).await;
    assert!(upsert.is_complete());
    assert_eq!(
        sorted_entities(&target).await,
        sorted_entities(&source).await
    );
    source.delete_table().await.unwrap();
    target.delete_table().await.unwrap();
}

pub async fn copy_table_copies_a_filtered_query(client: &TableServiceClient) {
    let source = fresh_table(client, "CopySrc").await;
    fill(client, &source, 400).await;
    // A second client: the copy goes through the target handle's own client.
    let other = TableServiceClient::from_connection_string(&connection_string_of(client))
        .unwrap_or_else(|_| client.clone());
    let target: Table = other.table_named(&unique_name("CopyDst"));
    target.create().await.unwrap();
    let report = backup::copy_table(
        &source,
        Query::new().filter_raw("PartitionKey eq 'p1' or PartitionKey eq 'p3'"),
        &target,
        RestoreOptions::new().concurrency(4),
    )
    .await
    .unwrap();
    assert!(report.is_complete());
    assert_eq!(report.committed(), 200);
    let copied = sorted_entities(&target).await;
    let expected: Vec<_> = sorted_entities(&source)
        .await
        .into_iter()
        .filter(|e| e.0 == "p1" || e.0 == "p3")
        .collect();
    assert_eq!(copied, expected);
    source.delete_table().await.unwrap();
    target.delete_table().await.unwrap();
}

/// A connection string for the client's endpoint with the development key (both backends
/// use the development account).
fn connection_string_of(client: &TableServiceClient) -> String {
    format!(
        "DefaultEndpointsProtocol=http;AccountName={};AccountKey={};TableEndpoint={};",
        client.endpoint().account(),
        tablekit::client::DEVELOPMENT_KEY,
        client.endpoint().base_url()
    )
}

// ---- property migration ----

async fn gamers(client: &TableServiceClient, n: usize) -> Table {
    let table = fresh_table(client, "Gamers").await;
    let ops = (0..n).map(|i| {
        let mut e = DynamicEntity::new("g", format!("{i:04}"));
        e.set("Nick", format!("nick{i}"));
        e.set("Legacy", true);
        e.set("Score", i as i32);
        WriteOp::upsert(table.name(), e)
    });
    assert!(BulkWriter::new(client).write_iter(ops).await.is_complete());
    table
}

fn migration() -> Migration {
    Migration::new()
        .rename("Nick", "Nickname")
        .remove(["Legacy"])
        .map(|e| e.set("Score", e.get_or("Score", 0) * 10))
}

pub async fn migration_dry_run_changes_nothing(client: &TableServiceClient) {
    let table = gamers(client, 30).await;
    let before = sorted_entities(&table).await;
    let dry = migration()
        .run(&table, Query::new(), MigrateOptions::new().dry_run(true))
        .await
        .unwrap();
    assert_eq!((dry.report.scanned, dry.report.changed), (30, 30));
    assert_eq!(dry.report.removed.get("Legacy"), Some(&30));
    assert_eq!(dry.report.renamed.get("Nick -> Nickname"), Some(&30));
    assert_eq!(sorted_entities(&table).await, before);
    // A select would make the Replace drop properties: refused before reading.
    let err = migration()
        .run(
            &table,
            Query::new().select_names(["Nick"]),
            MigrateOptions::new(),
        )
        .await
        .unwrap_err();
    assert!(err.is_invalid_input());
    table.delete_table().await.unwrap();
}

pub async fn migration_rewrites_and_resumes_from_a_checkpoint(client: &TableServiceClient) {
    let table = gamers(client, 35).await;
    let tokens = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&tokens);
    let first = migration()
        .run(
            &table,
            Query::new().top(10).unwrap(),
            MigrateOptions::new().on_checkpoint(move |t| sink.lock().unwrap().push(t.clone())),
        )
        .await
        .unwrap();
    assert!(first.error.is_none() && first.resume_from.is_none());
    assert_eq!((first.report.scanned, first.report.changed), (35, 35));
    assert_eq!(tokens.lock().unwrap().len(), 3);
    let e = table.get("g", "0007").await.unwrap().unwrap();
    assert_eq!(e.get::<String>("Nickname").as_deref(), Some("nick7"));
    assert_eq!(e.get::<i32>("Score"), Some(70));
    assert!(!e.contains("Nick") && !e.contains("Legacy"));

    // Resuming from the second checkpoint walks only the last 15 entities.
    let token = tokens.lock().unwrap()[1].clone();
    let bump = Migration::new().map(|e| e.set("Score", e.get_or("Score", 0) + 1));
    let resumed = bump
        .run(
            &table,
            Query::new().top(10).unwrap(),
            MigrateOptions::new().resume_from(token),
        )
        .await
        .unwrap();
    assert_eq!(resumed.report.scanned, 15);
    let early = table.get("g", "0007").await.unwrap().unwrap();
    let late = table.get("g", "0030").await.unwrap().unwrap();
    assert_eq!(
        (early.get::<i32>("Score"), late.get::<i32>("Score")),
        (Some(70), Some(301))
    );
    table.delete_table().await.unwrap();
}

pub async fn migration_retries_a_conflicting_write(client: &TableServiceClient) {
    let table = gamers(client, 3).await;
    let interfered = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&interfered);
    let rival = table.clone();
    // The first time the closure runs, another writer changes the entity between the
    // migration's read and its write, so that write fails with 412 and is redone.
    let m = Migration::new().map(move |e| {
        if e.row_key() == "0001" && !flag.swap(true, Ordering::SeqCst) {
            let rival = rival.clone();
            tokio::task::block_in_place(|| {
                tokio::runtime::Handle::current().block_on(async move {
                    let mut other = rival.get("g", "0001").await.unwrap().unwrap();
                    other.set("Rival", "was here");
                    rival.replace(&mut other).await.unwrap();
                })
            });
        }
        e.set("Migrated", true);
    });
    let out = m
        .run(&table, Query::new(), MigrateOptions::new())
        .await
        .unwrap();
    assert!(interfered.load(Ordering::SeqCst));
    assert_eq!(out.report.conflicts_retried, 1);
    assert_eq!((out.report.changed, out.report.failed), (3, 0));
    let e = table.get("g", "0001").await.unwrap().unwrap();
    assert_eq!(e.get::<bool>("Migrated"), Some(true));
    assert_eq!(
        e.get::<String>("Rival").as_deref(),
        Some("was here"),
        "the rival's write survives"
    );
    table.delete_table().await.unwrap();
}

on_servers!(
    sixteen_tasks_times_a_hundred_increments_make_1600,
    update_with_retry_of_a_missing_entity_is_not_found,
    retry_on_conflict_gives_up_after_its_attempts,
    bulk_writes_25000_entities_over_30_partitions_exactly_once,
    bulk_maps_a_failed_transaction_back_to_its_inputs,
    bulk_splits_by_encoded_size,
    bulk_applies_operations_on_one_entity_in_input_order,
    period_tables_create_once_list_query_and_drop,
    backup_and_restore_round_trip_every_type,
    a_truncated_backup_stops_the_restore_which_resumes_from_its_checkpoint,
    restore_modes_insert_and_replace_keep_their_promises,
    copy_table_copies_a_filtered_query,
    migration_dry_run_changes_nothing,
    migration_rewrites_and_resumes_from_a_checkpoint,
    migration_retries_a_conflicting_write,
    a_restore_from_a_file_fills_its_transactions,
);

/// A file source is often momentarily pending; entities are still planned in full windows, so
/// 2,000 entities over 4 partitions take 20 transactions, not hundreds.
pub async fn a_restore_from_a_file_fills_its_transactions(client: &TableServiceClient) {
    let source = fresh_table(client, "FileSource").await;
    let target = fresh_table(client, "FileTarget").await;
    let ops = (0..2_000).map(|i| {
        let mut e = DynamicEntity::new(format!("p{}", i % 4), format!("{i:05}"));
        e.set("Text", "x".repeat(200));
        WriteOp::upsert(source.name(), e)
    });
    assert!(BulkWriter::new(client).write_iter(ops).await.is_complete());

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("backup.tkb");
    let file = tokio::fs::File::create(&path).await.unwrap();
    let summary = backup::backup_table(&source, Query::new(), file, |_: &_| {})
        .await
        .unwrap();
    assert_eq!(summary.entities, 2_000);
    assert_eq!(
        tokio::fs::metadata(&path).await.unwrap().len(),
        summary.bytes
    );

    let input = tokio::io::BufReader::new(tokio::fs::File::open(&path).await.unwrap());
    let report = backup::restore(input, &target, RestoreOptions::new())
        .await
        .unwrap();
    assert!(report.is_complete());
    assert_eq!(report.writes.transactions().len(), 20);
    assert_eq!(count(&target).await, 2_000);
}

/// A second account's key (any base64 text is a valid key).
const OTHER_KEY: &str = "b3RoZXIgYWNjb3VudCBrZXkgZm9yIHRlc3Rz";

/// Only the emulator hosts two accounts here: the same table name in each is two tables.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copy_table_crosses_accounts() {
    let emulator = Emulator::builder()
        .account("otheraccount", OTHER_KEY)
        .start()
        .await
        .unwrap();
    let here = emulator.client();
    let there = TableServiceClient::from_connection_string(&format!(
        "DefaultEndpointsProtocol=http;AccountName=otheraccount;AccountKey={OTHER_KEY};TableEndpoint={};",
        emulator.endpoint_for("otheraccount")
    ))
    .unwrap();
    let source: Table = here.table_named("Source");
    let target: Table = there.table_named("Source");
    source.create().await.unwrap();
    target.create().await.unwrap();
    let ops = (0..300).map(|i| {
        let mut e = DynamicEntity::new(format!("p{}", i % 3), format!("{i:03}"));
        e.set("I", i);
        WriteOp::upsert("Source", e)
    });
    assert!(BulkWriter::new(&here).write_iter(ops).await.is_complete());

    let report = backup::copy_table(&source, Query::new(), &target, RestoreOptions::new())
        .await
        .unwrap();
    assert!(report.is_complete());
    assert_eq!(target.query_all().count().await.unwrap(), 300);
    // Same name, different accounts: two tables.
    target.delete_table().await.unwrap();
    assert_eq!(source.query_all().count().await.unwrap(), 300);
}
