//! The members of an entity's minimal-metadata JSON object (the bytes nearly every read
//! answers with), written once when the entity is stored; and the pieces the general writer
//! shares with it (the ETag member, annotations, the room to reserve).

use std::ops::Range;

use tablekit::codec::{self as wire, DateTimeText, Fraction};
use tablekit::{DynamicEntity, Value};

use crate::format::datetime;

/// Where one key's or property's value lies in the members [`minimal_members_with`] writes.
pub(crate) struct Placed<'a> {
    /// The length of its name's JSON (quotes excluded).
    pub(crate) name_len: usize,
    /// The property's value; `None` for a key.
    pub(crate) value: Option<&'a Value>,
    /// The value's JSON.
    pub(crate) span: Range<usize>,
    /// Whether the name's or the (string) value's JSON holds an escape: found while writing,
    /// as a JSON text longer than the text it writes.
    pub(crate) escaped: bool,
}

/// The members of an entity's JSON object in minimal metadata, without the braces, telling
/// `placed` where each key's and property's value lies in them.
pub(crate) fn minimal_members_with(
    entity: &DynamicEntity,
    mut placed: impl FnMut(Placed<'_>),
) -> Vec<u8> {
    let mut out = Vec::with_capacity(members_capacity(entity));
    let timestamp = DateTimeText::new(&entity.timestamp().unwrap_or_default());
    etag_member(&mut out, &timestamp);
    for (name, key) in [
        ("PartitionKey", entity.partition_key()),
        ("RowKey", entity.row_key()),
    ] {
        out.push(b'"');
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(b"\":");
        let start = out.len();
        wire::write_json_str(&mut out, key);
        placed(Placed {
            name_len: name.len(),
            value: None,
            span: start..out.len(),
            escaped: out.len() - start != key.len() + 2,
        });
        out.push(b',');
    }
    for (name, value) in entity.properties() {
        if let Some(edm) = annotation(value) {
            out.push(b'"');
            wire::write_json_str_body(&mut out, name);
            out.extend_from_slice(b"@odata.type\":\"");
            out.extend_from_slice(edm.as_bytes());
            out.extend_from_slice(b"\",");
        }
        let name_start = out.len();
        wire::write_json_str(&mut out, name);
        let name_len = out.len() - name_start - 2;
        out.push(b':');
        let start = out.len();
        wire::write_value(&mut out, value, Fraction::Trimmed);
        let value_escaped = match value {
            Value::String(text) => out.len() - start != text.len() + 2,
            _ => false,
        };
        placed(Placed {
            name_len,
            value: Some(value),
            span: start..out.len(),
            escaped: name_len != name.len() || value_escaped,
        });
        out.push(b',');
    }
    out.extend_from_slice(b"\"Timestamp\":\"");
    datetime::write_seven(&mut out, &timestamp, b":");
    out.push(b'"');
    out
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
