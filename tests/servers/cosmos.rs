//! The emulator as the Cosmos DB Table API: where Cosmos differs from Table Storage, a
//! client that knows it talks to Cosmos refuses before sending, and one that does not is
//! refused by the server, as Cosmos would.

use tablekit::client::{Flavor, ServiceProperties, Table, TableServiceClient};
use tablekit::{DynamicEntity, Error, InvalidInput};
use tablekit_testing::{Emulator, Operation};

use crate::support::servers::unique_name;

/// An emulator in the Cosmos flavor, a client that knows it and one that does not.
pub struct Cosmos {
    emulator: Emulator,
    aware: TableServiceClient,
    unaware: TableServiceClient,
}

pub async fn cosmos() -> Cosmos {
    let emulator = Emulator::builder()
        .flavor(Flavor::Cosmos)
        .start()
        .await
        .expect("start the emulator");
    let aware = emulator.client();
    let unaware = emulator
        .client_builder()
        .flavor(Flavor::Storage)
        .build()
        .unwrap();
    Cosmos {
        emulator,
        aware,
        unaware,
    }
}

impl Cosmos {
    async fn tables(&self) -> (Table, Table) {
        let name = unique_name("cosmos");
        let aware: Table = self.aware.table_named(&name);
        aware.create().await.unwrap();
        (aware, self.unaware.table_named(&name))
    }

    fn writes(&self) -> u64 {
        let counts = self.emulator.requests();
        [
            Operation::Insert,
            Operation::InsertOrReplace,
            Operation::Batch,
        ]
        .into_iter()
        .map(|op| counts.count(op))
        .sum()
    }
}

fn invalid(result: Result<impl std::fmt::Debug, Error>) -> InvalidInput {
    match result {
        Err(Error::InvalidInput(problem)) => problem,
        other => panic!("expected a refusal before sending, got {other:?}"),
    }
}

pub async fn row_keys_over_255_bytes(backend: &Cosmos) {
    let (aware, unaware) = backend.tables().await;
    let long = "é".repeat(128); // 128 UTF-16 units: fine on Table Storage, 256 bytes
    let mut entity = DynamicEntity::new("p", &long);
    let problem = invalid(aware.insert(&mut entity).await);
    assert!(matches!(
        problem,
        InvalidInput::RowKeyTooLong {
            bytes: 256,
            limit: 255,
            ..
        }
    ));
    assert_eq!(backend.writes(), 0);
    let err = unaware.insert(&mut entity).await.unwrap_err();
    assert_eq!(err.status(), Some(400), "{err}");
    // 255 bytes fit both.
    let mut fits = DynamicEntity::new("p", "k".repeat(255));
    aware.insert(&mut fits).await.unwrap();
}

pub async fn reserved_property_names(backend: &Cosmos) {
    let (aware, unaware) = backend.tables().await;
    let mut entity = DynamicEntity::new("p", "r");
    entity.set("ResourceId", "r-1");
    assert!(matches!(
        invalid(aware.upsert_replace(&mut entity).await),
        InvalidInput::ReservedPropertyName { .. }
    ));
    let err = unaware.upsert_replace(&mut entity).await.unwrap_err();
    assert_eq!(err.code(), Some("PropertyNameInvalid"), "{err}");
}

/// A transaction's entities meet the same rules as single writes: the flavor's own
/// (reserved names, 255-byte row keys) as much as the service's.
pub async fn transactions_are_checked_like_single_writes(backend: &Cosmos) {
    let (aware, unaware) = backend.tables().await;
    let mut reserved = DynamicEntity::new("p", "r1");
    reserved.set("ResourceId", "r-1");
    let long = DynamicEntity::new("p", "é".repeat(128));
    for (entity, code) in [(&reserved, "PropertyNameInvalid"), (&long, "InvalidInput")] {
        let mut batch = unaware.batch();
        batch.insert(&DynamicEntity::new("p", "r0")).unwrap();
        batch.upsert_replace(entity).unwrap();
        let err = batch.submit().await.unwrap_err();
        assert_eq!(err.status(), Some(400), "{err}");
        assert_eq!(err.code(), Some(code), "{err}");
    }
    assert!(aware.get("p", "r0").await.unwrap().is_none());
    // And so do the entities a test seeds.
    let seeded = backend.emulator.seed(aware.name(), [reserved.clone()]);
    assert!(seeded.is_err(), "{seeded:?}");
    assert!(aware.get("p", "r1").await.unwrap().is_none());
}

pub async fn transactions_over_2_mib(backend: &Cosmos) {
    let (aware, unaware) = backend.tables().await;
    // 40 entities of ~60 KiB: about 3 MiB, under Table Storage's 4 MiB.
    let entities: Vec<DynamicEntity> = (0..40)
        .map(|i| {
            let mut e = DynamicEntity::new("p", format!("r{i:02}"));
            e.set("Blob", vec![7u8; 45 * 1024]);
            e
        })
        .collect();
    let mut batch = aware.batch();
    let refused = entities.iter().find_map(|e| batch.insert(e).err());
    assert!(
        matches!(
            refused,
            Some(Error::InvalidInput(InvalidInput::BatchTooLarge { limit, .. })) if limit == 2 * 1024 * 1024
        ),
        "{refused:?}"
    );
    let mut batch = unaware.batch();
    for e in &entities {
        batch.insert(e).unwrap();
    }
    let err = batch.submit().await.unwrap_err();
    assert_eq!(err.status(), Some(413), "{err}");
    assert!(aware.get("p", "r00").await.unwrap().is_none());
}

pub async fn no_service_properties_or_statistics(backend: &Cosmos) {
    assert!(matches!(
        invalid(backend.aware.properties().await),
        InvalidInput::Unsupported { .. }
    ));
    assert!(matches!(
        invalid(backend.aware.statistics().await),
        InvalidInput::Unsupported { .. }
    ));
    assert!(matches!(
        invalid(
            backend
                .aware
                .set_properties(&ServiceProperties::default())
                .await
        ),
        InvalidInput::Unsupported { .. }
    ));
    assert_eq!(backend.emulator.requests().total(), 0);
    let err = backend.unaware.properties().await.unwrap_err();
    assert_eq!(err.status(), Some(501), "{err}");
    assert_eq!(err.code(), Some("NotImplemented"));
    let err = backend.unaware.statistics().await.unwrap_err();
    assert_eq!(err.status(), Some(501), "{err}");
}

pub async fn no_table_access_policies(backend: &Cosmos) {
    let aware = backend.aware.table_named::<DynamicEntity>("Gamers");
    assert!(matches!(
        invalid(aware.access_policies().await),
        InvalidInput::Unsupported { .. }
    ));
    assert!(matches!(
        invalid(aware.set_access_policies(&[]).await),
        InvalidInput::Unsupported { .. }
    ));
    assert_eq!(backend.emulator.requests().total(), 0);
    let unaware = backend.unaware.table_named::<DynamicEntity>("Gamers");
    unaware.create().await.unwrap();
    let err = unaware.access_policies().await.unwrap_err();
    assert_eq!(err.status(), Some(501), "{err}");
    assert_eq!(err.code(), Some("NotImplemented"));
}

on_servers!(
    { cosmos: super::cosmos().await }
    row_keys_over_255_bytes,
    reserved_property_names,
    transactions_are_checked_like_single_writes,
    transactions_over_2_mib,
    no_service_properties_or_statistics,
    no_table_access_policies,
);
