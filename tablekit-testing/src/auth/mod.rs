//! Authenticates requests: Shared Key and Shared Key Lite signatures for configured accounts,
//! and table SAS tokens signed with an account's key.

mod sas;
mod shared_key;

use std::collections::HashMap;

use http::request::Parts;
use tablekit::auth::AccountKey;

use crate::service_error::ServiceError;

pub(crate) use sas::SasGrant;
pub use sas::TableSas;

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
}

/// Authenticates a request for `account`, whose key is `key`.
pub(crate) fn authenticate(
    parts: &Parts,
    params: &HashMap<String, String>,
    account: &str,
    key: &AccountKey,
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
        return sas::verify(params, account, key).map(Caller::Sas);
    }
    Err(ServiceError::authentication_failed(
        "The request carries neither an Authorization header nor a SAS.",
    ))
}
