//! [`State`]: what every connection and every layer of one emulator shares.

use std::collections::HashMap;
use std::sync::Mutex;

use tablekit::auth::AccountKey;
use tablekit::client::ServiceProperties;
use tablekit::limits::{Flavor, Limits};

use crate::counter::RequestCounter;
use crate::faults::{ActiveFaults, Faults};
use crate::store::Store;

/// One emulator's data, accounts, request counts and fault plan.
#[derive(Debug)]
pub(crate) struct State {
    pub(crate) store: Store,
    /// Each account's key, by account name: requests must be signed with it.
    pub(crate) accounts: HashMap<String, AccountKey>,
    pub(crate) counter: RequestCounter,
    pub(crate) faults: ActiveFaults,
    /// The limits of the service it behaves as.
    pub(crate) limits: &'static Limits,
    /// Each account's service properties, once set (in memory only, also when persisting).
    pub(crate) service_properties: Mutex<HashMap<String, ServiceProperties>>,
}

impl State {
    /// A state with nothing counted yet, injecting faults by `faults`.
    pub(crate) fn new(
        store: Store,
        accounts: HashMap<String, AccountKey>,
        faults: Option<Faults>,
    ) -> Self {
        State {
            store,
            accounts,
            counter: RequestCounter::default(),
            faults: ActiveFaults::new(faults),
            limits: Flavor::Storage.limits(),
            service_properties: Mutex::default(),
        }
    }

    /// The same state, behaving as `flavor`.
    pub(crate) fn with_flavor(mut self, flavor: Flavor) -> Self {
        self.limits = flavor.limits();
        self
    }
}
