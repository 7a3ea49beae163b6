//! Recognising how keys are made: constant parts, separators, zero-padded numbers, .NET ticks
//! (plain and inverted, exactly as [`keys::ticks`] and [`keys::inverted_ticks`] write them),
//! date patterns and GUIDs.

use std::fmt;

use chrono::Datelike;
use serde::{Deserialize, Serialize};
use tablekit_rules::{DateField, DatePattern, DatePiece};
use uuid::Uuid;

use crate::query::keys;

/// The separators tried, in order: the derive's default first. A separator a date pattern or
/// a GUID holds (`-`, `:`) comes late, so a whole-key date or GUID is seen before a split.
const SEPARATORS: [&str; 6] = ["_", "|", "~", ":", "-", "."];

/// The date patterns tried, longest first so `yyyyMMdd` is not taken for `yyyyMM` plus text.
const DATE_PATTERNS: [&str; 10] = [
    "yyyyMMddHHmmss",
    "yyyyMMddHHmm",
    "yyyyMMddHH",
    "yyyyMMdd",
    "yyyyMM",
    "yyyy-MM-dd HH:mm:ss",
    "yyyy-MM-dd HH:mm",
    "yyyy-MM-dd HH",
    "yyyy-MM-dd",
    "yyyy-MM",
];

/// Years a key's time is believed in: outside them a 19-digit or 8-digit number is more
/// likely an identifier than a time.
const PLAUSIBLE_YEARS: std::ops::RangeInclusive<i32> = 1900..=2200;

/// What one part of a key holds, across every key seen.
///
/// ```
/// use tablekit::insight::PartShape;
/// assert_eq!(PartShape::infer(&["007", "042"]), PartShape::Padded { width: 3 });
/// assert_eq!(PartShape::infer(&["order", "order"]), PartShape::Constant { value: "order".into() });
/// assert!(PartShape::Padded { width: 3 }.matches("123"));
/// assert!(!PartShape::Padded { width: 3 }.matches("1234"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "shape", rename_all = "snake_case")]
pub enum PartShape {
    /// The same text in every key.
    Constant {
        /// The text.
        value: String,
    },
    /// Any text.
    Text,
    /// Decimal digits of varying width, without leading zeros.
    Integer,
    /// Decimal digits zero-padded to one width (`pad = width`).
    Padded {
        /// The digits.
        width: usize,
    },
    /// 19-digit .NET ticks, oldest first (`ticks`).
    Ticks,
    /// 19-digit `DateTime.MaxValue` ticks minus the time's (`inverted_ticks`).
    InvertedTicks,
    /// A time in a date pattern (`format = "yyyyMMdd"`).
    Date {
        /// The pattern, in the derive's `yyyy MM dd HH mm ss` notation.
        pattern: String,
    },
    /// A hyphenated GUID.
    Uuid,
}

impl PartShape {
    /// The most precise shape every one of `values` has (`Text` when nothing more is shared;
    /// an empty list is `Text` too).
    pub fn infer<S: AsRef<str>>(values: &[S]) -> PartShape {
        let mut iter = values.iter().map(AsRef::as_ref);
        let Some(first) = iter.next() else {
            return PartShape::Text;
        };
        if values.iter().all(|v| v.as_ref() == first) {
            return PartShape::Constant {
                value: first.to_owned(),
            };
        }
        let all = |shape: &PartShape| values.iter().all(|v| shape.matches(v.as_ref()));
        let candidates = [PartShape::InvertedTicks, PartShape::Ticks, PartShape::Uuid];
        if let Some(shape) = candidates.into_iter().find(|s| all(s)) {
            return shape;
        }
        if let Some(pattern) = DATE_PATTERNS.iter().find(|p| {
            values
                .iter()
                .all(|v| matches_date(v.as_ref(), p).is_some_and(|y| PLAUSIBLE_YEARS.contains(&y)))
        }) {
            return PartShape::Date {
                pattern: (*pattern).to_owned(),
            };
        }
        let digits = |v: &str| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit());
        if values.iter().all(|v| digits(v.as_ref())) {
            let width = first.len();
            let padded = values
                .iter()
                .any(|v| v.as_ref().len() > 1 && v.as_ref().starts_with('0'));
            if padded && values.iter().all(|v| v.as_ref().len() == width) {
                return PartShape::Padded { width };
            }
            if !padded && values.iter().all(|v| v.as_ref().parse::<u64>().is_ok()) {
                return PartShape::Integer;
            }
        }
        PartShape::Text
    }

    /// Whether `text` has this shape.
    pub fn matches(&self, text: &str) -> bool {
        let digits = |n: usize| text.len() == n && text.bytes().all(|b| b.is_ascii_digit());
        let year_of = |t: Option<chrono::DateTime<chrono::Utc>>| t.map(|t| t.year());
        match self {
            PartShape::Constant { value } => text == value,
            PartShape::Text => true,
            PartShape::Integer => {
                !text.is_empty() && text.parse::<u64>().is_ok() && !text.starts_with('+')
            }
            PartShape::Padded { width } => digits(*width),
            PartShape::Ticks => {
                digits(19)
                    && year_of(keys::parse_ticks(text))
                        .is_some_and(|y| PLAUSIBLE_YEARS.contains(&y))
            }
            PartShape::InvertedTicks => {
                digits(19)
                    && year_of(keys::parse_inverted_ticks(text))
                        .is_some_and(|y| PLAUSIBLE_YEARS.contains(&y))
            }
            PartShape::Date { pattern } => matches_date(text, pattern).is_some(),
            PartShape::Uuid => text.len() == 36 && Uuid::try_parse(text).is_ok(),
        }
    }
}

