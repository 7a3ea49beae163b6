//! The service's time texts, written without allocating: every entity in a page carries a
//! Timestamp and an ETag, so these run thousands of times per answer.
//!
//! - Timestamps: `2026-11-22T11:42:25.2261896Z`, always 7 fractional digits.
//! - DateTime properties: trailing fractional zeros dropped (`2020-01-01T00:00:00Z`).
//! - ETags: `W/"datetime'2026-11-22T11%3A42%3A25.2261896Z'"` (colons percent-encoded).
//! - The HTTP `Date` header, formatted once per second.

use chrono::{DateTime, Utc};
use http::HeaderValue;
use tablekit::codec;

/// How many fractional digits to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fraction {
    /// Always 7 (Timestamps, ETags).
    Seven,
    /// Trailing zeros dropped, and the `.` too when nothing is left (DateTime properties).
    Trimmed,
}

/// The longest text: `YYYY-MM-DDTHH:MM:SS.fffffffZ`.
const TEXT_LEN: usize = 28;

/// Appends `time` as the service writes it, with `colon` in place of each `:`.
pub(crate) fn write(out: &mut Vec<u8>, time: &DateTime<Utc>, fraction: Fraction, colon: &[u8]) {
    Text::new(time).write(out, fraction, colon);
}

/// A time's 7-digit text, formatted once and then written in several spellings (an entity's
/// ETag and Timestamp share one).
pub(crate) struct Text {
    digits: [u8; TEXT_LEN],
    /// The client codec's spelling, outside years 0 to 9999 (validation refuses those).
    fallback: Option<String>,
}

impl Text {
    /// Formats `time`.
    pub(crate) fn new(time: &DateTime<Utc>) -> Self {
        let mut digits = [0u8; TEXT_LEN];
        let fallback = match seven_digits(time, &mut digits) {
            Some(()) => None,
            None => Some(codec::format_datetime(time)),
        };
        Text { digits, fallback }
    }

    /// Appends the text, with `colon` in place of each `:`.
    pub(crate) fn write(&self, out: &mut Vec<u8>, fraction: Fraction, colon: &[u8]) {
        let full = match &self.fallback {
            Some(text) => text.as_bytes(),
            None => &self.digits,
        };
        let body = full.strip_suffix(b"Z").unwrap_or(full);
        let mut body = match fraction {
            Fraction::Seven => body,
            Fraction::Trimmed => trim_fraction(body),
        };
        if colon != b":" {
            while let Some(at) = body.iter().position(|&b| b == b':') {
                out.extend_from_slice(body.get(..at).unwrap_or_default());
                out.extend_from_slice(colon);
                body = body.get(at + 1..).unwrap_or_default();
            }
        }
        out.extend_from_slice(body);
        out.push(b'Z');
    }
}

/// Appends the weak ETag of an entity written at `time`.
pub(crate) fn write_etag(out: &mut Vec<u8>, time: &DateTime<Utc>) {
    out.extend_from_slice(b"W/\"datetime'");
    write(out, time, Fraction::Seven, b"%3A");
    out.extend_from_slice(b"'\"");
}

/// Drops trailing fractional zeros, and the `.` when no digit is left.
fn trim_fraction(body: &[u8]) -> &[u8] {
    let Some(dot) = body.iter().rposition(|&b| b == b'.') else {
        return body;
    };
    let mut end = body.len();
    while end > dot + 1 && body.get(end - 1) == Some(&b'0') {
        end -= 1;
    }
    if end == dot + 1 {
        end = dot;
    }
    body.get(..end).unwrap_or(body)
}

/// Fills `text` with `YYYY-MM-DDTHH:MM:SS.fffffffZ`; `None` outside years 0 to 9999.
fn seven_digits(time: &DateTime<Utc>, text: &mut [u8; TEXT_LEN]) -> Option<()> {
    let seconds = time.timestamp();
    let (year, month, day) = civil_from_days(seconds.div_euclid(86_400));
    if !(0..=9999).contains(&year) {
        return None;
    }
    let of_day = seconds.rem_euclid(86_400);
    // A leap second (nanoseconds >= 1e9) stays in second 59 as .9999999, the last tick .NET
    // can hold, like the client codec.
    let ticks = (time.timestamp_subsec_nanos() / 100).min(9_999_999);
    let ticks = i64::from(ticks);
    *text = *b"0000-00-00T00:00:00.0000000Z";
    let pairs = [
        (0, year / 100),
        (2, year % 100),
        (5, month),
        (8, day),
        (11, of_day / 3600),
        (14, of_day / 60 % 60),
        (17, of_day % 60),
        (20, ticks / 100_000),
        (22, ticks / 1000 % 100),
        (24, ticks / 10 % 100),
    ];
    for (at, n) in pairs {
        let digits = usize::try_from(n).ok()? * 2;
        text.get_mut(at..at + 2)?
            .copy_from_slice(PAIRS.get(digits..digits + 2)?);
    }
    *text.get_mut(26)? = b'0' + (ticks % 10) as u8;
    Some(())
}

/// "00", "01", ... "99": two digits per lookup.
const PAIRS: &[u8; 200] = b"\
0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// (year, month, day) of a day count since 1970-01-01 in the proleptic Gregorian calendar
/// (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Now as an HTTP `Date` header value (`Sun, 22 Nov 2026 11:42:24 GMT`).
pub(crate) fn http_date() -> Option<HeaderValue> {
    HeaderValue::from_str(&tablekit::auth::http_date(Utc::now())).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn text(time: &DateTime<Utc>, fraction: Fraction, colon: &[u8]) -> String {
        let mut out = Vec::new();
        write(&mut out, time, fraction, colon);
        String::from_utf8(out).unwrap()
    }

    proptest! {
        #[test]
        fn seven_digits_match_the_client_codec(
            seconds in -62_135_596_800i64..253_402_300_799,
            nanos in 0u32..2_000_000_000,
        ) {
            // Nanoseconds above 1e9 exist only in leap seconds (second 59).
            let Some(time) = DateTime::from_timestamp(seconds, nanos) else {
                return Ok(());
            };
            prop_assert_eq!(text(&time, Fraction::Seven, b":"), codec::format_datetime(&time));
        }

        #[test]
        fn out_of_range_years_do_not_panic(seconds in any::<i32>(), scale in 1i64..4_000_000) {
            if let Some(time) = DateTime::from_timestamp(i64::from(seconds) * scale, 0) {
                let _ = text(&time, Fraction::Trimmed, b"%3A");
            }
        }
    }

    #[test]
    fn properties_drop_trailing_zeros_and_etags_encode_colons() {
        let t = codec::parse_datetime("2024-01-02T03:04:05.1234560Z").unwrap();
        assert_eq!(
            text(&t, Fraction::Trimmed, b":"),
            "2024-01-02T03:04:05.123456Z"
        );
        let t = codec::parse_datetime("2020-01-01T00:00:10Z").unwrap();
        assert_eq!(text(&t, Fraction::Trimmed, b":"), "2020-01-01T00:00:10Z");
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
