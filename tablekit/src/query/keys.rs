//! Building PartitionKeys and RowKeys from typed parts, and the bounds of key prefixes and of
//! time ranges.
//!
//! Keys are strings compared ordinally by UTF-16 code unit, so every part format here keeps
//! that order meaningful: fixed-width zero-padded numbers, 19-digit ticks, and inverted forms
//! (max minus value) that sort newest or largest first (the `9999 - year` partitions of the
//! Windows Azure Table whitepaper's micro-blogging example). `#[derive(TableEntity)]` composes
//! keys and their range filters with these functions; they are public so hand-written code
//! builds the same keys and bounds.
//!
//! ```
//! use tablekit::keys;
//! assert_eq!(keys::pad(42, 10), "0000000042");
//! assert_eq!(keys::prefix_range("abc_"), ("abc_".to_owned(), Some("abc`".to_owned())));
//! ```

use std::ops::{Bound, RangeBounds, RangeInclusive};

use chrono::{DateTime, Datelike, Utc};
use tablekit_rules::{DateField, DatePattern, DatePiece};
use uuid::Uuid;

use crate::values::value::{from_ticks, to_ticks, truncate_to_tick, MAX_TICKS};

/// A value that is a key part without a format: its text, and back (for `key_only` fields).
///
/// ```
/// use tablekit::keys::KeyPart;
/// assert_eq!(7u32.to_key_part(), "7");
/// assert_eq!(u32::from_key_part("7"), Some(7));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a key part as it is",
    note = "give the part a format (`inverted_ticks`, `ticks`, `format = \"yyyyMMdd\"`, `pad = n`) or implement `tablekit::keys::KeyPart`"
)]
pub trait KeyPart: Sized {
    /// The part's text.
    fn to_key_part(&self) -> String;
    /// The value back from its text; `None` when the text is not one.
    ///
    /// ```
    /// use tablekit::keys::KeyPart;
    /// use uuid::Uuid;
    /// assert_eq!(i64::from_key_part("-3"), Some(-3));
    /// assert_eq!(u8::from_key_part("256"), None); // out of range
    /// assert_eq!(bool::from_key_part("yes"), None);
    /// assert_eq!(Uuid::from_key_part("not-a-uuid"), None);
    /// ```
    fn from_key_part(text: &str) -> Option<Self>;
}

impl KeyPart for String {
    fn to_key_part(&self) -> String {
        self.clone()
    }
    fn from_key_part(text: &str) -> Option<Self> {
        Some(text.to_owned())
    }
}

impl KeyPart for Uuid {
    fn to_key_part(&self) -> String {
        self.hyphenated().to_string()
    }
    fn from_key_part(text: &str) -> Option<Self> {
        Uuid::parse_str(text).ok()
    }
}

macro_rules! display_key_part {
    ($($t:ty),*) => {$(
        impl KeyPart for $t {
            fn to_key_part(&self) -> String {
                self.to_string()
            }
            fn from_key_part(text: &str) -> Option<Self> {
                text.parse().ok()
            }
        }
    )*};
}

