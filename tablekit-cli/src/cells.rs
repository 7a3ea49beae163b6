//! Typed values as text: OData literals for reading on a terminal, and the cells of the typed
//! CSV form, where the column header carries the type and the cell only the value.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use tablekit::codec::{format_datetime, parse_datetime};
use tablekit::{EdmType, Value};

/// The short name of an EDM type, as CSV headers write it: `Int64`, `DateTime`.
pub(crate) fn type_name(edm: EdmType) -> &'static str {
    let full = edm.odata_name();
    full.strip_prefix("Edm.").unwrap_or(full)
}

/// The EDM type a CSV header names (`Int64`, or `Edm.Int64`; `Bool` for `Boolean` too).
pub(crate) fn parse_type_name(name: &str) -> Option<EdmType> {
    let full = match name {
        "Bool" => "Edm.Boolean".to_owned(),
        n if n.starts_with("Edm.") => n.to_owned(),
        n => format!("Edm.{n}"),
    };
    EdmType::from_odata_name(&full)
}

/// A value as an OData literal, so no two types read alike: `5`, `5L`, `5.0`, `true`,
/// `datetime'2024-01-02T03:04:05.0000000Z'` (always 7 digits), `guid'...'`, `X'0aff'`, and
/// strings as they are.
pub(crate) fn literal(value: &Value) -> String {
    match value {
        Value::Bool(b) => b.to_string(),
        Value::Int32(n) => n.to_string(),
        Value::Int64(n) => format!("{n}L"),
        Value::Double(d) => double_literal(*d),
        Value::DateTime(t) => format!("datetime'{}'", format_datetime(t)),
        Value::Guid(g) => format!("guid'{g}'"),
        Value::String(s) => s.to_string(),
        Value::Binary(bytes) => {
            let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
            format!("X'{hex}'")
        }
    }
}

fn double_literal(d: f64) -> String {
    if d.is_finite() && d.fract() == 0.0 && d.abs() < 1e15 {
        format!("{d:.1}")
    } else {
        double_cell(d)
    }
}

fn double_cell(d: f64) -> String {
    match d {
        d if d.is_nan() => "NaN".to_owned(),
        f64::INFINITY => "Infinity".to_owned(),
        f64::NEG_INFINITY => "-Infinity".to_owned(),
        // Rust's shortest text that parses back to the same bits.
        d => d.to_string(),
    }
}

/// A value as a typed CSV cell: the type is in the header, the cell holds the value only.
///
/// An empty cell means the entity has no such property, so no value is written empty: the
/// empty string and empty Binary are written `\` (base64 never holds one), and a string
/// starting with `\` gets one more in front.
pub(crate) fn csv_cell(value: &Value) -> String {
    match value {
        Value::Bool(b) => b.to_string(),
        Value::Int32(n) => n.to_string(),
        Value::Int64(n) => n.to_string(),
        Value::Double(d) => double_cell(*d),
        Value::DateTime(t) => format_datetime(t),
        Value::Guid(g) => g.to_string(),
        Value::String(s) if s.is_empty() || s.starts_with('\\') => format!("\\{s}"),
        Value::String(s) => s.to_string(),
        Value::Binary(bytes) if bytes.is_empty() => EMPTY.to_owned(),
        Value::Binary(bytes) => STANDARD.encode(bytes),
    }
}

/// The cell of an empty String or Binary value, which an empty cell (no property) is not.
const EMPTY: &str = "\\";

/// Reads a typed CSV cell written by [`csv_cell`]; the error says what the text is not.
/// The caller handles the empty cell (no property).
pub(crate) fn parse_csv_cell(edm: EdmType, text: &str) -> Result<Value, String> {
    let bad = || format!("`{text}` is not {}", a_type(edm));
    match edm {
        EdmType::Boolean => match text {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            _ => Err(bad()),
        },
        EdmType::Int32 => text.parse().map(Value::Int32).map_err(|_| bad()),
        EdmType::Int64 => text.parse().map(Value::Int64).map_err(|_| bad()),
        EdmType::Double => match text {
            "NaN" => Ok(Value::Double(f64::NAN)),
            "Infinity" => Ok(Value::Double(f64::INFINITY)),
            "-Infinity" => Ok(Value::Double(f64::NEG_INFINITY)),
            // Rust also reads `inf` and `nan`: only digits are numbers here.
            t if t
                .bytes()
                .any(|b| b.is_ascii_alphabetic() && b != b'e' && b != b'E') =>
            {
                Err(bad())
            }
            t => t.parse().map(Value::Double).map_err(|_| bad()),
        },
        EdmType::DateTime => parse_datetime(text).map(Value::DateTime).ok_or_else(bad),
        EdmType::Guid => text.parse().map(Value::Guid).map_err(|_| bad()),
        EdmType::String => Ok(Value::String(
            text.strip_prefix('\\').unwrap_or(text).into(),
        )),
        EdmType::Binary if text == EMPTY => Ok(Value::Binary(Vec::new())),
        EdmType::Binary => STANDARD.decode(text).map(Value::Binary).map_err(|_| bad()),
    }
}

