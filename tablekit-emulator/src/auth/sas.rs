//! Verifies shared access signatures: table SAS (with or without a stored access policy) and
//! account SAS, signed with the strings-to-sign of `tablekit::sas` (the client's own), so
//! tokens from tablekit and from other SDKs verify alike. Checked here: the signature, start
//! and expiry, the source IP (`sip`), the protocol (`spr`: this server speaks http only), and
//! for a stored access policy (`si`) that it exists and that the token does not repeat what
//! it sets. What a token grants is checked per operation through [`SasGrant`].

use std::collections::HashMap;
use std::fmt;
use std::net::IpAddr;

use chrono::{DateTime, Utc};
use http::StatusCode;
use tablekit::auth::AccountKey;
use tablekit::sas::{
    AccountPermissions, ResourceTypes, SasProtocol, Services, SignedAccountFields,
    SignedTableFields, TablePermissions,
};

use super::Action;
use crate::format::error_response::ErrorResponse;
use crate::query::filter::utf16_cmp;
use crate::storage::store::Store;

/// What a verified token allows.
#[derive(Clone)]
pub(crate) struct SasGrant {
    scope: Scope,
    start_pk: Option<String>,
    start_rk: Option<String>,
    end_pk: Option<String>,
    end_rk: Option<String>,
}

/// A table SAS reaches one table's entities; an account SAS the resource types it names.
#[derive(Clone, Debug)]
enum Scope {
    Table {
        table: String,
        permissions: TablePermissions,
    },
    Account {
        resource_types: ResourceTypes,
        permissions: AccountPermissions,
    },
}

impl fmt::Debug for SasGrant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SasGrant")
            .field("scope", &self.scope)
            .finish_non_exhaustive()
    }
}

/// Whether the query string carries a SAS (`sig=`).
pub(crate) fn is_sas(params: &HashMap<String, String>) -> bool {
    params.contains_key("sig")
}

/// Who is asking, for the checks that depend on it.
pub(crate) struct Requester<'a> {
    pub(crate) account: &'a str,
    pub(crate) key: &'a AccountKey,
    /// The peer's address, when known.
    pub(crate) peer: Option<IpAddr>,
    /// Where the stored access policies are.
    pub(crate) store: &'a Store,
}

/// Verifies the token in `params` for `requester`.
pub(crate) fn verify(
    params: &HashMap<String, String>,
    requester: &Requester<'_>,
) -> Result<SasGrant, ErrorResponse> {
    let get = |name: &'static str| field(params, name);
    let account_sas = params.contains_key("ss") || params.contains_key("srt");
    let (scope, start, expiry) = if account_sas {
        verify_account(params, requester)?
    } else {
        verify_table(params, requester)?
    };
    check_times(&start, &expiry)?;
    check_ip(get("sip"), requester.peer)?;
    check_protocol(get("spr"))?;
    let some = |name: &'static str| Some(get(name).to_owned()).filter(|s| !s.is_empty());
    Ok(SasGrant {
        scope,
        start_pk: some("spk"),
        start_rk: some("srk"),
        end_pk: some("epk"),
        end_rk: some("erk"),
    })
}

type Verified = (Scope, String, String);

/// A parameter's value, empty when absent (as the string-to-sign takes it).
fn field<'a>(params: &'a HashMap<String, String>, name: &str) -> &'a str {
    params.get(name).map(String::as_str).unwrap_or_default()
}

fn verify_table(
    params: &HashMap<String, String>,
    requester: &Requester<'_>,
) -> Result<Verified, ErrorResponse> {
    let get = |name: &'static str| field(params, name);
    let fields = SignedTableFields {
        permissions: get("sp"),
        start: get("st"),
        expiry: get("se"),
        table: get("tn"),
        identifier: get("si"),
        ip: get("sip"),
        protocol: get("spr"),
        version: get("sv"),
        start_pk: get("spk"),
        start_rk: get("srk"),
        end_pk: get("epk"),
        end_rk: get("erk"),
    };
    check_signature(
        &fields.string_to_sign(requester.account),
        get("sig"),
        requester,
    )?;
    let (permissions, start, expiry) = match fields.identifier {
        "" => (
            fields.permissions.to_owned(),
            fields.start.to_owned(),
            fields.expiry.to_owned(),
        ),
        id => with_policy(&fields, id, requester)?,
    };
    let permissions = TablePermissions::from_letters(&permissions)
        .filter(|p| !p.is_empty())
        .ok_or_else(|| {
            ErrorResponse::authentication_failed("Signed permissions are missing or not valid.")
        })?;
    let scope = Scope::Table {
        table: fields.table.to_owned(),
        permissions,
    };
    Ok((scope, start, expiry))
}

