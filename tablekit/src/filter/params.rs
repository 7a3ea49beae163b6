//! Named values for hand-written filter text, and [`ParamError`]: why they do not fit it.
//!
//! Below the filter and limits modules so that both can name the error: a filter binds the
//! values into its text, and limits reports a misfit as input the service would refuse.
//!
//! ```
//! use tablekit::filter::{bind_params, ParamError, Params};
//! let params = Params::new().bind("tag", "O'Brien").bind("min", 20);
//! assert_eq!(
//!     bind_params("Tag eq @tag and Score ge @min", params)?,
//!     "Tag eq 'O''Brien' and Score ge 20"
//! );
//! let unused = bind_params("Tag eq 'x'", [("tag", "x")]).unwrap_err();
//! assert_eq!(unused, ParamError::Unused { name: "tag".into() });
//! # Ok::<(), ParamError>(())
//! ```

use crate::values::convert::IntoValue;
use crate::values::value::{EdmType, Value};

/// Named values of mixed types for [`Filter::raw_with`](crate::Filter::raw_with),
/// [`bind_params`](crate::filter::bind_params) and `Query::filter_raw_with`.
///
/// ```
/// use tablekit::filter::{bind_params, Params};
/// let params = Params::new().bind("tag", "Ann").bind("min", 20i64).bind("active", true);
/// let text = bind_params("Tag eq @tag and Score ge @min and Active eq @active", params)?;
/// assert_eq!(text, "Tag eq 'Ann' and Score ge 20L and Active eq true");
/// # Ok::<(), tablekit::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Params {
    values: Vec<(String, Option<Value>)>,
}

impl Params {
    /// No values yet.
    pub fn new() -> Self {
        Params::default()
    }

    /// Adds the value of placeholder `@name` (the name is given without its `@`).
    ///
    /// ```
    /// use chrono::{TimeZone, Utc};
    /// use tablekit::filter::{bind_params, Params};
    /// let day = Utc.with_ymd_and_hms(2024, 5, 1, 0, 0, 0).unwrap();
    /// let params = Params::new().bind("day", day).bind("id", uuid::Uuid::nil());
    /// let text = bind_params("At ge @day and Id ne @id", params)?;
    /// assert_eq!(
    ///     text,
    ///     "At ge datetime'2024-05-01T00:00:00.0000000Z' \
    ///      and Id ne guid'00000000-0000-0000-0000-000000000000'"
    /// );
    /// # Ok::<(), tablekit::Error>(())
    /// ```
    pub fn bind(mut self, name: impl Into<String>, value: impl IntoValue) -> Self {
        self.values.push((name.into(), value.into_value()));
        self
    }
}

impl IntoIterator for Params {
    type Item = (String, Option<Value>);
    type IntoIter = std::vec::IntoIter<(String, Option<Value>)>;

    fn into_iter(self) -> Self::IntoIter {
        self.values.into_iter()
    }
}