fn a_type(edm: EdmType) -> &'static str {
    match edm {
        EdmType::Boolean => "a Boolean (`true` or `false`)",
        EdmType::Int32 => "an Int32",
        EdmType::Int64 => "an Int64",
        EdmType::Double => "a Double",
        EdmType::DateTime => "a DateTime (such as `2024-01-02T03:04:05.0000000Z`)",
        EdmType::Guid => "a Guid",
        EdmType::String => "a String",
        EdmType::Binary => "base64 Binary",
    }
}

/// Converts a value to another EDM type for `migrate --retype`, when the value says the same
/// thing in it; `Err` names why not (the value is kept then).
pub(crate) fn convert(value: &Value, to: EdmType) -> Result<Value, String> {
    if value.edm_type() == to {
        return Ok(value.clone());
    }
    let lossy = || {
        format!(
            "{} `{}` cannot become {} without loss",
            type_name(value.edm_type()),
            literal(value),
            a_type(to)
        )
    };
    match (value, to) {
        (Value::Int32(n), EdmType::Int64) => Ok(Value::Int64(i64::from(*n))),
        (Value::Int32(n), EdmType::Double) => Ok(Value::Double(f64::from(*n))),
        (Value::Int64(n), EdmType::Int32) => {
            i32::try_from(*n).map(Value::Int32).map_err(|_| lossy())
        }
        (Value::Int64(n), EdmType::Double) if n.unsigned_abs() <= 1 << 53 => {
            Ok(Value::Double(*n as f64))
        }
        (v, EdmType::String) if !matches!(v, Value::Binary(_)) => {
            Ok(Value::String(csv_cell(v).into()))
        }
        (Value::String(s), to) if to != EdmType::Binary => parse_csv_cell(to, s),
        _ => Err(lossy()),
    }
}

#[cfg(test)]
mod tests {
    use tablekit::{EdmType, Value};

    use super::{convert, csv_cell, parse_csv_cell};

    #[test]
    fn csv_cells_read_back_as_written() {
        let values = [
            Value::String("".into()),
            Value::String("\\".into()),
            Value::String("\\\\x".into()),
            Value::String("plain".into()),
            Value::Double(0.1),
            Value::Double(-0.0),
            Value::Double(f64::NAN),
            Value::Double(f64::NEG_INFINITY),
            Value::Double(1e300),
            Value::Int64(i64::MIN),
            Value::Binary(vec![0, 255]),
            Value::Binary(Vec::new()),
        ];
        for value in values {
            let cell = csv_cell(&value);
            assert!(!cell.is_empty(), "{value:?} would read as missing");
            let back = parse_csv_cell(value.edm_type(), &cell).unwrap();
            assert_eq!(back, value, "{cell}");
        }
        assert!(parse_csv_cell(EdmType::Double, "inf").is_err());
        assert!(parse_csv_cell(EdmType::Int32, "2147483648").is_err());
    }

    #[test]
    fn retyping_refuses_loss() {
        assert_eq!(
            convert(&Value::Int32(5), EdmType::Int64),
            Ok(Value::Int64(5))
        );
        assert_eq!(
            convert(&Value::String("7".into()), EdmType::Int32),
            Ok(Value::Int32(7))
        );
        assert!(convert(&Value::Int64(1 << 40), EdmType::Int32).is_err());
        assert!(convert(&Value::Int64((1 << 53) + 1), EdmType::Double).is_err());
        assert!(convert(&Value::String("x".into()), EdmType::Int32).is_err());
    }
}
