//! Reads from the secondary region: the emulator serves `{account}-secondary` as a read-only
//! view of the account, and the client's location mode sends reads there, never writes.

use tablekit::client::{
    Credential, LocationMode, RetryPolicy, TableServiceClient, DEVELOPMENT_KEY,
};
use tablekit::DynamicEntity;
use tablekit_testing::{Emulator, Fault, FaultProxy, Faults};

fn key() -> Credential {
    Credential::shared_key(DEVELOPMENT_KEY).expect("key")
}

#[tokio::test(flavor = "current_thread")]
async fn the_secondary_answers_reads_and_refuses_writes() {
    let emulator = Emulator::start().await.expect("emulator");
    let table = emulator.client().table_named::<DynamicEntity>("Replicated");
    table.create().await.expect("create");
    table
        .insert(&mut DynamicEntity::new("eu", "dragon"))
        .await
        .expect("insert");

    let reader = emulator
        .client_builder()
        .location_mode(LocationMode::SecondaryOnly)
        .build()
        .expect("client");
    let replica = reader.table_named::<DynamicEntity>("Replicated");
    assert!(replica.get("eu", "dragon").await.expect("get").is_some());
    assert_eq!(replica.query_all().count().await.expect("query"), 1);
    assert_eq!(
        reader.list_table_names(None).await.expect("tables"),
        ["Replicated"]
    );

    // refused by the client before anything is sent
    let before = emulator.requests().total();
    let err = replica
        .insert(&mut DynamicEntity::new("eu", "newcomer"))
        .await
        .expect_err("refused");
    assert!(matches!(err, tablekit::Error::Configuration(_)), "{err}");
    assert_eq!(emulator.requests().total(), before);

    // and by the emulator, when a client is pointed at the secondary as if it were primary
    let secondary = format!("{}-secondary", emulator.endpoint());
    let direct = TableServiceClient::builder()
        .endpoint(&secondary)
        .account(emulator.account())
        .credential(key())
        .build()
        .expect("client");
    let direct_table = direct.table_named::<DynamicEntity>("Replicated");
    assert!(direct_table
        .get("eu", "dragon")
        .await
        .expect("get")
        .is_some());
    for err in [
        direct_table
            .insert(&mut DynamicEntity::new("eu", "newcomer"))
            .await
            .expect_err("403"),
        direct.create_table("Other").await.expect_err("403"),
        direct_table
            .delete_by_key("eu", "dragon", &tablekit::ETag::any())
            .await
            .expect_err("403"),
    ] {
        assert_eq!(err.status(), Some(403), "{err}");
        assert_eq!(err.code(), Some("AuthorizationFailure"));
        assert!(!err.may_have_been_applied());
    }
    assert_eq!(emulator.table_names(), ["Replicated"]);
    assert!(table.get("eu", "dragon").await.expect("get").is_some());
}

#[tokio::test(flavor = "current_thread")]
async fn primary_then_secondary_falls_over_when_the_primary_fails() {
    let emulator = Emulator::start().await.expect("emulator");
    let table = emulator.client().table_named::<DynamicEntity>("Failover");
    table.create().await.expect("create");
    table
        .insert(&mut DynamicEntity::new("eu", "dragon"))
        .await
        .expect("insert");
    // the primary, behind a proxy that fails every request; the secondary, direct
    let down = Faults::seeded(1).rate(Fault::ServerBusy, 1.0);
    let primary = FaultProxy::start(&emulator.endpoint(), down)
        .await
        .expect("proxy");
    let quick = std::time::Duration::from_millis(1);
    let build = |mode| {
        TableServiceClient::builder()
            .endpoint(&primary.endpoint())
            .secondary_endpoint(&format!("{}-secondary", emulator.endpoint()))
            .credential(key())
            .location_mode(mode)
            .retry_policy(RetryPolicy::default().max_attempts(2).base_delay(quick))
            .build()
            .expect("client")
    };

    let failover = build(LocationMode::PrimaryThenSecondary);
    let replica = failover.table_named::<DynamicEntity>("Failover");
    let before = emulator.requests().total();
    assert!(replica.get("eu", "dragon").await.expect("get").is_some());
    assert_eq!(primary.requests().total(), 1, "one try on the primary");
    assert_eq!(
        emulator.requests().total(),
        before + 1,
        "then the secondary"
    );

    // writes stay on the primary, so they fail with it
    let err = replica
        .insert(&mut DynamicEntity::new("eu", "newcomer"))
        .await
        .expect_err("the primary is down");
    assert!(err.is_throttled(), "{err}");
    assert_eq!(primary.requests().total(), 3);

    // primary only: no way around the failure
    let primary_only = build(LocationMode::PrimaryOnly);
    let err = primary_only
        .table_named::<DynamicEntity>("Failover")
        .get("eu", "dragon")
        .await
        .expect_err("the primary is down");
    assert!(err.is_throttled());
}

#[test]
fn the_connection_string_s_secondary_is_used() {
    let client = TableServiceClient::builder()
        .connection_string(
            "AccountName=acct;AccountKey=a2V5;\
             TableSecondaryEndpoint=https://elsewhere.example/acct",
        )
        .location_mode(LocationMode::SecondaryOnly)
        .build()
        .expect("client");
    assert!(format!("{client:?}").contains("SecondaryOnly"));
    let plain = TableServiceClient::builder()
        .endpoint("http://10.1.2.3:10002/devstoreaccount1")
        .credential(key())
        .allow_insecure_http(true)
        .location_mode(LocationMode::PrimaryThenSecondary)
        .build();
    assert!(plain.is_ok());
}
