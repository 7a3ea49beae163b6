//! The wire form of `Edm.DateTime`: ISO 8601 UTC with up to 7 fractional digits.

use chrono::{DateTime, NaiveDateTime, Utc};

/// Formats a time as the service does: `2024-01-02T03:04:05.1234567Z` (always 7 digits).
///
/// ```
/// use chrono::DateTime;
/// let t = DateTime::from_timestamp(0, 100).unwrap();
/// assert_eq!(tablekit::codec::format_datetime(&t), "1970-01-01T00:00:00.0000001Z");
/// ```
pub fn format_datetime(time: &DateTime<Utc>) -> String {
    let ticks = time.timestamp_subsec_nanos() / 100;
    format!("{}.{:07}Z", time.format("%Y-%m-%dT%H:%M:%S"), ticks)
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
        .or_else(|| text.strip_suffix("+00:00"))?;
    let (whole, fraction) = match body.split_once('.') {
        Some((whole, fraction)) => (whole, fraction),
        None => (body, ""),
    };
    if fraction.len() > 7 || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let naive = NaiveDateTime::parse_from_str(whole, "%Y-%m-%dT%H:%M:%S").ok()?;
    let mut ticks: u32 = 0;
    for i in 0..7 {
        let digit = fraction
            .as_bytes()
            .get(i)
            .map_or(0, |b| u32::from(b - b'0'));
        ticks = ticks * 10 + digit;
    }
    let nanos = ticks * 100;
    naive.and_utc().with_nanosecond_checked(nanos)
}

trait WithNanos: Sized {
    fn with_nanosecond_checked(self, nanos: u32) -> Option<Self>;
}

impl WithNanos for DateTime<Utc> {
    fn with_nanosecond_checked(self, nanos: u32) -> Option<Self> {
        chrono::Timelike::with_nanosecond(&self, nanos)
    }
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
    }
}
