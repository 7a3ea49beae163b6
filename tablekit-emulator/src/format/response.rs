//! The emulator's answers besides entities: ETags and `Location` values, table bodies and
//! error bodies, byte for byte like the service (see the protocol captures). Entities are
//! written by [`entity_json`](crate::format::entity_json).

use chrono::{DateTime, Utc};
use tablekit::codec;
use tablekit::codec as wire;
use tablekit::DynamicEntity;

use crate::format::datetime;
use crate::format::error_response::ErrorResponse;
use crate::format::metadata::Metadata;
use crate::storage::stored::Stored;

/// The weak ETag of an entity written at `timestamp`:
/// `W/"datetime'2026-11-22T11%3A38%3A42.0854950Z'"`.
pub(crate) fn etag(timestamp: &DateTime<Utc>) -> String {
    let mut out = Vec::with_capacity(48);
    datetime::write_etag(&mut out, timestamp);
    // Only ASCII was written.
    String::from_utf8(out).unwrap_or_default()
}

/// The ETag of a stored entity.
pub(crate) fn entity_etag(entity: &Stored) -> String {
    etag(&entity.timestamp())
}

/// The address of an entity inside its account: `T(PartitionKey='p',RowKey='r')`.
pub(crate) fn entity_path(table: &str, entity: &DynamicEntity) -> String {
    format!(
        "{table}(PartitionKey='{}',RowKey='{}')",
        entity.partition_key().replace('\'', "''"),
        entity.row_key().replace('\'', "''")
    )
}

/// An entity's absolute URL for a `Location` header: non-ASCII and spaces percent-encoded,
/// since header values are ASCII.
pub(crate) fn entity_location(base: &str, table: &str, entity: &Stored) -> String {
    let mut out = Vec::with_capacity(base.len() + table.len() + 64);
    write_entity_location(&mut out, base, table, entity);
    // Every byte outside printable ASCII was percent-encoded.
    String::from_utf8(out).unwrap_or_default()
}

/// Appends [`entity_location`]'s text.
pub(crate) fn write_entity_location(out: &mut Vec<u8>, base: &str, table: &str, entity: &Stored) {
    write_header_safe(out, base);
    out.push(b'/');
    write_header_safe(out, table);
    out.extend_from_slice(b"(PartitionKey='");
    write_key(out, &entity.partition_key());
    out.extend_from_slice(b"',RowKey='");
    write_key(out, &entity.row_key());
    out.extend_from_slice(b"')");
}

/// A key inside `'...'`: quotes doubled, then made header-safe.
fn write_key(out: &mut Vec<u8>, key: &str) {
    let mut rest = key;
    while let Some(quote) = memchr::memchr(b'\'', rest.as_bytes()) {
        write_header_safe(out, rest.get(..quote).unwrap_or_default());
        out.extend_from_slice(b"''");
        rest = rest.get(quote + 1..).unwrap_or_default();
    }
    write_header_safe(out, rest);
}

/// Percent-encodes what a header value cannot hold (controls, space, non-ASCII), as
/// `percent_encoding::CONTROLS.add(b' ')` does.
fn write_header_safe(out: &mut Vec<u8>, text: &str) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let safe = |b: u8| b > b' ' && b < 0x7F;
    // Usually all of it is safe: checked without stopping early, which compiles to a few
    // wide compares instead of a branch per byte.
    if text.bytes().fold(true, |all, b| all & safe(b)) {
        out.extend_from_slice(text.as_bytes());
        return;
    }
    let mut rest = text.as_bytes();
    while let Some(at) = rest.iter().position(|&b| !safe(b)) {
        out.extend_from_slice(rest.get(..at).unwrap_or_default());
        if let Some(&b) = rest.get(at) {
            out.extend_from_slice(&[b'%', HEX[usize::from(b >> 4)], HEX[usize::from(b & 0xF)]]);
        }
        rest = rest.get(at + 1..).unwrap_or_default();
    }
    out.extend_from_slice(rest);
}

