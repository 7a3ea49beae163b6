//! Secondary indexes ("Table design patterns": the intra-partition secondary index pattern) on
//! every server: each write of an indexed model and its index changes are one entity group
//! transaction, lookups find entities by an indexed value, a unique index refuses a taken value
//! with nothing applied, and typed reads never see an index row.

// Fixtures mirror user code; documenting them adds nothing.
#![allow(missing_docs)]

use std::collections::BTreeSet;

use chrono::{DateTime, Duration, TimeZone, Utc};
use futures::future::join_all;
use tablekit::client::{Table, TableServiceClient};
use tablekit::index::TARGET_PROPERTY;
use tablekit::prelude::*;
use tablekit::{ETag, InvalidInput, Query};

use crate::support::models::{Employee, EmployeeEntity};
use crate::support::servers::unique_name;

async fn employees(client: &TableServiceClient) -> Table<Employee> {
    let table = client.table_named::<Employee>(&unique_name("Employees"));
    table.create().await.unwrap();
    table
}

fn employee(id: &str, email: &str, last_name: &str) -> EmployeeEntity {
    let mut e = EmployeeEntity::new("Sales", id);
    e.set_email(email);
    e.set_last_name(last_name);
    e
}

/// Every index row of the partition as (RowKey, the RowKey it points at), read untyped.
async fn index_rows(table: &Table<Employee>) -> BTreeSet<(String, String)> {
    let raw: Table = table.client().table_named(table.name());
    raw.query(Query::new().filter_raw("PartitionKey eq 'Sales'"))
        .collect_all()
        .await
        .unwrap()
        .into_iter()
        .filter_map(|row| {
            let target = row.get::<String>(TARGET_PROPERTY)?;
            Some((row.row_key().to_owned(), target))
        })
        .collect()
}

fn rows(pairs: &[(&str, &str)]) -> BTreeSet<(String, String)> {
    pairs
        .iter()
        .map(|(k, t)| ((*k).to_owned(), (*t).to_owned()))
        .collect()
}

fn ids(found: &[EmployeeEntity]) -> Vec<String> {
    found.iter().map(EmployeeEntity::id).collect()
}

async fn inserted_entities_are_found_by_their_indexed_values(client: &TableServiceClient) {
    let table = employees(client).await;
    for (id, email, name) in [
        ("e-1", "kim@example.com", "Smith"),
        ("e-2", "lee@example.com", "Jones"),
        ("e-3", "ann_o'neil@example.com", "Smith"),
    ] {
        table.insert(&mut employee(id, email, name)).await.unwrap();
    }
    let kim = Employee::by_email(&table, "Sales", "kim@example.com").await;
    assert_eq!(kim.unwrap().map(|e| e.id()).as_deref(), Some("e-1"));
    let ann = Employee::by_email(&table, "Sales", "ann_o'neil@example.com").await;
    assert_eq!(ann.unwrap().map(|e| e.id()).as_deref(), Some("e-3"));
    assert!(Employee::by_email(&table, "Sales", "nobody@example.com")
        .await
        .unwrap()
        .is_none());
    assert!(Employee::by_email(&table, "Other", "kim@example.com")
        .await
        .unwrap()
        .is_none());
    let smiths = Employee::by_last_name(&table, "Sales", "Smith")
        .await
        .unwrap();
    assert_eq!(ids(&smiths), ["e-1", "e-3"]);
    assert_eq!(
        index_rows(&table).await,
        rows(&[
            ("email_ann%5Fo'neil@example.com", "e-3"),
            ("email_kim@example.com", "e-1"),
            ("email_lee@example.com", "e-2"),
            ("last_name_Jones_e-2", "e-2"),
            ("last_name_Smith_e-1", "e-1"),
            ("last_name_Smith_e-3", "e-3"),
        ])
    );
}

