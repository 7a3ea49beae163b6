//! A secondary index: employees looked up by email (unique) and by last name (not unique),
//! in their department's partition.
//!
//! The service indexes only PartitionKey and RowKey. `#[tablekit(index)]` keeps an index row
//! beside each entity, written in the same entity group transaction as the entity, so a lookup
//! by email reads a single row instead of scanning the partition, and the index never
//! disagrees with the entities. The pattern is the "Intra-partition secondary index pattern"
//! of Microsoft's "Table design patterns".
//!
//! Run with `cargo run --example secondary_index` (the embedded emulator), or against any
//! service with `TABLEKIT_CONNECTION_STRING` set.

use std::process::ExitCode;

use tablekit::prelude::*;
use tablekit_testing::Emulator;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// An employee: PartitionKey = department, RowKey = employee id.
#[derive(Debug, TableEntity)]
pub struct Employee {
    /// The department.
    #[tablekit(partition_key)]
    pub department: String,
    /// The employee id.
    #[tablekit(row_key)]
    pub id: String,
    /// At most one employee per email in a department: `Employee::by_email` gives an `Option`.
    #[tablekit(index(unique))]
    pub email: String,
    /// Many employees may share one: `Employee::by_last_name` gives a `Vec`.
    #[tablekit(index)]
    pub last_name: String,
}

/// What the lookups found, for the test suite to check.
#[derive(Debug, Default)]
pub struct Outcome {
    /// The id found by `kim@example.com`.
    pub by_email: Option<String>,
    /// The ids found by the last name `Lee`, in key order.
    pub by_last_name: Vec<String>,
    /// A second employee with a taken email was refused.
    pub duplicate_refused: bool,
    /// After Kim's email changed: what the old and the new email find.
    pub old_email_finds: Option<String>,
    /// See `old_email_finds`.
    pub new_email_finds: Option<String>,
    /// Entities a plain query of the table returns (index rows are never among them).
    pub entities: usize,
}

fn main() -> ExitCode {
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("secondary_index failed: {e}");
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
            eprintln!("secondary_index failed: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Hires three employees in a fresh table, looks them up, and deletes the table.
pub async fn run(client: &TableServiceClient) -> Result<Outcome, BoxError> {
    let name = format!(
        "Employees{}",
        &uuid::Uuid::new_v4().simple().to_string()[..8]
    );
    let employees = client.table_named::<Employee>(&name);
    employees.create().await?;
    let outcome = demo(&employees).await;
    employees.delete_table().await?;
    outcome
}

async fn demo(employees: &Table<Employee>) -> Result<Outcome, BoxError> {
    let mut outcome = Outcome::default();
    for (id, email, last_name) in [
        ("e1", "kim@example.com", "Lee"),
        ("e2", "jo@example.com", "Lee"),
        ("e3", "ana@example.com", "Silva"),
    ] {
        let mut employee = EmployeeEntity::new("sales", id);
        employee.set_email(email);
        employee.set_last_name(last_name);
        // The entity and its two index rows, in one transaction.
        employees.insert(&mut employee).await?;
    }

    let kim = Employee::by_email(employees, "sales", "kim@example.com").await?;
    outcome.by_email = kim.as_ref().map(|e| e.id());
    let lees = Employee::by_last_name(employees, "sales", "Lee").await?;
    outcome.by_last_name = lees.iter().map(|e| e.id()).collect();

    let mut copycat = EmployeeEntity::new("sales", "e4");
    copycat.set_email("kim@example.com");
    match employees.insert(&mut copycat).await {
        Err(tablekit::Error::UniqueViolation(violation)) => {
            println!("refused: {violation}");
            outcome.duplicate_refused = true;
        }
        other => return Err(format!("a taken email was not refused: {other:?}").into()),
    }

    // A change of email moves its index row in the same transaction as the entity.
    let mut kim = kim.ok_or("Kim was just hired")?;
    kim.set_email("kim.lee@example.com");
    employees.merge(&mut kim).await?;
    outcome.old_email_finds = Employee::by_email(employees, "sales", "kim@example.com")
        .await?
        .map(|e| e.id());
    outcome.new_email_finds = Employee::by_email(employees, "sales", "kim.lee@example.com")
        .await?
        .map(|e| e.id());

    outcome.entities = employees.query_all().count().await?;
    Ok(outcome)
}
