//! One JSON property value plus its (optional) `@odata.type` to a [`Value`].
//!
//! The rules are the service's: Int64, Guid, DateTime and Binary travel as JSON strings; a JSON
//! integer without annotation is an Int32 (an Int64 when it does not fit: Azurite stores such
//! numbers), a JSON number with a fraction or exponent is a Double; a string without annotation
//! stays a string (nometadata gives no way to know better). Anything that does not fit its
//! annotation is an error, never a silently different value.

use std::borrow::Cow;

use base64::Engine;

use super::datetime::parse_datetime;
use crate::values::value::{smol_str, EdmType, Value};

/// A JSON value as the decoder met it, before its annotation (if any) gives it a type.
#[derive(Debug)]
pub(super) enum Scalar<'de> {
    /// `null`: the property is absent.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// An integer that fits `i64`.
    Int(i64),
    /// An integer above `i64::MAX`.
    UInt(u64),
    /// A number with a fraction or an exponent.
    Float(f64),
    /// A string, borrowed from the input when it holds no escapes.
    Str(Cow<'de, str>),
    /// An object or an array, which no property may hold.
    Nested,
}

/// Why a value cannot be read: the message of a `DecodeError`.
pub(super) type Reason = Cow<'static, str>;

/// The value of a JSON scalar typed by `edm`; `Ok(None)` for `null`.
#[inline(always)]
pub(super) fn to_value(scalar: Scalar<'_>, edm: Option<EdmType>) -> Result<Option<Value>, Reason> {
    let value = match scalar {
        Scalar::Null => return Ok(None),
        Scalar::Bool(b) => from_bool(b, edm)?,
        Scalar::Int(n) => from_int(n, edm)?,
        Scalar::UInt(n) => from_uint(n, edm)?,
        Scalar::Float(f) => from_float(f, edm)?,
        Scalar::Str(text) => match edm {
            // Untyped strings (most strings) are kept as they are, here rather than in a call.
            None => Value::String(smol_str(&text)),
            Some(edm) => from_text(&text, edm)?,
        },
        Scalar::Nested => return Err("nested objects and arrays are not allowed".into()),
    };
    Ok(Some(value))
}

/// Applies an annotation that came after its value (as in SDK request bodies): the value was
/// read untyped, so it is read again as `edm`.
pub(super) fn retype(value: Value, edm: EdmType) -> Result<Value, Reason> {
    match value {
        Value::String(s) => from_text(&s, edm),
        Value::Int32(n) => from_int(i64::from(n), Some(edm)),
        Value::Int64(n) => from_int(n, Some(edm)),
        Value::Double(f) => from_float(f, Some(edm)),
        Value::Bool(b) => from_bool(b, Some(edm)),
        // Untyped reads never produce these; an annotation cannot change them.
        other @ (Value::DateTime(_) | Value::Guid(_) | Value::Binary(_)) => {
            Err(mismatch(other.edm_type(), edm))
        }
    }
}

fn mismatch(found: impl std::fmt::Display, edm: EdmType) -> Reason {
    format!("a {found} value cannot be {edm}").into()
}

fn from_bool(b: bool, edm: Option<EdmType>) -> Result<Value, Reason> {
    match edm {
        None | Some(EdmType::Boolean) => Ok(Value::Bool(b)),
        Some(other) => Err(mismatch("JSON boolean", other)),
    }
}

fn from_int(n: i64, edm: Option<EdmType>) -> Result<Value, Reason> {
    match edm {
        None => Ok(i32::try_from(n).map_or(Value::Int64(n), Value::Int32)),
        Some(EdmType::Int32) => i32::try_from(n)
            .map(Value::Int32)
            .map_err(|_| format!("{n} is out of range for Edm.Int32").into()),
        // Whole numbers are exact in a double up to 2^53; beyond that the JSON text itself
        // would round the same way.
        Some(EdmType::Double) => Ok(Value::Double(n as f64)),
        Some(EdmType::Int64) => Err("an Edm.Int64 value must be a JSON string".into()),
        Some(other) => Err(mismatch("JSON number", other)),
    }
}

fn from_uint(n: u64, edm: Option<EdmType>) -> Result<Value, Reason> {
    if let Ok(small) = i64::try_from(n) {
        return from_int(small, edm);
    }
    match edm {
        // No integer type holds it: a JSON number that large can only be a double.
        None | Some(EdmType::Double) => Ok(Value::Double(n as f64)),
        Some(edm @ (EdmType::Int32 | EdmType::Int64)) => {
            Err(format!("{n} is out of range for {edm}").into())
        }
        Some(other) => Err(mismatch("JSON number", other)),
    }
}

fn from_float(f: f64, edm: Option<EdmType>) -> Result<Value, Reason> {
    match edm {
        None | Some(EdmType::Double) => Ok(Value::Double(f)),
        Some(other) => Err(mismatch("JSON number with a fraction", other)),
    }
}

