//! The wire form of `Edm.DateTime`: ISO 8601 UTC with up to 7 fractional digits.

use chrono::{DateTime, NaiveDate, Utc};

/// How many fractional digits a DateTime is written with.
///
/// ```
/// use chrono::DateTime;
/// use tablekit::codec::{DateTimeText, Fraction};
/// let text = DateTimeText::new(&DateTime::from_timestamp(1_577_836_800, 0).unwrap());
/// assert_eq!(text.without_zone(Fraction::Seven), "2020-01-01T00:00:00.0000000");
/// assert_eq!(text.without_zone(Fraction::Trimmed), "2020-01-01T00:00:00");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fraction {
    /// Always 7: Timestamps, ETags and request bodies.
    Seven,
    /// Trailing zeros dropped, and the `.` too when nothing is left: DateTime properties as
    /// the service answers them (`2020-01-01T00:00:00Z`).
    Trimmed,
}

/// Formats a time as the service does: `2024-01-02T03:04:05.1234567Z` (always 7 digits).
///
/// ```
/// use chrono::DateTime;
/// let t = DateTime::from_timestamp(0, 100).unwrap();
/// assert_eq!(tablekit::codec::format_datetime(&t), "1970-01-01T00:00:00.0000001Z");
/// ```
pub fn format_datetime(time: &DateTime<Utc>) -> String {
    DateTimeText::new(time)
        .without_zone(Fraction::Seven)
        .to_owned()
        + "Z"
}

/// Appends the service's text for `time` without allocating.
pub(crate) fn write_datetime(out: &mut Vec<u8>, time: &DateTime<Utc>, fraction: Fraction) {
    DateTimeText::new(time).write(out, fraction);
}

/// A time's wire text, formatted once and then written with either [`Fraction`] (an
/// entity's ETag and Timestamp share one).
///
/// ```
/// use chrono::DateTime;
/// use tablekit::codec::{DateTimeText, Fraction};
/// let text = DateTimeText::new(&DateTime::from_timestamp(0, 0).unwrap());
/// assert_eq!(text.without_zone(Fraction::Seven), "1970-01-01T00:00:00.0000000");
/// assert_eq!(text.without_zone(Fraction::Trimmed), "1970-01-01T00:00:00");
/// ```
#[derive(Clone, Debug)]
pub struct DateTimeText {
    digits: [u8; TEXT_LEN],
    /// chrono's spelling, outside years 0 to 9999 (validation refuses those).
    fallback: Option<String>,
}

/// The longest text in range: `YYYY-MM-DDTHH:MM:SS.fffffffZ`.
const TEXT_LEN: usize = 28;

impl DateTimeText {
    /// Formats `time`. The text holds 100 ns ticks, the service's finest unit: smaller
    /// digits are dropped.
    pub fn new(time: &DateTime<Utc>) -> Self {
        let mut digits = [0u8; TEXT_LEN];
        let fallback = match seven_digits(time, &mut digits) {
            Some(()) => None,
            None => Some(chrono_text(time)),
        };
        DateTimeText { digits, fallback }
    }

    /// The text without its closing `Z`.
    pub fn without_zone(&self, fraction: Fraction) -> &str {
        // Only ASCII digits and separators are ever written.
        std::str::from_utf8(self.ascii_without_zone(fraction)).unwrap_or_default()
    }

    /// [`without_zone`](Self::without_zone) as ASCII bytes, for writers that append bytes
    /// (thousands per page) and need not check them again.
    pub fn ascii_without_zone(&self, fraction: Fraction) -> &[u8] {
        let full = match &self.fallback {
            Some(text) => text.as_bytes(),
            None => &self.digits,
        };
        let body = full.strip_suffix(b"Z").unwrap_or(full);
        match fraction {
            Fraction::Seven => body,
            Fraction::Trimmed => trim_fraction(body),
        }
    }

    /// Appends the text, `Z` included.
    pub fn write(&self, out: &mut Vec<u8>, fraction: Fraction) {
        out.extend_from_slice(self.ascii_without_zone(fraction));
        out.push(b'Z');
    }
}

/// Drops trailing fractional zeros, and the `.` when no digit is left.
fn trim_fraction(body: &[u8]) -> &[u8] {
    let Some(dot) = body.iter().rposition(|&b| b == b'.') else {
        return body;
    };
    let kept = body.iter().rposition(|&b| b != b'0').unwrap_or(dot);
    let end = if kept == dot { dot } else { kept + 1 };
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
    // can hold.
    let ticks = i64::from((time.timestamp_subsec_nanos() / 100).min(9_999_999));
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

/// chrono's spelling with 7 fractional digits, for years the fast path does not cover.
fn chrono_text(time: &DateTime<Utc>) -> String {
    let ticks = (time.timestamp_subsec_nanos() / 100).min(9_999_999);
    format!("{}.{ticks:07}Z", time.format("%Y-%m-%dT%H:%M:%S"))
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
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn seven_digits_match_chrono(
            seconds in -62_135_596_800i64..253_402_300_799,
            nanos in 0u32..1_000_000_000,
        ) {
            let time = DateTime::from_timestamp(seconds, nanos).unwrap();
            prop_assert_eq!(format_datetime(&time), chrono_text(&time));
        }

        #[test]
        fn out_of_range_years_do_not_panic(seconds in any::<i32>(), scale in 1i64..4_000_000) {
            if let Some(time) = DateTime::from_timestamp(i64::from(seconds) * scale, 0) {
                let mut out = Vec::new();
                write_datetime(&mut out, &time, Fraction::Trimmed);
                prop_assert!(out.ends_with(b"Z"));
            }
        }
    }

    #[test]
    fn a_leap_second_is_the_last_tick_of_second_59() {
        // chrono keeps a leap second as nanoseconds past 1e9 in second 59; .NET cannot hold it.
        let leap = DateTime::from_timestamp(59, 1_500_000_000).unwrap();
        assert_eq!(format_datetime(&leap), "1970-01-01T00:00:59.9999999Z");
    }

    #[test]
    fn trimmed_drops_trailing_zeros_and_a_bare_dot() {
        let text = |t: &str| {
            let mut out = Vec::new();
            write_datetime(&mut out, &parse_datetime(t).unwrap(), Fraction::Trimmed);
            String::from_utf8(out).unwrap()
        };
        assert_eq!(
            text("2024-01-02T03:04:05.1234560Z"),
            "2024-01-02T03:04:05.123456Z"
        );
        assert_eq!(text("2020-01-01T00:00:10Z"), "2020-01-01T00:00:10Z");
        assert_eq!(text("2020-01-01T00:00:10.5Z"), "2020-01-01T00:00:10.5Z");
    }

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
        for t in [
            crate::values::value::min_datetime(),
            crate::values::value::max_datetime(),
        ] {
            assert_eq!(parse_datetime(&format_datetime(&t)), Some(t));
        }
        assert_eq!(
            format_datetime(&crate::values::value::max_datetime()),
            "9999-12-31T23:59:59.9999999Z"
        );
    }
}
