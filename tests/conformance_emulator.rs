//! The conformance suite against the in-process emulator over real HTTP: the same cases as
//! `conformance_azurite.rs`, with zero set-up.

mod conformance;

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

conformance_suite!(emulator().await);
