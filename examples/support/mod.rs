//! What every example shares: its `main`, the service it runs against, fresh table names,
//! clean-up and printing.
//!
//! Every example's `main` is one call to [`main`]: it runs on the embedded emulator by
//! default, so `cargo run --example gamers` needs no set-up; with `TABLEKIT_CONNECTION_STRING`
//! set (Azurite's `UseDevelopmentStorage=true`, a real account) it runs against that service
//! instead. An error ends the run with its message and its causes on stderr and exit code 1.
//! Every example works in tables under a fresh name (or prefix) and deletes them at the end
//! through [`cleaning_up`], even when it fails, so runs never see each other's data.

// Each example uses a different part of this module.
#![allow(dead_code)]

use std::error::Error;
use std::future::Future;
use std::process::ExitCode;

use tablekit::client::{Table, TableServiceClient};
use tablekit::TableModel;
use tablekit_testing::Emulator;

/// The error type of every example: any error, reported with its message and causes.
pub(crate) type BoxError = Box<dyn Error + Send + Sync + 'static>;

/// The environment variable naming the service to run against.
pub(crate) const CONNECTION_STRING_VAR: &str = "TABLEKIT_CONNECTION_STRING";

/// A connected client, and what it is connected to.
pub(crate) struct Service {
    /// The client every example operation goes through.
    pub(crate) client: TableServiceClient,
    /// Where the client points, for the first line the example prints.
    pub(crate) description: String,
    /// The embedded emulator, when no service was named: it serves until dropped.
    _emulator: Option<Emulator>,
}

/// The `main` of every example: connects (see [`connect`]), prints `{name} on {service}`, runs
/// `example` with the client, and reports its error, if any, on stderr.
pub(crate) fn main(
    name: &str,
    example: impl AsyncFnOnce(&TableServiceClient) -> Result<(), BoxError>,
) -> ExitCode {
    let outcome = tokio::runtime::Runtime::new()
        .map_err(BoxError::from)
        .and_then(|runtime| {
            runtime.block_on(async {
                let service = connect().await?;
                println!("{name} on {}", service.description);
                example(&service.client).await
            })
        });
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            report(name, &*error);
            ExitCode::FAILURE
        }
    }
}

/// Prints `error` and each of its causes, one a line: the message a user acts on is often
/// the innermost one. A cause whose text the line above already shows is not repeated.
fn report(name: &str, error: &(dyn Error + 'static)) {
    let mut shown = error.to_string();
    eprintln!("{name} failed: {shown}");
    let mut cause = error.source();
    while let Some(inner) = cause {
        let text = inner.to_string();
        if !shown.contains(&text) {
            eprintln!("  caused by: {text}");
        }
        shown = text;
        cause = inner.source();
    }
}

/// Connects to the service named by `TABLEKIT_CONNECTION_STRING`, or starts the embedded
/// emulator (on 127.0.0.1, in memory) and connects to that.
pub(crate) async fn connect() -> Result<Service, BoxError> {
    match std::env::var(CONNECTION_STRING_VAR) {
        Ok(connection_string) => {
            let client = TableServiceClient::from_connection_string(&connection_string)
                .map_err(|e| format!("{CONNECTION_STRING_VAR}: {e}"))?;
            // The connection string holds the account key: print only the endpoint.
            let endpoint = client.endpoint().base_url();
            let description = format!("{endpoint} (from {CONNECTION_STRING_VAR})");
            Ok(Service {
                client,
                description,
                _emulator: None,
            })
        }
        Err(_) => {
            let emulator = Emulator::start().await?;
            let description = format!(
                "the embedded emulator at {} (set {CONNECTION_STRING_VAR} to use another service)",
                emulator.endpoint()
            );
            Ok(Service {
                client: emulator.client(),
                description,
                _emulator: Some(emulator),
            })
        }
    }
}

/// `base` followed by a short random suffix: a table name (or prefix) no earlier run used.
pub(crate) fn fresh_name(base: &str) -> String {
    let id = uuid::Uuid::new_v4().simple().to_string();
    format!("{base}{}", &id[..8])
}

/// A new, empty table for model `M` under a fresh name based on `base`.
pub(crate) async fn fresh_table<M: TableModel>(
    client: &TableServiceClient,
    base: &str,
) -> tablekit::Result<Table<M>> {
    let table = client.table_named::<M>(&fresh_name(base));
    table.create().await?;
    println!("created table {}", table.name());
    Ok(table)
}

/// Runs `demo`, then deletes every table whose name starts with `prefix`, whether `demo`
/// succeeded or not. The demo's own error wins over one from the clean-up: it is the cause.
pub(crate) async fn cleaning_up<T, E: Into<BoxError>>(
    client: &TableServiceClient,
    prefix: &str,
    demo: impl Future<Output = Result<T, E>>,
) -> Result<T, BoxError> {
    let outcome = demo.await.map_err(Into::into);
    let cleaned = delete_tables(client, prefix).await;
    let outcome = outcome?;
    cleaned?;
    Ok(outcome)
}

/// Deletes every table whose name starts with `prefix`.
async fn delete_tables(client: &TableServiceClient, prefix: &str) -> tablekit::Result<()> {
    for name in client.list_table_names(Some(prefix)).await? {
        client.delete_table_if_exists(&name).await?;
        println!("deleted table {name}");
    }
    Ok(())
}

/// Prints a section title.
pub(crate) fn heading(text: &str) {
    println!();
    println!("== {text}");
}
