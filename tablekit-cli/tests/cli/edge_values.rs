//! Every EDM type's empty and edge values through every file format: export then import
//! (JSON lines, CSV), `query` then import (JSON lines, CSV) and backup then restore give back
//! the same entities, or the command refuses. One property per entity, so a value read back
//! as "no property" is caught.

use chrono::DateTime;
use tablekit::codec::encode_entity_into;
use tablekit::{DynamicEntity, Value};
use uuid::Uuid;

use crate::support::{client, entities, ok, on_servers, table_name, tablekit, tablekit_stdin};

/// The values: each type's empty, smallest, largest and awkward ones.
pub(crate) fn edge_values() -> Vec<Value> {
    let datetime = |s: i64, ns: u32| Value::DateTime(DateTime::from_timestamp(s, ns).unwrap());
    vec![
        Value::String("".into()),
        Value::String("\\".into()),
        Value::String("\\\\x".into()),
        Value::String(" ".into()),
        Value::String("a,\"b\"\nc\r\nd".into()),
        Value::String("é😀".into()),
        Value::Binary(Vec::new()),
        Value::Binary(vec![0]),
        Value::Binary(vec![255; 3]),
        Value::Int32(0),
        Value::Int32(i32::MIN),
        Value::Int32(i32::MAX),
        Value::Int64(0),
        Value::Int64(i64::MIN),
        Value::Int64(i64::MAX),
        Value::Double(0.0),
        Value::Double(-0.0),
        Value::Double(0.1),
        Value::Double(f64::MAX),
        Value::Double(f64::MIN_POSITIVE),
        Value::Double(5e-324),
        Value::Double(f64::NAN),
        Value::Double(f64::INFINITY),
        Value::Double(f64::NEG_INFINITY),
        Value::Bool(false),
        Value::Bool(true),
        // 1601-01-01, the service's earliest, and 9999-12-31 to the last tick.
        datetime(-11_644_473_600, 0),
        datetime(253_402_300_799, 999_999_900),
        Value::Guid(Uuid::nil()),
        Value::Guid(Uuid::max()),
    ]
}

/// One entity per edge value, its only property `V`, and one with no property at all.
async fn edge_table(connection_string: &str) -> String {
    table_of_values(connection_string, "Edge", edge_values()).await
}

/// A new table named from `prefix` holding one entity per value, its only property `V` (so
/// `V` has every type), and one with no property at all.
pub(crate) async fn table_of_values(
    connection_string: &str,
    prefix: &str,
    values: Vec<Value>,
) -> String {
    let name = table_name(prefix);
    let table = client(connection_string).table_named::<DynamicEntity>(&name);
    table.create().await.unwrap();
    for (i, value) in values.into_iter().enumerate() {
        let mut e = DynamicEntity::new("p", format!("{i:02}"));
        e.set("V", value);
        table.insert(&mut e).await.unwrap();
    }
    table
        .insert(&mut DynamicEntity::new("p", "none"))
        .await
        .unwrap();
    name
}

/// The entities as their typed JSON, so NaN equals NaN and -0.0 differs from 0.0.
pub(crate) async fn typed_json(connection_string: &str, table: &str) -> Vec<String> {
    let rows = entities(connection_string, table).await;
    rows.iter()
        .map(|e| {
            let mut line = Vec::new();
            encode_entity_into(e, &mut line);
            String::from_utf8(line).unwrap()
        })
        .collect()
}

async fn edge_values_round_trip_every_format(connection_string: &str) {
    let source = edge_table(connection_string).await;
    let expected = typed_json(connection_string, &source).await;
    assert_eq!(expected.len(), edge_values().len() + 1);
    let dir = tempfile::tempdir().unwrap();
    for file in ["edge.jsonl", "edge.csv", "edge.tkb"] {
        let path = dir.path().join(file);
        let path = path.to_str().unwrap();
        let copy = table_name("EdgeCopy");
        if file.ends_with(".tkb") {
            ok(tablekit(
                connection_string,
                &["backup", &source, "-o", path],
            ));
            ok(tablekit(connection_string, &["restore", &copy, "-i", path]));
        } else {
            ok(tablekit(
                connection_string,
                &["export", &source, "-o", path],
            ));
            ok(tablekit(connection_string, &["import", &copy, "-i", path]));
        }
        let back = typed_json(connection_string, &copy).await;
        assert_eq!(back, expected, "through {file}");
    }
    for format in ["jsonl", "csv"] {
        let printed = ok(tablekit(
            connection_string,
            &["query", &source, "--format", format],
        ));
        let copy = table_name("EdgeQuery");
        ok(tablekit_stdin(
            connection_string,
            &["import", &copy, "--format", format],
            printed.stdout.as_bytes(),
        ));
        let back = typed_json(connection_string, &copy).await;
        assert_eq!(back, expected, "through query --format {format}");
    }
}

on_servers!(edge_values_round_trip_every_format);
