//! Authenticates requests: Shared Key and Shared Key Lite signatures for configured accounts,
//! and table and account SAS tokens signed with an account's key; then authorizes each
//! operation by what its credential grants.
//!
//! # Who may do what
//!
//! The account key (a Shared Key or Shared Key Lite signature, or a bearer token the emulator
//! accepts) may call every operation. A SAS may call an operation as this table says: for an
//! account SAS, the signed resource type (`srt`) it must name and the signed permissions
//! (`sp`) it must grant, where `a|w` means either letter and a comma separates letters that
//! are all needed; for a table SAS (a service SAS), the permissions it must grant, on its own
//! table and within its key range. A dash: no SAS of that kind may. [`Action::needs`] is this
//! table, cell for cell.
//!
//! | Operation                    | Account key | Account SAS `srt` | Account SAS `sp` | Table SAS `sp` |
//! |------------------------------|-------------|-------------------|------------------|----------------|
//! | Get Table Service Properties | yes         | `s`               | `r`              | -              |
//! | Set Table Service Properties | yes         | `s`               | `w`              | -              |
//! | Get Table Service Stats      | yes         | `s`               | `r`              | -              |
//! | Query Tables (and one table) | yes         | `c`               | `l`              | -              |
//! | Create Table                 | yes         | `c`               | `a\|c\|w`        | -              |
//! | Delete Table                 | yes         | `c`               | `d`              | -              |
//! | Get Table ACL                | yes         | -                 | -                | -              |
//! | Set Table ACL                | yes         | -                 | -                | -              |
//! | Query Entities (and one)     | yes         | `o`               | `r`              | `r`            |
//! | Insert Entity                | yes         | `o`               | `a\|w`           | `a`            |
//! | Insert Or Replace/Merge      | yes         | `o`               | `a\|w`, `u\|w`   | `a`, `u`       |
//! | Update Entity, Merge Entity  | yes         | `o`               | `u\|w`           | `u`            |
//! | Delete Entity                | yes         | `o`               | `d`              | `d`            |
//!
//! Sources: "Create an account SAS" (which resource type and permission each operation
//! needs; Write "permits write permissions to the specified resource type", so `w` also
//! writes entities), "Create a service SAS" (a table SAS's `r`, `a`, `u`, `d` reach entities
//! only), "Set Table ACL" and "Get Table ACL" (signed with the account key), and the Azure
//! Storage team's announcement "SAS Update: Account SAS Now Supports All Storage Services":
//! an account SAS reaches Get/Set Service Properties and Get Service Stats, and not the
//! permission operations such as Set Table ACL, so a token cannot rewrite the stored access
//! policies that bind other tokens. A `$batch` is authorized operation by operation.

mod needs;
mod sas;
mod shared_key;

use std::collections::HashMap;
use std::net::IpAddr;

use http::request::Parts;
use tablekit::auth::AccountKey;

use crate::format::error_response::ErrorResponse;
use crate::storage::store::Store;

pub(crate) use needs::Action;
pub(crate) use sas::SasGrant;

/// Who the request is: the account owner (a signed request) or a SAS holder.
#[derive(Debug, Clone)]
pub(crate) enum Caller {
    /// A Shared Key or Shared Key Lite signature: every operation is allowed.
    Owner,
    /// A SAS: what it grants.
    Sas(SasGrant),
}

impl Caller {
    /// Whether this caller may run `action`, an operation on the service or on tables: the
    /// owner always may, a SAS as the [table](self#who-may-do-what) says (403 otherwise).
    pub(crate) fn may(&self, action: Action) -> Result<(), ErrorResponse> {
        match self {
            Caller::Owner => Ok(()),
            Caller::Sas(grant) => grant.check(action, None),
        }
    }

    /// Whether this caller may run the entity operation `action` on `table` and, when given,
    /// on the entity at `keys`: as [`may`](Self::may), and a table SAS only on its own table
    /// and within its key range.
    pub(crate) fn may_on_entities(
        &self,
        action: Action,
        table: &str,
        keys: Option<(&str, &str)>,
    ) -> Result<(), ErrorResponse> {
        let Caller::Sas(grant) = self else {
            return Ok(());
        };
        grant.check(action, Some(table))?;
        keys.map_or(Ok(()), |(pk, rk)| grant.check_keys(pk, rk))
    }
}

/// What authentication reads of a request.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Request<'a> {
    /// Its request line and headers.
    pub(crate) parts: &'a Parts,
    /// Its query parameters, percent-decoded.
    pub(crate) params: &'a HashMap<String, String>,
    /// The account its path names.
    pub(crate) account: &'a str,
    /// The address it came from, for a SAS's `sip` range.
    pub(crate) peer: Option<IpAddr>,
}

/// Authenticates a request for its account signed with any of the account's `keys` (an
/// account has two so a key can be rotated while clients still sign with the other); a SAS
/// naming a stored access policy reads it from `store`.
pub(crate) fn authenticate(
    request: &Request<'_>,
    keys: &[AccountKey],
    store: &Store,
) -> Result<Caller, ErrorResponse> {
    let mut refused = None;
    for key in keys {
        match authenticate_with(request, key, store) {
            Ok(caller) => return Ok(caller),
            Err(err) => refused = Some(err),
        }
    }
    Err(refused.unwrap_or_else(|| {
        ErrorResponse::authentication_failed("The account has no key on this emulator.")
    }))
}

/// Authenticates a request for its account signed with `key`.
fn authenticate_with(
    request: &Request<'_>,
    key: &AccountKey,
    store: &Store,
) -> Result<Caller, ErrorResponse> {
    let Request {
        parts,
        params,
        account,
        peer,
    } = *request;
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
            peer,
            store,
        };
        return sas::verify(params, &requester).map(Caller::Sas);
    }
    Err(ErrorResponse::authentication_failed(
        "The request carries neither an Authorization header nor a SAS.",
    ))
}
