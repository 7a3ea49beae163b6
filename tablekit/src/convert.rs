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

use chrono::{DateTime, Utc};
use smol_str::SmolStr;
use uuid::Uuid;

use crate::value::{truncate_to_tick, EdmType, Value};

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
/// ```
/// use tablekit::{IntoValue, Value};
/// assert_eq!(5u32.into_value(), Some(Value::Int32(5)));
/// assert_eq!(None::<i32>.into_value(), None);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be stored as a table property",
    note = "implement `tablekit::IntoValue` for it, or store one of: bool, i32, i64, u32, u64, f64, String, &str, Vec<u8>, &[u8], DateTime<Utc>, Uuid, Option<T>"
)]
pub trait IntoValue {
    /// The value to store, or `None` to leave the property absent.
    ///
    /// ```
    /// use tablekit::{IntoValue, Value};
    /// assert_eq!(7i64.into_value(), Some(Value::Int64(7)));
    /// assert_eq!(u32::MAX.into_value(), Some(Value::Int64(4_294_967_295))); // too big for Int32
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
    note = "implement `tablekit::FromValue` for it, or read one of: bool, i32, i64, u32, u64, f64, String, Vec<u8>, DateTime<Utc>, Uuid, Option<T>"
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

impl IntoValue for i32 {
    fn into_value(self) -> Option<Value> {
        Some(Value::Int32(self))
    }
}

impl IntoValue for i64 {
    fn into_value(self) -> Option<Value> {
        Some(Value::Int64(self))
    }
}

/// `u32` is stored as `Int32` when it fits and as `Int64` otherwise, so no value is lost.
impl IntoValue for u32 {
    fn into_value(self) -> Option<Value> {
        Some(match i32::try_from(self) {
            Ok(small) => Value::Int32(small),
            Err(_) => Value::Int64(i64::from(self)),
        })
    }
}

/// `u64` is stored as `Int64`, which holds values up to `i64::MAX`; a larger value is
/// stored as its two's-complement bit pattern and reads back exactly as `u64`.
impl IntoValue for u64 {
    fn into_value(self) -> Option<Value> {
        Some(Value::Int64(self as i64))
    }
}

/// An integer stored in any of the two integer types, as an `i64`.
fn stored_integer(value: &Value, target: &'static str) -> Result<i64, ValueError> {
    match value {
        Value::Int32(n) => Ok(i64::from(*n)),
        Value::Int64(n) => Ok(*n),
        other => Err(ValueError::mismatch(target, other)),
    }
}

fn narrow<T: TryFrom<i64>>(n: i64, target: &'static str) -> Result<T, ValueError> {
    T::try_from(n).map_err(|_| ValueError::OutOfRange {
        value: n.to_string(),
        target,
    })
}

impl FromValue for i32 {
    fn from_value(value: &Value) -> Result<Self, ValueError> {
        narrow(stored_integer(value, "Edm.Int32")?, "i32")
    }
}

impl FromValue for i64 {
    fn from_value(value: &Value) -> Result<Self, ValueError> {
        stored_integer(value, "Edm.Int64")
    }
}

impl FromValue for u32 {
    fn from_value(value: &Value) -> Result<Self, ValueError> {
        narrow(stored_integer(value, "Edm.Int32")?, "u32")
    }
}

impl FromValue for u64 {
    fn from_value(value: &Value) -> Result<Self, ValueError> {
        match value {
            // The bit pattern written by `u64::into_value`.
            Value::Int64(n) => Ok(*n as u64),
            other => narrow(stored_integer(other, "Edm.Int64")?, "u64"),
        }
    }
}

impl IntoValue for f64 {
    fn into_value(self) -> Option<Value> {
        Some(Value::Double(self))
    }
}

impl FromValue for f64 {
    fn from_value(value: &Value) -> Result<Self, ValueError> {
        match value {
            Value::Double(d) => Ok(*d),
            // An Int32 converts exactly; a whole double once written without annotation
            // comes back as Int32.
            Value::Int32(n) => Ok(f64::from(*n)),
            other => Err(ValueError::mismatch("Edm.Double", other)),
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

/// Stored to the service's precision: anything below 100 ns is dropped.
impl IntoValue for DateTime<Utc> {
    fn into_value(self) -> Option<Value> {
        Some(Value::DateTime(truncate_to_tick(self)))
    }
}

impl FromValue for DateTime<Utc> {
    fn from_value(value: &Value) -> Result<Self, ValueError> {
        match value {
            Value::DateTime(t) => Ok(*t),
            other => Err(ValueError::mismatch("Edm.DateTime", other)),
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
    fn int32_widens_and_int64_narrows_only_in_range() {
        assert_eq!(i64::from_value(&Value::Int32(-7)), Ok(-7));
        assert_eq!(i32::from_value(&Value::Int64(42)), Ok(42));
        assert!(matches!(
            i32::from_value(&Value::Int64(1 << 40)),
            Err(ValueError::OutOfRange { target: "i32", .. })
        ));
    }

    #[test]
    fn unsigned_values_round_trip_without_loss() {
        for n in [0u64, 1, i64::MAX as u64, u64::MAX] {
            let v = n.into_value().unwrap();
            assert_eq!(u64::from_value(&v), Ok(n));
        }
        assert_eq!(u32::MAX.into_value(), Some(Value::Int64(u32::MAX as i64)));
        assert_eq!(
            u32::from_value(&Value::Int64(u32::MAX as i64)),
            Ok(u32::MAX)
        );
        assert!(u32::from_value(&Value::Int32(-1)).is_err());
    }

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
