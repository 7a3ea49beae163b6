//! The conformance suite against Azurite over real HTTP.
//!
//! `scripts/test.sh` starts the pinned Azurite on 127.0.0.1 and sets
//! `TABLEKIT_AZURITE_CONNECTION_STRING`; without it these tests fail (never skip silently).

mod conformance;

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

conformance_suite!(azurite());
