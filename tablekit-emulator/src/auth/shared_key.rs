//! Verifies `Authorization: SharedKey` and `SharedKeyLite` signatures with the same
//! string-to-sign functions the client signs with (`tablekit::auth`).

use std::cell::RefCell;

use chrono::{DateTime, Utc};
use http::header::{CONTENT_TYPE, DATE};
use http::request::Parts;
use http::HeaderName;
use tablekit::auth::{
    canonicalized_resource, shared_key_lite_string_to_sign, shared_key_string_to_sign, AccountKey,
};

use crate::format::error_response::ErrorResponse;

/// How far a request's date may be from the server's clock, as on the service.
const MAX_CLOCK_SKEW_SECS: i64 = 15 * 60;

const MS_DATE: HeaderName = HeaderName::from_static("x-ms-date");
const CONTENT_MD5: HeaderName = HeaderName::from_static("content-md5");

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
    let header = |name: HeaderName| {
        parts
            .headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
    };
    // Clients disagree on which date they sign when both headers are sent: accept either.
    let dates = [header(MS_DATE), header(DATE)];
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
                header(CONTENT_MD5),
                header(CONTENT_TYPE),
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
    let parsed = parse_date(date)
        .ok_or_else(|| ErrorResponse::authentication_failed("The request date is not RFC 1123."))?;
    let skew = (Utc::now() - parsed).num_seconds().abs();
    if skew > MAX_CLOCK_SKEW_SECS {
        return Err(ErrorResponse::authentication_failed(
            "Request date is more than 15 minutes away from the server time.",
        ));
    }
    Ok(())
}

/// A request's date, parsed once for all the requests of the same second on this thread:
/// parsing it cost a quarter of checking a signature (a twentieth of a point get).
fn parse_date(text: &str) -> Option<DateTime<Utc>> {
    thread_local! {
        static LAST: RefCell<Option<(String, DateTime<Utc>)>> = const { RefCell::new(None) };
    }
    LAST.with(|last| {
        let mut last = last.borrow_mut();
        if let Some((_, at)) = last.as_ref().filter(|(seen, _)| seen == text) {
            return Some(*at);
        }
        let at = DateTime::parse_from_rfc2822(text).ok()?.with_timezone(&Utc);
        *last = Some((text.to_owned(), at));
        Some(at)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_date_is_parsed_again_whenever_its_text_changes() {
        let first = parse_date("Sun, 29 Nov 2026 12:00:00 GMT").unwrap();
        assert_eq!(parse_date("Sun, 29 Nov 2026 12:00:00 GMT"), Some(first));
        let next = parse_date("Sun, 29 Nov 2026 12:00:01 GMT").unwrap();
        assert_eq!((next - first).num_seconds(), 1);
        assert_eq!(parse_date("29 Nov 2026 12:00:01"), None);
        assert_eq!(parse_date("Sun, 29 Nov 2026 12:00:01 GMT"), Some(next));
        assert!(
            check_skew("Sun, 01 Mar 2020 00:00:00 GMT").is_err(),
            "an old date"
        );
    }
}
