//! How a value is written as one part of a key.

use core::fmt;

use crate::date::{DatePattern, DatePatternError};

/// How one key part is written: the formats of `#[tablekit(partition_key(..))]` and
/// `#[tablekit(row_key(..))]`. `P` holds a date pattern's text (`&str`, or an owned string).
///
/// ```
/// use tablekit_rules::{KeyFormat, PartInput, TimeRangeKind};
/// let day = KeyFormat::from_format("yyyyMMdd")?;
/// assert_eq!(day, KeyFormat::Date("yyyyMMdd"));
/// assert_eq!(day.input(), PartInput::Time);
/// assert_eq!(day.time_range(), Some(TimeRangeKind::Buckets));
/// assert!(!day.is_reversible());
/// assert_eq!(day.to_string(), "format = \"yyyyMMdd\"");
/// # Ok::<(), tablekit_rules::DatePatternError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KeyFormat<P> {
    /// The value's own text.
    Plain,
    /// `transform = lowercase`: a string in lower case.
    Lowercase,
    /// `transform = uppercase`: a string in upper case.
    Uppercase,
    /// `transform = path::to::function`: the text a user function makes of the value
    /// (`fn(&T) -> String`); `P` holds the function's path.
    Function(P),
    /// `ticks`: a time's 19-digit .NET ticks, oldest first.
    Ticks,
    /// `inverted_ticks`: the ticks of `DateTime::MaxValue` minus the time's, newest first.
    InvertedTicks,
    /// `pad = n`: an unsigned integer zero-padded to `n` digits.
    Pad(usize),
    /// `inverted`: the type's maximum minus an unsigned integer, padded: largest first.
    Inverted,
    /// `format = "yyyyMMdd"`: a time written with a [`DatePattern`].
    Date(P),
    /// `format = "inverted_year_month"`: `{9999 - year}_{13 - month}`, newest month first.
    InvertedYearMonth,
}

/// What kind of value a [`KeyFormat`] writes.
///
/// ```
/// use tablekit_rules::{KeyFormat, PartInput};
/// assert_eq!(KeyFormat::<&str>::Pad(10).input(), PartInput::Unsigned);
/// assert_eq!(KeyFormat::<&str>::Lowercase.input(), PartInput::Text);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PartInput {
    /// Any value with a key text of its own (strings, integers, Uuids): not a time, whose
    /// text would not sort as its value does.
    KeyText,
    /// A string.
    Text,
    /// A UTC time.
    Time,
    /// An unsigned integer.
    Unsigned,
    /// Any value: a user function makes its text.
    Any,
}

/// How exactly a range of keys written with a time format selects a range of times.
///
/// ```
/// use tablekit_rules::{KeyFormat, TimeRangeKind};
/// assert_eq!(KeyFormat::<&str>::Ticks.time_range(), Some(TimeRangeKind::Exact));
/// assert_eq!(KeyFormat::<&str>::InvertedYearMonth.time_range(), Some(TimeRangeKind::Buckets));
/// assert_eq!(KeyFormat::Date("ddMMyyyy").time_range(), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TimeRangeKind {
    /// One key part per 100 ns tick: a key is in the range iff its time is.
    Exact,
    /// One key part per bucket (a month, a day, ...): every bucket overlapping the range is
    /// selected, so keys at its edges may hold times outside it.
    Buckets,
}

impl<P: AsRef<str>> KeyFormat<P> {
    /// The format a `format = "..."` text names: `inverted_year_month`, `ticks`,
    /// `inverted_ticks`, or a [`DatePattern`].
    ///
    /// ```
    /// use tablekit_rules::{DatePatternError, KeyFormat};
    /// assert_eq!(KeyFormat::from_format("ticks"), Ok(KeyFormat::Ticks));
    /// assert_eq!(KeyFormat::from_format("yyyy-MM"), Ok(KeyFormat::Date("yyyy-MM")));
    /// assert_eq!(KeyFormat::from_format("YYYY"), Err(DatePatternError::Unknown('Y')));
    /// ```
    pub fn from_format(text: P) -> Result<Self, DatePatternError> {
        Ok(match text.as_ref() {
            "inverted_year_month" => KeyFormat::InvertedYearMonth,
            "ticks" => KeyFormat::Ticks,
            "inverted_ticks" => KeyFormat::InvertedTicks,
            pattern => {
                DatePattern::parse(pattern)?;
                KeyFormat::Date(text)
            }
        })
    }

