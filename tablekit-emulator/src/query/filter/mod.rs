//! The OData `$filter` language of the Table service: a lexer, a parser and an evaluator.
//!
//! The emulator answers queries with it, so it follows the service rather than OData in
//! general: the operators `eq ne gt ge lt le and or not`, parentheses, literals `'text'` (with
//! `''` for a quote), `123` (Int32), `123L` (Int64), `1.5`, `NaN`, `INF`, `-INF` (Double),
//! `true`/`false`, `datetime'...'`, `guid'...'`, `X'hex'` / `binary'hex'`. A literal must be
//! valid for its type: `5454161346626` is refused (an Int32 out of range; Int64 is written
//! `5454161346626L`), as are `1e999` and `datetime'yesterday'`. A comparison holds only
//! between values of the same EDM type, and a missing property never matches; Doubles
//! compare as IEEE 754 says (NaN is unordered: only `ne` holds with it). There are no
//! functions (`startswith` is an error, as on the service), and at most 15 comparisons.
//!
//! ```
//! use tablekit::DynamicEntity;
//! use tablekit_emulator::filter::ParsedFilter;
//!
//! let mut e = DynamicEntity::new("p", "r");
//! e.set("Score", 30);
//! let f = ParsedFilter::parse("PartitionKey eq 'p' and Score ge 20 and Score le 40")?;
//! assert!(f.matches(&e));
//! assert!(!ParsedFilter::parse("Score eq 30L")?.matches(&e)); // Int64 literal, Int32 property
//! # Ok::<(), tablekit_emulator::filter::FilterError>(())
//! ```

mod eval;
mod lexer;
mod parser;
mod range;

use std::fmt;

use tablekit::{DynamicEntity, EdmType};

pub(crate) use eval::{compare_by_field, compare_field, Prefetch};
pub use eval::{Comparison, Field, Subject};
pub(crate) use range::KeyRange;
/// The service's order of keys (see [`tablekit::value::utf16_cmp`]).
pub use tablekit::value::utf16_cmp;

/// A parsed `$filter`.
///
/// ```
/// use tablekit_emulator::filter::ParsedFilter;
/// assert!(ParsedFilter::parse("(A eq 1) or not B").is_ok());
/// assert!(ParsedFilter::parse("A eq").is_err());
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ParsedFilter {
    expr: parser::Expr,
}

impl ParsedFilter {
    /// Parses filter text (already URL-decoded).
    ///
    /// ```
    /// use tablekit::DynamicEntity;
    /// use tablekit_emulator::filter::ParsedFilter;
    /// let f = ParsedFilter::parse("PartitionKey eq 'O''Brien' and Score ge 10L")?;
    /// let mut e = DynamicEntity::new("O'Brien", "");
    /// e.set("Score", 12i64);
    /// assert!(f.matches(&e));
    /// // As on the service, there are no functions.
    /// assert!(ParsedFilter::parse("startswith(PartitionKey, 'O')").is_err());
    /// # Ok::<(), tablekit_emulator::filter::FilterError>(())
    /// ```
    pub fn parse(text: &str) -> Result<ParsedFilter, FilterError> {
        let (tokens, offsets) = lexer::tokenize_at(text)?;
        let expr = parser::parse(&tokens, &offsets, text.len())?;
        Ok(ParsedFilter { expr })
    }

    /// Whether the filter holds for `subject`.
    ///
    /// ```
    /// use tablekit::DynamicEntity;
    /// use tablekit_emulator::filter::ParsedFilter;
    /// let e = DynamicEntity::new("a", "1");
    /// assert!(ParsedFilter::parse("'a' eq PartitionKey")?.matches(&e));
    /// assert!(!ParsedFilter::parse("RowKey eq 1")?.matches(&e));
    /// # Ok::<(), tablekit_emulator::filter::FilterError>(())
    /// ```
    pub fn matches(&self, subject: &dyn Subject) -> bool {
        eval::eval(&self.expr, subject)
    }

    /// Starts loading the properties [`matches`](Self::matches) will read from `entity`, so
    /// that a scan can ask for them a few entities ahead.
    pub(crate) fn prefetch(&self, entity: &impl Prefetch) {
        eval::prefetch(&self.expr, entity);
    }

