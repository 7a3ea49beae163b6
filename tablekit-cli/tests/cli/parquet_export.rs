//! `export --format parquet`: pyarrow (pinned, in a venv in the cache directory) reads every
//! value back as it was, each in a typed column; `import` reads the file back to the same
//! entities; a DateTime Parquet cannot hold is refused before anything is written.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use tablekit::{DynamicEntity, EdmType, Value};

#[path = "../../../tests/interop/install.rs"]
#[allow(dead_code)]
mod install;

use crate::edge_values::{edge_values, table_of_values, typed_json};
use crate::support::{client, entities, ok, on_servers, table_name, tablekit};

/// The pinned pyarrow: it names the venv.
const PYARROW: &str = "26.0.1";

fn sources() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli/pyarrow")
}

/// The venv's Python with the pinned pyarrow, installed once as the interop suites install
/// theirs.
fn python() -> PathBuf {
    static PYTHON: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let python = PYTHON.get_or_init(|| {
        let requirements = sources().join("requirements.txt");
        install::python_venv(&format!("python-pyarrow-{PYARROW}"), &requirements, PYARROW)
    });
    python.clone().unwrap_or_else(|e| panic!("{e}"))
}

/// What pyarrow reads: the schema (column to Arrow type) and every row.
fn read_with_pyarrow(file: &Path) -> (BTreeMap<String, String>, Vec<serde_json::Value>) {
    let output = Command::new(python())
        .arg(sources().join("read.py"))
        .arg(file)
        .output()
        .expect("python runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8(output.stdout).unwrap();
    let mut lines = text.lines().map(|l| serde_json::from_str(l).unwrap());
    let schema: serde_json::Value = lines.next().expect("the schema line");
    let schema = serde_json::from_value(schema["schema"].clone()).unwrap();
    (schema, lines.collect())
}

/// A value in read.py's exact text form.
fn exact(value: &Value) -> String {
    let hex = |bytes: &[u8]| bytes.iter().map(|b| format!("{b:02x}")).collect::<String>();
    match value {
        Value::String(s) => s.to_string(),
        Value::Binary(b) => hex(b),
        Value::Int32(n) => n.to_string(),
        Value::Int64(n) => n.to_string(),
        Value::Double(d) => format!("{:016x}", d.to_bits()),
        Value::Bool(b) => b.to_string(),
        Value::DateTime(t) => t.timestamp_nanos_opt().unwrap().to_string(),
        Value::Guid(g) => hex(g.as_bytes()),
    }
}

/// The edge values Parquet holds (every one but the DateTimes outside 1677 to 2262), one
/// property `V` per entity, so `V` gets a column per type.
async fn parquet_table(connection_string: &str) -> String {
    let held = edge_values()
        .into_iter()
        .filter(|v| !matches!(v, Value::DateTime(t) if t.timestamp_nanos_opt().is_none()));
    let mut values: Vec<Value> = held.collect();
    values.push(Value::DateTime(
        chrono::DateTime::from_timestamp(1_700_000_000, 123_456_700).unwrap(),
    ));
    table_of_values(connection_string, "Parquet", values).await
}

async fn parquet_exports_every_value_for_pyarrow_and_imports_back(connection_string: &str) {
    let source = parquet_table(connection_string).await;
    // As the service keeps them (Azurite stores -0.0 as 0.0).
    let rows = entities(connection_string, &source).await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("edge.parquet");
    let path = file.to_str().unwrap();
    ok(tablekit(
        connection_string,
        &["export", &source, "-o", path],
    ));

    let (schema, read) = read_with_pyarrow(&file);
    let arrow = |edm: EdmType| {
        schema[&format!("V:{}", edm.odata_name().trim_start_matches("Edm."))].as_str()
    };
    assert_eq!(arrow(EdmType::String), "string");
    assert_eq!(arrow(EdmType::Binary), "binary");
    assert_eq!(arrow(EdmType::Int32), "int32");
    assert_eq!(arrow(EdmType::Int64), "int64");
    assert_eq!(arrow(EdmType::Double), "double");
    assert_eq!(arrow(EdmType::Boolean), "bool");
    assert_eq!(arrow(EdmType::DateTime), "timestamp[ns, tz=UTC]");
    assert!(
        ["uuid", "extension<arrow.uuid>", "fixed_size_binary[16]"].contains(&arrow(EdmType::Guid)),
        "{schema:?}"
    );
    assert_eq!(read.len(), rows.len());
    for (row, entity) in read.iter().zip(&rows) {
        assert_eq!(row["PartitionKey"], entity.partition_key());
        assert_eq!(row["RowKey"], entity.row_key());
        for column in schema.keys().filter(|c| c.starts_with("V:")) {
            let expected = entity
                .value("V")
                .filter(|v| {
                    column == &format!("V:{}", v.edm_type().odata_name().trim_start_matches("Edm."))
                })
                .map(exact);
            assert_eq!(
                row[column].as_str(),
                expected.as_deref(),
                "{column} of {}",
                entity.row_key()
            );
        }
    }

    let copy = table_name("ParquetCopy");
    ok(tablekit(connection_string, &["import", &copy, "-i", path]));
    assert_eq!(
        typed_json(connection_string, &copy).await,
        typed_json(connection_string, &source).await
    );

    // 1601-01-01 is outside nanosecond timestamps: refused, no file made.
    let table = client(connection_string).table_named::<DynamicEntity>(&source);
    let mut old = DynamicEntity::new("p", "old");
    old.set(
        "V",
        edge_values()
            .into_iter()
            .find(|v| matches!(v, Value::DateTime(_)))
            .unwrap(),
    );
    table.insert(&mut old).await.unwrap();
    let refused = dir.path().join("refused.parquet");
    let run = tablekit(
        connection_string,
        &["export", &source, "-o", refused.to_str().unwrap()],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("1601-01-01T00:00:00.0000000Z"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("nothing written"), "{}", run.stderr);
    assert!(!refused.exists());
}

on_servers!(parquet_exports_every_value_for_pyarrow_and_imports_back);
