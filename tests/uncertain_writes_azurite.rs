//! Writes whose answer is lost after they were applied, on Azurite: Azurite cannot fail on
//! cue, so the client talks to it through a `FaultProxy` that forwards every request and
//! injects the faults.
//!
//! `scripts/test.sh` starts the pinned Azurite on 127.0.0.1 and sets
//! `TABLEKIT_AZURITE_CONNECTION_STRING`; without it these tests fail (never skip silently).

mod uncertain_writes;

use std::sync::Arc;

use tablekit::client::ConnectionString;
use tablekit_testing::{FaultProxy, Faults, AZURITE_CONNECTION_STRING_VAR};
use uncertain_writes::Backend;

async fn azurite() -> Backend {
    let Ok(connection_string) = std::env::var(AZURITE_CONNECTION_STRING_VAR) else {
        panic!(
            "{AZURITE_CONNECTION_STRING_VAR} is not set: run the tests with scripts/test.sh \
             (or `eval \"$(scripts/azurite.sh start)\"` first)"
        );
    };
    let (endpoint, credential) = ConnectionString::parse(&connection_string)
        .expect("Azurite's connection string parses")
        .into_parts();
    let proxy = FaultProxy::start(endpoint.base_url().as_str(), Faults::seeded(0))
        .await
        .expect("start the proxy");
    let proxy = Arc::new(proxy);
    let faults = proxy.clone();
    Backend::new(
        proxy.endpoint(),
        credential,
        connection_string,
        move |plan| faults.set_faults(plan),
        proxy,
    )
}

uncertain_writes_suite!(azurite().await);
