//! `export` -> `import` -> `export` gives the same bytes, in typed JSON lines and typed CSV,
//! with every EDM type, empty strings, a property stored with two types, and multi-line text.

use chrono::DateTime;
use tablekit::DynamicEntity;
use uuid::Uuid;

use crate::support::{client, entities, ok, on_servers, read, table_name, tablekit};

/// A table of entities covering every type and the cases CSV has to escape.
async fn typed_table(connection_string: &str) -> (String, Vec<DynamicEntity>) {
    let name = table_name("Typed");
    let table = client(connection_string).table_named::<DynamicEntity>(&name);
    table.create().await.expect("created");
    let mut rows = Vec::new();
    for i in 0..12 {
        let mut e = DynamicEntity::new(format!("p{}", i % 3), format!("r{i:02}"));
        e.set("Name", format!("gamer {i}, \"quoted\"\nsecond line"));
        e.set("Score", i);
        e.set("Big", (1i64 << 53) + i64::from(i));
        e.set("Ratio", f64::from(i) / 3.0);
        e.set("Whole", 2.0f64);
        e.set("Active", i % 2 == 0);
        e.set(
            "Joined",
            DateTime::from_timestamp(1_700_000_000 + i64::from(i), 1_234_500).unwrap(),
        );
        e.set("Id", Uuid::from_u128(0x1234_5678_9abc_def0 + i as u128));
        e.set("Blob", vec![0u8, 1, 2, 255, i as u8]);
        if i % 4 == 0 {
            e.set("Note", ""); // an empty string, not a missing property
        } else if i % 4 == 1 {
            e.set("Note", "\\starts with a backslash");
        }
        // `Mixed` is stored as Int32 by some entities and as String by others.
        if i % 2 == 0 {
            e.set("Mixed", i);
        } else {
            e.set("Mixed", format!("{i}"));
        }
        table.insert(&mut e.clone()).await.expect("inserted");
        rows.push(e);
    }
    (name, rows)
}

async fn jsonl_round_trip_is_exact(connection_string: &str) {
    let (source, rows) = typed_table(connection_string).await;
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("first.jsonl");
    let second = dir.path().join("second.jsonl");
    let copy = table_name("TypedCopy");
    ok(tablekit(
        connection_string,
        &["export", &source, "-o", first.to_str().unwrap()],
    ));
    ok(tablekit(
        connection_string,
        &["import", &copy, "-i", first.to_str().unwrap()],
    ));
    ok(tablekit(
        connection_string,
        &["export", &copy, "-o", second.to_str().unwrap()],
    ));
    assert_eq!(
        String::from_utf8(read(&first)).unwrap().lines().count(),
        rows.len()
    );
    assert_eq!(read(&first), read(&second));
    assert_eq!(
        entities(connection_string, &copy).await,
        entities(connection_string, &source).await
    );
}

async fn csv_round_trip_is_exact(connection_string: &str) {
    let (source, _) = typed_table(connection_string).await;
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("first.csv");
    let second = dir.path().join("second.csv");
    let copy = table_name("TypedCsv");
    ok(tablekit(
        connection_string,
        &["export", &source, "-o", first.to_str().unwrap()],
    ));
    let text = String::from_utf8(read(&first)).unwrap();
    assert!(
        text.starts_with(
            "PartitionKey,RowKey,Name:String,Score:Int32,Big:Int64,Ratio:Double,Whole:Double,\
             Active:Boolean,Joined:DateTime,Id:Guid,Blob:Binary,Note:String,Mixed:Int32,Mixed:String\n"
        ),
        "{text}"
    );
    assert!(
        text.contains(",2023-11-14T22:13:20.0012345Z,"),
        "DateTime with 7 digits: {text}"
    );
    ok(tablekit(
        connection_string,
        &["import", &copy, "-i", first.to_str().unwrap()],
    ));
    ok(tablekit(
        connection_string,
        &["export", &copy, "-o", second.to_str().unwrap()],
    ));
    assert_eq!(read(&first), read(&second));
    // Not only the same text: the same entities, types included.
    assert_eq!(
        entities(connection_string, &copy).await,
        entities(connection_string, &source).await
    );
}

async fn query_shows_types_apart(connection_string: &str) {
    let (source, _) = typed_table(connection_string).await;
    let filter = "PartitionKey eq 'p0' and RowKey eq 'r00'";
    let run = ok(tablekit(
        connection_string,
        &["query", &source, "--filter", filter, "--format", "table"],
    ));
    let row = run.stdout.lines().nth(1).expect("a row");
    for shown in [
        "9007199254740992L",
        "2.0",
        "datetime'2023-11-14T22:13:20.0012345Z'",
        "guid'00000000-0000-0000-1234-56789abcdef0'",
        "X'000102ff00'",
    ] {
        assert!(row.contains(shown), "`{shown}` missing from {row}");
    }
    let run = ok(tablekit(
        connection_string,
        &[
            "query", &source, "--select", "Score", "--top", "2", "--format", "jsonl",
        ],
    ));
    assert_eq!(run.stdout.lines().count(), 2);
    assert!(
        run.stdout
            .starts_with(r#"{"PartitionKey":"p0","RowKey":"r00","Score":0}"#),
        "{}",
        run.stdout
    );
}

/// An import stopped by a bad line keeps what it wrote and says where to go on; with the line
/// mended, the same command goes on from the checkpoint, writing no entity twice (in insert
/// mode a second write would be refused).
async fn an_import_resumes_from_its_checkpoint(connection_string: &str) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("players.jsonl");
    let line = |i: usize| {
        format!(
            r#"{{"PartitionKey":"p{}","RowKey":"{i:05}","N":{i}}}"#,
            i % 3
        )
    };
    let mut lines: Vec<String> = (0..2_500).map(line).collect();
    lines[1_700] = "{not json".to_owned();
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let table = table_name("Resumed");
    let args = [
        "import",
        &table,
        "-i",
        file.to_str().unwrap(),
        "--mode",
        "insert",
    ];
    let run = tablekit(connection_string, &args);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("line 1701"), "{}", run.stderr);
    assert!(
        run.stderr.contains("1000 entities written; the checkpoint"),
        "{}",
        run.stderr
    );
    assert!(dir.path().join("players.jsonl.checkpoint").exists());
    assert_eq!(entities(connection_string, &table).await.len(), 1_000);

    // Another table is another job: its checkpoint is refused, not used.
    let other = table_name("Other");
    let mut other_args = args;
    other_args[1] = &other;
    let run = tablekit(connection_string, &other_args);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("belongs to"), "{}", run.stderr);

    lines[1_700] = line(1_700);
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let run = ok(tablekit(connection_string, &args));
    assert!(
        run.stderr.contains("imported 2500 entities"),
        "{}",
        run.stderr
    );
    assert_eq!(entities(connection_string, &table).await.len(), 2_500);
    assert!(!dir.path().join("players.jsonl.checkpoint").exists());
}

on_servers!(
    jsonl_round_trip_is_exact,
    csv_round_trip_is_exact,
    query_shows_types_apart,
    an_import_resumes_from_its_checkpoint
);
