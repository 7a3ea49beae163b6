//! Concurrency on the in-process emulator: optimistic increments from 16 tasks and two bulk
//! writers over the same partitions (the same checks run on Azurite in
//! `reliability_concurrency_azurite.rs`).

mod reliability_support;

use tablekit::client::TableServiceClient;
use tablekit_testing::Emulator;

async fn client() -> (Emulator, TableServiceClient) {
    let emulator = Emulator::start().await.expect("emulator");
    let client =
        TableServiceClient::from_connection_string(&emulator.connection_string()).expect("client");
    (emulator, client)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sixteen_tasks_of_a_hundred_optimistic_increments_make_exactly_1600() {
    let (_emulator, client) = client().await;
    reliability_support::optimistic_increments(&client).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_bulk_writers_on_overlapping_partitions_lose_nothing() {
    let (_emulator, client) = client().await;
    reliability_support::overlapping_bulk_writers(&client).await;
}
