//! Date patterns of key parts: `yyyyMMdd`, `yyyy-MM-dd HH`, ...

use core::fmt;

use crate::key::is_forbidden_key_char;

/// One field of a date pattern, written as in .NET's custom date and time format strings.
///
/// ```
/// use tablekit_rules::DateField;
/// assert_eq!(DateField::Month.token(), "MM");
/// assert_eq!(DateField::ALL.map(DateField::token), ["yyyy", "MM", "dd", "HH", "mm", "ss"]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DateField {
    /// `yyyy`: the year, 4 digits.
    Year,
    /// `MM`: the month, 01 to 12.
    Month,
    /// `dd`: the day of the month, 01 to 31.
    Day,
    /// `HH`: the hour, 00 to 23.
    Hour,
    /// `mm`: the minute, 00 to 59.
    Minute,
    /// `ss`: the second, 00 to 59.
    Second,
}

impl DateField {
    /// Every field, most significant first.
    ///
    /// ```
    /// use tablekit_rules::DateField;
    /// assert!(DateField::ALL.windows(2).all(|w| w[0] < w[1]));
    /// ```
    pub const ALL: [DateField; 6] = [
        DateField::Year,
        DateField::Month,
        DateField::Day,
        DateField::Hour,
        DateField::Minute,
        DateField::Second,
    ];

    /// How the field is written in a pattern.
    ///
    /// ```
    /// assert_eq!(tablekit_rules::DateField::Minute.token(), "mm");
    /// ```
    pub const fn token(self) -> &'static str {
        match self {
            DateField::Year => "yyyy",
            DateField::Month => "MM",
            DateField::Day => "dd",
            DateField::Hour => "HH",
            DateField::Minute => "mm",
            DateField::Second => "ss",
        }
    }
}

/// One piece of a date pattern.
///
/// ```
/// use tablekit_rules::{DateField, DatePattern, DatePiece};
/// let pattern = DatePattern::parse("yyyy-MM")?;
/// let pieces: Vec<DatePiece> = pattern.pieces().collect();
/// assert_eq!(
///     pieces,
///     [DatePiece::Field(DateField::Year), DatePiece::Literal('-'), DatePiece::Field(DateField::Month)]
/// );
/// # Ok::<(), tablekit_rules::DatePatternError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DatePiece {
    /// A field, written as digits.
    Field(DateField),
    /// A character written as it is.
    Literal(char),
}

/// Why a text is not a date pattern.
///
/// ```
/// use tablekit_rules::{DatePattern, DatePatternError};
/// assert_eq!(DatePattern::parse("YYYY"), Err(DatePatternError::Unknown('Y')));
/// assert_eq!(DatePattern::parse("yyyy/MM"), Err(DatePatternError::ForbiddenKeyChar('/')));
/// assert_eq!(DatePattern::parse("--"), Err(DatePatternError::NoField));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DatePatternError {
    /// No field at all: every key part would be the same text.
    NoField,
    /// A letter (or `%`) that starts no field: patterns are case-sensitive (`MM` is the month,
    /// `mm` the minute) and a letter is never written as it is.
    Unknown(char),
    /// A separator keys cannot hold ([`is_forbidden_key_char`]).
    ForbiddenKeyChar(char),
}

impl fmt::Display for DatePatternError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DatePatternError::NoField => f.write_str(
                "a date pattern holds at least one of `yyyy`, `MM`, `dd`, `HH`, `mm`, `ss`",
            ),
            DatePatternError::Unknown(c) => write!(
                f,
                "`{c}` starts none of the date fields `yyyy`, `MM`, `dd`, `HH`, `mm`, `ss`"
            ),
            DatePatternError::ForbiddenKeyChar(c) => {
                write!(f, "a key cannot hold the separator {c:?}")
            }
        }
    }
}

impl core::error::Error for DatePatternError {}

/// A checked date pattern: the fields `yyyy`, `MM`, `dd`, `HH`, `mm`, `ss` (at least one)
/// between separators, which are any characters but letters, `%` and those keys forbid.
///
/// ```
/// use tablekit_rules::DatePattern;
/// let day = DatePattern::parse("yyyyMMdd")?;
/// assert_eq!(day.as_str(), "yyyyMMdd");
/// assert!(day.sorts_by_time());
/// # Ok::<(), tablekit_rules::DatePatternError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DatePattern<'a> {
    text: &'a str,
}

impl<'a> DatePattern<'a> {
    /// Checks `text`: the first problem found, reading from the left.
    ///
    /// ```
    /// use tablekit_rules::{DatePattern, DatePatternError};
    /// assert!(DatePattern::parse("yyyy-MM-dd HH:mm:ss").is_ok());
    /// assert_eq!(DatePattern::parse("yyyyMMDD"), Err(DatePatternError::Unknown('D')));
    /// assert_eq!(DatePattern::parse(""), Err(DatePatternError::NoField));
    /// ```
    pub fn parse(text: &'a str) -> Result<Self, DatePatternError> {
        let mut any_field = false;
        let mut rest = text;
        while let Some((piece, after)) = next_piece(rest) {
            match piece {
                DatePiece::Field(_) => any_field = true,
                DatePiece::Literal(c) if c.is_alphabetic() || c == '%' => {
                    return Err(DatePatternError::Unknown(c))
                }
                DatePiece::Literal(c) if is_forbidden_key_char(c) => {
                    return Err(DatePatternError::ForbiddenKeyChar(c))
                }
                DatePiece::Literal(_) => {}
            }
            rest = after;
        }
        match any_field {
            true => Ok(DatePattern { text }),
            false => Err(DatePatternError::NoField),
        }
    }

