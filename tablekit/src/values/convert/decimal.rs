//! `rust_decimal::Decimal` (the `decimal` feature): money that round-trips exactly.
//!
//! The service has no decimal type and a `Double` cannot hold 0.1, so a decimal is stored as
//! `String` in its canonical text, scale kept (`"12.50"` stays `"12.50"`). Text sorts as text,
//! not as a number (`"10" < "9"`), so decimal columns offer `eq` and `ne` but no ordering; for
//! range filters over money, store minor units in an `i64`.

use rust_decimal::Decimal;

use super::{FromValue, IntoValue, ValueError};
use crate::values::value::Value;

impl IntoValue for Decimal {
    fn into_value(self) -> Option<Value> {
        Some(Value::String(self.to_string().into()))
    }
}

/// Reads the text form (exactly: text with more digits than a `Decimal` holds is an error, not
/// rounded) and whole numbers stored as `Int32`/`Int64`; a `Double` is refused, as it may
/// already have lost the exact value.
impl FromValue for Decimal {
    fn from_value(value: &Value) -> Result<Self, ValueError> {
        match value {
            Value::String(text) => Decimal::from_str_exact(text).map_err(|e| {
                ValueError::Invalid(format!("`{text}` is not an exact `Decimal`: {e}"))
            }),
            Value::Int32(n) => Ok(Decimal::from(*n)),
            Value::Int64(n) => Ok(Decimal::from(*n)),
            other => Err(ValueError::mismatch("Edm.String", other)),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use super::*;

    #[test]
    fn decimals_round_trip_with_their_scale() {
        for text in [
            "0",
            "12.50",
            "-0.01",
            "79228162514264337593543950335",
            "0.0000000000000000000000000001",
        ] {
            let d = Decimal::from_str(text).unwrap();
            let stored = d.into_value().unwrap();
            assert_eq!(stored, Value::String(text.into()));
            let back = Decimal::from_value(&stored).unwrap();
            assert_eq!((back, back.scale()), (d, d.scale()));
        }
        assert_eq!(Decimal::from_value(&Value::Int64(7)), Ok(Decimal::from(7)));
        assert!(Decimal::from_value(&Value::Double(0.1)).is_err());
        assert!(matches!(
            Decimal::from_value(&Value::String("1.00000000000000000000000000001".into())),
            Err(ValueError::Invalid(_))
        ));
    }
}