async fn a_changed_value_moves_its_index_row_in_the_same_transaction(client: &TableServiceClient) {
    let table = employees(client).await;
    let mut kim = employee("e-1", "kim@example.com", "Smith");
    table.insert(&mut kim).await.unwrap();

    // replace, with the ETag the insert recorded
    kim.set_email("kim.smith@example.com");
    table.replace(&mut kim).await.unwrap();
    assert!(Employee::by_email(&table, "Sales", "kim@example.com")
        .await
        .unwrap()
        .is_none());
    let found = Employee::by_email(&table, "Sales", "kim.smith@example.com").await;
    assert_eq!(found.unwrap().map(|e| e.salary()), Some(0));

    // merge of a change holding only the new last name
    let mut change = EmployeeEntity::new("Sales", "e-1");
    change
        .as_dynamic_mut()
        .retain(|name, _| name != "Email" && name != "Salary");
    change.set_last_name("Lee");
    change.as_dynamic_mut().set_etag(Some(ETag::any()));
    table.merge(&mut change).await.unwrap();

    // upserts, without a condition
    let mut upsert = employee("e-1", "kim.lee@example.com", "Lee");
    upsert.set_salary(10);
    table.upsert_replace(&mut upsert).await.unwrap();
    let mut upsert = employee("e-1", "kim.lee@example.com", "Kim-Lee");
    table.upsert_merge(&mut upsert).await.unwrap();

    let stored = table.get("Sales", "e-1").await.unwrap().unwrap();
    assert_eq!(stored.etag(), upsert.as_dynamic().etag());
    assert_eq!(
        (stored.email(), stored.last_name(), stored.salary()),
        ("kim.lee@example.com".to_owned(), "Kim-Lee".to_owned(), 0)
    );
    assert_eq!(
        index_rows(&table).await,
        rows(&[
            ("email_kim.lee@example.com", "e-1"),
            ("last_name_Kim-Lee_e-1", "e-1"),
        ])
    );
}

async fn a_unique_violation_applies_nothing(client: &TableServiceClient) {
    let table = employees(client).await;
    table
        .insert(&mut employee("e-1", "kim@example.com", "Smith"))
        .await
        .unwrap();
    let before = index_rows(&table).await;

    let err = table
        .insert(&mut employee("e-2", "kim@example.com", "Jones"))
        .await
        .unwrap_err();
    let Error::UniqueViolation(violation) = &err else {
        panic!("{err}")
    };
    assert_eq!(
        (violation.index, violation.value.as_str()),
        ("email", "kim@example.com")
    );
    assert_eq!(
        err.to_string(),
        "unique index `email` already holds `kim@example.com` in partition `Sales`"
    );
    assert!(table.get("Sales", "e-2").await.unwrap().is_none());
    assert_eq!(index_rows(&table).await, before);

    // a change to a taken value: the entity keeps its value, its index rows stay
    let mut lee = employee("e-2", "lee@example.com", "Jones");
    table.insert(&mut lee).await.unwrap();
    let before = index_rows(&table).await;
    lee.set_email("kim@example.com");
    lee.set_last_name("Smith");
    let err = table.upsert_replace(&mut lee).await.unwrap_err();
    assert!(matches!(err, Error::UniqueViolation(_)), "{err}");
    let stored = table.get("Sales", "e-2").await.unwrap().unwrap();
    assert_eq!(
        (stored.email(), stored.last_name()),
        ("lee@example.com".to_owned(), "Jones".to_owned())
    );
    assert_eq!(index_rows(&table).await, before);
}

async fn a_delete_removes_the_index_rows(client: &TableServiceClient) {
    let table = employees(client).await;
    let mut kim = employee("e-1", "kim@example.com", "Smith");
    table.insert(&mut kim).await.unwrap();
    table
        .insert(&mut employee("e-2", "lee@example.com", "Smith"))
        .await
        .unwrap();
    table.delete(&mut kim).await.unwrap();
    assert_eq!(
        index_rows(&table).await,
        rows(&[
            ("email_lee@example.com", "e-2"),
            ("last_name_Smith_e-2", "e-2"),
        ])
    );
    table
        .delete_by_key("Sales", "e-2", &ETag::any())
        .await
        .unwrap();
    assert!(index_rows(&table).await.is_empty());
    // the value is free again
    table
        .insert(&mut employee("e-3", "kim@example.com", "Smith"))
        .await
        .unwrap();
}

