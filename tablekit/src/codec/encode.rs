//! Entity to JSON request body.

use base64::Engine;

use super::datetime::format_datetime;
use crate::entity::DynamicEntity;
use crate::value::Value;

/// Encodes an entity (keys and properties) as an insert/update body.
pub fn encode_entity(entity: &DynamicEntity) -> Vec<u8> {
    let mut out = Vec::with_capacity(64 + entity.len() * 32);
    encode_entity_into(entity, &mut out);
    out
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
        write_json_str(out, &format!("{name}@odata.type"));
        out.push(b':');
        write_json_str(out, edm);
        out.push(b',');
    }
    write_json_str(out, name);
    out.push(b':');
    match value {
        Value::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        Value::Int32(n) => out.extend_from_slice(n.to_string().as_bytes()),
        Value::Int64(n) => write_json_str(out, &n.to_string()),
        Value::Double(d) => write_double(out, *d),
        Value::DateTime(t) => write_json_str(out, &format_datetime(t)),
        Value::Guid(g) => write_json_str(out, &g.hyphenated().to_string()),
        Value::String(s) => write_json_str(out, s),
        Value::Binary(b) => {
            write_json_str(out, &base64::engine::general_purpose::STANDARD.encode(b))
        }
    }
}

/// The `@odata.type` a value needs: every type JSON cannot tell apart by itself.
fn annotation(value: &Value) -> Option<&'static str> {
    match value {
        Value::Bool(_) | Value::Int32(_) | Value::String(_) => None,
        other => Some(other.edm_type().odata_name()),
    }
}

fn write_double(out: &mut Vec<u8>, d: f64) {
    if d.is_nan() {
        write_json_str(out, "NaN");
    } else if d.is_infinite() {
        write_json_str(out, if d > 0.0 { "Infinity" } else { "-Infinity" });
    } else {
        // serde_json writes the shortest text that reads back to the same double.
        serde_json::to_writer(&mut *out, &d).unwrap_or_default();
    }
}

fn write_str_member(out: &mut Vec<u8>, name: &str, value: &str) {
    write_json_str(out, name);
    out.push(b':');
    write_json_str(out, value);
}

fn write_json_str(out: &mut Vec<u8>, s: &str) {
    // Writing a &str into a Vec cannot fail.
    serde_json::to_writer(&mut *out, s).unwrap_or_default();
}
