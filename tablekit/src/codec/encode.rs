//! Entity to JSON request body.

use base64::Engine;

use super::datetime::{write_datetime, Fraction};
use super::escape::write_json_str;
use crate::values::entity::DynamicEntity;
use crate::values::value::Value;

/// Encodes an entity (keys and properties) as an insert/update body.
///
/// ```
/// let mut e = tablekit::DynamicEntity::new("p", "r");
/// e.set("Big", 5i64);
/// let body = tablekit::codec::encode_entity(&e);
/// assert_eq!(body, br#"{"PartitionKey":"p","RowKey":"r","Big@odata.type":"Edm.Int64","Big":"5"}"#);
/// ```
pub fn encode_entity(entity: &DynamicEntity) -> Vec<u8> {
    let mut out = Vec::with_capacity(encoded_len_hint(entity));
    encode_entity_into(entity, &mut out);
    out
}

/// About the length of an entity's encoding (exact unless text needs escapes): a body is
/// written once into a buffer of this size, rather than copied as it grows.
pub(crate) fn encoded_len_hint(entity: &DynamicEntity) -> usize {
    let keys = entity.partition_key().len() + entity.row_key().len();
    let properties: usize = entity
        .properties()
        .map(|(name, value)| {
            // `,"name":` and, when annotated, `"name@odata.type":"Edm.Binary",`.
            let annotation = annotation(value).map_or(0, |edm| name.len() + 18 + edm.len());
            name.len() + 4 + annotation + value_len_hint(value)
        })
        .sum();
    32 + keys + properties
}

fn value_len_hint(value: &Value) -> usize {
    match value {
        Value::String(s) => s.len() + 2,
        Value::Binary(b) => b.len().div_ceil(3) * 4 + 2,
        // The longest of the others: a quoted hyphenated Guid.
        _ => 38,
    }
}

/// Encodes an entity, appending to `out`.
pub fn encode_entity_into(entity: &DynamicEntity, out: &mut Vec<u8>) {
    out.push(b'{');
    write_str_member(out, "PartitionKey", entity.partition_key());
    out.push(b',');
    write_str_member(out, "RowKey", entity.row_key());
    for (name, value) in entity.properties() {
        out.push(b',');
        write_property(out, name, value);
    }
    out.push(b'}');
}

fn write_property(out: &mut Vec<u8>, name: &str, value: &Value) {
    if let Some(edm) = annotation(value) {
        // `"Name@odata.type":"Edm.X",` without building the member name.
        write_json_str(out, name);
        out.pop();
        out.extend_from_slice(b"@odata.type\":\"");
        out.extend_from_slice(edm.as_bytes());
        out.extend_from_slice(b"\",");
    }
    write_json_str(out, name);
    out.push(b':');
    write_value(out, value, Fraction::Seven);
}

/// Appends a property value as OData JSON, without its `@odata.type` annotation: Int64 as a
/// string, NaN and the infinities as strings, DateTime with `fraction`, Guid hyphenated,
/// Binary in standard base64. Request bodies write DateTimes with seven digits; the service
/// answers with trailing zeros trimmed.
///
/// ```
/// use tablekit::codec::{write_value, Fraction};
/// use tablekit::Value;
/// let mut out = Vec::new();
/// write_value(&mut out, &Value::Int64(5), Fraction::Seven);
/// write_value(&mut out, &Value::Double(f64::NAN), Fraction::Seven);
/// assert_eq!(out, br#""5""NaN""#);
/// ```
pub fn write_value(out: &mut Vec<u8>, value: &Value, fraction: Fraction) {
    match value {
        Value::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        Value::Int32(n) => write_number(out, *n),
        Value::Int64(n) => {
            out.push(b'"');
            write_number(out, *n);
            out.push(b'"');
        }
        Value::Double(d) => write_double(out, *d),
        Value::DateTime(t) => {
            out.push(b'"');
            write_datetime(out, t, fraction);
            out.push(b'"');
        }
        Value::Guid(g) => {
            let mut buf = uuid::Uuid::encode_buffer();
            out.push(b'"');
            out.extend_from_slice(g.hyphenated().encode_lower(&mut buf).as_bytes());
            out.push(b'"');
        }
        Value::String(s) => write_json_str(out, s),
        Value::Binary(b) => write_base64(out, b),
    }
}