fn from_text(text: &str, edm: EdmType) -> Result<Value, Reason> {
    let bad = |edm: EdmType| -> Reason { format!("{:?} is not a valid {edm}", clip(text)).into() };
    let value = match edm {
        EdmType::String => Value::String(smol_str(text)),
        EdmType::Int64 => Value::Int64(text.parse().map_err(|_| bad(edm))?),
        EdmType::Int32 => Value::Int32(text.parse().map_err(|_| bad(edm))?),
        EdmType::Double => Value::Double(parse_double(text).ok_or_else(|| bad(edm))?),
        EdmType::DateTime => Value::DateTime(parse_datetime(text).ok_or_else(|| bad(edm))?),
        EdmType::Guid => Value::Guid(uuid::Uuid::try_parse(text).map_err(|_| bad(edm))?),
        EdmType::Binary => Value::Binary(
            base64::engine::general_purpose::STANDARD
                .decode(text.as_bytes())
                .map_err(|_| bad(edm))?,
        ),
        EdmType::Boolean => match text {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => return Err(bad(edm)),
        },
    };
    Ok(value)
}

/// The start of a long text, for error messages (never the whole 32K string).
fn clip(text: &str) -> &str {
    const MAX: usize = 64;
    if text.len() <= MAX {
        return text;
    }
    let mut end = MAX;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.get(..end).unwrap_or_default()
}

/// A double as text: a JSON-style number or `NaN`, `Infinity`, `-Infinity` (the service's
/// spellings; `INF`/`-INF` as some writers emit).
pub(super) fn parse_double(s: &str) -> Option<f64> {
    match s {
        "NaN" => Some(f64::NAN),
        "Infinity" | "INF" => Some(f64::INFINITY),
        "-Infinity" | "-INF" => Some(f64::NEG_INFINITY),
        // Rust's parser also takes "inf"/"nan" spellings; only digits are expected here.
        other if other.bytes().any(|b| b.is_ascii_digit()) => other.parse().ok(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_type_by_size_and_annotation() {
        assert_eq!(to_value(Scalar::Int(5), None), Ok(Some(Value::Int32(5))));
        assert_eq!(
            to_value(Scalar::Int(3_000_000_000), None),
            Ok(Some(Value::Int64(3_000_000_000)))
        );
        assert!(to_value(Scalar::Int(3_000_000_000), Some(EdmType::Int32)).is_err());
        assert!(to_value(Scalar::Int(5), Some(EdmType::Int64)).is_err());
        assert_eq!(
            to_value(Scalar::Int(2), Some(EdmType::Double)),
            Ok(Some(Value::Double(2.0)))
        );
        assert_eq!(
            to_value(Scalar::UInt(u64::MAX), None),
            Ok(Some(Value::Double(u64::MAX as f64)))
        );
        assert!(to_value(Scalar::UInt(u64::MAX), Some(EdmType::Int64)).is_err());
    }

    #[test]
    fn strings_parse_by_annotation() {
        let text = |s: &'static str| Scalar::Str(Cow::Borrowed(s));
        assert_eq!(
            to_value(text("-9223372036854775808"), Some(EdmType::Int64)),
            Ok(Some(Value::Int64(i64::MIN)))
        );
        assert!(to_value(text("abc"), Some(EdmType::Int64)).is_err());
        assert!(to_value(text("!!!"), Some(EdmType::Binary)).is_err());
        assert!(to_value(text("zzz"), Some(EdmType::Guid)).is_err());
        assert!(to_value(text("not-a-date"), Some(EdmType::DateTime)).is_err());
        assert!(to_value(text("nan"), Some(EdmType::Double)).is_err());
        assert_eq!(
            to_value(text("NaN"), None),
            Ok(Some(Value::String("NaN".into())))
        );
        assert!(matches!(
            to_value(text("NaN"), Some(EdmType::Double)),
            Ok(Some(Value::Double(d))) if d.is_nan()
        ));
    }

    #[test]
    fn late_annotations_retype() {
        assert_eq!(
            retype(Value::String("5".into()), EdmType::Int64),
            Ok(Value::Int64(5))
        );
        assert_eq!(
            retype(Value::Int32(2), EdmType::Double),
            Ok(Value::Double(2.0))
        );
        assert!(retype(Value::Int32(2), EdmType::Int64).is_err());
        assert!(retype(Value::Bool(true), EdmType::String).is_err());
    }

    #[test]
    fn error_texts_are_clipped() {
        let long = "é".repeat(100);
        let err = to_value(Scalar::Str(Cow::Owned(long)), Some(EdmType::Guid)).unwrap_err();
        assert!(err.len() < 120, "{err}");
    }
}
