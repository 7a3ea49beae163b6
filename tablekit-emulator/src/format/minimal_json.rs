//! The members of an entity's minimal-metadata JSON object (the bytes nearly every read
//! answers with), written once when the entity is stored; and the pieces the general writer
//! shares with it (the ETag member, annotations, the room to reserve).

use std::ops::Range;

use tablekit::codec::{self as wire, DateTimeText, Fraction};
use tablekit::{DynamicEntity, EdmType, Value};

use crate::format::datetime;

/// Where one key's or property's value lies in the members [`minimal_members_with`] writes.
pub(crate) struct Placed {
    /// The length of its name's JSON (quotes excluded).
    pub(crate) name_len: usize,
    /// The value's EDM type (a key's is String).
    pub(crate) kind: EdmType,
    /// The value's JSON.
    pub(crate) span: Range<usize>,
    /// Whether the name's or the (string) value's JSON holds an escape: found while writing,
    /// as a JSON text longer than the text it writes.
    pub(crate) escaped: bool,
}

/// A property's value as the member writers take it: a value, or a string's text borrowed
/// from where it was read.
#[derive(Clone, Copy, Debug)]
pub(crate) enum PropertyValue<'a> {
    Value(&'a Value),
    Text(&'a str),
}

/// The members of an entity's JSON object in minimal metadata, without the braces, telling
/// `placed` where each key's and property's value lies in them.
pub(crate) fn minimal_members_with(
    entity: &DynamicEntity,
    mut placed: impl FnMut(Placed),
) -> Vec<u8> {
    let mut out = Vec::with_capacity(members_capacity(entity));
    let timestamp = DateTimeText::new(&entity.timestamp().unwrap_or_default());
    etag_member(&mut out, &timestamp);
    placed(write_key(&mut out, "PartitionKey", entity.partition_key()));
    placed(write_key(&mut out, "RowKey", entity.row_key()));
    for (name, value) in entity.properties() {
        placed(write_property(&mut out, name, PropertyValue::Value(value)));
    }
    timestamp_member(&mut out, &timestamp);
    out
}

/// `"PartitionKey":"p",` (or the RowKey's), saying where the key's value lies.
pub(crate) fn write_key(out: &mut Vec<u8>, name: &str, key: &str) -> Placed {
    out.push(b'"');
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(b"\":");
    let start = out.len();
    wire::write_json_str(out, key);
    let placed = Placed {
        name_len: name.len(),
        kind: EdmType::String,
        span: start..out.len(),
        escaped: out.len() - start != key.len() + 2,
    };
    out.push(b',');
    placed
}

/// A property's members: its `@odata.type` when its type needs one, then `"Name":value,`;
/// saying where the value lies.
pub(crate) fn write_property(out: &mut Vec<u8>, name: &str, value: PropertyValue<'_>) -> Placed {
    let edm = match value {
        PropertyValue::Value(value) => annotation(value),
        PropertyValue::Text(_) => None,
    };
    if let Some(edm) = edm {
        out.push(b'"');
        wire::write_json_str_body(out, name);
        out.extend_from_slice(b"@odata.type\":\"");
        out.extend_from_slice(edm.as_bytes());
        out.extend_from_slice(b"\",");
    }
    let name_start = out.len();
    wire::write_json_str(out, name);
    let name_len = out.len() - name_start - 2;
    out.push(b':');
    let start = out.len();
    let (kind, value_escaped) = match value {
        PropertyValue::Value(value) => {
            wire::write_value(out, value, Fraction::Trimmed);
            let escaped = match value {
                Value::String(text) => out.len() - start != text.len() + 2,
                _ => false,
            };
            (value.edm_type(), escaped)
        }
        PropertyValue::Text(text) => {
            wire::write_json_str(out, text);
            (EdmType::String, out.len() - start != text.len() + 2)
        }
    };
    let placed = Placed {
        name_len,
        kind,
        span: start..out.len(),
        escaped: name_len != name.len() || value_escaped,
    };
    out.push(b',');
    placed
}

/// `"Timestamp":"..."`, the members' last.
pub(crate) fn timestamp_member(out: &mut Vec<u8>, timestamp: &DateTimeText) {
    out.extend_from_slice(b"\"Timestamp\":\"");
    datetime::write_seven(out, timestamp, b":");
    out.push(b'"');
}

/// Room for an entity's minimal-metadata members in one allocation: the ETag, keys and
/// Timestamp, and per property its name twice (an annotation may repeat it), the longest
/// typed value, and its text with room for some escapes.
pub(crate) fn members_capacity(entity: &DynamicEntity) -> usize {
    let keys = entity.partition_key().len() + entity.row_key().len();
    let properties: usize = entity
        .properties()
        .map(|(name, value)| {
            let text = match value {
                Value::String(s) => s.len() + s.len() / 8,
                Value::Binary(b) => b.len().div_ceil(3) * 4,
                _ => 0,
            };
            2 * name.len() + 56 + text
        })
        .sum();
    160 + keys + properties
}

/// `"odata.etag":"W/\"datetime'...'\"",` (the ETag's quotes escaped inside the JSON string).
pub(crate) fn etag_member(out: &mut Vec<u8>, timestamp: &DateTimeText) {
    out.extend_from_slice(b"\"odata.etag\":\"W/\\\"datetime'");
    datetime::write_seven(out, timestamp, b"%3A");
    out.extend_from_slice(b"'\\\"\",");
}

/// The annotation a value needs in minimal and full metadata.
pub(crate) fn annotation(value: &Value) -> Option<&'static str> {
    match value {
        Value::Int64(_) => Some("Edm.Int64"),
        Value::DateTime(_) => Some("Edm.DateTime"),
        Value::Guid(_) => Some("Edm.Guid"),
        Value::Binary(_) => Some("Edm.Binary"),
        Value::Double(d) if !d.is_finite() => Some("Edm.Double"),
        _ => None,
    }
}
