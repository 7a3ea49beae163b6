//! The service's time texts, written without allocating: every entity in a page carries a
//! Timestamp and an ETag, so these run thousands of times per answer.
//!
//! The digits come from [`DateTimeText`], the client codec's formatter:
//! - Timestamps: `2026-11-22T11:42:25.2261896Z`, always 7 fractional digits.
//! - ETags: `W/"datetime'2026-11-22T11%3A42%3A25.2261896Z'"` (colons percent-encoded).
//! - The HTTP `Date` header, formatted once per second.

use chrono::{DateTime, Utc};
use http::HeaderValue;
use tablekit::codec::{DateTimeText, Fraction};

/// Appends `time` as the service writes it with seven digits, `colon` in place of each `:`
/// (`%3A` inside ETags).
pub(crate) fn write_seven(out: &mut Vec<u8>, text: &DateTimeText, colon: &[u8]) {
    let text = text.ascii_without_zone(Fraction::Seven);
    if colon == b":" {
        out.extend_from_slice(text);
    } else {
        for &b in text {
            match b {
                b':' => out.extend_from_slice(colon),
                other => out.push(other),
            }
        }
    }
    out.push(b'Z');
}

/// Appends the weak ETag of an entity written at `time`.
pub(crate) fn write_etag(out: &mut Vec<u8>, time: &DateTime<Utc>) {
    out.extend_from_slice(b"W/\"datetime'");
    write_seven(out, &DateTimeText::new(time), b"%3A");
    out.extend_from_slice(b"'\"");
}

/// Now as an HTTP `Date` header value (`Sun, 22 Nov 2026 11:42:24 GMT`). The value changes
/// once a second: each thread formats it once a second and clones it (a reference count)
/// for every other answer.
pub(crate) fn http_date() -> Option<HeaderValue> {
    thread_local! {
        static LAST: std::cell::RefCell<Option<(i64, HeaderValue)>> =
            const { std::cell::RefCell::new(None) };
    }
    let now = Utc::now();
    let second = now.timestamp();
    LAST.with_borrow_mut(|last| match last {
        Some((at, value)) if *at == second => Some(value.clone()),
        _ => {
            let value = HeaderValue::from_str(&tablekit::auth::http_date(now)).ok()?;
            *last = Some((second, value.clone()));
            Some(value)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tablekit::codec;

    #[test]
    fn etags_encode_colons() {
        let t = codec::parse_datetime("2026-11-22T11:42:25.2261896Z").unwrap();
        let mut etag = Vec::new();
        write_etag(&mut etag, &t);
        assert_eq!(
            String::from_utf8(etag).unwrap(),
            "W/\"datetime'2026-11-22T11%3A42%3A25.2261896Z'\""
        );
    }

    #[test]
    fn http_dates_are_rfc_1123() {
        let value = http_date().unwrap();
        let text = value.to_str().unwrap();
        assert!(DateTime::parse_from_rfc2822(text).is_ok(), "{text}");
        assert!(text.ends_with(" GMT"));
    }
}
