//! Building PartitionKeys and RowKeys from typed parts, and the bounds of key prefixes.
//!
//! Keys are strings compared ordinally by UTF-16 code unit, so every part format here keeps
//! that order meaningful: fixed-width zero-padded numbers, 19-digit ticks, and inverted forms
//! (max minus value) that sort newest or largest first (the `9999 - year` trick of Microsoft's
//! "Windows Azure Table" whitepaper).
//! `#[derive(TableEntity)]` composes keys with these functions; they are public so hand-written
//! code builds the same keys.
//!
//! ```
//! use tablekit::keys;
//! assert_eq!(keys::pad(42, 10), "0000000042");
//! assert_eq!(keys::prefix_range("abc_"), ("abc_".to_owned(), Some("abc`".to_owned())));
//! ```

use chrono::{DateTime, Datelike, Utc};
use uuid::Uuid;

use crate::limits::{validate_key, InvalidInput, KeyKind};
use crate::value::{from_ticks, to_ticks, MAX_TICKS};

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
    ///
    /// ```
    /// use tablekit::keys::KeyPart;
    /// use uuid::Uuid;
    /// assert_eq!((-3i64).to_key_part(), "-3");
    /// assert_eq!("eu".to_owned().to_key_part(), "eu");
    /// assert_eq!(Uuid::from_u128(1).to_key_part(), "00000000-0000-0000-0000-000000000001");
    /// ```
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

display_key_part!(bool, i32, i64, u8, u16, u32, u64);

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
///
/// ```
/// assert_eq!(tablekit::keys::parse_pad("007"), Some(7));
/// assert_eq!(tablekit::keys::parse_pad("-7"), None);
/// ```
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
///
/// ```
/// let max = u32::MAX as u64;
/// assert_eq!(tablekit::keys::parse_inverted(&tablekit::keys::inverted(5, max), max), Some(5));
/// ```
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
///
/// ```
/// use chrono::DateTime;
/// let t = DateTime::UNIX_EPOCH;
/// assert_eq!(tablekit::keys::parse_ticks(&tablekit::keys::ticks(&t)), Some(t));
/// ```
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
///
/// ```
/// use chrono::DateTime;
/// let t = DateTime::UNIX_EPOCH;
/// let key = tablekit::keys::inverted_ticks(&t);
/// assert_eq!(tablekit::keys::parse_inverted_ticks(&key), Some(t));
/// ```
pub fn parse_inverted_ticks(text: &str) -> Option<DateTime<Utc>> {
    let inverted = i64::try_from(parse_pad(text)?).ok()?;
    from_ticks(MAX_TICKS.checked_sub(inverted)?)
}

/// `{9999 - year}_{13 - month}`: newest month first (the whitepaper's blog partitions).
///
/// ```
/// use chrono::{TimeZone, Utc};
/// let t = Utc.with_ymd_and_hms(2008, 10, 5, 0, 0, 0).unwrap();
/// assert_eq!(tablekit::keys::inverted_year_month(&t), "7991_03");
/// ```
pub fn inverted_year_month(time: &DateTime<Utc>) -> String {
    format!("{:04}_{:02}", 9999 - time.year(), 13 - time.month())
}

/// The date patterns `format = "..."` accepts: `yyyy`, `MM`, `dd`, `HH`, `mm`, `ss` and any
/// character that is not a letter, e.g. `"yyyyMMdd"` or `"yyyy-MM-dd HH"`.
///
/// ```
/// assert!(tablekit::keys::is_valid_date_format("yyyyMMdd"));
/// assert!(!tablekit::keys::is_valid_date_format("YYYY"));
/// ```
pub fn is_valid_date_format(pattern: &str) -> bool {
    date_tokens(pattern).is_some()
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
    match date_tokens(pattern) {
        Some(tokens) => time.format(&tokens).to_string(),
        None => String::new(),
    }
}

/// The pattern as a chrono format string, or `None` for an unknown letter.
fn date_tokens(pattern: &str) -> Option<String> {
    const TOKENS: [(&str, &str); 6] = [
        ("yyyy", "%Y"),
        ("MM", "%m"),
        ("dd", "%d"),
        ("HH", "%H"),
        ("mm", "%M"),
        ("ss", "%S"),
    ];
    let mut out = String::new();
    let mut rest = pattern;
    'outer: while let Some(c) = rest.chars().next() {
        for (token, spec) in TOKENS {
            if let Some(after) = rest.strip_prefix(token) {
                out.push_str(spec);
                rest = after;
                continue 'outer;
            }
        }
        if c.is_alphabetic() || c == '%' {
            return None;
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    Some(out)
}

/// Joins key parts with `separator`.
///
/// ```
/// assert_eq!(tablekit::keys::compose(&["a".into(), "b".into()], "_"), "a_b");
/// ```
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

/// Checks a composed key against the service's rules (forbidden characters, 1 KiB).
///
/// ```
/// use tablekit::{keys, KeyKind};
/// assert!(keys::validate(KeyKind::RowKey, "a/b").is_err());
/// assert!(keys::validate(KeyKind::RowKey, "ab").is_ok());
/// ```
pub fn validate(kind: KeyKind, key: &str) -> Result<(), InvalidInput> {
    validate_key(kind, key)
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
///
/// ```
/// assert_eq!(tablekit::keys::prefix_range("a"), ("a".to_owned(), Some("b".to_owned())));
/// ```
pub fn prefix_range(prefix: &str) -> (String, Option<String>) {
    (prefix.to_owned(), prefix_upper_bound(prefix))
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
}
