//! Moving a serde model written for the `azure_data_tables` crate over to tablekit, in two
//! steps: first as it is, through `tablekit::serde_bridge::Serde<T>`; then, where the code is
//! touched anyway, to `#[derive(TableEntity)]`, reading the very same entities.
//!
//! Nothing in the table changes: property names and types stay as the old client wrote them.
//!
//! Run with `cargo run --example serde_model` (the embedded emulator), or against any service
//! with `TABLEKIT_CONNECTION_STRING` set.

use std::process::ExitCode;

use serde::{Deserialize, Serialize};
use tablekit::prelude::*;
use tablekit::serde_bridge::{self, Serde};
use tablekit_testing::Emulator;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The model as an `azure_data_tables` program declared it: the keys are the fields serde
/// names `PartitionKey` and `RowKey`. One attribute is new: `serde_bridge::datetime` stores the
/// time as an `Edm.DateTime`, as the old client did, where plain serde would store text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Customer {
    /// The city: the PartitionKey.
    #[serde(rename = "PartitionKey")]
    pub city: String,
    /// The surname: the RowKey.
    #[serde(rename = "RowKey")]
    pub surname: String,
    /// The email address.
    #[serde(rename = "Email")]
    pub email: String,
    /// Visits so far.
    #[serde(rename = "Visits")]
    pub visits: i64,
    /// When the customer first came.
    #[serde(rename = "Since", with = "serde_bridge::datetime")]
    pub since: DateTime<Utc>,
}

/// Step two: the same entities as a derived model.
#[derive(Debug, TableEntity)]
pub struct CustomerRow {
    /// The city.
    #[tablekit(partition_key, key_only)]
    pub city: String,
    /// The surname.
    #[tablekit(row_key, key_only)]
    pub surname: String,
    /// The email address.
    pub email: String,
    /// Visits so far.
    pub visits: i64,
    /// When the customer first came.
    pub since: DateTime<Utc>,
}

/// What each step read, for the test suite to check.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Visits read through the serde model after one conditional update.
    pub visits_after_update: i64,
    /// Customers of Oslo with at least two visits, by a hand-written filter.
    pub frequent_in_oslo: Vec<String>,
    /// The same entity through the derived model: (email, visits).
    pub derived: (String, i64),
    /// Customers of Oslo with at least two visits, by a typed filter.
    pub frequent_typed: Vec<String>,
}

fn main() -> ExitCode {
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("serde_model failed: {e}");
            return ExitCode::FAILURE;
        }
    };
    let outcome = runtime.block_on(async {
        // The client: a Table service from the environment, else the embedded emulator.
        let (client, _emulator) = match std::env::var("TABLEKIT_CONNECTION_STRING") {
            Ok(conn) => (TableServiceClient::from_connection_string(&conn)?, None),
            Err(_) => {
                let emulator = Emulator::start().await?;
                (emulator.client(), Some(emulator))
            }
        };
        run(&client).await
    });
    match outcome {
        Ok(outcome) => {
            println!("{outcome:#?}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("serde_model failed: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Writes and reads customers through both models in a fresh table, then deletes it.
pub async fn run(client: &TableServiceClient) -> Result<Outcome, BoxError> {
    let name = format!(
        "Customers{}",
        &uuid::Uuid::new_v4().simple().to_string()[..8]
    );
    client.create_table(&name).await?;
    let outcome = demo(client, &name).await;
    client.delete_table(&name).await?;
    outcome
}

async fn demo(client: &TableServiceClient, name: &str) -> Result<Outcome, BoxError> {
    let mut outcome = Outcome::default();

    // Step one: the serde model, unchanged.
    let customers = client.table_named::<Serde<Customer>>(name);
    for (city, surname, email, visits) in [
        ("Oslo", "Lee", "kim@example.com", 1),
        ("Oslo", "Berg", "ola@example.com", 5),
        ("Bergen", "Dahl", "eva@example.com", 9),
    ] {
        let customer = Customer {
            city: city.into(),
            surname: surname.into(),
            email: email.into(),
            visits,
            since: DateTime::UNIX_EPOCH,
        };
        customers.insert(&mut Serde::from_model(&customer)?).await?;
    }
    // Read, change, and write back only if nobody wrote it since (the ETag read travels along).
    let mut read = customers
        .get("Oslo", "Lee")
        .await?
        .ok_or("Lee was inserted")?;
    let mut model = read.model()?;
    model.visits += 1;
    read.set_model(&model)?;
    customers.replace(&mut read).await?;
    outcome.visits_after_update = customers
        .get("Oslo", "Lee")
        .await?
        .ok_or("Lee was inserted")?
        .model()?
        .visits;
    // `Visits` is an Int64: the literal needs its `L`, or the service matches nothing.
    let q = Query::<Serde<Customer>>::new().filter_raw("PartitionKey eq 'Oslo' and Visits ge 2L");
    for customer in customers.query(q).collect_all().await? {
        outcome.frequent_in_oslo.push(customer.model()?.surname);
    }

    // Step two: the derived model reads the same entities, with typed filters.
    let rows = client.table_named::<CustomerRow>(name);
    let lee = rows.get("Oslo", "Lee").await?.ok_or("Lee was inserted")?;
    outcome.derived = (lee.email(), lee.visits());
    let q = Query::<CustomerRow>::new().filter(
        CustomerRow::PARTITION_KEY
            .eq("Oslo")
            .and(CustomerRow::VISITS.ge(2)),
    );
    outcome.frequent_typed = rows
        .query(q)
        .collect_all()
        .await?
        .iter()
        .map(|c| c.surname())
        .collect();
    Ok(outcome)
}