async fn typed_reads_never_yield_index_rows(client: &TableServiceClient) {
    let table = employees(client).await;
    for i in 0..5 {
        let mut e = employee(&format!("e-{i}"), &format!("{i}@example.com"), "Smith");
        e.set_salary(i);
        table.insert(&mut e).await.unwrap();
    }
    let all = table.query_all().collect_all().await.unwrap();
    assert_eq!(ids(&all), ["e-0", "e-1", "e-2", "e-3", "e-4"]);
    let rich = table
        .query(Query::new().filter(Employee::SALARY.ge(3)))
        .count()
        .await
        .unwrap();
    assert_eq!(rich, 2);
    let small_pages = table
        .query(Query::new().top(2).unwrap())
        .collect_all()
        .await
        .unwrap();
    assert_eq!(small_pages.len(), 5);
    // an index row's keys are no entity's
    let err = table.get("Sales", "email_0@example.com").await.unwrap_err();
    assert!(matches!(err, Error::AuxiliaryRow(_)), "{err}");
    // nor can an entity take a RowKey an index row could have
    let err = table
        .insert(&mut employee("email_x", "x@example.com", "X"))
        .await
        .unwrap_err();
    assert!(err.is_invalid_input(), "{err}");
}

async fn concurrent_writers_leave_an_exact_index(client: &TableServiceClient) {
    let table = employees(client).await;
    table
        .insert(&mut employee("e-1", "start@example.com", "Start"))
        .await
        .unwrap();
    let writes = (0..6).map(|i| {
        let table = table.clone();
        async move {
            let mut e = employee("e-1", &format!("w{i}@example.com"), &format!("W{i}"));
            table.upsert_replace(&mut e).await
        }
    });
    for result in join_all(writes).await {
        result.unwrap();
    }
    let stored = table.get("Sales", "e-1").await.unwrap().unwrap();
    let (email, name) = (stored.email(), stored.last_name());
    assert_eq!(
        index_rows(&table).await,
        rows(&[
            (&format!("email_{email}"), "e-1"),
            (&format!("last_name_{name}_e-1"), "e-1"),
        ])
    );
}

async fn a_transaction_carries_the_index_rows(client: &TableServiceClient) {
    let table = employees(client).await;
    let mut batch = table.batch();
    let mut staff = [
        employee("e-1", "kim@example.com", "Smith"),
        employee("e-2", "lee@example.com", "Smith"),
    ];
    for e in &staff {
        batch.insert(e).unwrap();
    }
    assert_eq!(batch.len(), 6); // each entity and its two index rows
    batch.submit().await.unwrap().record_etags(&mut staff);
    for e in &staff {
        // each its own ETag, not an index row's
        let stored = table.get("Sales", &e.id()).await.unwrap().unwrap();
        assert_eq!(e.as_dynamic().etag(), stored.as_dynamic().etag());
    }
    let smiths = Employee::by_last_name(&table, "Sales", "Smith")
        .await
        .unwrap();
    assert_eq!(ids(&smiths), ["e-1", "e-2"]);

    // a value another entity holds: the index refuses it, by name, and nothing is applied
    let before = index_rows(&table).await;
    let mut batch = table.batch();
    batch
        .insert(&employee("e-3", "kim@example.com", "Jones"))
        .unwrap();
    let err = batch.submit().await.unwrap_err();
    let Error::UniqueViolation(violation) = &err else {
        panic!("{err}")
    };
    assert_eq!(
        (violation.index, violation.value.as_str()),
        ("email", "kim@example.com")
    );
    assert!(table.get("Sales", "e-3").await.unwrap().is_none());
    assert_eq!(index_rows(&table).await, before);

    // the index operations count against the 100-operation limit, all or none
    let mut batch = table.batch();
    for i in 0..33 {
        batch
            .insert(&employee(
                &format!("n-{i}"),
                &format!("n{i}@example.com"),
                "N",
            ))
            .unwrap();
    }
    let err = batch
        .insert(&employee("n-33", "n33@example.com", "N"))
        .unwrap_err();
    assert!(err.is_invalid_input(), "{err}");
    assert_eq!(batch.len(), 99);

    // a change needs the stored values, which a transaction being built cannot read
    let mut batch = table.batch();
    let kim = table.get("Sales", "e-1").await.unwrap().unwrap();
    for (err, table_write) in [
        (batch.replace(&kim).unwrap_err(), "Table::replace"),
        (batch.merge(&kim).unwrap_err(), "Table::merge"),
        (batch.upsert_merge(&kim).unwrap_err(), "Table::upsert_merge"),
        (
            batch.upsert_replace(&kim).unwrap_err(),
            "Table::upsert_replace",
        ),
        (
            batch
                .delete_by_key("Sales", "e-1", &ETag::any())
                .unwrap_err(),
            "Table::delete_by_key",
        ),
    ] {
        let Error::InvalidInput(InvalidInput::NotInTransaction { instead, .. }) = &err else {
            panic!("{err}")
        };
        assert_eq!(*instead, table_write);
    }
    assert!(batch.is_empty());
    // a delete of an entity read whole, on its ETag, removes its index rows too
    batch.delete(&kim).unwrap();
    assert_eq!(batch.len(), 3);
    batch.submit().await.unwrap();
    assert_eq!(
        index_rows(&table).await,
        rows(&[
            ("email_lee@example.com", "e-2"),
            ("last_name_Smith_e-2", "e-2"),
        ])
    );

    // two entities of one transaction claiming one unique value: refused by name when the
    // second is added, which leaves the batch as it was
    let mut batch = table.batch();
    batch
        .insert(&employee("e-4", "ann@example.com", "Jones"))
        .unwrap();
    let err = batch
        .insert(&employee("e-5", "ann@example.com", "Brown"))
        .unwrap_err();
    let Error::UniqueViolation(violation) = &err else {
        panic!("{err}")
    };
    assert_eq!(
        (violation.index, violation.value.as_str()),
        ("email", "ann@example.com")
    );
    assert_eq!(violation.partition_key, "Sales");
    assert_eq!(batch.len(), 3);
    batch.submit().await.unwrap();
    let found = Employee::by_email(&table, "Sales", "ann@example.com")
        .await
        .unwrap();
    assert_eq!(found.map(|e| e.id()).as_deref(), Some("e-4"));
}

