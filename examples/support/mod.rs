//! What every example shares: choosing the service to run against, fresh table names, and
//! printing.
//!
//! Examples run on the embedded emulator by default, so `cargo run --example gamers` needs no
//! set-up; with `TABLEKIT_CONNECTION_STRING` set (Azurite's `UseDevelopmentStorage=true`, a
//! real account) they run against that service instead. Every example creates its tables under
//! fresh names and deletes them at the end, so runs never see each other's data.

// Each example uses a different part of this module.
#![allow(dead_code)]

use std::error::Error;

use tablekit::client::{Table, TableServiceClient};
use tablekit::TableModel;
use tablekit_testing::Emulator;

/// The error type of the examples' `main`: any error, printed with its message.
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
            let client = TableServiceClient::from_connection_string(&emulator.connection_string())?;
            let description = format!(
                "the embedded emulator at {} (set {CONNECTION_STRING_VAR} to use another service)",
                emulator.endpoint()
            );
            Ok(Service {
                client,
                description,
                _emulator: Some(emulator),
            })
        }
    }
}

/// `base` followed by a short random suffix: a table name no earlier run used.
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

/// Prints a section title.
pub(crate) fn heading(text: &str) {
    println!();
    println!("== {text}");
}