    /// How the service finds this filter's matches, from the key bounds of its top-level
    /// `and` conjuncts: the plan of hand-written filter text, which
    /// [`Query::plan`](tablekit::Query::plan) reports as unknown.
    ///
    /// ```
    /// use tablekit::query_plan::QueryPlan;
    /// use tablekit_emulator::filter::ParsedFilter;
    /// let plan = ParsedFilter::parse("PartitionKey eq 'eu' and Score ge 10")?.plan();
    /// assert_eq!(plan, QueryPlan::Partition { partition_key: "eu".into() });
    /// assert!(ParsedFilter::parse("Score ge 10")?.plan().is_table_scan());
    /// # Ok::<(), tablekit_emulator::filter::FilterError>(())
    /// ```
    pub fn plan(&self) -> tablekit::query_plan::QueryPlan {
        self.key_range().plan()
    }

    /// The keys every match lies within, from the filter's top-level `and` conjuncts: lets
    /// a query seek instead of scanning the table.
    pub(crate) fn key_range(&self) -> KeyRange {
        range::key_range(&self.expr)
    }
}

/// A filter the service would reject with 400 InvalidInput.
///
/// A literal the service cannot read as its type is worded as the service words it (quoted
/// in public Azure Storage Explorer and azure-storage-node issue threads); other errors say
/// where the problem is.
///
/// ```
/// use tablekit_emulator::filter::ParsedFilter;
/// let err = ParsedFilter::parse("A eq 'open").unwrap_err();
/// assert_eq!(err.to_string(), "invalid $filter at 5: unterminated string literal");
/// let err = ParsedFilter::parse("L eq 5454161346626").unwrap_err(); // Int32 without `L`
/// assert_eq!(err.to_string(), "Unrecognized 'Edm.Int32' literal '5454161346626'");
/// assert_eq!(err.position(), 5);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FilterError {
    position: usize,
    message: String,
    /// Whether `message` is the service's own wording, which `Display` gives as it is.
    verbatim: bool,
}

impl FilterError {
    pub(crate) fn new(position: usize, message: impl Into<String>) -> Self {
        FilterError {
            position,
            message: message.into(),
            verbatim: false,
        }
    }

    /// The literal `written` at `position`, which does not read as `edm_type` (out of range,
    /// or not that type's text).
    pub(crate) fn unrecognized_literal(position: usize, edm_type: EdmType, written: &str) -> Self {
        FilterError {
            position,
            message: format!(
                "Unrecognized '{}' literal '{written}'",
                edm_type.odata_name()
            ),
            verbatim: true,
        }
    }

    /// Where in the filter's text (a byte offset) the problem is: the token that cannot
    /// stand there, or the text's end when something is missing.
    ///
    /// ```
    /// use tablekit_emulator::filter::ParsedFilter;
    /// assert_eq!(ParsedFilter::parse("Score ge").unwrap_err().position(), 8);
    /// assert_eq!(ParsedFilter::parse("Score ge 1 1").unwrap_err().position(), 11);
    /// assert_eq!(ParsedFilter::parse("A eq 'open").unwrap_err().position(), 5);
    /// ```
    pub fn position(&self) -> usize {
        self.position
    }

    /// What is wrong, without the position.
    ///
    /// ```
    /// use tablekit_emulator::filter::ParsedFilter;
    /// let err = ParsedFilter::parse("A eq 'open").unwrap_err();
    /// assert_eq!(err.message(), "unterminated string literal");
    /// ```
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for FilterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.verbatim {
            f.write_str(&self.message)
        } else {
            write!(f, "invalid $filter at {}: {}", self.position, self.message)
        }
    }
}

impl std::error::Error for FilterError {}

impl Subject for DynamicEntity {
    fn field(&self, name: &str) -> Option<Field<'_>> {
        self.field_near(name, 0).map(|(field, _)| field)
    }

    fn field_near(&self, name: &str, hint: usize) -> Option<(Field<'_>, usize)> {
        let system = match name {
            "PartitionKey" => Field::Text(self.partition_key()),
            "RowKey" => Field::Text(self.row_key()),
            "Timestamp" => Field::Time(self.timestamp()?),
            _ => {
                let at = match self.property_at(hint) {
                    Some((found, _)) if found == name => hint,
                    _ => self.position(name)?,
                };
                let (_, value) = self.property_at(at)?;
                return Some((Field::Value(value), at));
            }
        };
        Some((system, hint))
    }
}

#[cfg(test)]
mod tests;
