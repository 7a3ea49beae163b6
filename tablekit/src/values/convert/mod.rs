//! Mapping Rust types to and from [`Value`]: [`IntoValue`] and [`FromValue`].
//!
//! Reads are tolerant where no information is lost (an `Int32` reads as `i64`, an `Int64` reads
//! as `i32` when it fits) and report a [`ValueError`] otherwise; they never panic.
//! Implement both traits to store a type of your own.
//!
//! ```
//! use tablekit::{FromValue, IntoValue, Value, ValueError};
//!
//! struct Celsius(f64);
//! impl IntoValue for Celsius {
//!     fn into_value(self) -> Option<Value> { Some(Value::Double(self.0)) }
//! }
//! impl FromValue for Celsius {
//!     fn from_value(value: &Value) -> Result<Self, ValueError> {
//!         f64::from_value(value).map(Celsius)
//!     }
//! }
//! let mut e = tablekit::DynamicEntity::new("pk", "rk");
//! e.set("Temp", Celsius(21.5));
//! assert_eq!(e.get::<Celsius>("Temp").map(|c| c.0), Some(21.5));
//! ```

use smol_str::SmolStr;
use uuid::Uuid;

use crate::values::value::{EdmType, Value};

#[cfg(feature = "decimal")]
mod decimal;
mod numbers;
#[cfg(feature = "time")]
mod offset_date_time;
mod times;

/// Why a stored value could not be read as the requested Rust type.
///
/// ```
/// use tablekit::{DynamicEntity, ValueError};
/// let mut e = DynamicEntity::new("p", "r");
/// e.set("Flag", true);
/// let err = e.try_get::<i32>("Flag").unwrap_err();
/// assert!(matches!(err.source, ValueError::TypeMismatch { .. }));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ValueError {
    /// The stored type cannot represent the requested type.
    #[error("expected {expected}, found {found}")]
    TypeMismatch {
        /// What the Rust type reads.
        expected: &'static str,
        /// The EDM type that is stored.
        found: EdmType,
    },
    /// The stored number does not fit the requested type.
    #[error("value {value} is out of range for `{target}`")]
    OutOfRange {
        /// The stored number, as text.
        value: String,
        /// The Rust type asked for.
        target: &'static str,
    },
    /// The stored value is of the right type but not a valid value of the Rust type
    /// (an unknown enum discriminant, say).
    #[error("{0}")]
    Invalid(String),
    /// The property was not fetched: the query that read the entity selected others, so
    /// whether it is stored, and with what value, is unknown.
    #[error("not fetched: the query that read this entity selected other properties")]
    NotSelected,
}

impl ValueError {
    /// A type mismatch between what `expected` reads and the stored `value`.
    pub fn mismatch(expected: &'static str, value: &Value) -> Self {
        ValueError::TypeMismatch {
            expected,
            found: value.edm_type(),
        }
    }
}

/// A Rust value that can be stored as a property. `None` means "no property": setting it
/// removes the property, because the service never stores a null.
///
/// How each type is stored, and what reading it back checks:
///
/// | Rust type | stored as | notes |
/// |---|---|---|
/// | `bool`, `String`/`&str`, `Vec<u8>`/`&[u8]`, `Uuid` | `Boolean`, `String`, `Binary`, `Guid` | |
/// | `i8`, `i16`, `i32`, `u8`, `u16` | `Int32` | reads accept `Int64` in range; out of range is an error |
/// | `u32` | `Int64` | reads `Int32` too; a value written as `Int32` before is not found by filters until rewritten |
/// | `i64`, `isize` | `Int64` | |
/// | `u64`, `usize` | `Int64`, the bit pattern above `i64::MAX` | reads back exactly; no ordering in filters |
/// | `f64`, `f32` | `Double` | an `f32` reads the nearest value; beyond its range is an error |
/// | `DateTime<Utc>` | `DateTime` | to 100 ns, the service's precision |
/// | `DateTime<FixedOffset>`, `NaiveDateTime` | `DateTime`, the instant in UTC | the offset is not stored: reads back at `+00:00` |
/// | `NaiveDate` | `DateTime` at midnight UTC | a stored time of day is an error when read as a date |
/// | `chrono::TimeDelta`, `std::time::Duration` | `Int64` nanoseconds | exact; beyond ±292 years exact text; no ordering in filters |
/// | `rust_decimal::Decimal` (feature `decimal`) | `String`, scale kept (`"12.50"`) | exact; sorts as text, so no ordering in filters |
/// | `time::OffsetDateTime` (feature `time`) | `DateTime`, the instant in UTC | as `DateTime<FixedOffset>` |
///
/// Durations are nanoseconds rather than .NET's 100 ns ticks because ticks would cut every
/// duration that is not a whole number of them.
///
/// ```
/// use tablekit::{IntoValue, Value};
/// assert_eq!(5u32.into_value(), Some(Value::Int64(5))); // one EDM type per Rust type
/// assert_eq!(None::<i32>.into_value(), None);
/// assert_eq!(7u8.into_value(), Some(Value::Int32(7)));
/// assert_eq!(std::time::Duration::from_millis(2).into_value(), Some(Value::Int64(2_000_000)));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be stored as a table property",
    note = "implement `tablekit::IntoValue` for it, or store one of: bool, an integer (i8 to i64, u8 to u64, isize, usize), f32, f64, String, &str, Vec<u8>, &[u8], a chrono date or time, TimeDelta, Duration, Uuid, Option<T>"
)]
pub trait IntoValue {
    /// The value to store, or `None` to leave the property absent.
    ///
    /// ```
    /// use tablekit::{IntoValue, Value};
    /// assert_eq!(7i64.into_value(), Some(Value::Int64(7)));
    /// assert_eq!(u32::MAX.into_value(), Some(Value::Int64(4_294_967_295))); // every u32 is Int64
    /// assert_eq!("Ann".into_value(), Some(Value::String("Ann".into())));
    /// assert_eq!(None::<String>.into_value(), None);
    /// ```
    fn into_value(self) -> Option<Value>;
}

