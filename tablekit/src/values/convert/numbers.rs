//! Integers and floating-point numbers.
//!
//! The service has two integer types: every integer that always fits `Int32` is stored as
//! `Int32`, `u32` and every 64-bit one as `Int64`, so each Rust type is stored as one EDM type
//! and a filter's literal has the stored type. Reads accept either width and check the range,
//! so a value that does not fit is an [`OutOfRange`](ValueError::OutOfRange) error, never a
//! wrapped number.
//!
//! ```
//! use tablekit::{FromValue, IntoValue, Value, ValueError};
//! assert_eq!(200u8.into_value(), Some(Value::Int32(200)));
//! assert_eq!(u8::from_value(&Value::Int64(200)), Ok(200));
//! assert!(matches!(u8::from_value(&Value::Int32(300)), Err(ValueError::OutOfRange { target: "u8", .. })));
//! assert_eq!(1.5f32.into_value(), Some(Value::Double(1.5)));
//! ```

use super::{FromValue, IntoValue, ValueError};
use crate::values::value::Value;

/// An integer stored in either of the two integer types, as an `i64`.
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

/// Integers of up to 32 bits that always fit `Int32`: stored as `Int32`, read from either
/// integer type with a range check.
macro_rules! int32_types {
    ($($t:ty),+) => {$(
        impl IntoValue for $t {
            fn into_value(self) -> Option<Value> {
                Some(Value::Int32(i32::from(self)))
            }
        }

        impl FromValue for $t {
            fn from_value(value: &Value) -> Result<Self, ValueError> {
                narrow(stored_integer(value, "Edm.Int32")?, stringify!($t))
            }
        }
    )+};
}

int32_types!(i8, i16, i32, u8, u16);

impl IntoValue for i64 {
    fn into_value(self) -> Option<Value> {
        Some(Value::Int64(self))
    }
}

impl FromValue for i64 {
    fn from_value(value: &Value) -> Result<Self, ValueError> {
        stored_integer(value, "Edm.Int64")
    }
}

/// `u32` is stored as `Int64`, whatever its value: the service compares only values of one
/// type, so a column holding `Int32` below `i32::MAX` and `Int64` above could not be filtered
/// (rows missed, or the query refused). A read accepts `Int32` too, as written before.
impl IntoValue for u32 {
    fn into_value(self) -> Option<Value> {
        Some(Value::Int64(i64::from(self)))
    }
}

impl FromValue for u32 {
    fn from_value(value: &Value) -> Result<Self, ValueError> {
        narrow(stored_integer(value, "Edm.Int64")?, "u32")
    }
}