/// The permissions, start and expiry of a token naming the stored access policy `id`: each
/// from the token or the policy, never both.
fn with_policy(
    fields: &SignedTableFields<'_>,
    id: &str,
    requester: &Requester<'_>,
) -> Result<(String, String, String), ErrorResponse> {
    let not_found = || {
        ErrorResponse::authentication_failed(&format!(
            "The signed identifier `{id}` was not found on the table."
        ))
    };
    let policies = requester
        .store
        .policies(requester.account, fields.table)
        .map_err(|_| not_found())?;
    let policy = policies
        .into_iter()
        .find(|p| p.id == id)
        .ok_or_else(not_found)?
        .policy;
    let time = |t: Option<DateTime<Utc>>| t.map(|t| t.to_rfc3339()).unwrap_or_default();
    let pick = |name: &str, token: &str, stored: String| {
        if !token.is_empty() && !stored.is_empty() {
            return Err(ErrorResponse::authentication_failed(&format!(
                "The token and the stored access policy both specify `{name}`."
            )));
        }
        Ok(if token.is_empty() {
            stored
        } else {
            token.to_owned()
        })
    };
    let stored_permissions = policy.permissions.map(|p| p.letters()).unwrap_or_default();
    Ok((
        pick("sp", fields.permissions, stored_permissions)?,
        pick("st", fields.start, time(policy.start))?,
        pick("se", fields.expiry, time(policy.expiry))?,
    ))
}

fn verify_account(
    params: &HashMap<String, String>,
    requester: &Requester<'_>,
) -> Result<Verified, ErrorResponse> {
    let get = |name: &'static str| field(params, name);
    let fields = SignedAccountFields {
        permissions: get("sp"),
        services: get("ss"),
        resource_types: get("srt"),
        start: get("st"),
        expiry: get("se"),
        ip: get("sip"),
        protocol: get("spr"),
        version: get("sv"),
    };
    check_signature(
        &fields.string_to_sign(requester.account),
        get("sig"),
        requester,
    )?;
    let invalid =
        |what: &str| ErrorResponse::authentication_failed(&format!("{what} is not valid."));
    let services = Services::from_letters(fields.services).ok_or_else(|| invalid("`ss`"))?;
    if !services.contains(Services::TABLE) {
        return Err(ErrorResponse::new(
            StatusCode::FORBIDDEN,
            "AuthorizationServiceMismatch",
            "This request is not authorized to perform this operation using this service.",
        ));
    }
    let resource_types =
        ResourceTypes::from_letters(fields.resource_types).ok_or_else(|| invalid("`srt`"))?;
    let permissions = AccountPermissions::from_letters(fields.permissions)
        .filter(|p| !p.is_empty())
        .ok_or_else(|| invalid("`sp`"))?;
    let scope = Scope::Account {
        resource_types,
        permissions,
    };
    Ok((scope, fields.start.to_owned(), fields.expiry.to_owned()))
}

fn check_signature(
    string_to_sign: &str,
    signature: &str,
    requester: &Requester<'_>,
) -> Result<(), ErrorResponse> {
    if requester.key.verify(string_to_sign, signature) {
        Ok(())
    } else {
        Err(ErrorResponse::authentication_failed(
            "Signature did not match.",
        ))
    }
}

fn check_times(start: &str, expiry: &str) -> Result<(), ErrorResponse> {
    let now = Utc::now();
    if expiry.is_empty() {
        return Err(ErrorResponse::authentication_failed(
            "Signed expiry time is missing.",
        ));
    }
    if now > parse_time(expiry)? {
        return Err(ErrorResponse::authentication_failed(
            "Signed expiry time has passed.",
        ));
    }
    if !start.is_empty() && now < parse_time(start)? {
        return Err(ErrorResponse::authentication_failed(
            "Signed start time is in the future.",
        ));
    }
    Ok(())
}

fn parse_time(text: &str) -> Result<DateTime<Utc>, ErrorResponse> {
    DateTime::parse_from_rfc3339(text)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|_| ErrorResponse::authentication_failed("Signed time is not ISO 8601."))
}

