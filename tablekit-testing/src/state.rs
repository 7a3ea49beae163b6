//! [`State`]: what every connection and every layer of one emulator shares.

use std::collections::HashMap;

use tablekit::auth::AccountKey;

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
    /// The OAuth bearer tokens accepted as the owner's, as an identity provider issued them.
    bearer_tokens: std::sync::Mutex<std::collections::HashSet<String>>,
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
            bearer_tokens: Default::default(),
        }
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