    /// The same format, borrowing its date pattern.
    ///
    /// ```
    /// use tablekit_rules::KeyFormat;
    /// let owned: KeyFormat<Box<str>> = KeyFormat::Date("yyyy".into());
    /// assert_eq!(owned.as_deref(), KeyFormat::Date("yyyy"));
    /// ```
    pub fn as_deref(&self) -> KeyFormat<&str> {
        match self {
            KeyFormat::Plain => KeyFormat::Plain,
            KeyFormat::Lowercase => KeyFormat::Lowercase,
            KeyFormat::Uppercase => KeyFormat::Uppercase,
            KeyFormat::Function(path) => KeyFormat::Function(path.as_ref()),
            KeyFormat::Ticks => KeyFormat::Ticks,
            KeyFormat::InvertedTicks => KeyFormat::InvertedTicks,
            KeyFormat::Pad(n) => KeyFormat::Pad(*n),
            KeyFormat::Inverted => KeyFormat::Inverted,
            KeyFormat::Date(pattern) => KeyFormat::Date(pattern.as_ref()),
            KeyFormat::InvertedYearMonth => KeyFormat::InvertedYearMonth,
        }
    }

    /// What kind of value the format writes.
    ///
    /// ```
    /// use tablekit_rules::{KeyFormat, PartInput};
    /// assert_eq!(KeyFormat::<&str>::Plain.input(), PartInput::KeyText);
    /// assert_eq!(KeyFormat::<&str>::InvertedTicks.input(), PartInput::Time);
    /// ```
    pub fn input(&self) -> PartInput {
        match self {
            KeyFormat::Plain => PartInput::KeyText,
            KeyFormat::Lowercase | KeyFormat::Uppercase => PartInput::Text,
            KeyFormat::Function(_) => PartInput::Any,
            KeyFormat::Ticks
            | KeyFormat::InvertedTicks
            | KeyFormat::Date(_)
            | KeyFormat::InvertedYearMonth => PartInput::Time,
            KeyFormat::Pad(_) | KeyFormat::Inverted => PartInput::Unsigned,
        }
    }

    /// Whether the value can be read back from its part, so a field can live in the key
    /// alone (`key_only`): case transforms, user functions, dates and months lose information.
    ///
    /// ```
    /// use tablekit_rules::KeyFormat;
    /// assert!(KeyFormat::<&str>::InvertedTicks.is_reversible());
    /// assert!(!KeyFormat::<&str>::Lowercase.is_reversible());
    /// ```
    pub fn is_reversible(&self) -> bool {
        matches!(
            self,
            KeyFormat::Plain
                | KeyFormat::Ticks
                | KeyFormat::InvertedTicks
                | KeyFormat::Pad(_)
                | KeyFormat::Inverted
        )
    }

    /// For a time format whose keys sort as their times do (or exactly the other way round),
    /// how a range of keys selects a range of times; `None` for every other format, whose
    /// keys make no range of times.
    ///
    /// ```
    /// use tablekit_rules::{KeyFormat, TimeRangeKind};
    /// assert_eq!(KeyFormat::Date("yyyy-MM").time_range(), Some(TimeRangeKind::Buckets));
    /// assert_eq!(KeyFormat::<&str>::Pad(4).time_range(), None);
    /// ```
    pub fn time_range(&self) -> Option<TimeRangeKind> {
        match self {
            KeyFormat::Ticks | KeyFormat::InvertedTicks => Some(TimeRangeKind::Exact),
            KeyFormat::InvertedYearMonth => Some(TimeRangeKind::Buckets),
            KeyFormat::Date(pattern) => DatePattern::parse(pattern.as_ref())
                .is_ok_and(|p| p.sorts_by_time())
                .then_some(TimeRangeKind::Buckets),
            _ => None,
        }
    }
}

/// The format as it is written in the attribute.
impl<P: AsRef<str>> fmt::Display for KeyFormat<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyFormat::Plain => f.write_str("plain"),
            KeyFormat::Lowercase => f.write_str("transform = lowercase"),
            KeyFormat::Uppercase => f.write_str("transform = uppercase"),
            KeyFormat::Function(path) => write!(f, "transform = {}", path.as_ref()),
            KeyFormat::Ticks => f.write_str("ticks"),
            KeyFormat::InvertedTicks => f.write_str("inverted_ticks"),
            KeyFormat::Pad(n) => write!(f, "pad = {n}"),
            KeyFormat::Inverted => f.write_str("inverted"),
            KeyFormat::Date(pattern) => write!(f, "format = \"{}\"", pattern.as_ref()),
            KeyFormat::InvertedYearMonth => f.write_str("format = \"inverted_year_month\""),
        }
    }
}
