//! The opt-in throttle: each partition and each account serves at most its entity rate, and
//! what goes past it is refused as the service refuses it (503 ServerBusy on Azure, 429 with
//! `x-ms-retry-after-ms` on Cosmos DB), while other partitions go on unslowed.

use std::time::Duration;

use tablekit::client::{Flavor, RetryPolicy, TableServiceClient};
use tablekit::DynamicEntity;
use tablekit_emulator::{Emulator, Throttle};

/// A throttled emulator with a `Hot` table and a client that does not retry.
async fn throttled(throttle: Throttle, flavor: Flavor) -> (Emulator, TableServiceClient) {
    let emulator = Emulator::builder()
        .flavor(flavor)
        .throttle(throttle)
        .start()
        .await
        .unwrap();
    emulator.create_table("Hot").unwrap();
    let client = emulator
        .client_builder()
        .retry_policy(RetryPolicy::none())
        .build()
        .unwrap();
    (emulator, client)
}

/// Sends raw requests: the answer's status and headers as the service writes them.
async fn raw_insert(emulator: &Emulator, pk: &str, rk: &str) -> reqwest::Response {
    // A table SAS needs no signing of each request.
    let sas = crate::full_sas(emulator, "Hot");
    reqwest::Client::new()
        .post(format!("{}/Hot?{sas}", emulator.endpoint()))
        .header("Accept", "application/json;odata=nometadata")
        .header("Content-Type", "application/json")
        .header("x-ms-version", "2019-02-02")
        .body(format!(r#"{{"PartitionKey":"{pk}","RowKey":"{rk}"}}"#))
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn a_hot_partition_is_refused_with_server_busy_and_a_cold_one_is_not() {
    let throttle = Throttle::azure().with_partition_rate(5);
    let (emulator, _) = throttled(throttle, Flavor::Storage).await;
    for rk in 0..5 {
        assert_eq!(
            raw_insert(&emulator, "hot", &rk.to_string()).await.status(),
            201
        );
    }
    let refused = raw_insert(&emulator, "hot", "5").await;
    assert_eq!(refused.status(), 503);
    assert_eq!(refused.headers()["x-ms-error-code"], "ServerBusy");
    assert!(refused.headers().get("x-ms-retry-after-ms").is_none());
    let body = refused.text().await.unwrap();
    assert!(body.contains("The server is busy."), "{body}");
    // The refused insert was not applied, and a cold partition is served.
    assert_eq!(raw_insert(&emulator, "cold", "0").await.status(), 201);
    assert_eq!(emulator.entities("Hot").unwrap().len(), 6);
    let counts = emulator.throttled();
    assert_eq!((counts.total(), counts.partition("Hot", "hot")), (1, 1));
    assert_eq!(counts.partition("Hot", "cold"), 0);
}

#[tokio::test]
async fn cosmos_answers_429_with_the_wait_and_the_client_honours_it() {
    let throttle = Throttle::azure()
        .with_account_rate(20)
        .with_burst(Duration::from_millis(100));
    let (emulator, unretried) = throttled(throttle, Flavor::Cosmos).await;
    let hot = unretried.table_named::<DynamicEntity>("Hot");
    hot.upsert_merge(&mut DynamicEntity::new("p", "0"))
        .await
        .unwrap();
    hot.upsert_merge(&mut DynamicEntity::new("p", "1"))
        .await
        .unwrap();
    let refused = hot
        .upsert_merge(&mut DynamicEntity::new("p", "2"))
        .await
        .unwrap_err();
    assert_eq!(refused.status(), Some(429));
    assert!(refused.is_throttled(), "{refused}");
    // A client that retries waits as told, and every write lands once.
    let retried = emulator.client().table_named::<DynamicEntity>("Hot");
    for rk in 2..12 {
        let mut entity = DynamicEntity::new("p", rk.to_string());
        retried.upsert_merge(&mut entity).await.unwrap();
    }
    assert_eq!(emulator.entities("Hot").unwrap().len(), 12);
    assert!(emulator.throttled().total() >= 2);
}

#[tokio::test]
async fn a_transaction_is_paid_for_by_its_entities_and_refused_whole() {
    let throttle = Throttle::azure().with_partition_rate(50);
    let (emulator, client) = throttled(throttle, Flavor::Storage).await;
    let hot = client.table_named::<DynamicEntity>("Hot");
    let batch = |from: usize| {
        let mut batch = hot.batch();
        for rk in from..from + 100 {
            batch
                .insert(&DynamicEntity::new("p", format!("{rk:03}")))
                .unwrap();
        }
        batch
    };
    // A transaction larger than the bucket is admitted while it holds tokens...
    batch(0).submit().await.unwrap();
    // ...and the partition then owes them: the next one is refused before it is parsed
    // into a multipart answer, and nothing of it is applied.
    let refused = batch(100).submit().await.unwrap_err();
    assert_eq!(refused.status(), Some(503), "{refused}");
    assert!(refused.is_throttled());
    assert_eq!(emulator.entities("Hot").unwrap().len(), 100);
}

#[tokio::test]
async fn queries_pay_for_the_entities_they_return() {
    let throttle = Throttle::azure().with_partition_rate(10);
    let (emulator, client) = throttled(throttle, Flavor::Storage).await;
    let entities: Vec<_> = (0..30)
        .map(|rk| DynamicEntity::new("p", format!("{rk:02}")))
        .collect();
    emulator.seed("Hot", entities).unwrap();
    let hot = client.table_named::<DynamicEntity>("Hot");
    // One page of 30 from the partition: admitted with a full bucket, then owed.
    let filter = tablekit::Filter::<DynamicEntity>::raw("PartitionKey eq 'p'");
    let query = tablekit::Query::new().filter(filter);
    let page = hot.query(query).first_page().await.unwrap();
    assert_eq!(page.entities().len(), 30);
    let refused = hot.get("p", "00").await.unwrap_err();
    assert!(refused.is_throttled(), "{refused}");
    // Table operations are not throttled.
    assert!(client.table_exists("Hot").await.unwrap());
    assert_eq!(emulator.throttled().partition("Hot", "p"), 1);
}