/// A Rust value that can be read from a stored property.
///
/// ```
/// use tablekit::{FromValue, Value};
/// assert_eq!(i64::from_value(&Value::Int32(5)), Ok(5));
/// assert!(bool::from_value(&Value::Int32(5)).is_err());
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be read from a table property",
    note = "implement `tablekit::FromValue` for it, or read one of: bool, an integer (i8 to i64, u8 to u64, isize, usize), f32, f64, String, Vec<u8>, a chrono date or time, TimeDelta, Duration, Uuid, Option<T>"
)]
pub trait FromValue: Sized {
    /// Reads the value, reporting a type mismatch or an out-of-range number.
    ///
    /// ```
    /// use tablekit::{EdmType, FromValue, Value, ValueError};
    /// assert_eq!(i32::from_value(&Value::Int64(7)), Ok(7));
    /// let big = i32::from_value(&Value::Int64(1 << 40));
    /// assert!(matches!(big, Err(ValueError::OutOfRange { target: "i32", .. })));
    /// let text = i32::from_value(&Value::String("7".into()));
    /// assert!(matches!(text, Err(ValueError::TypeMismatch { found: EdmType::String, .. })));
    /// ```
    fn from_value(value: &Value) -> Result<Self, ValueError>;

    /// What an absent property reads as, when that is a value rather than "nothing"
    /// (`Option<T>` reads an absent property as `None`).
    ///
    /// ```
    /// use tablekit::{DynamicEntity, FromValue};
    /// assert_eq!(i32::from_missing(), None); // an absent `i32` is nothing
    /// assert_eq!(<Option<i32>>::from_missing(), Some(None)); // an absent `Option` is `None`
    /// let e = DynamicEntity::new("p", "r");
    /// assert_eq!(e.try_get::<Option<i32>>("Score")?, Some(None));
    /// # Ok::<(), tablekit::Error>(())
    /// ```
    fn from_missing() -> Option<Self> {
        None
    }
}

impl IntoValue for Value {
    fn into_value(self) -> Option<Value> {
        Some(self)
    }
}

impl FromValue for Value {
    fn from_value(value: &Value) -> Result<Self, ValueError> {
        Ok(value.clone())
    }
}

impl<T: IntoValue> IntoValue for Option<T> {
    fn into_value(self) -> Option<Value> {
        self.and_then(IntoValue::into_value)
    }
}

impl<T: FromValue> FromValue for Option<T> {
    fn from_value(value: &Value) -> Result<Self, ValueError> {
        T::from_value(value).map(Some)
    }

    fn from_missing() -> Option<Self> {
        Some(None)
    }
}

impl IntoValue for bool {
    fn into_value(self) -> Option<Value> {
        Some(Value::Bool(self))
    }
}

impl FromValue for bool {
    fn from_value(value: &Value) -> Result<Self, ValueError> {
        match value {
            Value::Bool(b) => Ok(*b),
            other => Err(ValueError::mismatch("Edm.Boolean", other)),
        }
    }
}

impl IntoValue for String {
    fn into_value(self) -> Option<Value> {
        Some(Value::String(self.into()))
    }
}

impl IntoValue for &str {
    fn into_value(self) -> Option<Value> {
        Some(Value::String(self.into()))
    }
}

impl IntoValue for &String {
    fn into_value(self) -> Option<Value> {
        Some(Value::String(self.into()))
    }
}

impl FromValue for String {
    fn from_value(value: &Value) -> Result<Self, ValueError> {
        SmolStr::from_value(value).map(String::from)
    }
}

/// The type strings are stored as: reading one copies nothing (long strings are shared).
impl IntoValue for SmolStr {
    fn into_value(self) -> Option<Value> {
        Some(Value::String(self))
    }
}

impl FromValue for SmolStr {
    fn from_value(value: &Value) -> Result<Self, ValueError> {
        match value {
            Value::String(s) => Ok(s.clone()),
            other => Err(ValueError::mismatch("Edm.String", other)),
        }
    }
}

impl IntoValue for Vec<u8> {
    fn into_value(self) -> Option<Value> {
        Some(Value::Binary(self))
    }
}

impl IntoValue for &[u8] {
    fn into_value(self) -> Option<Value> {
        Some(Value::Binary(self.to_vec()))
    }
}

impl FromValue for Vec<u8> {
    fn from_value(value: &Value) -> Result<Self, ValueError> {
        match value {
            Value::Binary(b) => Ok(b.clone()),
            other => Err(ValueError::mismatch("Edm.Binary", other)),
        }
    }
}

impl IntoValue for Uuid {
    fn into_value(self) -> Option<Value> {
        Some(Value::Guid(self))
    }
}

impl FromValue for Uuid {
    fn from_value(value: &Value) -> Result<Self, ValueError> {
        match value {
            Value::Guid(g) => Ok(*g),
            other => Err(ValueError::mismatch("Edm.Guid", other)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mismatch_is_an_error_not_a_panic() {
        assert_eq!(
            bool::from_value(&Value::String("true".into())),
            Err(ValueError::TypeMismatch {
                expected: "Edm.Boolean",
                found: EdmType::String
            })
        );
    }

    #[test]
    fn none_is_no_value() {
        assert_eq!(Option::<i32>::None.into_value(), None);
        assert_eq!(Option::<i32>::from_missing(), Some(None));
        assert_eq!(i32::from_missing(), None);
    }
}
