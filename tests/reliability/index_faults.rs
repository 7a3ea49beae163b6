//! Secondary indexes under faults, on the emulator: writes whose transactions fail, are
//! answered with 500 after being applied, or lose their answer, still leave an index that
//! [`verify`] finds exact (a transaction applies whole or not at all, and a lost answer is
//! settled by re-reading); and rows written around the model (the step after which a
//! writer stopped) are found and fixed by [`repair`] until the index is exact.

use std::collections::BTreeMap;
use std::time::Duration;

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use tablekit::client::{RetryPolicy, Table};
use tablekit::index::TARGET_PROPERTY;
use tablekit::patterns::index::{repair, repair_holding, verify};
use tablekit::plan::StoragePlan;
use tablekit::prelude::*;
use tablekit::ETag;
use tablekit_testing::{Emulator, Fault, Faults, Operation};

use crate::support::models::{Employee, EmployeeEntity};

fn employee(id: &str, email: &str, name: &str) -> EmployeeEntity {
    let mut e = EmployeeEntity::new("Sales", id);
    e.set_email(email);
    e.set_last_name(name);
    e
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn indexed_writes_under_faults_leave_an_exact_index() {
    let faults = Faults::seeded(11)
        .rate(Fault::AppliedThenDropped, 0.15)
        .rate(Fault::AppliedThenInternalError, 0.1)
        .rate(Fault::InternalError, 0.1)
        .rate(Fault::DropConnection, 0.05)
        .only(&[Operation::Batch, Operation::Get]);
    let emulator = Emulator::builder().faults(faults).start().await.unwrap();
    let client = emulator
        .client_builder()
        .retry_policy(RetryPolicy::default().base_delay(Duration::from_millis(1)))
        .build()
        .unwrap();
    let table = client.table::<Employee>();
    table.create().await.unwrap();
    let mut rng = StdRng::seed_from_u64(5);
    let (mut applied, mut failed) = (0, 0);
    for _ in 0..120 {
        let id = format!("e{}", rng.random_range(0..6));
        let mut e = employee(
            &id,
            &format!("{}@example.com", rng.random_range(0..8)),
            ["Smith", "Jones", "Lee"][rng.random_range(0..3)],
        );
        let result = match rng.random_range(0..4) {
            0 => table.insert(&mut e).await,
            1 => table.upsert_replace(&mut e).await,
            2 => table.upsert_merge(&mut e).await,
            _ => table.delete_by_key("Sales", &id, &ETag::any()).await,
        };
        match result {
            Ok(()) => applied += 1,
            Err(_) => failed += 1,
        }
    }
    assert!(applied > 20, "{applied} applied, {failed} failed");
    // the faults were met: more transactions were sent than writes succeeded
    assert!(emulator.requests().count(Operation::Batch) > applied);
    let report = verify(&table).await.unwrap();
    assert!(report.is_clean(), "{report:?}");
    assert!(report.entities > 0);
}

/// Rows as untyped code leaves them: an entity without its index rows, an index row of a
/// value no entity holds any more, and one pointing at the wrong entity.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn repair_converges_to_an_exact_index() {
    let emulator = Emulator::start().await.unwrap();
    let client = emulator.client();
    let table = client.table::<Employee>();
    table.create().await.unwrap();
    for (id, email, name) in [("e1", "kim@x", "Smith"), ("e2", "lee@x", "Jones")] {
        table.insert(&mut employee(id, email, name)).await.unwrap();
    }
    let raw: Table = client.table_named("Employees");
    // e3 written without its model: two index rows missing
    let mut e3 = DynamicEntity::new("Sales", "e3");
    e3.set("Email", "ann@x");
    e3.set("LastName", "Smith");
    raw.insert(&mut e3).await.unwrap();
    // e2's email changed around the model: its old row is stale, its new one missing
    let mut e2 = raw.get("Sales", "e2").await.unwrap().unwrap();
    e2.set("Email", "lee2@x");
    raw.replace(&mut e2).await.unwrap();
    // kim's index row pointed at the wrong entity
    let mut kim = raw.get("Sales", "email_kim@x").await.unwrap().unwrap();
    kim.set(TARGET_PROPERTY, "e2");
    raw.replace(&mut kim).await.unwrap();
    assert!(Employee::by_email(&table, "Sales", "kim@x")
        .await
        .unwrap()
        .is_none());

    let found = verify(&table).await.unwrap();
    assert_eq!(
        (found.missing_added, found.stale_removed, found.wrong_fixed),
        (3, 1, 1)
    );
    let report = repair(&table).await.unwrap();
    assert_eq!(report, found);
    assert!(verify(&table).await.unwrap().is_clean());

    let index: BTreeMap<String, String> = raw
        .query_all()
        .collect_all()
        .await
        .unwrap()
        .into_iter()
        .filter_map(|row| {
            Some((
                row.row_key().to_owned(),
                row.get::<String>(TARGET_PROPERTY)?,
            ))
        })
        .collect();
    let expected: BTreeMap<String, String> = [
        ("email_ann@x", "e3"),
        ("email_kim@x", "e1"),
        ("email_lee2@x", "e2"),
        ("last_name_Jones_e2", "e2"),
        ("last_name_Smith_e1", "e1"),
        ("last_name_Smith_e3", "e3"),
    ]
    .into_iter()
    .map(|(k, t)| (k.to_owned(), t.to_owned()))
    .collect();
    assert_eq!(index, expected);
    let kim = Employee::by_email(&table, "Sales", "kim@x").await.unwrap();
    assert_eq!(kim.map(|e| e.id()).as_deref(), Some("e1"));
}

