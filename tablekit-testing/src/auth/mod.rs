//! Authenticates requests: Shared Key and Shared Key Lite signatures for configured accounts,
//! and table and account SAS tokens signed with an account's key.

mod sas;
mod shared_key;

use std::collections::HashMap;
use std::net::SocketAddr;

use http::request::Parts;
use tablekit::auth::AccountKey;

use crate::service_error::ServiceError;
use crate::store::Store;

pub(crate) use sas::{SasGrant, TableOp};

/// Who the request is: the account owner (a signed request) or a SAS holder.
#[derive(Debug, Clone)]
pub(crate) enum Caller {
    /// A Shared Key or Shared Key Lite signature: every operation is allowed.
    Owner,
    /// A SAS: what it grants.
    Sas(SasGrant),
}

impl Caller {
    /// Whether this caller may use `permissions` on `table` and, when given, on the entity at
    /// `keys`: the owner always may; a SAS holder as far as the SAS grants (403 otherwise).
    pub(crate) fn may(
        &self,
        table: &str,
        permissions: &str,
        keys: Option<(&str, &str)>,
    ) -> Result<(), ServiceError> {
        let Caller::Sas(grant) = self else {
            return Ok(());
        };
        grant.check_table(table)?;
        grant.check_permissions(permissions)?;
        keys.map_or(Ok(()), |(pk, rk)| grant.check_keys(pk, rk))
    }

    /// Whether this caller may run the table-level operation `op`: the owner always may, an
    /// account SAS when it grants it, a table SAS never.
    pub(crate) fn may_manage(&self, op: TableOp) -> Result<(), ServiceError> {
        match self {
            Caller::Owner => Ok(()),
            Caller::Sas(grant) => grant.check_manage(op),
        }
    }
}

/// Authenticates a request for `account` signed with any of its `keys` (an account has two
/// so a key can be rotated while clients still sign with the other); a SAS naming a stored
/// access policy reads it from `store`.
pub(crate) fn authenticate(
    parts: &Parts,
    params: &HashMap<String, String>,
    account: &str,
    keys: &[AccountKey],
    store: &Store,
) -> Result<Caller, ServiceError> {
    let mut outcome = Err(ServiceError::authentication_failed(
        "The account has no key on this emulator.",
    ));
    for key in keys {
        outcome = authenticate_with(parts, params, account, key, store);
        if outcome.is_ok() {
            break;
        }
    }
    outcome
}

/// Authenticates a request for `account` signed with `key`.
fn authenticate_with(
    parts: &Parts,
    params: &HashMap<String, String>,
    account: &str,
    key: &AccountKey,
    store: &Store,
) -> Result<Caller, ServiceError> {
    if let Some(authorization) = parts
        .headers
        .get(http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
    {
        let comp = params.get("comp").map(String::as_str);
        shared_key::verify(parts, authorization, account, key, comp)?;
        return Ok(Caller::Owner);
    }
    if sas::is_sas(params) {
        let requester = sas::Requester {
            account,
            key,
            // The server records each connection's peer on its requests.
            peer: parts.extensions.get::<SocketAddr>().map(SocketAddr::ip),
            store,
        };
        return sas::verify(params, &requester).map(Caller::Sas);
    }
    Err(ServiceError::authentication_failed(
        "The request carries neither an Authorization header nor a SAS.",
    ))
}
