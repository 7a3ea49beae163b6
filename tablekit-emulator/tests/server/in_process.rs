//! The in-process transport (`Emulator::in_process_client`): the same operations, answers,
//! signatures and faults as over HTTP, without sockets.

use std::time::{Duration as StdDuration, Instant};

use chrono::{Duration, Utc};
use futures::TryStreamExt;
use tablekit::client::{Credential, RetryPolicy, Table};
use tablekit::sas::{TablePermissions, TableSas};
use tablekit::{DynamicEntity, ETag, Query};
use tablekit_emulator::{Emulator, Fault, Faults, Operation};

fn entity(pk: &str, rk: &str, n: i32) -> DynamicEntity {
    let mut e = DynamicEntity::new(pk, rk);
    e.set("N", n);
    e
}

#[tokio::test]
async fn the_in_process_client_inserts_gets_queries_and_batches() {
    let emulator = Emulator::start().await.unwrap();
    let client = emulator.in_process_client();
    let table: Table = client.table_named("Gamers");
    table.create().await.unwrap();

    let mut dragon = entity("eu", "dragon", 1);
    table.insert(&mut dragon).await.unwrap();
    let etag = dragon.etag().cloned().expect("an insert answers its ETag");
    let got = table.get("eu", "dragon").await.unwrap().unwrap();
    assert_eq!(got.get::<i32>("N"), Some(1));
    assert_eq!(got.etag(), Some(&etag));

    let mut batch = table.batch();
    for i in 0..7 {
        batch.insert(&entity("eu", &format!("r{i}"), i)).unwrap();
    }
    batch.submit().await.unwrap();

    // Pages of 3 over 8 entities: three pages, the first two ending in a continuation.
    let query = Query::new()
        .filter_raw("PartitionKey eq 'eu'")
        .top(3)
        .unwrap();
    let first = table.query(query.clone()).first_page().await.unwrap();
    assert_eq!(first.len(), 3);
    assert!(first.continuation().is_some());
    let pages: Vec<_> = table.query(query).pages().try_collect().await.unwrap();
    assert_eq!(pages.iter().map(|p| p.len()).collect::<Vec<_>>(), [3, 3, 2]);
    assert_eq!(emulator.entities("Gamers").unwrap().len(), 8);
    // Every request went through the emulator's pipeline, counted as over HTTP.
    assert_eq!(emulator.requests().count(Operation::Insert), 1);
}

#[tokio::test]
async fn the_in_process_client_gets_the_services_errors() {
    let emulator = Emulator::start().await.unwrap();
    let client = emulator
        .in_process_client_builder()
        .retry_policy(RetryPolicy::none())
        .build()
        .unwrap();
    let table: Table = client.table_named("Gamers");
    let missing = table.insert(&mut entity("eu", "a", 1)).await.unwrap_err();
    assert!(missing.is_not_found(), "{missing}");
    table.create().await.unwrap();
    table.insert(&mut entity("eu", "a", 1)).await.unwrap();
    let twice = table.insert(&mut entity("eu", "a", 2)).await.unwrap_err();
    assert!(twice.is_conflict(), "{twice}");
    let stale = ETag::new("W/\"datetime'2020-01-01T00%3A00%3A00.0000000Z'\"");
    let mut update = entity("eu", "a", 3);
    update.set_etag(Some(stale));
    let refused = table.replace(&mut update).await.unwrap_err();
    assert!(refused.is_precondition_failed(), "{refused}");
    assert!(table.get("eu", "nobody").await.unwrap().is_none());
    // A batch that fails is applied not at all.
    let mut batch = table.batch();
    batch.insert(&entity("eu", "b", 1)).unwrap();
    batch.insert(&entity("eu", "a", 1)).unwrap();
    assert!(batch.submit().await.is_err());
    assert_eq!(emulator.entities("Gamers").unwrap().len(), 1);
}

