//! Models generated from a live table: Microsoft's Python SDK (the interop suite's pinned
//! `azure-data-tables`, in its venv) fills a table on the emulator with two kinds of rows,
//! every EDM type, missing properties, composite keys and inverted ticks; the generated source
//! must equal `insight_model.rs` exactly, and that file is compiled here and reads every row.
//!
//! `TABLEKIT_UPDATE_SNAPSHOTS=1` rewrites the snapshot instead of comparing.

use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

use tablekit::client::TableServiceClient;
use tablekit::insight::{
    check_model, generate_model, sample, FamilyCheck, GenerateOptions, SampleOptions,
};
use tablekit::DynamicEntity;
use tablekit_testing::Emulator;

use crate::support::servers::unique_name;

#[path = "../interop/install.rs"]
#[allow(dead_code)]
mod install;

/// The generated model, compiled: it must read every row it was generated from.
#[path = "insight_model.rs"]
#[allow(missing_docs, dead_code)]
mod insight_model;

/// The interop suite's venv with the pinned SDK, installed the same way if it is not yet:
/// same requirements, same directory (named after the pinned version).
fn python() -> std::path::PathBuf {
    static PYTHON: OnceLock<Result<std::path::PathBuf, String>> = OnceLock::new();
    let python = PYTHON.get_or_init(install::table_sdk_python);
    python.clone().unwrap_or_else(|e| panic!("{e}"))
}

/// The table the Python SDK filled, every entity of it.
async fn filled(emulator: &Emulator) -> Vec<DynamicEntity> {
    let name = crate::support::servers::unique_name("Insight");
    let output = Command::new(python())
        .arg(install::sources().join("python/fill_insight.py"))
        .arg(emulator.connection_string())
        .arg(&name)
        .output()
        .expect("python runs");
    assert!(
        output.status.success(),
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let table = emulator.client().table_named::<DynamicEntity>(&name);
    let read = sample(&table, &SampleOptions::default())
        .await
        .expect("sample");
    assert!(read.complete, "a small table is read whole");
    read.entities
}

#[tokio::test(flavor = "multi_thread")]
async fn a_model_generated_from_a_python_filled_table_is_the_snapshot_and_reads_every_row() {
    let emulator = Emulator::start().await.expect("starts");
    let entities = filled(&emulator).await;
    assert_eq!(entities.len(), 15);
    let model = generate_model(
        &entities,
        &GenerateOptions {
            name: Some("Shop".into()),
            table: Some("Shops".into()),
        },
    );
    let snapshot = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/servers/insight_model.rs");
    if std::env::var_os("TABLEKIT_UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&snapshot, &model.source).expect("write the snapshot");
    }
    assert_eq!(
        model.source,
        include_str!("insight_model.rs"),
        "the generated model changed"
    );

    // The compiled snapshot reads every row, keys included: only its optional fields are
    // absent, from the rows of the other kind.
    let d = &model.description;
    let report =
        check_model::<insight_model::Shop>(&entities, Some((&d.partition_key, &d.row_key)));
    let quiet = |r: &tablekit::insight::DriftReport| {
        !r.fails_reads()
            && r.unknown_properties.is_empty()
            && r.absent_fields.iter().all(|a| a.optional)
    };
    assert!(quiet(&report), "{report}");
    assert_eq!(report.absent_fields.len(), 12, "{report}");
    let first = <insight_model::ShopEntity as tablekit::TableEntity>::wrap(entities[0].clone());
    assert_eq!(first.shop(), 1);
    assert_eq!(
        tablekit::keys::inverted_ticks(&first.row()),
        tablekit::TableEntity::row_key(&first)
    );
    // The description says the same as the derive's own field list.
    let described = tablekit::insight::check(d, &entities);
    assert!(quiet(&described), "{described}");
    assert_eq!(described.absent_fields, report.absent_fields);
}

/// A report whose values spread over continuation rows.
#[derive(tablekit::TableEntity)]
#[tablekit(kind = "Report")]
pub struct Report {
    #[tablekit(partition_key)]
    pub team: String,
    #[tablekit(row_key)]
    pub id: String,
    #[tablekit(split(rows = 2))]
    pub pdf: Vec<u8>,
}

/// A value spread over continuation rows reads whole in the drift check as in a read: its
/// rows are joined, not reported as properties or entities of their own, and a row missing
/// from the table is found.
async fn values_over_continuation_rows_are_checked_whole(client: &TableServiceClient) {
    let name = unique_name("Spread");
    let reports = client.table_named::<Report>(&name);
    reports.create().await.expect("create");
    let mut report = ReportEntity::new("ops", "q3");
    // Two continuation rows' worth: more than one entity holds.
    let pdf: Vec<u8> = (0..1_500_000u32).map(|i| i as u8).collect();
    report.set_pdf(&pdf).expect("fits in two continuation rows");
    reports.insert(&mut report).await.expect("insert");
    let raw = client.table_named::<DynamicEntity>(&name);
    let rows = raw.query_all().collect_all().await.expect("rows");
    assert_eq!(rows.len(), 3, "the entity and its continuation rows");

    let clean = check_model::<Report>(&rows, None);
    assert!(clean.is_clean(), "{clean}");
    assert_eq!(clean.sampled, 1);
    let family = FamilyCheck::new(&rows).kind::<Report>().finish();
    assert!(family.is_clean() && family.helper_rows == 2, "{family}");

    // A sample without the continuation rows leaves the value unchecked...
    let main_only = check_model::<Report>(&rows[..1], None);
    assert!(main_only.is_clean(), "{main_only}");
    // ...but one with a row lost reads as the model would: unreadable.
    let lost = [rows[0].clone(), rows[1].clone()];
    let report = check_model::<Report>(&lost, None);
    assert_eq!(report.unreadable.len(), 1, "{report}");
    assert_eq!(report.unreadable[0].field, "pdf");
}

on_servers!(values_over_continuation_rows_are_checked_whole);
