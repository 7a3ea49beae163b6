//! Parameterised filters and generated time ranges against the in-process emulator over real
//! HTTP: the same cases as `filter_cases_azurite.rs`.

mod filter_cases;

use tablekit::client::TableServiceClient;
use tablekit_testing::Emulator;

/// A client for a fresh emulator in the test's runtime.
async fn emulator() -> TableServiceClient {
    let emulator = Emulator::start().await.expect("start the emulator");
    let client = TableServiceClient::from_connection_string(&emulator.connection_string())
        .expect("the emulator's connection string parses");
    // The server must outlive the test body; it stops with the test's runtime instead of on
    // drop (its task belongs to that runtime).
    std::mem::forget(emulator);
    client
}

filter_suite!(emulator().await);