impl fmt::Display for PartShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PartShape::Constant { value } => write!(f, "{value:?}"),
            PartShape::Text => f.write_str("{text}"),
            PartShape::Integer => f.write_str("{integer}"),
            PartShape::Padded { width } => write!(f, "{{{width} digits}}"),
            PartShape::Ticks => f.write_str("{ticks}"),
            PartShape::InvertedTicks => f.write_str("{inverted ticks}"),
            PartShape::Date { pattern } => write!(f, "{{{pattern}}}"),
            PartShape::Uuid => f.write_str("{guid}"),
        }
    }
}

/// The year of `text` written with date `pattern`, when it is one (each field in range).
fn matches_date(text: &str, pattern: &str) -> Option<i32> {
    let pattern = DatePattern::parse(pattern).ok()?;
    let mut rest = text;
    let mut year = None;
    for piece in pattern.pieces() {
        match piece {
            DatePiece::Literal(c) => rest = rest.strip_prefix(c)?,
            DatePiece::Field(field) => {
                let (width, range) = match field {
                    DateField::Year => (4, 1..=9999),
                    DateField::Month => (2, 1..=12),
                    DateField::Day => (2, 1..=31),
                    DateField::Hour => (2, 0..=23),
                    DateField::Minute | DateField::Second => (2, 0..=59),
                };
                let digits = rest.get(..width)?;
                if !digits.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                let n: i32 = digits.parse().ok()?;
                if !range.contains(&n) {
                    return None;
                }
                if field == DateField::Year {
                    year = Some(n);
                }
                rest = &rest[width..];
            }
        }
    }
    if rest.is_empty() {
        year
    } else {
        None
    }
}

/// How a key (PartitionKey or RowKey) is made: parts joined by a separator.
///
/// No parts means nothing is known, and every key matches.
///
/// ```
/// use tablekit::insight::{KeyShape, PartShape};
/// let keys = ["order_000042", "order_000107"];
/// let shape = KeyShape::infer(&keys);
/// assert_eq!(shape.separator.as_deref(), Some("_"));
/// assert_eq!(shape.parts, [PartShape::Constant { value: "order".into() }, PartShape::Padded { width: 6 }]);
/// assert!(shape.matches("order_000001"));
/// assert!(!shape.matches("order_1"));
/// assert_eq!(shape.to_string(), "\"order\"_{6 digits}");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyShape {
    /// Between the parts, when there are several.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub separator: Option<String>,
    /// The parts, in order.
    #[serde(default)]
    pub parts: Vec<PartShape>,
}

impl KeyShape {
    /// The shape of every one of `keys`: a whole-key shape when one fits (a GUID, a date,
    /// ticks), else the first separator splitting every key into the same number of parts of
    /// which one at least is more than text, else plain text.
    pub fn infer<S: AsRef<str>>(keys: &[S]) -> KeyShape {
        let whole = PartShape::infer(keys);
        if whole != PartShape::Text || keys.is_empty() {
            return KeyShape::single(whole);
        }
        for separator in SEPARATORS {
            let split: Vec<Vec<&str>> = keys
                .iter()
                .map(|k| k.as_ref().split(separator).collect())
                .collect();
            let count = split.first().map_or(0, Vec::len);
            if count < 2 || split.iter().any(|parts| parts.len() != count) {
                continue;
            }
            let parts: Vec<PartShape> = (0..count)
                .map(|i| {
                    let column: Vec<&str> = split.iter().map(|parts| parts[i]).collect();
                    PartShape::infer(&column)
                })
                .collect();
            if parts.iter().any(|p| *p != PartShape::Text) {
                return KeyShape {
                    separator: Some(separator.to_owned()),
                    parts,
                };
            }
        }
        KeyShape::single(PartShape::Text)
    }