#[tokio::test]
async fn credentials_are_signed_and_checked_as_over_http() {
    let emulator = Emulator::start().await.unwrap();
    emulator.create_table("Gamers").unwrap();
    emulator.seed("Gamers", [entity("eu", "a", 1)]).unwrap();

    let wrong_key = Credential::shared_key("d3Jvbmcga2V5").unwrap();
    let stranger = emulator
        .in_process_client_builder()
        .credential(wrong_key)
        .build()
        .unwrap();
    let err = stranger
        .table_named::<DynamicEntity>("Gamers")
        .get("eu", "a")
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(403), "{err}");

    let read_only = emulator
        .sas(&TableSas::new(
            "Gamers",
            TablePermissions::QUERY,
            Utc::now() + Duration::hours(1),
        ))
        .unwrap();
    let reader = emulator
        .in_process_client_builder()
        .credential(Credential::sas(&read_only).unwrap())
        .build()
        .unwrap();
    let table = reader.table_named::<DynamicEntity>("Gamers");
    assert!(table.get("eu", "a").await.unwrap().is_some());
    let err = table.insert(&mut entity("eu", "b", 2)).await.unwrap_err();
    assert_eq!(err.status(), Some(403), "{err}");
    assert_eq!(emulator.entities("Gamers").unwrap().len(), 1);

    // An in-process request comes from this machine, as over loopback.
    let from = |ip: [u8; 4]| {
        let token = TableSas::new(
            "Gamers",
            TablePermissions::QUERY,
            Utc::now() + Duration::hours(1),
        )
        .ip(std::net::IpAddr::from(ip));
        let token = emulator.sas(&token).unwrap();
        emulator
            .in_process_client_builder()
            .credential(Credential::sas(&token).unwrap())
            .build()
            .unwrap()
            .table_named::<DynamicEntity>("Gamers")
    };
    assert!(from([127, 0, 0, 1]).get("eu", "a").await.unwrap().is_some());
    let err = from([10, 0, 0, 1]).get("eu", "a").await.unwrap_err();
    assert_eq!(err.code(), Some("AuthorizationSourceIPMismatch"), "{err}");
}

#[tokio::test]
async fn faults_and_retries_work_as_over_http() {
    let emulator = Emulator::builder()
        .faults(Faults::seeded(0).rate(Fault::ServerBusy, 1.0).at_most(1))
        .start()
        .await
        .unwrap();
    let client = emulator.in_process_client();
    client.create_table("Gamers").await.unwrap();
    // The first attempt met the fault, the retry created the table.
    assert_eq!(emulator.requests().total(), 2);
    assert_eq!(emulator.table_names(), ["Gamers"]);

    // A dropped connection is a transport failure, as a closed socket is.
    emulator.set_faults(Some(Faults::seeded(0).rate(Fault::DropConnection, 1.0)));
    let once = emulator
        .in_process_client_builder()
        .retry_policy(RetryPolicy::none())
        .build()
        .unwrap();
    let err = once.create_table("Orders").await.unwrap_err();
    assert!(err.status().is_none(), "{err}");
}

#[tokio::test]
async fn writes_through_the_in_process_client_are_durable() {
    let dir = tempfile::tempdir().unwrap();
    let emulator = Emulator::builder()
        .persist_to(dir.path())
        .start()
        .await
        .unwrap();
    let table: Table = emulator.in_process_client().table_named("Gamers");
    table.create().await.unwrap();
    table.insert(&mut entity("eu", "a", 1)).await.unwrap();
    drop(emulator);
    let emulator = Emulator::builder()
        .persist_to(dir.path())
        .start()
        .await
        .unwrap();
    let table: Table = emulator.in_process_client().table_named("Gamers");
    let got = table.get("eu", "a").await.unwrap().unwrap();
    assert_eq!(got.get::<i32>("N"), Some(1));
}

/// A request whose caller stops waiting is still carried out whole, as one whose client hung
/// up over HTTP: the caller's timeout does not cut the emulator's work off half-way. A single
/// insert is answered in the caller's task, a large transaction on a task of its own.
async fn carried_out_though_the_caller_gives_up(rows: usize) {
    let emulator = Emulator::start().await.unwrap();
    let table: Table = emulator.in_process_client().table_named("Gamers");
    table.create().await.unwrap();
    let impatient: Table = emulator
        .in_process_client_builder()
        .retry_policy(RetryPolicy::none())
        .timeout(StdDuration::from_millis(50))
        .build()
        .unwrap()
        .table_named("Gamers");
    let mut batch = impatient.batch();
    for i in 0..rows {
        let mut row = entity("eu", &format!("{i:03}"), 1);
        row.set("Text", "x".repeat(1000));
        batch.insert(&row).unwrap();
    }
    // Each request waits a second before the handlers see it.
    let slow = Faults::seeded(0).latency(StdDuration::from_secs(1));
    emulator.set_faults(Some(slow));
    let err = match rows {
        1 => impatient
            .insert(&mut entity("eu", "000", 1))
            .await
            .unwrap_err(),
        _ => batch.submit().await.unwrap_err(),
    };
    emulator.set_faults(None);
    assert!(err.may_have_been_applied(), "{err}");
    let last = format!("{:03}", rows - 1);
    assert!(table.get("eu", &last).await.unwrap().is_none(), "not yet");
    let deadline = Instant::now() + StdDuration::from_secs(5);
    while table.get("eu", &last).await.unwrap().is_none() {
        assert!(Instant::now() < deadline, "the write was cut off");
        tokio::time::sleep(StdDuration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn an_insert_whose_caller_gives_up_is_carried_out_to_its_end() {
    carried_out_though_the_caller_gives_up(1).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_transaction_whose_caller_gives_up_is_carried_out_to_its_end() {
    carried_out_though_the_caller_gives_up(100).await;
}