display_key_part!(bool, i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

/// `value` zero-padded to `width` digits, so numbers sort as text; a number wider than
/// `width` keeps all its digits (never cut).
///
/// ```
/// assert_eq!(tablekit::keys::pad(7, 3), "007");
/// assert_eq!(tablekit::keys::pad(12345, 3), "12345");
/// ```
pub fn pad(value: u64, width: usize) -> String {
    format!("{value:0width$}")
}

/// Reads a [`pad`]ded number back.
pub fn parse_pad(text: &str) -> Option<u64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// `max - value`, padded to the width of `max`: larger values sort first.
///
/// ```
/// assert_eq!(tablekit::keys::inverted(1, u32::MAX as u64), "4294967294");
/// assert_eq!(tablekit::keys::inverted(u32::MAX as u64, u32::MAX as u64), "0000000000");
/// ```
pub fn inverted(value: u64, max: u64) -> String {
    pad(max.saturating_sub(value), digits(max))
}

/// Reads an [`inverted`] number back.
pub fn parse_inverted(text: &str, max: u64) -> Option<u64> {
    max.checked_sub(parse_pad(text)?)
}

fn digits(n: u64) -> usize {
    n.checked_ilog10().map_or(1, |d| d as usize + 1)
}

/// The time's .NET ticks, 19 digits: oldest first.
///
/// ```
/// use chrono::DateTime;
/// assert_eq!(tablekit::keys::ticks(&DateTime::UNIX_EPOCH), "0621355968000000000");
/// ```
pub fn ticks(time: &DateTime<Utc>) -> String {
    format!("{:019}", to_ticks(time).max(0))
}

/// Reads [`ticks`] back.
pub fn parse_ticks(text: &str) -> Option<DateTime<Utc>> {
    from_ticks(i64::try_from(parse_pad(text)?).ok()?)
}

/// `DateTime::MaxValue` ticks minus the time's ticks, 19 digits: newest first.
///
/// ```
/// use chrono::DateTime;
/// assert_eq!(tablekit::keys::inverted_ticks(&DateTime::UNIX_EPOCH), "2534023007999999999");
/// ```
pub fn inverted_ticks(time: &DateTime<Utc>) -> String {
    format!("{:019}", MAX_TICKS.saturating_sub(to_ticks(time)).max(0))
}

/// Reads [`inverted_ticks`] back.
pub fn parse_inverted_ticks(text: &str) -> Option<DateTime<Utc>> {
    let inverted = i64::try_from(parse_pad(text)?).ok()?;
    from_ticks(MAX_TICKS.checked_sub(inverted)?)
}

/// `{9999 - year}_{13 - month}`: newest month first (the blog partitions of the Windows Azure
/// Table whitepaper).
///
/// ```
/// use chrono::{TimeZone, Utc};
/// let t = Utc.with_ymd_and_hms(2008, 10, 5, 0, 0, 0).unwrap();
/// assert_eq!(tablekit::keys::inverted_year_month(&t), "7991_03");
/// ```
pub fn inverted_year_month(time: &DateTime<Utc>) -> String {
    format!("{:04}_{:02}", 9999 - time.year(), 13 - time.month())
}

/// The date patterns `format = "..."` accepts: `yyyy`, `MM`, `dd`, `HH`, `mm`, `ss` (at least
/// one) between separators, which are any characters but letters, `%` and those keys forbid,
/// e.g. `"yyyyMMdd"` or `"yyyy-MM-dd HH"` (the rule of [`tablekit_rules::DatePattern`]).
///
/// ```
/// assert!(tablekit::keys::is_valid_date_format("yyyyMMdd"));
/// assert!(!tablekit::keys::is_valid_date_format("YYYY"));
/// assert!(!tablekit::keys::is_valid_date_format("yyyy/MM")); // keys cannot hold `/`
/// assert!(!tablekit::keys::is_valid_date_format("--")); // no field
/// ```
pub fn is_valid_date_format(pattern: &str) -> bool {
    DatePattern::parse(pattern).is_ok()
}

/// Formats a time with a pattern checked by [`is_valid_date_format`] (an invalid one gives
/// an empty string; the derive rejects it at compile time).
///
/// ```
/// use chrono::{TimeZone, Utc};
/// let t = Utc.with_ymd_and_hms(2008, 10, 5, 7, 0, 0).unwrap();
/// assert_eq!(tablekit::keys::date_format(&t, "yyyyMMdd"), "20081005");
/// assert_eq!(tablekit::keys::date_format(&t, "yyyy-MM HH"), "2008-10 07");
/// ```
pub fn date_format(time: &DateTime<Utc>, pattern: &str) -> String {
    match DatePattern::parse(pattern) {
        // The stored value's precision: a leap second is in its minute's second 59.
        Ok(pattern) => truncate_to_tick(*time)
            .format(&chrono_format(pattern))
            .to_string(),
        Err(_) => String::new(),
    }
}

/// A checked pattern as a chrono format string (its separators hold no `%`).
fn chrono_format(pattern: DatePattern<'_>) -> String {
    let mut out = String::new();
    for piece in pattern.pieces() {
        match piece {
            DatePiece::Field(field) => out.push_str(chrono_specifier(field)),
            DatePiece::Literal(c) => out.push(c),
        }
    }
    out
}

fn chrono_specifier(field: DateField) -> &'static str {
    match field {
        DateField::Year => "%Y",
        DateField::Month => "%m",
        DateField::Day => "%d",
        DateField::Hour => "%H",
        DateField::Minute => "%M",
        DateField::Second => "%S",
    }
}