/// Why the parameters of a hand-written filter do not fit its text. Input the service would
/// refuse, so it converts into [`InvalidInput::FilterParameter`](crate::InvalidInput) (and
/// from there into [`Error::InvalidInput`](crate::Error::InvalidInput)).
///
/// ```
/// use tablekit::filter::{bind_params, ParamError};
/// use tablekit::Error;
/// let problem = bind_params("A eq @a", [("b", 1)]).unwrap_err();
/// assert_eq!(problem, ParamError::Missing { name: "a".into() });
/// assert_eq!(problem.to_string(), "`@a` has no value");
/// let err = Error::from(problem);
/// assert!(err.is_invalid_input());
/// assert_eq!(err.to_string(), "invalid filter parameters: `@a` has no value");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParamError {
    /// The text holds `@name` but no value has that name.
    #[error("`@{name}` has no value")]
    Missing {
        /// The placeholder's name.
        name: String,
    },
    /// A value whose placeholder the text never holds (a misspelt name, say).
    #[error("the value of `@{name}` is never used")]
    Unused {
        /// The value's name.
        name: String,
    },
    /// Two values with one name.
    #[error("`@{name}` is given twice")]
    Duplicate {
        /// The name.
        name: String,
    },
    /// A name that is not an ASCII letter or `_` followed by letters, digits and `_` (a value's
    /// name as given, or a placeholder as written, with its `@`).
    #[error("invalid parameter name `{name}`: a name is an ASCII letter or `_` followed by letters, digits and `_`, given without its `@`")]
    InvalidName {
        /// The name.
        name: String,
    },
    /// A `None` value: the filter language has no null, so no literal can stand for it.
    #[error("the value of `@{name}` is `None`, which no filter literal can stand for")]
    NoValue {
        /// The value's name.
        name: String,
    },
    /// A string literal of the text that is never closed, so where placeholders are is unclear.
    #[error("the string literal at byte {position} of the filter is never closed")]
    UnclosedLiteral {
        /// The byte offset of its opening quote.
        position: usize,
    },
    /// A number of the text that its type cannot hold: a number without a suffix is an Int32
    /// (`5454161346626` is out of range: an Int64 is written `5454161346626L`), one with `L`
    /// an Int64, one with a `.` or an exponent a finite Double. The service refuses it with
    /// 400 InvalidInput "Unrecognized 'Edm.Int32' literal '…'".
    ///
    /// ```
    /// use tablekit::filter::{bind_params, ParamError};
    /// use tablekit::EdmType;
    /// let err = bind_params("Id eq 5454161346626 and Tag eq @tag", [("tag", "a")]).unwrap_err();
    /// assert_eq!(
    ///     err,
    ///     ParamError::UnrecognizedLiteral {
    ///         literal: "5454161346626".into(),
    ///         edm_type: EdmType::Int32,
    ///         position: 6,
    ///     }
    /// );
    /// ```
    #[error(
        "`{literal}` at byte {position} of the filter is not a valid {edm_type} literal{}",
        how_to_write(*.edm_type, .literal)
    )]
    UnrecognizedLiteral {
        /// The number as written.
        literal: String,
        /// The type its text gives it.
        edm_type: EdmType,
        /// The byte offset where it starts.
        position: usize,
    },
}

/// How to write what an unrecognized literal likely meant.
fn how_to_write(edm_type: EdmType, literal: &str) -> String {
    match edm_type {
        EdmType::Int32 => {
            format!(": a number without `L` is an Int32, so write an Int64 as `{literal}L`")
        }
        EdmType::Double => {
            ": a Double literal is finite (infinities are written `INF` and `-INF`)".to_owned()
        }
        _ => String::new(),
    }
}

/// One named value and whether the text used it.
pub(crate) struct NamedValue {
    pub(crate) name: String,
    pub(crate) value: Value,
    pub(crate) used: bool,
}

/// The values, each name checked and given once, each value present.
pub(crate) fn named_values<N, V>(
    params: impl IntoIterator<Item = (N, V)>,
) -> Result<Vec<NamedValue>, ParamError>
where
    N: AsRef<str>,
    V: IntoValue,
{
    let mut out: Vec<NamedValue> = Vec::new();
    for (name, value) in params {
        let name = name.as_ref().to_owned();
        if !is_param_name(&name) {
            return Err(ParamError::InvalidName { name });
        }
        if out.iter().any(|v| v.name == name) {
            return Err(ParamError::Duplicate { name });
        }
        let Some(value) = value.into_value() else {
            return Err(ParamError::NoValue { name });
        };
        out.push(NamedValue {
            name,
            value,
            used: false,
        });
    }
    Ok(out)
}

/// An ASCII letter or `_`, then ASCII letters, digits and `_`.
pub(crate) fn is_param_name(name: &str) -> bool {
    name.bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && name.bytes().all(is_name_byte)
}

/// A byte of a parameter name.
pub(crate) fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}