/// Inter-partition indexes: email rows in one partition of the same table (a lookup across
/// departments), city rows in another table, in the entity's PartitionKey.
#[derive(TableEntity)]
#[tablekit(table = "Contacts")]
pub struct Contact {
    #[tablekit(partition_key)]
    pub department: String,
    #[tablekit(row_key)]
    pub id: String,
    #[tablekit(index(partition = "ByEmail"))]
    pub email: String,
    #[tablekit(index(table = "ContactCities"))]
    pub city: String,
}

fn contact(department: &str, id: &str, email: &str, city: &str) -> ContactEntity {
    let mut c = ContactEntity::new(department, id);
    c.set_email(email);
    c.set_city(city);
    c
}

async fn contacts(client: &tablekit::client::TableServiceClient) -> Table<Contact> {
    let table = client.table::<Contact>();
    table.create().await.unwrap();
    client.create_table("ContactCities").await.unwrap();
    table
}

fn keys(found: &[ContactEntity]) -> Vec<(String, String)> {
    found.iter().map(|c| (c.department(), c.id())).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_inter_partition_index_follows_its_entity() {
    let emulator = Emulator::start().await.unwrap();
    let table = contacts(&emulator.client()).await;
    table
        .insert(&mut contact("Sales", "c1", "kim@x", "Oslo"))
        .await
        .unwrap();
    let mut lee = contact("Support", "c2", "kim@x", "Oslo");
    table.insert(&mut lee).await.unwrap();
    // across partitions
    let found = Contact::by_email(&table, "kim@x").await.unwrap();
    let both = [("Sales", "c1"), ("Support", "c2")].map(|(d, i)| (d.to_owned(), i.to_owned()));
    assert_eq!(keys(&found), both);
    // in the entity's partition of the other table
    let oslo = Contact::by_city(&table, "Support", "Oslo").await.unwrap();
    assert_eq!(keys(&oslo), [("Support".to_owned(), "c2".to_owned())]);

    lee.set_email("lee@x");
    lee.set_city("Bergen");
    table.replace(&mut lee).await.unwrap();
    let found = Contact::by_email(&table, "kim@x").await.unwrap();
    assert_eq!(keys(&found), [("Sales".to_owned(), "c1".to_owned())]);
    assert_eq!(Contact::by_email(&table, "lee@x").await.unwrap().len(), 1);
    assert!(Contact::by_city(&table, "Support", "Oslo")
        .await
        .unwrap()
        .is_empty());
    table.delete(&mut lee).await.unwrap();
    assert!(Contact::by_email(&table, "lee@x").await.unwrap().is_empty());
    // typed reads skip the index partition's rows
    assert_eq!(table.query_all().count().await.unwrap(), 1);
    assert!(verify(&table).await.unwrap().is_clean());
}

/// Transactions fail at random with no retries, so some entities are written while the index
/// rows that follow them are not (or an old one is not deleted): `repair` then makes the index
/// exact.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn repair_converges_after_writes_fail_between_the_two_steps() {
    let emulator = Emulator::start().await.unwrap();
    let client = emulator
        .client_builder()
        .retry_policy(RetryPolicy::none())
        .build()
        .unwrap();
    let table = contacts(&client).await;
    emulator.set_faults(Some(
        Faults::seeded(3)
            .rate(Fault::InternalError, 0.4)
            .only(&[Operation::Batch]),
    ));
    let mut rng = StdRng::seed_from_u64(9);
    let mut applied = 0;
    for _ in 0..80 {
        let department = ["Sales", "Support"][rng.random_range(0..2)];
        let id = format!("c{}", rng.random_range(0..5));
        let mut c = contact(
            department,
            &id,
            &format!("{}@x", rng.random_range(0..4)),
            ["Oslo", "Bergen"][rng.random_range(0..2)],
        );
        let result = match rng.random_range(0..3) {
            0 | 1 => table.upsert_replace(&mut c).await,
            _ => table.delete_by_key(department, &id, &ETag::any()).await,
        };
        applied += usize::from(result.is_ok());
    }
    assert!(applied > 10, "{applied}");
    emulator.set_faults(None);
    let drift = verify(&table).await.unwrap();
    assert!(!drift.is_clean(), "the faults left no drift: {drift:?}");
    let report = repair(&table).await.unwrap();
    assert_eq!(
        (
            report.missing_added,
            report.stale_removed,
            report.wrong_fixed
        ),
        (drift.missing_added, drift.stale_removed, drift.wrong_fixed)
    );
    assert!(verify(&table).await.unwrap().is_clean());
    // every entity is found by its email, and nothing else is
    for entity in table.query_all().collect_all().await.unwrap() {
        let found = Contact::by_email(&table, &entity.email()).await.unwrap();
        assert!(keys(&found).contains(&(entity.department(), entity.id())));
        assert!(found.iter().all(|c| c.email() == entity.email()));
    }
}