/// Whether keys written with a date pattern sort as their times do: its fields are `yyyy`
/// and then each next finer field with none skipped or repeated (`yyyy`, `yyyyMM`,
/// `yyyy-MM-dd HH`, ...), between any constant characters. Every field is fixed width (years
/// 1 to 9999 have 4 digits), so text order is then time order; `ddMMyyyy` or `yyyydd` sort
/// otherwise and have no time ranges.
///
/// ```
/// use tablekit::keys::date_format_sorts_by_time;
/// assert!(date_format_sorts_by_time("yyyyMMdd"));
/// assert!(date_format_sorts_by_time("yyyy-MM-dd HH:mm"));
/// assert!(!date_format_sorts_by_time("ddMMyyyy"));
/// assert!(!date_format_sorts_by_time("yyyydd")); // no month: 31 January sorts after 1 February
/// assert!(!date_format_sorts_by_time("YYYY")); // not a date pattern
/// ```
///
/// `#[derive(TableEntity)]` generates a `*_key_between` range function only for a key whose
/// last part is a time in a format that sorts by time; for others there is none:
///
/// ```
/// use tablekit::prelude::*;
/// #[derive(TableEntity)]
/// pub struct Diary {
///     #[tablekit(partition_key(format = "yyyyMMdd"))]
///     pub day: DateTime<Utc>,
/// }
/// let _ = Diary::partition_key_between(..); // days sort by time
/// ```
///
/// ```compile_fail,E0599
/// use tablekit::prelude::*;
/// #[derive(TableEntity)]
/// pub struct Diary {
///     #[tablekit(partition_key(format = "ddMMyyyy"))]
///     pub day: DateTime<Utc>,
/// }
/// let _ = Diary::partition_key_between(..); // no such function: days do not sort by time
/// ```
pub fn date_format_sorts_by_time(pattern: &str) -> bool {
    DatePattern::parse(pattern).is_ok_and(|pattern| pattern.sorts_by_time())
}

/// Joins key parts with `separator`.
pub fn compose(parts: &[String], separator: &str) -> String {
    parts.join(separator)
}

/// Part `index` of a key made of `count` parts joined by `separator`; `None` when the key does
/// not split into exactly `count` parts.
///
/// ```
/// assert_eq!(tablekit::keys::part("a_b", "_", 1, 2), Some("b"));
/// assert_eq!(tablekit::keys::part("a_b_c", "_", 1, 2), None);
/// assert_eq!(tablekit::keys::part("a_b", "_", 0, 1), Some("a_b"));
/// ```
pub fn part<'k>(key: &'k str, separator: &str, index: usize, count: usize) -> Option<&'k str> {
    if count == 1 {
        return (index == 0).then_some(key);
    }
    let parts: Vec<&str> = key.split(separator).collect();
    if parts.len() != count {
        return None;
    }
    parts.get(index).copied()
}

/// The exclusive upper bound of all strings starting with `prefix`, in the service's ordinal
/// UTF-16 order: the last unit plus one, carrying past U+FFFF. `None` when there is no bound
/// (an empty prefix, or only U+FFFF characters): every string from the prefix on matches.
///
/// Rust strings cannot hold a lone surrogate, so where the unit arithmetic lands on one the
/// bound is the smallest valid string at or above it, which selects the same strings.
///
/// ```
/// use tablekit::keys::prefix_upper_bound;
/// assert_eq!(prefix_upper_bound("Jeff").as_deref(), Some("Jefg"));
/// assert_eq!(prefix_upper_bound("a\u{FFFF}").as_deref(), Some("b"));
/// assert_eq!(prefix_upper_bound("a\u{D7FF}").as_deref(), Some("a\u{10000}"));
/// assert_eq!(prefix_upper_bound("a\u{10FFFF}").as_deref(), Some("a\u{E000}"));
/// assert_eq!(prefix_upper_bound(""), None);
/// ```
pub fn prefix_upper_bound(prefix: &str) -> Option<String> {
    let mut chars: Vec<char> = prefix.chars().collect();
    while let Some(last) = chars.pop() {
        if let Some(next) = next_in_utf16_order(last) {
            chars.push(next);
            return Some(chars.into_iter().collect());
        }
    }
    None
}

