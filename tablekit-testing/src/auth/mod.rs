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
