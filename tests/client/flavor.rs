//! The client's pre-send checks follow the service it talks to: what Table Storage accepts and
//! the Cosmos DB Table API refuses is sent by a Storage client and refused, unsent, by a Cosmos
//! one; and a client knows Cosmos from its endpoint.

use tablekit::client::{Flavor, TableServiceClient};
use tablekit::limits::Limits;
use tablekit::{DynamicEntity, Error, InvalidInput};
use tablekit_testing::{Emulator, Operation};

#[test]
fn cosmos_is_known_from_the_endpoint() {
    for (endpoint, flavor) in [
        ("https://acct.table.cosmos.azure.com:443/", Flavor::Cosmos),
        ("https://acct.table.cosmosdb.azure.com", Flavor::Cosmos),
        ("https://acct.table.core.windows.net", Flavor::Storage),
        ("http://127.0.0.1:10002/devstoreaccount1", Flavor::Storage),
    ] {
        let client = TableServiceClient::builder()
            .endpoint(endpoint)
            .build()
            .unwrap();
        assert_eq!(client.flavor(), flavor, "{endpoint}");
    }
    let connection_string = "DefaultEndpointsProtocol=https;AccountName=acct;\
        AccountKey=a2V5;TableEndpoint=https://acct.table.cosmos.azure.com:443/;";
    let client = TableServiceClient::from_connection_string(connection_string).unwrap();
    assert_eq!(client.flavor(), Flavor::Cosmos);
    assert_eq!(client.limits(), &Limits::COSMOS);
    // Told otherwise, the client believes what it is told.
    let told = TableServiceClient::builder()
        .connection_string(connection_string)
        .flavor(Flavor::Storage)
        .build()
        .unwrap();
    assert_eq!(told.flavor(), Flavor::Storage);
}

/// A Storage and a Cosmos client of one (Storage) emulator.
async fn clients(emulator: &Emulator) -> (TableServiceClient, TableServiceClient) {
    let storage = emulator.client();
    let cosmos = emulator
        .client_builder()
        .flavor(Flavor::Cosmos)
        .build()
        .unwrap();
    storage.create_table("Flavors").await.unwrap();
    emulator.reset_requests();
    (storage, cosmos)
}

fn refused<T: std::fmt::Debug>(result: Result<T, Error>) -> InvalidInput {
    match result {
        Err(Error::InvalidInput(problem)) => problem,
        other => panic!("expected a refusal before sending, got {other:?}"),
    }
}

#[tokio::test]
async fn long_row_keys_and_reserved_names_pass_storage_checks_only() {
    let emulator = Emulator::start().await.unwrap();
    let (storage, cosmos) = clients(&emulator).await;
    let mut long = DynamicEntity::new("p", "k".repeat(300));
    let mut reserved = DynamicEntity::new("p", "r");
    reserved.set("rid", 1);
    for entity in [&mut long, &mut reserved] {
        let problem = refused(
            cosmos
                .table_named::<DynamicEntity>("Flavors")
                .upsert_replace(entity)
                .await,
        );
        assert!(
            matches!(
                problem,
                InvalidInput::RowKeyTooLong { .. } | InvalidInput::ReservedPropertyName { .. }
            ),
            "{problem}"
        );
    }
    assert_eq!(emulator.requests().total(), 0);
    let table = storage.table_named::<DynamicEntity>("Flavors");
    table.upsert_replace(&mut long).await.unwrap();
    table.upsert_replace(&mut reserved).await.unwrap();
    assert_eq!(emulator.requests().count(Operation::InsertOrReplace), 2);
    // Reads by a key too long for Cosmos are refused too.
    let key = long.row_key().to_owned();
    let cosmos_table = cosmos.table_named::<DynamicEntity>("Flavors");
    assert!(matches!(
        refused(cosmos_table.get("p", &key).await),
        InvalidInput::RowKeyTooLong { .. }
    ));
}

#[tokio::test]
async fn transactions_between_2_and_4_mib_pass_storage_checks_only() {
    let emulator = Emulator::start().await.unwrap();
    let (storage, cosmos) = clients(&emulator).await;
    let entities: Vec<DynamicEntity> = (0..50)
        .map(|i| {
            let mut e = DynamicEntity::new("p", format!("r{i:02}"));
            e.set("Blob", vec![1u8; 45 * 1024]);
            e
        })
        .collect();
    let mut batch = cosmos.table_named::<DynamicEntity>("Flavors").batch();
    let problem = entities
        .iter()
        .find_map(|e| batch.insert(e).err())
        .expect("the transaction outgrows 2 MiB");
    assert!(matches!(
        problem,
        Error::InvalidInput(InvalidInput::BatchTooLarge { limit: 2097152, .. })
    ));
    let mut batch = storage.table_named::<DynamicEntity>("Flavors").batch();
    for e in &entities {
        batch.insert(e).unwrap();
    }
    assert_eq!(batch.submit().await.unwrap().etags().len(), 50);
}

#[tokio::test]
async fn service_operations_cosmos_lacks_are_refused_unsent() {
    let emulator = Emulator::start().await.unwrap();
    let (storage, cosmos) = clients(&emulator).await;
    assert!(matches!(
        refused(cosmos.properties().await),
        InvalidInput::Unsupported { .. }
    ));
    assert!(matches!(
        refused(cosmos.statistics().await),
        InvalidInput::Unsupported { .. }
    ));
    assert_eq!(emulator.requests().total(), 0);
    storage.properties().await.unwrap();
    storage.statistics().await.unwrap();
    assert_eq!(emulator.requests().total(), 2);
}
