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