/// The smallest character whose UTF-16 form sorts after every string starting with `c`;
/// `None` for U+FFFF (carry into the previous character).
fn next_in_utf16_order(c: char) -> Option<char> {
    match c {
        // Units D800..DFFF (supplementary characters) sort between U+D7FF and U+E000.
        '\u{D7FF}' => Some('\u{10000}'),
        '\u{FFFF}' => None,
        // After the last supplementary character come the BMP characters from U+E000.
        '\u{10FFFF}' => Some('\u{E000}'),
        _ => char::from_u32(u32::from(c) + 1),
    }
}

/// The `[lower, upper)` range of keys starting with `prefix` (`upper` is `None` when
/// unbounded).
pub fn prefix_range(prefix: &str) -> (String, Option<String>) {
    (prefix.to_owned(), prefix_upper_bound(prefix))
}

/// How a time is written as the last part of a key, for [`time_key_range`]: the formats
/// whose text sorts as the time does (or exactly the other way round, for inverted ones).
///
/// ```
/// use chrono::{TimeZone, Utc};
/// use tablekit::keys::TimeFormat;
/// let t = Utc.with_ymd_and_hms(2008, 10, 5, 7, 0, 0).unwrap();
/// assert_eq!(TimeFormat::inverted_year_month().format(&t), "7991_03");
/// assert_eq!(TimeFormat::date("yyyyMMdd").map(|f| f.format(&t)).as_deref(), Some("20081005"));
/// assert_eq!(TimeFormat::date("ddMMyyyy"), None); // does not sort by time
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeFormat<'p> {
    kind: TimeKind<'p>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TimeKind<'p> {
    Ticks,
    InvertedTicks,
    /// A pattern [`date_format_sorts_by_time`] accepts.
    Date(&'p str),
    InvertedYearMonth,
}

impl<'p> TimeFormat<'p> {
    /// [`ticks`]: oldest first, one key part per 100 ns tick.
    pub const fn ticks() -> Self {
        TimeFormat {
            kind: TimeKind::Ticks,
        }
    }

    /// [`inverted_ticks`]: newest first, one key part per 100 ns tick.
    pub const fn inverted_ticks() -> Self {
        TimeFormat {
            kind: TimeKind::InvertedTicks,
        }
    }

    /// [`inverted_year_month`]: newest month first, one key part per month.
    pub const fn inverted_year_month() -> Self {
        TimeFormat {
            kind: TimeKind::InvertedYearMonth,
        }
    }

    /// A [`date_format`] pattern, one key part per unit of its finest field; `None` unless
    /// [`date_format_sorts_by_time`] (a range of `ddMMyyyy` keys is no range of times).
    ///
    /// ```
    /// use chrono::{TimeZone, Utc};
    /// use tablekit::keys::TimeFormat;
    /// let t = Utc.with_ymd_and_hms(2008, 10, 5, 7, 30, 0).unwrap();
    /// let hourly = TimeFormat::date("yyyy-MM-dd HH").expect("sorts by time");
    /// assert_eq!(hourly.format(&t), "2008-10-05 07");
    /// assert!(TimeFormat::date("HH:mm").is_none()); // no year: not a range of times
    /// ```
    pub fn date(pattern: &'p str) -> Option<Self> {
        date_format_sorts_by_time(pattern).then_some(TimeFormat {
            kind: TimeKind::Date(pattern),
        })
    }

    /// A date pattern the caller has checked with [`date_format_sorts_by_time`] (the derive
    /// checks it at compile time).
    pub(crate) const fn date_unchecked(pattern: &'p str) -> Self {
        TimeFormat {
            kind: TimeKind::Date(pattern),
        }
    }

    /// The key part of `time`.
    pub fn format(&self, time: &DateTime<Utc>) -> String {
        match self.kind {
            TimeKind::Ticks => ticks(time),
            TimeKind::InvertedTicks => inverted_ticks(time),
            TimeKind::Date(pattern) => date_format(time, pattern),
            TimeKind::InvertedYearMonth => inverted_year_month(time),
        }
    }

    /// Whether later times have smaller parts.
    fn is_inverted(&self) -> bool {
        matches!(
            self.kind,
            TimeKind::InvertedTicks | TimeKind::InvertedYearMonth
        )
    }
}

/// The .NET ticks (`0..=`[`MAX_TICKS`], the times a key part holds) of the times in `range`,
/// at the service's 100 ns precision: a tick is in when its time is. Empty when no tick is.
///
/// ```
/// use chrono::{Duration, TimeZone, Utc};
/// use tablekit::keys::tick_range;
/// use tablekit::value::to_ticks;
/// let t = Utc.with_ymd_and_hms(2008, 10, 5, 0, 0, 0).unwrap();
/// let n = to_ticks(&t);
/// assert_eq!(tick_range(t..t + Duration::seconds(1)), n..=n + 9_999_999);
/// assert_eq!(tick_range(t..=t), n..=n);
/// assert!(tick_range(t..t).is_empty());
/// // A bound between two ticks: only whole ticks inside it count.
/// assert_eq!(tick_range(t + Duration::nanoseconds(50)..), n + 1..=tablekit::value::MAX_TICKS);
/// ```
pub fn tick_range(range: impl RangeBounds<DateTime<Utc>>) -> RangeInclusive<i64> {
    // A time between two ticks rounds inwards: up at the start, down at the end.
    let first = match range.start_bound() {
        Bound::Included(t) => tick_at_or_after(t),
        Bound::Excluded(t) => to_ticks(t).saturating_add(1),
        Bound::Unbounded => 0,
    };
    let last = match range.end_bound() {
        Bound::Included(t) => to_ticks(t),
        Bound::Excluded(t) => tick_at_or_after(t).saturating_sub(1),
        Bound::Unbounded => MAX_TICKS,
    };
    first.max(0)..=last.min(MAX_TICKS)
}

/// The first tick at or after `time` (`to_ticks` rounds down).
fn tick_at_or_after(time: &DateTime<Utc>) -> i64 {
    let between_ticks = time.timestamp_subsec_nanos() % 100 != 0;
    to_ticks(time).saturating_add(i64::from(between_ticks))
}

/// The first and the last key part, in key order, of the times in `range`; `None` when the
/// range holds no time. Inversion swaps the ends.
fn time_part_range(
    format: TimeFormat<'_>,
    range: impl RangeBounds<DateTime<Utc>>,
) -> Option<(String, String)> {
    let ticks = tick_range(range);
    if ticks.is_empty() {
        return None;
    }
    let earliest = format.format(&from_ticks(*ticks.start())?);
    let latest = format.format(&from_ticks(*ticks.end())?);
    Some(match format.is_inverted() {
        true => (latest, earliest),
        false => (earliest, latest),
    })
}

/// The keys `{prefix}{time part}` whose time lies in `range`, as `[lower, upper)` (`upper` is
/// `None` when unbounded), or `None` when the range holds no time. `prefix` is the key's
/// leading parts and their separator (empty for a key that is only the time).
///
/// Exact for `ticks` and `inverted_ticks`: a key is inside iff its time is in the range, at the
/// service's 100 ns precision ([`tick_range`]). A date pattern or `inverted_year_month` writes
/// one part per bucket (a day for `yyyyMMdd`, a month): a key is inside iff its bucket overlaps
/// the range, so keys at the range's edges may hold times outside it; filter those on a stored
/// time property when it matters. An unbounded side stays inside the prefix's keys, and
/// inversion swaps the bounds.
///
/// ```
/// use chrono::{TimeZone, Utc};
/// use tablekit::keys::{time_key_range, TimeFormat};
/// let start = Utc.with_ymd_and_hms(2009, 1, 1, 0, 0, 0).unwrap();
/// let end = Utc.with_ymd_and_hms(2010, 1, 1, 0, 0, 0).unwrap();
/// let year = time_key_range("football_", TimeFormat::inverted_year_month(), start..end);
/// let (lower, upper) = year.expect("2009 holds times");
/// assert_eq!(lower, "football_7990_01"); // December 2009: the newest month sorts first
/// assert_eq!(upper.as_deref(), Some("football_7990_13")); // just past January 2009's "7990_12"
/// assert_eq!(time_key_range("", TimeFormat::ticks(), end..start), None); // empty
/// ```
pub fn time_key_range(
    prefix: &str,
    format: TimeFormat<'_>,
    range: impl RangeBounds<DateTime<Utc>>,
) -> Option<(String, Option<String>)> {
    let (first, last) = time_part_range(format, range)?;
    // Past every key that starts with the last part: exact for fixed-width parts, and no
    // arithmetic on the part (a next month, a next tick) that could leave the format's range.
    let upper = prefix_upper_bound(&format!("{prefix}{last}"));
    Some((format!("{prefix}{first}"), upper))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utf16(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    #[test]
    fn upper_bound_is_above_every_extension_and_below_the_next_prefix() {
        let samples = [
            "a",
            "a\u{D7FF}",
            "a\u{FFFF}",
            "\u{10000}",
            "a\u{10FFFF}",
            "x\u{FFFF}\u{FFFF}",
            "\u{E000}",
            "zz",
        ];
        let tails = [
            "",
            "\u{0}",
            "zzz",
            "\u{FFFF}",
            "\u{10FFFF}",
            "\u{D7FF}",
            "\u{E000}",
        ];
        for p in samples {
            let Some(upper) = prefix_upper_bound(p) else {
                continue;
            };
            assert!(utf16(p) < utf16(&upper), "{p:?}");
            for t in tails {
                let s = format!("{p}{t}");
                assert!(utf16(&s) < utf16(&upper), "{s:?} vs {upper:?}");
            }
        }
    }

    #[test]
    fn only_ffff_has_no_bound() {
        assert_eq!(prefix_upper_bound("\u{FFFF}\u{FFFF}"), None);
    }

    #[test]
    fn inverted_ticks_sort_newest_first() {
        let old = DateTime::from_timestamp(1, 0).unwrap_or_default();
        let new = DateTime::from_timestamp(2, 0).unwrap_or_default();
        assert!(inverted_ticks(&new) < inverted_ticks(&old));
        assert_eq!(inverted_ticks(&new).len(), 19);
    }

    #[test]
    fn date_patterns_sort_by_time_only_from_the_year_down() {
        for ordered in [
            "yyyy",
            "yyyyMM",
            "yyyyMMdd",
            "yyyy-MM-dd HH:mm:ss",
            "yyyy_MM",
            "[yyyy]",
        ] {
            assert!(date_format_sorts_by_time(ordered), "{ordered}");
        }
        for unordered in [
            "",
            "MM",
            "ddMMyyyy",
            "yyyydd",
            "yyyyMMyyyy",
            "yyyyMMddmm",
            "HHmm",
            "yyyyy",
        ] {
            assert!(!date_format_sorts_by_time(unordered), "{unordered}");
        }
        // A patterns's time part is fixed width across the whole range of times.
        let widths: Vec<usize> = [min_time(), max_time()]
            .iter()
            .map(|t| date_format(t, "yyyy-MM-dd HH:mm:ss").len())
            .collect();
        assert_eq!(widths, [19, 19]);
    }

    fn min_time() -> DateTime<Utc> {
        from_ticks(0).unwrap_or_default()
    }

    fn max_time() -> DateTime<Utc> {
        from_ticks(MAX_TICKS).unwrap_or_default()
    }

    fn time(ticks: i64, extra_nanos: u32) -> DateTime<Utc> {
        from_ticks(ticks).unwrap_or_default()
            + chrono::Duration::nanoseconds(i64::from(extra_nanos))
    }

    #[test]
    fn tick_ranges_round_bounds_between_ticks_inwards() {
        let n = 633_587_616_000_000_000;
        let (on, between) = (time(n, 0), time(n, 40));
        assert_eq!(tick_range(on..), n..=MAX_TICKS);
        assert_eq!(tick_range(between..), n + 1..=MAX_TICKS);
        assert_eq!(
            tick_range((Bound::Excluded(on), Bound::Unbounded)),
            n + 1..=MAX_TICKS
        );
        assert_eq!(
            tick_range((Bound::Excluded(between), Bound::Unbounded)),
            n + 1..=MAX_TICKS
        );
        assert_eq!(tick_range(..=on), 0..=n);
        assert_eq!(tick_range(..=between), 0..=n);
        assert_eq!(tick_range(..on), 0..=n - 1);
        assert_eq!(tick_range(..between), 0..=n);
        assert!(tick_range(between..=between).is_empty());
        assert!(tick_range(on..on).is_empty());
        assert_eq!(tick_range(..), 0..=MAX_TICKS);
    }

    #[test]
    fn tick_ranges_stay_in_the_times_keys_hold() {
        let before = min_time() - chrono::Duration::days(400);
        let after = max_time() + chrono::Duration::days(400);
        assert_eq!(tick_range(before..after), 0..=MAX_TICKS);
        assert!(tick_range(..before).is_empty());
        assert!(tick_range(after..).is_empty());
        assert_eq!(tick_range(..=min_time()), 0..=0);
        assert_eq!(tick_range(max_time()..), MAX_TICKS..=MAX_TICKS);
        assert_eq!(
            tick_range(DateTime::<Utc>::MIN_UTC..=DateTime::<Utc>::MAX_UTC),
            0..=MAX_TICKS
        );
    }

    #[test]
    fn inversion_swaps_the_part_range() {
        let (a, b) = (time(1_000_000_000, 0), time(2_000_000_000, 0));
        assert_eq!(
            time_part_range(TimeFormat::ticks(), a..=b),
            Some((ticks(&a), ticks(&b)))
        );
        assert_eq!(
            time_part_range(TimeFormat::inverted_ticks(), a..=b),
            Some((inverted_ticks(&b), inverted_ticks(&a)))
        );
        assert_eq!(time_part_range(TimeFormat::inverted_ticks(), b..a), None);
    }

    #[test]
    fn key_ranges_stay_inside_the_prefix_and_the_domain_edges() {
        for format in formats() {
            let (lower, upper) = time_key_range("p_", format, ..).unwrap_or_default();
            assert!(lower.starts_with("p_"), "{format:?}: {lower}");
            let upper = upper.unwrap_or_default();
            assert!(upper.as_str() <= "p`", "{format:?}: {upper}");
            for t in [min_time(), max_time()] {
                let key = format!("p_{}", format.format(&t));
                assert!(
                    lower <= key && key < upper,
                    "{format:?}: {key} in {lower}..{upper}"
                );
            }
        }
    }

    /// Every format, with the length in ticks of a bucket's unit (`None`: calendar months or
    /// years) for the property test.
    fn formats() -> [TimeFormat<'static>; 8] {
        [
            TimeFormat::ticks(),
            TimeFormat::inverted_ticks(),
            TimeFormat::inverted_year_month(),
            TimeFormat::date_unchecked("yyyy"),
            TimeFormat::date_unchecked("yyyy-MM"),
            TimeFormat::date_unchecked("yyyyMMdd"),
            TimeFormat::date_unchecked("yyyy-MM-dd HH"),
            TimeFormat::date_unchecked("yyyyMMddHHmmss"),
        ]
    }

    /// The bucket of times sharing `time`'s key part, as `[first, next)`: computed from the
    /// calendar, independently of the formatting.
    fn bucket(format: TimeFormat<'_>, time: DateTime<Utc>) -> (DateTime<Utc>, DateTime<Utc>) {
        use chrono::{Duration, Months, Timelike};
        let day = time.date_naive();
        let month = day.with_day(1).unwrap_or(day);
        let midnight = |d: chrono::NaiveDate| d.and_time(chrono::NaiveTime::MIN).and_utc();
        let truncate = |seconds: i64| {
            let start = time.timestamp() - time.timestamp().rem_euclid(seconds);
            let start = DateTime::from_timestamp(start, 0).unwrap_or_default();
            (start, start + Duration::seconds(seconds))
        };
        let months = |n: u32, from: chrono::NaiveDate| {
            let next = from.checked_add_months(Months::new(n)).unwrap_or(from);
            (midnight(from), midnight(next))
        };
        match format.kind {
            TimeKind::Ticks | TimeKind::InvertedTicks => (time, time + Duration::nanoseconds(100)),
            TimeKind::InvertedYearMonth | TimeKind::Date("yyyy-MM") => months(1, month),
            TimeKind::Date("yyyy") => months(12, month.with_month(1).unwrap_or(month)),
            TimeKind::Date("yyyyMMdd") => (midnight(day), midnight(day) + Duration::days(1)),
            TimeKind::Date("yyyy-MM-dd HH") => truncate(3600),
            _ => {
                assert_eq!(time.nanosecond() % 1_000_000_000, time.nanosecond());
                truncate(1)
            }
        }
    }

    /// Whether `[first, next)` holds a tick in `range`: the first such tick, if any, is the
    /// bucket's start or the range's start rounded up to a tick.
    fn overlaps(
        (first, next): (DateTime<Utc>, DateTime<Utc>),
        range: &(Bound<DateTime<Utc>>, Bound<DateTime<Utc>>),
    ) -> bool {
        let mut candidates = vec![first];
        if let Bound::Included(s) | Bound::Excluded(s) = range.start_bound() {
            let floor = from_ticks(to_ticks(s).clamp(0, MAX_TICKS)).unwrap_or_default();
            candidates.extend([floor, floor + chrono::Duration::nanoseconds(100)]);
        }
        candidates
            .into_iter()
            .any(|t| first <= t && t < next && range.contains(&t))
    }

    fn bound(kind: u8, time: DateTime<Utc>) -> Bound<DateTime<Utc>> {
        match kind % 3 {
            0 => Bound::Included(time),
            1 => Bound::Excluded(time),
            _ => Bound::Unbounded,
        }
    }

    /// A tick near `base`: a few ticks, seconds, days or months away.
    fn near(base: i64) -> impl proptest::strategy::Strategy<Value = i64> {
        use proptest::prelude::*;
        const DAY: i64 = 864_000_000_000;
        prop_oneof![
            (-3i64..=3).prop_map(move |d| base + d),
            (-7_200i64..=7_200).prop_map(move |d| base + d * 10_000_000),
            (-400i64..=400).prop_map(move |d| base + d * DAY),
        ]
        .prop_map(|t| t.clamp(0, MAX_TICKS))
    }

    /// A base tick: anywhere, at the start of a month, or at the edges of the domain.
    fn base() -> impl proptest::strategy::Strategy<Value = i64> {
        use proptest::prelude::*;
        prop_oneof![
            0..=MAX_TICKS,
            (1i32..=9999, 1u32..=12).prop_map(|(y, m)| {
                let day = chrono::NaiveDate::from_ymd_opt(y, m, 1).unwrap_or_default();
                to_ticks(&day.and_time(chrono::NaiveTime::MIN).and_utc())
            }),
            Just(0),
            Just(MAX_TICKS),
        ]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

        /// A key is inside the bounds iff its time is in the range (its bucket overlaps it).
        #[test]
        fn a_key_is_inside_its_bounds_iff_its_time_is_in_the_range(
            (key_tick, low, high) in proptest::strategy::Strategy::prop_flat_map(base(), |b| (near(b), near(b), near(b))),
            (low_nanos, high_nanos) in (0u32..100, 0u32..100),
            (low_kind, high_kind) in (0u8..3, 0u8..3),
            prefix in proptest::sample::select(vec!["", "p_", "\u{FFFF}|", "é\u{10000}-"]),
        ) {
            let range = (bound(low_kind, time(low, low_nanos)), bound(high_kind, time(high, high_nanos)));
            let t = time(key_tick, 0);
            for format in formats() {
                let key = format!("{prefix}{}", format.format(&t));
                let inside = time_key_range(prefix, format, range).is_some_and(|(lower, upper)| {
                    utf16(&lower) <= utf16(&key)
                        && upper.is_none_or(|upper| utf16(&key) < utf16(&upper))
                });
                let expected = overlaps(bucket(format, t), &range);
                proptest::prop_assert_eq!(inside, expected, "{:?} {} {:?}", format, t, range);
            }
        }
    }
}