/// Entities of six departments written around the model (no index rows), rows left by
/// entities deleted around it, and rows pointing at the wrong entity: a repair that holds two
/// needed rows at a time (so it compares in many passes over each index's rows) finds and
/// fixes each exactly once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repair_in_small_chunks_fixes_each_drift_once() {
    let emulator = Emulator::start().await.unwrap();
    let table = contacts(&emulator.client()).await;
    let raw: Table = emulator.client().table_named(table.name());
    let cities: Table = emulator.client().table_named("ContactCities");
    let departments = ["D0", "D1", "D2", "D3", "D4", "D5"];
    for department in departments {
        for id in ["c1", "c2"] {
            let mut untyped = DynamicEntity::new(department, id);
            untyped.set("Email", format!("{id}@x"));
            untyped.set("City", "Oslo");
            raw.insert(&mut untyped).await.unwrap();
        }
        // indexed, then deleted around the model: two stale rows
        table
            .insert(&mut contact(department, "gone", "gone@x", "Rome"))
            .await
            .unwrap();
        raw.delete_by_key(department, "gone", &ETag::any())
            .await
            .unwrap();
    }
    // one row of each index pointing at another entity than its key names
    let mut pointed = contact("D2", "c3", "c3@x", "Oslo");
    table.insert(&mut pointed).await.unwrap();
    for (home, row) in [
        (
            &raw,
            StoragePlan::of::<Contact>().indexes[0].row_of(pointed.as_dynamic()),
        ),
        (
            &cities,
            StoragePlan::of::<Contact>().indexes[1].row_of(pointed.as_dynamic()),
        ),
    ] {
        let mut row = row.unwrap().unwrap();
        row.set(TARGET_PROPERTY, "c1");
        home.upsert_replace(&mut row).await.unwrap();
    }

    let drift = verify(&table).await.unwrap();
    let report = repair_holding(&table, 2).await.unwrap();
    let counts = |r: tablekit::patterns::index::RepairReport| {
        (
            r.entities,
            r.missing_added,
            r.stale_removed,
            r.wrong_fixed,
            r.skipped,
        )
    };
    assert_eq!(counts(report), (13, 24, 12, 2, 0));
    assert_eq!(counts(drift), counts(report));
    assert!(verify(&table).await.unwrap().is_clean());
    for department in departments {
        let oslo = Contact::by_city(&table, department, "Oslo").await.unwrap();
        let expected = if department == "D2" { 3 } else { 2 };
        assert_eq!(oslo.len(), expected, "{department}");
        assert!(Contact::by_city(&table, department, "Rome")
            .await
            .unwrap()
            .is_empty());
    }
    assert_eq!(Contact::by_email(&table, "c1@x").await.unwrap().len(), 6);
    assert!(Contact::by_email(&table, "gone@x")
        .await
        .unwrap()
        .is_empty());
}