/// A shift, indexed by when it starts (unique) and by its day's start (not unique).
#[derive(TableEntity)]
#[tablekit(table = "Shifts")]
pub struct Shift {
    #[tablekit(partition_key)]
    pub site: String,
    #[tablekit(row_key)]
    pub id: String,
    #[tablekit(index(unique))]
    pub starts: DateTime<Utc>,
    #[tablekit(index)]
    pub day: DateTime<Utc>,
}

/// A time finer than the service's 100 ns is stored to its tick; its index rows and lookups
/// use the same tick, so a lookup by the time the code holds finds the entity.
async fn a_lookup_by_a_finer_time_than_stored_finds_the_entity(client: &TableServiceClient) {
    let table = client.table_named::<Shift>(&unique_name("Shifts"));
    table.create().await.unwrap();
    let starts =
        Utc.with_ymd_and_hms(2026, 3, 1, 8, 0, 0).unwrap() + Duration::nanoseconds(123_456_789);
    let day = Utc.with_ymd_and_hms(2026, 3, 1, 0, 0, 0).unwrap() + Duration::nanoseconds(7);
    let mut shift = ShiftEntity::new("oslo", "s-1");
    shift.set_starts(starts);
    shift.set_day(day);
    table.insert(&mut shift).await.unwrap();

    let found = Shift::by_starts(&table, "oslo", &starts).await.unwrap();
    assert_eq!(found.map(|s| s.id()).as_deref(), Some("s-1"));
    let tick = starts - Duration::nanoseconds(89);
    let found = Shift::by_starts(&table, "oslo", &tick).await.unwrap();
    assert_eq!(found.map(|s| s.starts()), Some(tick));
    let found = Shift::by_day(&table, "oslo", &day).await.unwrap();
    assert_eq!(
        found.iter().map(ShiftEntity::id).collect::<Vec<_>>(),
        ["s-1"]
    );
    let next_tick = starts + Duration::nanoseconds(11);
    assert!(Shift::by_starts(&table, "oslo", &next_tick)
        .await
        .unwrap()
        .is_none());
    table.delete_table().await.unwrap();
}

on_servers!(
    a_lookup_by_a_finer_time_than_stored_finds_the_entity,
    a_transaction_carries_the_index_rows,
    inserted_entities_are_found_by_their_indexed_values,
    a_changed_value_moves_its_index_row_in_the_same_transaction,
    a_unique_violation_applies_nothing,
    a_delete_removes_the_index_rows,
    typed_reads_never_yield_index_rows,
    concurrent_writers_leave_an_exact_index,
);
