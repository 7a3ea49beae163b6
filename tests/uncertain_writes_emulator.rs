//! Writes whose answer is lost after they were applied, on the in-process emulator: once with
//! the faults the emulator injects itself, once through a `FaultProxy` in front of it (the
//! path `uncertain_writes_azurite.rs` takes to Azurite).

mod uncertain_writes;

use std::sync::Arc;

use tablekit::client::Credential;
use tablekit_testing::{Emulator, FaultProxy, Faults, DEV_KEY};
use uncertain_writes::Backend;

/// The emulator, injecting the faults itself.
async fn injected() -> Backend {
    let emulator = Arc::new(Emulator::start().await.expect("start the emulator"));
    let faults = emulator.clone();
    Backend::new(
        emulator.endpoint(),
        Credential::shared_key(DEV_KEY).expect("the development key"),
        emulator.connection_string(),
        move |plan| faults.set_faults(plan),
        emulator,
    )
}

/// The emulator behind a fault-injecting proxy.
async fn proxied() -> Backend {
    let emulator = Emulator::start().await.expect("start the emulator");
    let proxy = FaultProxy::start(&emulator.endpoint(), Faults::seeded(0))
        .await
        .expect("start the proxy");
    let proxy = Arc::new(proxy);
    let faults = proxy.clone();
    Backend::new(
        proxy.endpoint(),
        Credential::shared_key(DEV_KEY).expect("the development key"),
        emulator.connection_string(),
        move |plan| faults.set_faults(plan),
        (emulator, proxy),
    )
}

mod emulator_faults {
    crate::uncertain_writes_suite!(crate::injected().await);
}

mod through_the_proxy {
    crate::uncertain_writes_suite!(crate::proxied().await);
}