/// `u64` is stored as `Int64`, which holds values up to `i64::MAX`; a larger value is
/// stored as its two's-complement bit pattern and reads back exactly as `u64`.
impl IntoValue for u64 {
    fn into_value(self) -> Option<Value> {
        Some(Value::Int64(self as i64))
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

/// `isize` is stored as `Int64`; on a target narrower than 64 bits a read checks the range.
impl IntoValue for isize {
    fn into_value(self) -> Option<Value> {
        // `isize` is at most 64 bits on every target Rust supports.
        Some(Value::Int64(self as i64))
    }
}

impl FromValue for isize {
    fn from_value(value: &Value) -> Result<Self, ValueError> {
        narrow(stored_integer(value, "Edm.Int64")?, "isize")
    }
}

/// `usize` is stored as `u64` is (`Int64`, the bit pattern above `i64::MAX`); on a target
/// narrower than 64 bits a read checks the range.
impl IntoValue for usize {
    fn into_value(self) -> Option<Value> {
        (self as u64).into_value()
    }
}

impl FromValue for usize {
    fn from_value(value: &Value) -> Result<Self, ValueError> {
        let n = u64::from_value(value)?;
        usize::try_from(n).map_err(|_| ValueError::OutOfRange {
            value: n.to_string(),
            target: "usize",
        })
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

/// `f32` is stored as `Double` (exactly: every `f32` is a `f64`). A stored double reads as
/// the nearest `f32`, as `f32` arithmetic would give it; one beyond `f32`'s range is an
/// [`OutOfRange`](ValueError::OutOfRange) error rather than an infinity. Reading never
/// rewrites the stored value: a typed entity writes a property only when it is set.
impl IntoValue for f32 {
    fn into_value(self) -> Option<Value> {
        Some(Value::Double(f64::from(self)))
    }
}

impl FromValue for f32 {
    fn from_value(value: &Value) -> Result<Self, ValueError> {
        let d = f64::from_value(value).map_err(|_| ValueError::mismatch("Edm.Double", value))?;
        if d.is_finite() && d.abs() > f64::from(f32::MAX) {
            return Err(ValueError::OutOfRange {
                value: d.to_string(),
                target: "f32",
            });
        }
        Ok(d as f32)
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
            assert_eq!(
                usize::from_value(&(n as usize).into_value().unwrap()),
                Ok(n as usize)
            );
        }
        assert_eq!(u32::MAX.into_value(), Some(Value::Int64(u32::MAX as i64)));
        // one EDM type whatever the value; `Int32` as written before still reads
        assert_eq!(5u32.into_value(), Some(Value::Int64(5)));
        assert_eq!(u32::from_value(&Value::Int32(5)), Ok(5));
        assert_eq!(
            u32::from_value(&Value::Int64(u32::MAX as i64)),
            Ok(u32::MAX)
        );
        assert!(u32::from_value(&Value::Int32(-1)).is_err());
    }

    #[test]
    fn small_integers_are_int32_and_checked_on_read() {
        for (value, fits_u8, fits_i8) in [
            (0, true, true),
            (127, true, true),
            (200, true, false),
            (-1, false, true),
            (-129, false, false),
            (70_000, false, false),
        ] {
            let stored = Value::Int32(value);
            assert_eq!(u8::from_value(&stored).is_ok(), fits_u8, "{value}");
            assert_eq!(i8::from_value(&stored).is_ok(), fits_i8, "{value}");
        }
        assert_eq!(u16::MAX.into_value(), Some(Value::Int32(65_535)));
        assert_eq!(i16::MIN.into_value(), Some(Value::Int32(-32_768)));
        assert_eq!(i16::from_value(&Value::Int64(-32_768)), Ok(i16::MIN));
        assert!(matches!(
            u16::from_value(&Value::Int32(65_536)),
            Err(ValueError::OutOfRange { target: "u16", .. })
        ));
        assert!(matches!(
            u8::from_value(&Value::Double(1.0)),
            Err(ValueError::TypeMismatch {
                expected: "Edm.Int32",
                ..
            })
        ));
        assert_eq!(
            isize::from_value(&isize::MIN.into_value().unwrap()),
            Ok(isize::MIN)
        );
    }

    #[test]
    fn f32_round_trips_exactly_and_refuses_what_it_cannot_hold() {
        for x in [
            0.0f32,
            -0.0,
            0.1,
            f32::MAX,
            f32::MIN_POSITIVE,
            f32::INFINITY,
        ] {
            assert_eq!(f32::from_value(&x.into_value().unwrap()), Ok(x));
        }
        assert!(f32::from_value(&Value::Double(f64::NAN)).unwrap().is_nan());
        assert_eq!(f32::from_value(&Value::Double(0.1)), Ok(0.1f32));
        assert_eq!(f32::from_value(&Value::Int32(3)), Ok(3.0));
        assert!(matches!(
            f32::from_value(&Value::Double(1e300)),
            Err(ValueError::OutOfRange { target: "f32", .. })
        ));
        assert!(matches!(
            f32::from_value(&Value::Bool(true)),
            Err(ValueError::TypeMismatch {
                expected: "Edm.Double",
                ..
            })
        ));
    }
}
