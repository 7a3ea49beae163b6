//! Persistence: with a data directory, acknowledged writes survive a restart.

use crate::support::raw::{entity_path, Raw};
use tablekit_testing::Emulator;

#[tokio::test]
async fn acknowledged_writes_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let etag = {
        let emulator = Emulator::builder()
            .persist_to(dir.path())
            .start()
            .await
            .unwrap();
        let raw = Raw::dev(&emulator);
        assert_eq!(raw.create_table("Kept").await.status, 201);
        assert_eq!(raw.create_table("Dropped").await.status, 201);
        let body =
            r#"{"PartitionKey":"p","RowKey":"r","N":1,"B":"AQID","B@odata.type":"Edm.Binary"}"#;
        assert_eq!(raw.insert("Kept", body).await.status, 201);
        assert_eq!(
            raw.insert("Kept", r#"{"PartitionKey":"p","RowKey":"gone"}"#)
                .await
                .status,
            201
        );
        let merged = raw
            .send(
                "MERGE",
                &entity_path("Kept", "p", "r"),
                &[("If-Match", "*")],
                Some(r#"{"M":2}"#),
            )
            .await;
        assert_eq!(merged.status, 204);
        assert_eq!(
            raw.send(
                "DELETE",
                &entity_path("Kept", "p", "gone"),
                &[("If-Match", "*")],
                None
            )
            .await
            .status,
            204
        );
        assert_eq!(
            raw.send("DELETE", "/Tables('Dropped')", &[], None)
                .await
                .status,
            204
        );
        let etag = merged.header("etag").unwrap().to_owned();
        emulator.shutdown().await;
        etag
    };
    for _ in 0..2 {
        let emulator = Emulator::builder()
            .persist_to(dir.path())
            .start()
            .await
            .unwrap();
        assert_eq!(emulator.table_names(), ["Kept"]);
        let raw = Raw::dev(&emulator);
        let got = raw
            .send("GET", &entity_path("Kept", "p", "r"), &[], None)
            .await;
        assert_eq!(got.status, 200);
        assert_eq!(
            got.header("etag"),
            Some(etag.as_str()),
            "the ETag survives too"
        );
        let json = got.json();
        assert_eq!((json["N"].as_i64(), json["M"].as_i64()), (Some(1), Some(2)));
        assert_eq!(json["B"], "AQID");
        assert_eq!(emulator.entities("Kept").unwrap().len(), 1);
        // A write after the restart gets a newer ETag than any before it.
        let put = raw
            .send("PUT", &entity_path("Kept", "p", "r2"), &[], Some("{}"))
            .await;
        assert!(put.header("etag").unwrap() > etag.as_str());
        raw.send(
            "DELETE",
            &entity_path("Kept", "p", "r2"),
            &[("If-Match", "*")],
            None,
        )
        .await;
        emulator.shutdown().await;
    }
}

#[tokio::test]
async fn without_a_directory_nothing_is_kept() {
    let emulator = Emulator::start().await.unwrap();
    emulator.create_table("Temp").unwrap();
    emulator.shutdown().await;
    let again = Emulator::start().await.unwrap();
    assert!(again.table_names().is_empty());
}

#[tokio::test]
async fn fixtures_clean_up_and_seed() {
    let emulator = Emulator::start().await.unwrap();
    let raw = Raw::dev(&emulator);
    let name = {
        let table = emulator.unique_table("Orders").unwrap();
        let other = emulator.unique_table("Orders").unwrap();
        assert_ne!(table.name(), other.name());
        let mut e = tablekit::DynamicEntity::new("p", "r");
        e.set("N", 5);
        assert_eq!(table.seed([e.clone()]).unwrap(), 1);
        assert!(
            table.seed([e]).is_err(),
            "seeding an existing entity is an error"
        );
        let bad = tablekit::DynamicEntity::new("a/b", "r");
        assert!(matches!(
            table.seed([bad]),
            Err(tablekit_testing::Error::InvalidInput(_))
        ));
        let got = raw
            .send("GET", &entity_path(table.name(), "p", "r"), &[], None)
            .await;
        assert_eq!(got.json()["N"], 5);
        assert_eq!(
            emulator
                .requests()
                .count(tablekit_testing::Operation::Insert),
            0
        );
        table.name().to_owned()
    };
    assert!(
        emulator.table_names().is_empty(),
        "{name} and its sibling were dropped"
    );
}