/// The `@odata.type` a value needs: every type JSON cannot tell apart by itself.
fn annotation(value: &Value) -> Option<&'static str> {
    match value {
        Value::Bool(_) | Value::Int32(_) | Value::String(_) => None,
        other => Some(other.edm_type().odata_name()),
    }
}

fn write_number(out: &mut Vec<u8>, n: impl serde::Serialize) {
    // Writing a number into a Vec cannot fail.
    serde_json::to_writer(&mut *out, &n).unwrap_or_default();
}

fn write_double(out: &mut Vec<u8>, d: f64) {
    if d.is_nan() {
        out.extend_from_slice(b"\"NaN\"");
    } else if d.is_infinite() {
        out.extend_from_slice(if d > 0.0 {
            b"\"Infinity\""
        } else {
            b"\"-Infinity\""
        });
    } else {
        // The shortest text that reads back to the same double (`2.0` keeps its `.0`).
        write_number(out, d);
    }
}

/// Standard base64 with padding; its alphabet needs no JSON escaping.
fn write_base64(out: &mut Vec<u8>, bytes: &[u8]) {
    let engine = &base64::engine::general_purpose::STANDARD;
    out.push(b'"');
    let start = out.len();
    let len = base64::encoded_len(bytes.len(), true).unwrap_or_default();
    out.resize(start + len, 0);
    let written = out.get_mut(start..).map_or(0, |tail| {
        engine.encode_slice(bytes, tail).unwrap_or_default()
    });
    out.truncate(start + written);
    out.push(b'"');
}

fn write_str_member(out: &mut Vec<u8>, name: &str, value: &str) {
    write_json_str(out, name);
    out.push(b':');
    write_json_str(out, value);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(value: Value) -> String {
        let mut e = DynamicEntity::new("p", "r");
        e.set("X", value);
        String::from_utf8(encode_entity(&e)).unwrap()
    }

    #[test]
    fn every_type_is_written_as_the_service_expects() {
        let cases = [
            (Value::Bool(true), r#""X":true"#),
            (Value::Int32(-5), r#""X":-5"#),
            (
                Value::Int64(i64::MAX),
                r#""X@odata.type":"Edm.Int64","X":"9223372036854775807""#,
            ),
            (Value::Double(2.0), r#""X@odata.type":"Edm.Double","X":2.0"#),
            (
                Value::Double(f64::NAN),
                r#""X@odata.type":"Edm.Double","X":"NaN""#,
            ),
            (
                Value::Double(f64::NEG_INFINITY),
                r#""X@odata.type":"Edm.Double","X":"-Infinity""#,
            ),
            (
                Value::Guid(uuid::Uuid::from_u128(1)),
                r#""X@odata.type":"Edm.Guid","X":"00000000-0000-0000-0000-000000000001""#,
            ),
            (Value::String("a\"\u{1}".into()), r#""X":"a\"\u0001""#),
            (
                Value::Binary(vec![0, 1, 2, 255]),
                r#""X@odata.type":"Edm.Binary","X":"AAEC/w==""#,
            ),
            (
                Value::Binary(Vec::new()),
                r#""X@odata.type":"Edm.Binary","X":"""#,
            ),
        ];
        for (value, expected) in cases {
            let mut e = DynamicEntity::new("p", "r");
            e.set("X", value.clone());
            if !matches!(&value, Value::String(s) if s.contains('"')) {
                assert!(encode_entity(&e).len() <= encoded_len_hint(&e), "{value:?}");
            }
            let text = body(value);
            assert_eq!(
                text,
                format!(r#"{{"PartitionKey":"p","RowKey":"r",{expected}}}"#)
            );
        }
    }

    #[test]
    fn the_length_hint_covers_the_longest_values() {
        let mut e = DynamicEntity::new("partition", "row");
        e.set(
            "When",
            chrono::DateTime::from_timestamp(253_402_300_799, 999_999_900).unwrap(),
        );
        e.set("Big", i64::MIN);
        e.set("Ratio", -f64::MAX);
        e.set("Id", uuid::Uuid::max());
        e.set("Bytes", vec![255u8; 7]);
        e.set("Text", "héllo");
        assert!(encode_entity(&e).len() <= encoded_len_hint(&e));
    }

    #[test]
    fn datetimes_have_seven_digits() {
        let t = chrono::DateTime::from_timestamp(0, 100).unwrap();
        assert!(body(Value::DateTime(t))
            .ends_with(r#""X@odata.type":"Edm.DateTime","X":"1970-01-01T00:00:00.0000001Z"}"#));
    }
}
