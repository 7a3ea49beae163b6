//! Telemetry: every operation is a `tracing` span named after it (`Table.insert`,
//! `TableService.create_table`, ...) with the attributes of OpenTelemetry's Azure SDK
//! conventions (`az.namespace`, `server.address`, `http.response.status_code`,
//! `az.client_request_id`, `az.service_request_id`, `error.type`, ...), and each retry an event
//! in it. Here `tracing-subscriber` prints each span as it closes; an OpenTelemetry layer
//! would export the same spans.
//!
//! Run with `cargo run --example telemetry` (the embedded emulator), or against any service
//! with `TABLEKIT_CONNECTION_STRING` set.

#[path = "support/mod.rs"]
mod support;

use std::process::ExitCode;

use tablekit::client::TableServiceClient;
use tablekit::DynamicEntity;
use tracing_subscriber::fmt::format::FmtSpan;

use support::BoxError;

/// An insert, a read, a miss and a conflict: four spans, two of them failures.
async fn run(client: &TableServiceClient, table_name: &str) -> Result<(), BoxError> {
    let table = client.table_named::<DynamicEntity>(table_name);
    table.create().await?;
    let mut dragon = DynamicEntity::new("eu", "dragon");
    dragon.set("Score", 10);
    table.insert(&mut dragon).await?;
    assert!(table.get("eu", "dragon").await?.is_some());
    assert!(table.get("eu", "nobody").await?.is_none()); // 404: `error.type` is its code
    let conflict = table.insert(&mut dragon).await.unwrap_err();
    println!("the second insert failed as expected: {conflict}");
    Ok(())
}

fn main() -> ExitCode {
    // Each span printed once, when it closes, with its fields and how long it took.
    tracing_subscriber::fmt()
        .with_span_events(FmtSpan::CLOSE)
        .with_env_filter("tablekit=info")
        .init();
    support::main("telemetry", async |client| {
        let table_name = support::fresh_name("Telemetry");
        support::cleaning_up(client, &table_name, run(client, &table_name)).await
    })
}
