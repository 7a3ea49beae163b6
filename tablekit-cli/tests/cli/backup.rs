//! `backup` and `restore`: a round trip, a truncated or damaged file refused with exit code 2
//! before anything is written, and a restore written as read resumed from its checkpoint.

use tablekit::DynamicEntity;

use crate::support::{client, entities, ok, on_servers, table_name, tablekit};

async fn backup_restores_and_a_truncated_file_is_refused(connection_string: &str) {
    let source = table_name("Backed");
    let table = client(connection_string).table_named::<DynamicEntity>(&source);
    table.create().await.unwrap();
    for i in 0..1_500 {
        let mut e = DynamicEntity::new(format!("p{}", i % 2), format!("{i:05}"));
        e.set("Big", i64::MAX - i);
        table.upsert_replace(&mut e).await.unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("backed.tkb");
    let file = file.to_str().unwrap();
    ok(tablekit(
        connection_string,
        &["backup", &source, "-o", file],
    ));
    let restored = table_name("Restored");
    ok(tablekit(
        connection_string,
        &["restore", &restored, "-i", file],
    ));
    assert_eq!(
        entities(connection_string, &restored).await,
        entities(connection_string, &source).await
    );

    // Cut inside the trailer: every entity is there, but the file cannot prove it.
    let bytes = std::fs::read(file).unwrap();
    let cut = dir.path().join("cut.tkb");
    std::fs::write(&cut, &bytes[..bytes.len() - 5]).unwrap();
    let damaged = table_name("Damaged");
    let run = tablekit(
        connection_string,
        &["restore", &damaged, "-i", cut.to_str().unwrap()],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("is truncated"), "{}", run.stderr);
    assert!(run.stderr.contains("nothing written"), "{}", run.stderr);
    assert!(!client(connection_string)
        .table_exists(&damaged)
        .await
        .unwrap());

    // Damage in the middle: the whole file is checked first, so nothing is written either.
    let mut flipped = bytes.clone();
    let middle = flipped.len() / 2;
    flipped[middle] ^= 0x01;
    std::fs::write(&cut, &flipped).unwrap();
    let run = tablekit(
        connection_string,
        &["restore", &damaged, "-i", cut.to_str().unwrap()],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("nothing written"), "{}", run.stderr);
    assert!(!client(connection_string)
        .table_exists(&damaged)
        .await
        .unwrap());

    // Cut in the middle, written as read (`--no-verify`): the first chunk is written and the
    // checkpoint says so; with the sound file, the same command goes on from there.
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let resumed = table_name("Resumed");
    let checkpoint = dir.path().join("restore.checkpoint");
    let args = [
        "restore",
        &resumed,
        "-i",
        cut.to_str().unwrap(),
        "--checkpoint",
        checkpoint.to_str().unwrap(),
        "--mode",
        "insert",
        "--no-verify",
    ];
    let run = tablekit(connection_string, &args);
    assert_eq!(run.code, 2, "{}", run.stderr);
    std::fs::write(&cut, &bytes).unwrap();
    ok(tablekit(connection_string, &args));
    assert_eq!(
        entities(connection_string, &resumed).await,
        entities(connection_string, &source).await
    );
}

async fn migrate_renames_and_retypes(connection_string: &str) {
    let name = table_name("Migrated");
    let table = client(connection_string).table_named::<DynamicEntity>(&name);
    table.create().await.unwrap();
    for i in 0..5 {
        let mut e = DynamicEntity::new("p", format!("{i}"));
        e.set("Score", i);
        e.set("Old", "x");
        table.insert(&mut e).await.unwrap();
    }
    let args = [
        "migrate",
        &name,
        "--rename",
        "Old=New",
        "--retype",
        "Score:Int64",
    ];
    let dry = ok(tablekit(
        connection_string,
        &[&args[..], &["--dry-run"]].concat(),
    ));
    assert!(
        dry.stdout
            .contains("dry run, nothing written: 5 scanned, 5 changed"),
        "{}",
        dry.stdout
    );
    assert_eq!(
        table.get("p", "1").await.unwrap().unwrap().value("Score"),
        Some(&tablekit::Value::Int32(1))
    );
    ok(tablekit(connection_string, &args));
    let e = table.get("p", "1").await.unwrap().unwrap();
    assert_eq!(e.value("Score"), Some(&tablekit::Value::Int64(1)));
    assert_eq!(e.get::<String>("New").as_deref(), Some("x"));
    assert!(!e.contains("Old"));
}

on_servers!(
    backup_restores_and_a_truncated_file_is_refused,
    migrate_renames_and_retypes
);
