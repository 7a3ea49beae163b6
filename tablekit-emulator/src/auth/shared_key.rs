//! Verifies `Authorization: SharedKey` and `SharedKeyLite` signatures with the same
//! string-to-sign functions the client signs with (`tablekit::auth`).

use chrono::{DateTime, Utc};
use http::request::Parts;
use tablekit::auth::{
    canonicalized_resource, shared_key_lite_string_to_sign, shared_key_string_to_sign, AccountKey,
};

use crate::format::error_response::ErrorResponse;

/// How far a request's date may be from the server's clock, as on the service.
const MAX_CLOCK_SKEW_SECS: i64 = 15 * 60;

/// Checks the request's Shared Key signature for `account`.
pub(crate) fn verify(
    parts: &Parts,
    authorization: &str,
    account: &str,
    key: &AccountKey,
    comp: Option<&str>,
) -> Result<(), ErrorResponse> {
    let (scheme, credential) = authorization
        .split_once(' ')
        .ok_or_else(|| ErrorResponse::authentication_failed("Malformed Authorization header."))?;
    let (signer, signature) = credential
        .trim()
        .split_once(':')
        .ok_or_else(|| ErrorResponse::authentication_failed("Malformed Authorization header."))?;
    if signer != account {
        return Err(ErrorResponse::authentication_failed(
            "The account in the Authorization header does not match the URL.",
        ));
    }
    let resource = canonicalized_resource(account, parts.uri.path(), comp);
    let header = |name: &str| {
        parts
            .headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
    };
    // Clients disagree on which date they sign when both headers are sent: accept either.
    let dates = [header("x-ms-date"), header("date")];
    let mut dates = dates.iter().filter(|d| !d.is_empty()).peekable();
    if dates.peek().is_none() {
        return Err(ErrorResponse::authentication_failed(
            "Request date header not specified.",
        ));
    }
    // The skew is checked on the date the signature covers: an unsigned fresh date beside a
    // signed old one must not make an old request new again.
    let signed = dates.find(|date| {
        let to_sign = match scheme {
            "SharedKey" => shared_key_string_to_sign(
                parts.method.as_str(),
                header("content-md5"),
                header("content-type"),
                date,
                &resource,
            ),
            "SharedKeyLite" => shared_key_lite_string_to_sign(date, &resource),
            _ => return false,
        };
        key.verify(&to_sign, signature)
    });
    let Some(signed) = signed else {
        return Err(ErrorResponse::authentication_failed(
            "The MAC signature found in the HTTP request is not the same as any computed signature.",
        ));
    };
    check_skew(signed)
}

fn check_skew(date: &str) -> Result<(), ErrorResponse> {
    let parsed = DateTime::parse_from_rfc2822(date)
        .map_err(|_| ErrorResponse::authentication_failed("The request date is not RFC 1123."))?;
    let skew = (Utc::now() - parsed.with_timezone(&Utc))
        .num_seconds()
        .abs();
    if skew > MAX_CLOCK_SKEW_SECS {
        return Err(ErrorResponse::authentication_failed(
            "Request date is more than 15 minutes away from the server time.",
        ));
    }
    Ok(())
}