    /// A key of one part.
    pub fn single(part: PartShape) -> KeyShape {
        KeyShape {
            separator: None,
            parts: vec![part],
        }
    }

    /// Whether `key` has this shape.
    pub fn matches(&self, key: &str) -> bool {
        match (&self.separator, self.parts.as_slice()) {
            (_, []) => true,
            (None, [only]) => only.matches(key),
            (None, _) => false,
            (Some(separator), parts) => {
                let split: Vec<&str> = key.split(separator.as_str()).collect();
                split.len() == parts.len() && parts.iter().zip(split).all(|(p, t)| p.matches(t))
            }
        }
    }
}

impl fmt::Display for KeyShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.parts.is_empty() {
            return f.write_str("{anything}");
        }
        for (i, part) in self.parts.iter().enumerate() {
            if i > 0 {
                f.write_str(self.separator.as_deref().unwrap_or(""))?;
            }
            write!(f, "{part}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use chrono::{TimeZone, Utc};

    use super::*;

    #[test]
    fn inverted_ticks_are_recognised_as_the_derive_writes_them() {
        let times = [
            Utc.with_ymd_and_hms(2008, 10, 5, 12, 30, 0).unwrap(),
            Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap(),
        ];
        let inverted: Vec<String> = times.iter().map(keys::inverted_ticks).collect();
        assert_eq!(PartShape::infer(&inverted), PartShape::InvertedTicks);
        let plain: Vec<String> = times.iter().map(keys::ticks).collect();
        assert_eq!(PartShape::infer(&plain), PartShape::Ticks);
        // 19 digits that are no time of the plausible years: a number.
        assert_eq!(
            PartShape::infer(&["0000000000000000001", "0000000000000000002"]),
            PartShape::Padded { width: 19 }
        );
    }

    #[test]
    fn numbers_dates_and_guids() {
        assert_eq!(PartShape::infer(&["7", "12", "300"]), PartShape::Integer);
        assert_eq!(
            PartShape::infer(&["0007", "0012"]),
            PartShape::Padded { width: 4 }
        );
        assert_eq!(PartShape::infer(&["0007", "12"]), PartShape::Text);
        assert_eq!(
            PartShape::infer(&["20240131", "20251201"]),
            PartShape::Date {
                pattern: "yyyyMMdd".into()
            }
        );
        assert_eq!(
            PartShape::infer(&["2024-01", "2025-12"]),
            PartShape::Date {
                pattern: "yyyy-MM".into()
            }
        );
        // Month 13 is no date.
        assert_eq!(
            PartShape::infer(&["20241331", "20251201"]),
            PartShape::Integer
        );
        let ids = [
            Uuid::from_u128(1).to_string(),
            Uuid::from_u128(2).to_string(),
        ];
        assert_eq!(PartShape::infer(&ids), PartShape::Uuid);
        assert_eq!(PartShape::infer(&["a", "b"]), PartShape::Text);
        assert_eq!(PartShape::infer::<&str>(&[]), PartShape::Text);
    }

    #[test]
    fn keys_split_on_the_first_separator_that_says_something() {
        let shape = KeyShape::infer(&["eu-west_0001", "us-east_0420"]);
        assert_eq!(shape.separator.as_deref(), Some("_"));
        assert_eq!(
            shape.parts,
            [PartShape::Text, PartShape::Padded { width: 4 }]
        );
        // A GUID holds `-` but is one part.
        let ids = [
            Uuid::from_u128(1).to_string(),
            Uuid::from_u128(2).to_string(),
        ];
        assert_eq!(KeyShape::infer(&ids), KeyShape::single(PartShape::Uuid));
        // Different part counts: no split.
        assert_eq!(
            KeyShape::infer(&["a_1", "b_2_3"]),
            KeyShape::single(PartShape::Text)
        );
        assert_eq!(
            KeyShape::infer(&["", ""]),
            KeyShape::single(PartShape::Constant {
                value: String::new()
            })
        );
    }

    #[test]
    fn a_shape_checks_keys() {
        let shape = KeyShape {
            separator: Some("_".into()),
            parts: vec![
                PartShape::Constant {
                    value: "user".into(),
                },
                PartShape::InvertedTicks,
            ],
        };
        assert!(shape.matches(&format!("user_{}", keys::inverted_ticks(&Utc::now()))));
        assert!(!shape.matches("user_12"));
        assert!(!shape.matches("admin_2534023007999999999"));
        assert!(KeyShape::default().matches("anything"));
        let json = serde_json::to_string(&shape).unwrap();
        assert_eq!(
            json,
            r#"{"separator":"_","parts":[{"shape":"constant","value":"user"},{"shape":"inverted_ticks"}]}"#
        );
        assert_eq!(serde_json::from_str::<KeyShape>(&json).unwrap(), shape);
    }
}