/// `sip`: one address or `first-last`; the peer must be in it.
fn check_ip(sip: &str, peer: Option<IpAddr>) -> Result<(), ErrorResponse> {
    if sip.is_empty() {
        return Ok(());
    }
    let (first, last) = sip.split_once('-').unwrap_or((sip, sip));
    let (Ok(first), Ok(last)) = (first.parse::<IpAddr>(), last.parse::<IpAddr>()) else {
        return Err(ErrorResponse::authentication_failed(
            "Signed IP (`sip`) is not an address or range.",
        ));
    };
    match peer {
        Some(peer) if first.is_ipv4() == peer.is_ipv4() && first <= peer && peer <= last => Ok(()),
        _ => Err(ErrorResponse::new(
            StatusCode::FORBIDDEN,
            "AuthorizationSourceIPMismatch",
            "This request is not authorized to perform this operation using this source IP.",
        )),
    }
}

/// `spr`: this server serves http, so a token for https only is refused, as Azure refuses
/// it over http.
fn check_protocol(spr: &str) -> Result<(), ErrorResponse> {
    match (spr, SasProtocol::from_value(spr)) {
        ("", _) | (_, Some(SasProtocol::HttpsOrHttp)) => Ok(()),
        (_, Some(SasProtocol::HttpsOnly)) => Err(ErrorResponse::new(
            StatusCode::FORBIDDEN,
            "AuthorizationProtocolMismatch",
            "This request is not authorized to perform this operation using this protocol.",
        )),
        (_, None) => Err(ErrorResponse::authentication_failed(
            "Signed protocol (`spr`) is not valid.",
        )),
    }
}

fn lacks_permission() -> ErrorResponse {
    ErrorResponse::authorization_mismatch("The token lacks a permission this operation needs.")
}

fn resource_type_mismatch() -> ErrorResponse {
    ErrorResponse::new(
        StatusCode::FORBIDDEN,
        "AuthorizationResourceTypeMismatch",
        "This request is not authorized to perform this operation using this resource type.",
    )
}

impl SasGrant {
    /// Whether the token may run `action`, on `table` when it names one, as
    /// [`Action::needs`] says; 403 with the reason otherwise.
    pub(crate) fn check(&self, action: Action, table: Option<&str>) -> Result<(), ErrorResponse> {
        let needs = action.needs();
        match &self.scope {
            Scope::Table {
                table: granted,
                permissions,
            } => {
                let needed = needs.table_sas.ok_or_else(|| {
                    ErrorResponse::authorization_mismatch("A table SAS reaches entities only.")
                })?;
                // Table names are case-insensitive.
                if !table.is_some_and(|t| granted.eq_ignore_ascii_case(t)) {
                    return Err(ErrorResponse::authorization_mismatch(
                        "The token is for another table.",
                    ));
                }
                let needed =
                    TablePermissions::from_letters(needed).unwrap_or(TablePermissions::ALL);
                if !permissions.contains(needed) {
                    return Err(lacks_permission());
                }
            }
            Scope::Account {
                resource_types,
                permissions,
            } => {
                let (resource_type, needed) = needs.account_sas.ok_or_else(|| {
                    ErrorResponse::authorization_mismatch(
                        "Only the account key may call this operation.",
                    )
                })?;
                let named = ResourceTypes::from_letters(resource_type)
                    .is_some_and(|needed| !needed.is_empty() && resource_types.contains(needed));
                if !named {
                    return Err(resource_type_mismatch());
                }
                let granted = |any: &&str| {
                    AccountPermissions::from_letters(any).is_some_and(|p| permissions.intersects(p))
                };
                if !needed.iter().all(granted) {
                    return Err(lacks_permission());
                }
            }
        }
        Ok(())
    }

    /// Whether the entity's keys fall in the token's key range.
    pub(crate) fn allows_keys(&self, pk: &str, rk: &str) -> bool {
        use std::cmp::Ordering::*;
        let after_start = match &self.start_pk {
            None => true,
            Some(spk) => match utf16_cmp(pk, spk) {
                Greater => true,
                Less => false,
                Equal => self
                    .start_rk
                    .as_deref()
                    .is_none_or(|srk| utf16_cmp(rk, srk) != Less),
            },
        };
        let before_end = match &self.end_pk {
            None => true,
            Some(epk) => match utf16_cmp(pk, epk) {
                Less => true,
                Greater => false,
                Equal => self
                    .end_rk
                    .as_deref()
                    .is_none_or(|erk| utf16_cmp(rk, erk) != Greater),
            },
        };
        after_start && before_end
    }

    /// Like [`allows_keys`](Self::allows_keys), as a 403 for point operations.
    pub(crate) fn check_keys(&self, pk: &str, rk: &str) -> Result<(), ErrorResponse> {
        if self.allows_keys(pk, rk) {
            Ok(())
        } else {
            Err(ErrorResponse::authorization_mismatch(
                "The entity is outside the token's key range.",
            ))
        }
    }
}