/// A created table's body.
pub(crate) fn table_single(base: &str, account: &str, name: &str, level: Metadata) -> Vec<u8> {
    let mut out = Vec::with_capacity(128);
    out.push(b'{');
    if level != Metadata::None {
        member(
            &mut out,
            "odata.metadata",
            &format!("{base}/$metadata#Tables/@Element"),
        );
    }
    table_members(&mut out, base, account, name, level);
    out.push(b'}');
    out
}

/// A table listing page's body.
pub(crate) fn table_page(base: &str, account: &str, names: &[String], level: Metadata) -> Vec<u8> {
    let mut out = Vec::with_capacity(64 + names.len() * 32);
    out.push(b'{');
    if level != Metadata::None {
        member(
            &mut out,
            "odata.metadata",
            &format!("{base}/$metadata#Tables"),
        );
    }
    out.extend_from_slice(b"\"value\":[");
    for (i, name) in names.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.push(b'{');
        table_members(&mut out, base, account, name, level);
        out.push(b'}');
    }
    out.extend_from_slice(b"]}");
    out
}

fn table_members(out: &mut Vec<u8>, base: &str, account: &str, name: &str, level: Metadata) {
    if level == Metadata::Full {
        member(out, "TableName", name);
        member(out, "odata.type", &format!("{account}.Tables"));
        member(out, "odata.id", &format!("{base}/Tables('{name}')"));
        string_member(out, "odata.editLink", &format!("Tables('{name}')"));
    } else {
        string_member(out, "TableName", name);
    }
}

/// An error's body and Content-Type: `odata.error` JSON, or XML for failures the service
/// reports before OData processing (authentication, Atom).
pub(crate) fn error_body(
    err: &ErrorResponse,
    request_id: &str,
    level: Option<Metadata>,
    message_prefix: &str,
) -> (&'static str, Vec<u8>) {
    let time = codec::format_datetime(&Utc::now());
    let message = format!(
        "{message_prefix}{}\nRequestId:{request_id}\nTime:{time}",
        err.message
    );
    if err.is_xml() {
        let body = format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n<Error>\n  <Code>{}</Code>\n  <Message>{}</Message>\n</Error>",
            err.code,
            xml_escape(&message)
        );
        return ("application/xml", body.into_bytes());
    }
    let mut out = Vec::with_capacity(160 + message.len());
    out.extend_from_slice(b"{\"odata.error\":{\"code\":");
    wire::write_json_str(&mut out, err.code);
    out.extend_from_slice(b",\"message\":{\"lang\":\"en-US\",\"value\":");
    wire::write_json_str(&mut out, &message);
    out.extend_from_slice(b"}}}");
    let content_type = level.unwrap_or(Metadata::Minimal).content_type();
    (content_type, out)
}

fn xml_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// `"name":"value",`.
pub(crate) fn member(out: &mut Vec<u8>, name: &str, value: &str) {
    string_member(out, name, value);
    out.push(b',');
}

/// `"name":"value"`.
pub(crate) fn string_member(out: &mut Vec<u8>, name: &str, value: &str) {
    wire::write_json_str(out, name);
    out.push(b':');
    wire::write_json_str(out, value);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_match_the_captures() {
        let base = "http://127.0.0.1:10003/devstoreaccount1";
        let names = vec!["edmtest".to_owned()];
        assert_eq!(
            String::from_utf8(table_page(base, "devstoreaccount1", &names, Metadata::Full))
                .unwrap(),
            r#"{"odata.metadata":"http://127.0.0.1:10003/devstoreaccount1/$metadata#Tables","value":[{"TableName":"edmtest","odata.type":"devstoreaccount1.Tables","odata.id":"http://127.0.0.1:10003/devstoreaccount1/Tables('edmtest')","odata.editLink":"Tables('edmtest')"}]}"#
        );
        assert_eq!(
            String::from_utf8(table_single(
                base,
                "devstoreaccount1",
                "edmtest",
                Metadata::Minimal
            ))
            .unwrap(),
            r#"{"odata.metadata":"http://127.0.0.1:10003/devstoreaccount1/$metadata#Tables/@Element","TableName":"edmtest"}"#
        );
    }
}
