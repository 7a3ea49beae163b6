//! The wire form of `Edm.DateTime`: ISO 8601 UTC with up to 7 fractional digits.

use chrono::{DateTime, Datelike, NaiveDate, Timelike, Utc};

/// Formats a time as the service does: `2024-01-02T03:04:05.1234567Z` (always 7 digits).
///
/// ```
/// use chrono::DateTime;
/// let t = DateTime::from_timestamp(0, 100).unwrap();
/// assert_eq!(tablekit::codec::format_datetime(&t), "1970-01-01T00:00:00.0000001Z");
/// ```
pub fn format_datetime(time: &DateTime<Utc>) -> String {
    let mut out = Vec::with_capacity(28);
    write_datetime(&mut out, time);
    // Only ASCII digits and separators were written.
    String::from_utf8(out).unwrap_or_default()
}

/// Appends the service's text for `time` (see [`format_datetime`]) without allocating.
pub(super) fn write_datetime(out: &mut Vec<u8>, time: &DateTime<Utc>) {
    let (year, month, day) = (time.year(), time.month(), time.day());
    if !(0..=9999).contains(&year) {
        // Outside the service's range (validation refuses it); keep chrono's spelling.
        let text = time.format("%Y-%m-%dT%H:%M:%S").to_string();
        out.extend_from_slice(text.as_bytes());
        out.push(b'.');
        push_digits(out, time.timestamp_subsec_nanos() / 100 % 10_000_000, 7);
        out.push(b'Z');
        return;
    }
    push_digits(out, year.unsigned_abs(), 4);
    out.push(b'-');
    push_digits(out, month, 2);
    out.push(b'-');
    push_digits(out, day, 2);
    out.push(b'T');
    push_digits(out, time.hour(), 2);
    out.push(b':');
    push_digits(out, time.minute(), 2);
    out.push(b':');
    // A leap second (nanos >= 1e9) is written as :59.9999999, the last tick .NET can hold.
    let nanos = time.timestamp_subsec_nanos();
    let (second, ticks) = match nanos >= 1_000_000_000 {
        true => (59, 9_999_999),
        false => (time.second(), nanos / 100),
    };
    push_digits(out, second, 2);
    out.push(b'.');
    push_digits(out, ticks, 7);
    out.push(b'Z');
}

/// Writes the low `width` decimal digits of `n`, zero-padded.
fn push_digits(out: &mut Vec<u8>, n: u32, width: usize) {
    let start = out.len();
    out.resize(start + width, b'0');
    let mut n = n;
    for slot in out.iter_mut().skip(start).rev() {
        *slot = b'0' + (n % 10) as u8;
        n /= 10;
    }
}

/// Parses the service's DateTime text: 0 to 7 fractional digits, `Z` (an explicit `+00:00`
/// offset is accepted too). `None` for anything else.
///
/// ```
/// let t = tablekit::codec::parse_datetime("2024-01-02T03:04:05.1234567Z").unwrap();
/// assert_eq!(t.timestamp_subsec_nanos(), 123_456_700);
/// assert!(tablekit::codec::parse_datetime("yesterday").is_none());
/// ```
pub fn parse_datetime(text: &str) -> Option<DateTime<Utc>> {
    let body = text
        .strip_suffix('Z')
        .or_else(|| text.strip_suffix("+00:00"))?
        .as_bytes();
    // `YYYY-MM-DDTHH:MM:SS`, then an optional `.` and 1 to 7 digits.
    let (whole, fraction) = match body.get(19) {
        None => (body, &b""[..]),
        Some(b'.') => (body.get(..19)?, body.get(20..)?),
        Some(_) => return None,
    };
    if whole.len() != 19 || fraction.len() > 7 || (body.len() > 19 && fraction.is_empty()) {
        return None;
    }
    let separators = [(4, b'-'), (7, b'-'), (10, b'T'), (13, b':'), (16, b':')];
    if separators.iter().any(|&(i, c)| whole.get(i) != Some(&c)) {
        return None;
    }
    let field = |range: std::ops::Range<usize>| digits(whole.get(range)?);
    let date = NaiveDate::from_ymd_opt(
        i32::try_from(field(0..4)?).ok()?,
        field(5..7)?,
        field(8..10)?,
    )?;
    let mut ticks = digits(fraction)?;
    for _ in fraction.len()..7 {
        ticks *= 10;
    }
    let time =
        date.and_hms_nano_opt(field(11..13)?, field(14..16)?, field(17..19)?, ticks * 100)?;
    Some(time.and_utc())
}

/// The value of a run of ASCII digits (at most 9, so it fits); `None` for anything else.
fn digits(bytes: &[u8]) -> Option<u32> {
    if bytes.len() > 9 {
        return None;
    }
    bytes.iter().try_fold(0u32, |n, &b| {
        b.is_ascii_digit().then(|| n * 10 + u32::from(b - b'0'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seven_digits_round_trip() {
        let text = "2026-11-22T11:38:42.0854950Z";
        let t = parse_datetime(text).unwrap();
        assert_eq!(format_datetime(&t), text);
    }

    #[test]
    fn fewer_digits_parse() {
        assert!(parse_datetime("2024-01-02T03:04:05Z").is_some());
        assert_eq!(
            parse_datetime("2024-01-02T03:04:05.5Z")
                .unwrap()
                .timestamp_subsec_nanos(),
            500_000_000
        );
        assert!(parse_datetime("2024-01-02T03:04:05.12345678Z").is_none());
        assert!(parse_datetime("2024-01-02T03:04:05.+1Z").is_none());
        assert!(parse_datetime("2024-01-02T03:04:05.Z").is_none());
        assert!(parse_datetime("2024-02-30T03:04:05Z").is_none());
        assert!(parse_datetime("2024-01-02T24:00:00Z").is_none());
        assert!(parse_datetime("2024-01-02 03:04:05Z").is_none());
        assert!(parse_datetime("+024-01-02T03:04:05Z").is_none());
        assert!(parse_datetime("2024-01-02T03:04:05+00:00").is_some());
        assert!(parse_datetime("2024-01-02T03:04:05").is_none());
        assert!(parse_datetime("").is_none());
        assert!(parse_datetime("é").is_none());
    }

    #[test]
    fn range_ends_format_and_parse() {
        for t in [crate::value::min_datetime(), crate::value::max_datetime()] {
            assert_eq!(parse_datetime(&format_datetime(&t)), Some(t));
        }
        assert_eq!(
            format_datetime(&crate::value::max_datetime()),
            "9999-12-31T23:59:59.9999999Z"
        );
    }
}
