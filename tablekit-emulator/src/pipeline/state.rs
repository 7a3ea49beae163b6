//! [`State`]: what every connection and every layer of one emulator shares.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;

use tablekit::auth::AccountKey;
use tablekit::client::ServiceProperties;
use tablekit::limits::{Flavor, Limits};

use crate::pipeline::counter::RequestCounter;
use crate::pipeline::faults::{ActiveFaults, Faults};
use crate::pipeline::throttle::{ActiveThrottle, Throttle};
use crate::query::cost::CostLog;
use crate::storage::store::Store;

/// One emulator's data, accounts, request counts and fault plan.
#[derive(Debug)]
pub(crate) struct State {
    pub(crate) store: Store,
    /// Each account's keys by account name (one, or two as Azure's key1 and key2): requests
    /// must be signed with one of them.
    pub(crate) accounts: HashMap<String, Vec<AccountKey>>,
    pub(crate) counter: RequestCounter,
    pub(crate) faults: ActiveFaults,
    /// The limits of the service it behaves as.
    pub(crate) limits: &'static Limits,
    /// Each account's service properties, once set (in memory only, also when persisting).
    pub(crate) service_properties: Mutex<HashMap<String, ServiceProperties>>,
    /// What reads cost.
    pub(crate) costs: CostLog,
    /// The entity rates served, when throttled.
    pub(crate) throttle: Option<ActiveThrottle>,
    /// The OAuth bearer tokens accepted as the owner's, as an identity provider issued them.
    bearer_tokens: Mutex<HashSet<String>>,
}

impl State {
    /// A state with nothing counted yet, injecting faults by `faults`.
    pub(crate) fn new(
        store: Store,
        accounts: HashMap<String, Vec<AccountKey>>,
        faults: Option<Faults>,
    ) -> Self {
        State {
            store,
            accounts,
            counter: RequestCounter::default(),
            faults: ActiveFaults::new(faults),
            limits: Flavor::Storage.limits(),
            service_properties: Mutex::default(),
            throttle: None,
            costs: CostLog::default(),
            bearer_tokens: Mutex::default(),
        }
    }

    /// The same state, behaving as `flavor`.
    pub(crate) fn with_flavor(mut self, flavor: Flavor) -> Self {
        self.limits = flavor.limits();
        self
    }

    /// The same state, serving at most `throttle`'s rates (after
    /// [`with_flavor`](Self::with_flavor): the flavor decides how a refusal reads).
    pub(crate) fn with_throttle(mut self, throttle: Option<Throttle>) -> Self {
        self.throttle = throttle.map(|t| ActiveThrottle::new(t, self.limits.flavor));
        self
    }

    /// Accepts `token` as a bearer token of the accounts' owner from now on.
    pub(crate) fn accept_bearer(&self, token: &str) {
        let mut tokens = self.bearer_tokens.lock().unwrap_or_else(|e| e.into_inner());
        tokens.insert(token.to_owned());
    }

    /// Whether `token` was accepted.
    pub(crate) fn accepts_bearer(&self, token: &str) -> bool {
        let tokens = self.bearer_tokens.lock().unwrap_or_else(|e| e.into_inner());
        tokens.contains(token)
    }
}
