//! The storage-pattern cases against the in-process emulator, plus what only the emulator
//! can host here: a copy between two accounts.

mod patterns_cases;

use tablekit::client::{Table, TableServiceClient};
use tablekit::patterns::backup::{self, RestoreOptions};
use tablekit::patterns::bulk::{BulkWriter, WriteOp};
use tablekit::{DynamicEntity, Query};
use tablekit_testing::Emulator;

async fn emulator() -> (Emulator, TableServiceClient) {
    let emulator = Emulator::start().await.expect("start the emulator");
    let client = TableServiceClient::from_connection_string(&emulator.connection_string())
        .expect("a client for the emulator");
    (emulator, client)
}

patterns_suite!(emulator().await);

/// A second account's key (any base64 text is a valid key).
const OTHER_KEY: &str = "b3RoZXIgYWNjb3VudCBrZXkgZm9yIHRlc3Rz";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copy_table_crosses_accounts() {
    let emulator = Emulator::builder()
        .account("otheraccount", OTHER_KEY)
        .start()
        .await
        .unwrap();
    let here = TableServiceClient::from_connection_string(&emulator.connection_string()).unwrap();
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restore_from_a_file_fills_its_transactions() {
    let (_emulator, client) = emulator().await;
    let source: Table = client.table_named("FileSource");
    let target: Table = client.table_named("FileTarget");
    source.create().await.unwrap();
    target.create().await.unwrap();
    let ops = (0..2_000).map(|i| {
        let mut e = DynamicEntity::new(format!("p{}", i % 4), format!("{i:05}"));
        e.set("Text", "x".repeat(200));
        WriteOp::upsert("FileSource", e)
    });
    assert!(BulkWriter::new(&client).write_iter(ops).await.is_complete());

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

    // A file source is often momentarily pending; entities are still planned in full
    // windows, so 2,000 entities over 4 partitions take 20 transactions, not hundreds.
    let input = tokio::io::BufReader::new(tokio::fs::File::open(&path).await.unwrap());
    let report = backup::restore(input, &target, RestoreOptions::new())
        .await
        .unwrap();
    assert!(report.is_complete());
    assert_eq!(report.writes.transactions().len(), 20);
    assert_eq!(target.query_all().count().await.unwrap(), 2_000);
}