    /// The pattern as written.
    ///
    /// ```
    /// let pattern = tablekit_rules::DatePattern::parse("yyyy")?;
    /// assert_eq!(pattern.as_str(), "yyyy");
    /// # Ok::<(), tablekit_rules::DatePatternError>(())
    /// ```
    pub const fn as_str(&self) -> &'a str {
        self.text
    }

    /// The pattern's fields and separators, in order.
    ///
    /// ```
    /// use tablekit_rules::{DateField, DatePattern, DatePiece};
    /// let pattern = DatePattern::parse("HH:mm")?;
    /// assert_eq!(pattern.pieces().count(), 3);
    /// assert_eq!(pattern.pieces().next(), Some(DatePiece::Field(DateField::Hour)));
    /// # Ok::<(), tablekit_rules::DatePatternError>(())
    /// ```
    pub fn pieces(&self) -> DatePieces<'a> {
        DatePieces { rest: self.text }
    }

    /// Whether keys written with the pattern sort as their times do: its fields are `yyyy`
    /// and then each next finer field with none skipped or repeated (`yyyy`, `yyyyMM`,
    /// `yyyy-MM-dd HH`, ...). Every field is fixed width (years 1 to 9999 have 4 digits), so
    /// text order is then time order; `ddMMyyyy` or `yyyydd` sort otherwise.
    ///
    /// ```
    /// use tablekit_rules::DatePattern;
    /// assert!(DatePattern::parse("yyyy-MM-dd HH:mm")?.sorts_by_time());
    /// assert!(!DatePattern::parse("ddMMyyyy")?.sorts_by_time());
    /// assert!(!DatePattern::parse("yyyydd")?.sorts_by_time()); // 31 January after 1 February
    /// # Ok::<(), tablekit_rules::DatePatternError>(())
    /// ```
    pub fn sorts_by_time(&self) -> bool {
        let mut expected = DateField::ALL.iter();
        self.pieces().all(|piece| match piece {
            DatePiece::Field(field) => expected.next() == Some(&field),
            DatePiece::Literal(_) => true,
        })
    }
}

impl fmt::Display for DatePattern<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text)
    }
}

/// The pieces of a [`DatePattern`], from [`DatePattern::pieces`].
///
/// ```
/// use tablekit_rules::{DatePattern, DatePiece};
/// let pattern = DatePattern::parse("[yyyy]")?;
/// let literals = pattern.pieces().filter(|p| matches!(p, DatePiece::Literal(_))).count();
/// assert_eq!(literals, 2);
/// # Ok::<(), tablekit_rules::DatePatternError>(())
/// ```
#[derive(Clone, Debug)]
pub struct DatePieces<'a> {
    rest: &'a str,
}

impl Iterator for DatePieces<'_> {
    type Item = DatePiece;

    fn next(&mut self) -> Option<DatePiece> {
        let (piece, rest) = next_piece(self.rest)?;
        self.rest = rest;
        Some(piece)
    }
}

/// The piece `text` starts with (the longest field token first, so `yyyy` is one year), and
/// the text after it.
fn next_piece(text: &str) -> Option<(DatePiece, &str)> {
    for field in DateField::ALL {
        if let Some(after) = text.strip_prefix(field.token()) {
            return Some((DatePiece::Field(field), after));
        }
    }
    let c = text.chars().next()?;
    Some((
        DatePiece::Literal(c),
        text.get(c.len_utf8()..).unwrap_or_default(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorting_patterns_are_the_fields_from_the_year_down() {
        for ordered in [
            "yyyy",
            "yyyyMM",
            "yyyyMMdd",
            "yyyy-MM-dd HH:mm:ss",
            "[yyyy]",
        ] {
            let pattern = DatePattern::parse(ordered).unwrap();
            assert!(pattern.sorts_by_time(), "{ordered}");
        }
        for unordered in [
            "MM",
            "ddMMyyyy",
            "yyyydd",
            "yyyyMMyyyy",
            "yyyyMMddmm",
            "HHmm",
        ] {
            let pattern = DatePattern::parse(unordered).unwrap();
            assert!(!pattern.sorts_by_time(), "{unordered}");
        }
    }

    #[test]
    fn a_letter_outside_a_field_is_refused_where_it_stands() {
        assert_eq!(
            DatePattern::parse("yyyyy"),
            Err(DatePatternError::Unknown('y'))
        );
        assert_eq!(
            DatePattern::parse("%Y"),
            Err(DatePatternError::Unknown('%'))
        );
        assert_eq!(
            DatePattern::parse("yyyyé"),
            Err(DatePatternError::Unknown('é'))
        );
        assert_eq!(
            DatePattern::parse("yyyy\u{85}"),
            Err(DatePatternError::ForbiddenKeyChar('\u{85}'))
        );
        assert!(DatePattern::parse("yyyy·MM☃").is_ok());
    }
}
