//! The storage-pattern cases against Azurite (the reference server).
//!
//! Azurite is started by `scripts/test.sh`, which sets `TABLEKIT_AZURITE_CONNECTION_STRING`;
//! without it these tests fail with a message saying so (they never skip silently).

mod patterns_cases;

use tablekit::client::TableServiceClient;

fn azurite() -> TableServiceClient {
    let Ok(connection_string) = std::env::var("TABLEKIT_AZURITE_CONNECTION_STRING") else {
        panic!(
            "TABLEKIT_AZURITE_CONNECTION_STRING is not set: run the tests with scripts/test.sh \
             (or `eval \"$(scripts/azurite.sh start)\"` first)"
        );
    };
    TableServiceClient::from_connection_string(&connection_string)
        .unwrap_or_else(|e| panic!("TABLEKIT_AZURITE_CONNECTION_STRING: {e}"))
}

patterns_suite!(azurite());
