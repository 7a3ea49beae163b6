//! Writes whose answer is lost after they were applied, on Azurite: Azurite cannot fail on
//! cue, so the client talks to it through a `FaultProxy` that forwards every request and
//! injects the faults.
//!
//! Azurite is `tablekit_testing`'s: started on first use (installed with npm into a cache
//! directory the first time) unless `TABLEKIT_AZURITE_CONNECTION_STRING` names a running one;
//! without Node.js these tests fail with a message saying so (they never skip silently).

mod uncertain_writes;

use std::sync::Arc;

use tablekit::client::ConnectionString;
use tablekit_testing::{azurite_connection_string, FaultProxy, Faults};
use uncertain_writes::Backend;

async fn azurite() -> Backend {
    let connection_string = azurite_connection_string();
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
