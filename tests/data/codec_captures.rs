//! Every capture in `tests/captures/` (exact bytes exchanged with Azurite by the Python SDK and
//! a raw client) that holds an entity, a page or a table list is decoded by the codec.
//!
//! Each decoded body is checked against an independent reading of the same JSON (serde_json's
//! tree), re-encoded and decoded again; selected vectors are checked value by value (Int64 max,
//! 7-digit DateTime, NaN and the infinities, unicode strings, binary). Bodies the capture tool
//! cut short must give a decode error, not a panic.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use chrono::{TimeZone, Utc};
use serde_json::Value as Json;
use tablekit::codec::DecodeError;
use tablekit::{codec, DynamicEntity, EdmType, Value};

// ---------------------------------------------------------------------------------------------
// Reading the capture files

/// One HTTP message of a capture.
#[derive(Debug)]
struct Message {
    file: String,
    request: bool,
    /// `METHOD PATH` of a request, or of the request a response answers.
    request_line: String,
    /// The response status (0 for requests).
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    /// The capture tool cut the body short (`...[N more bytes not shown]`).
    truncated: bool,
}

impl Message {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn is_multipart(&self) -> bool {
        self.header("content-type")
            .is_some_and(|v| v.starts_with("multipart/"))
    }

    fn json(&self) -> Option<Json> {
        serde_json::from_slice(&self.body).ok()
    }
}

fn captures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/captures")
}

fn capture_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(captures_dir())
        .expect("tests/captures exists")
        .map(|entry| entry.expect("readable directory").path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    assert!(files.len() >= 21, "captures missing: {files:?}");
    files
}

const TRUNCATION: &[u8] = b"more bytes not shown]";

/// Splits a capture file into its messages, pairing responses with their requests by connection.
fn read_capture(path: &Path) -> Vec<Message> {
    let data = std::fs::read(path).expect("readable capture");
    let file = path.file_name().unwrap().to_string_lossy().into_owned();
    let mut messages = Vec::new();
    let mut last_request: BTreeMap<String, String> = BTreeMap::new();
    for (marker, block) in split_markers(&data) {
        let request = marker.starts_with(">>>>>>>>");
        let conn = marker.rsplit('(').next().unwrap_or_default().to_owned();
        let (head, rest) = match find(block, b"\r\n\r\n") {
            Some(i) => (&block[..i], &block[i + 4..]),
            None => (block, &b""[..]),
        };
        let head = String::from_utf8_lossy(head);
        let mut lines = head.split("\r\n");
        let first = lines.next().unwrap_or_default().to_owned();
        let headers: Vec<(String, String)> = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
            .collect();
        let truncated = find(rest, TRUNCATION).is_some();
        let chunked = headers.iter().any(|(n, v)| {
            n.eq_ignore_ascii_case("transfer-encoding") && v.eq_ignore_ascii_case("chunked")
        });
        let length = headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
            .and_then(|(_, v)| v.parse::<usize>().ok());
        let body = if chunked {
            dechunk(rest)
        } else {
            let n = length.unwrap_or(0).min(rest.len());
            rest[..n].to_vec()
        };
        let (request_line, status) = if request {
            let line: Vec<&str> = first.split(' ').take(2).collect();
            let line = line.join(" ");
            last_request.insert(conn, line.clone());
            (line, 0)
        } else {
            let status = first
                .split(' ')
                .nth(1)
                .and_then(|s| s.parse().ok())
                .unwrap_or(0);
            (last_request.get(&conn).cloned().unwrap_or_default(), status)
        };
        messages.push(Message {
            file: file.clone(),
            request,
            request_line,
            status,
            headers,
            body,
            truncated,
        });
    }
    messages
}

/// The blocks after each `>>>>>>>> ` / `<<<<<<<< ` marker line, with the marker line.
fn split_markers(data: &[u8]) -> Vec<(String, &[u8])> {
    let mut starts = Vec::new();
    let mut at = 0;
    while at < data.len() {
        let line_end = find(&data[at..], b"\n").map_or(data.len(), |i| at + i);
        let line = &data[at..line_end];
        if line.starts_with(b">>>>>>>> ") || line.starts_with(b"<<<<<<<< ") {
            starts.push((at, line_end));
        }
        at = line_end + 1;
    }
    let mut blocks = Vec::new();
    for (i, &(start, line_end)) in starts.iter().enumerate() {
        let end = starts.get(i + 1).map_or(data.len(), |&(s, _)| s);
        let marker = String::from_utf8_lossy(&data[start..line_end])
            .trim()
            .to_owned();
        blocks.push((marker, &data[(line_end + 1).min(end)..end]));
    }
    blocks
}

/// Undoes `Transfer-Encoding: chunked`; a cut-short body yields what is there.
fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let Some(eol) = find(data, b"\r\n") else {
            return out;
        };
        let size = std::str::from_utf8(&data[..eol])
            .ok()
            .and_then(|s| usize::from_str_radix(s.trim(), 16).ok());
        let Some(size) = size else { return out };
        if size == 0 {
            return out;
        }
        let chunk = &data[eol + 2..];
        let take = size.min(chunk.len());
        out.extend_from_slice(&chunk[..take]);
        if take < size {
            return out;
        }
        data = chunk.get(size + 2..).unwrap_or_default();
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The one-line JSON bodies of a multipart ($batch) message's parts.
fn multipart_json_parts(message: &Message) -> Vec<Vec<u8>> {
    let text = String::from_utf8_lossy(&message.body);
    let mut lines: Vec<&str> = text.split("\r\n").flat_map(|l| l.split('\n')).collect();
    if message.truncated {
        // The last line was cut mid-way by the capture tool.
        lines.retain(|l| !l.contains("more bytes not shown"));
        lines.pop();
    }
    lines
        .into_iter()
        .filter(|l| l.starts_with('{'))
        .map(|l| l.as_bytes().to_vec())
        .collect()
}

fn all_messages() -> Vec<Message> {
    capture_files()
        .iter()
        .flat_map(|f| read_capture(f))
        .collect()
}

fn find_body(file: &str, request: bool, contains: &str) -> Vec<u8> {
    let messages = read_capture(&captures_dir().join(file));
    messages
        .into_iter()
        .find(|m| m.request == request && find(&m.body, contains.as_bytes()).is_some())
        .unwrap_or_else(|| panic!("no body with {contains:?} in {file}"))
        .body
}

// ---------------------------------------------------------------------------------------------
// What a body is, and what its decoding must look like

#[derive(Debug, PartialEq)]
enum Kind {
    Entity,
    Page,
    TableList,
    Table,
    Other,
}

fn table_path(request_line: &str) -> bool {
    let path = request_line.split(' ').nth(1).unwrap_or_default();
    let path = path.split('?').next().unwrap_or_default();
    path.ends_with("/Tables") || path.ends_with("/Tables()")
}

fn classify(message: &Message, json: &Json) -> Kind {
    let Some(object) = json.as_object() else {
        return Kind::Other;
    };
    if object.contains_key("odata.error") || (!message.request && message.status >= 300) {
        return Kind::Other;
    }
    let tables = table_path(&message.request_line);
    match (object.contains_key("value"), tables) {
        (true, true) => Kind::TableList,
        (true, false) => Kind::Page,
        (false, true) => Kind::Table,
        (false, false) => Kind::Entity,
    }
}

/// Row keys of bodies holding values the service must refuse (Azurite stores some of them).
const INVALID_ROWS: &[&str] = &[
    "\"RowKey\":\"i64num\"",
    "\"RowKey\":\"i64bad\"",
    "\"RowKey\":\"dtbad\"",
    "\"RowKey\":\"gbad\"",
    "\"RowKey\":\"binbad\"",
    "\"RowKey\":\"unk\"",
    "\"RowKey\":\"obj\"",
    "\"RowKey\":\"arr\"",
];

/// Whether a body holds one of those rows with its annotation (a nometadata echo without
/// annotations is plain, valid strings) or a nested value.
fn holds_invalid_values(body: &[u8]) -> bool {
    let typed = [&b"X@odata.type"[..], b"\"X\":{", b"\"X\":["]
        .iter()
        .any(|marker| find(body, marker).is_some());
    typed
        && INVALID_ROWS
            .iter()
            .any(|r| find(body, r.as_bytes()).is_some())
}

/// Checks a decoded entity against serde_json's reading of the same object.
fn check_against_json(entity: &DynamicEntity, json: &Json, context: &str) {
    let object = json.as_object().expect("entity object");
    for (key, system) in [
        ("PartitionKey", entity.partition_key()),
        ("RowKey", entity.row_key()),
    ] {
        let expected = object.get(key).and_then(Json::as_str).unwrap_or_default();
        assert_eq!(system, expected, "{context}: {key}");
    }
    assert_eq!(
        entity.etag().map(|e| e.as_str()),
        object.get("odata.etag").and_then(Json::as_str),
        "{context}: etag"
    );
    assert_eq!(
        entity.timestamp().is_some(),
        object.get("Timestamp").is_some_and(|t| !t.is_null()),
        "{context}: Timestamp"
    );
    let mut expected_count = 0;
    for (name, value) in object {
        let user = !name.contains('@')
            && !name.starts_with("odata.")
            && !matches!(name.as_str(), "PartitionKey" | "RowKey" | "Timestamp");
        if !user {
            continue;
        }
        let stored = entity.value(name);
        if value.is_null() {
            assert!(stored.is_none(), "{context}: null {name} must be absent");
            continue;
        }
        expected_count += 1;
        let stored = stored.unwrap_or_else(|| panic!("{context}: {name} missing"));
        let annotated = object
            .get(&format!("{name}@odata.type"))
            .and_then(Json::as_str);
        let expected_type = match (annotated, value) {
            (Some(t), _) => EdmType::from_odata_name(t).expect("known type"),
            (None, Json::Bool(_)) => EdmType::Boolean,
            (None, Json::String(_)) => EdmType::String,
            (None, Json::Number(n)) if n.is_f64() => EdmType::Double,
            (None, Json::Number(n)) => match n.as_i64().map(i32::try_from) {
                Some(Ok(_)) => EdmType::Int32,
                _ => EdmType::Int64,
            },
            (None, other) => panic!("{context}: unexpected {other}"),
        };
        assert_eq!(
            stored.edm_type(),
            expected_type,
            "{context}: type of {name}"
        );
        match (stored, value) {
            (Value::String(s), Json::String(j)) => assert_eq!(s, j, "{context}: {name}"),
            (Value::Int32(n), Json::Number(j)) => assert_eq!(Some(i64::from(*n)), j.as_i64()),
            (Value::Int64(n), Json::String(j)) => assert_eq!(n.to_string(), *j),
            (Value::Bool(b), Json::Bool(j)) => assert_eq!(b, j),
            (Value::Double(d), Json::Number(j)) => assert_eq!(Some(*d), j.as_f64()),
            (Value::Guid(g), Json::String(j)) => assert_eq!(g.to_string(), *j),
            _ => {}
        }
    }
    assert_eq!(entity.len(), expected_count, "{context}: property count");
}

/// Encoding and decoding again keeps the keys and every property.
fn check_round_trip(entity: &DynamicEntity, context: &str) {
    let body = codec::encode_entity(entity);
    let back = codec::decode_entity(&body).unwrap_or_else(|e| panic!("{context}: {e}"));
    assert_eq!(back.partition_key(), entity.partition_key(), "{context}");
    assert_eq!(back.row_key(), entity.row_key(), "{context}");
    let before: Vec<_> = entity.properties().collect();
    let after: Vec<_> = back.properties().collect();
    assert_eq!(before, after, "{context}: round trip");
}

/// Decodes one JSON body the way the client would, and checks it. Returns what was decoded.
fn decode_and_check(message: &Message, body: &[u8], context: &str) -> Option<Kind> {
    let json: Json = serde_json::from_slice(body).ok()?;
    let kind = classify(message, &json);
    let invalid = holds_invalid_values(body);
    match kind {
        Kind::Entity => match codec::decode_entity(body) {
            Ok(entity) => {
                assert!(!invalid, "{context}: invalid values were accepted");
                check_against_json(&entity, &json, context);
                check_round_trip(&entity, context);
            }
            Err(err) => assert_invalid(invalid, &err, context),
        },
        Kind::Page => match codec::decode_page(body) {
            Ok(entities) => {
                assert!(!invalid, "{context}: invalid values were accepted");
                let items = json["value"].as_array().expect("value array");
                assert_eq!(entities.len(), items.len(), "{context}: entity count");
                for (i, (entity, item)) in entities.iter().zip(items).enumerate() {
                    let context = format!("{context} entity {i}");
                    check_against_json(entity, item, &context);
                    check_round_trip(entity, &context);
                }
            }
            Err(err) => assert_invalid(invalid, &err, context),
        },
        Kind::TableList => {
            let names =
                codec::decode_table_names(body).unwrap_or_else(|e| panic!("{context}: {e}"));
            let expected: Vec<&str> = json["value"]
                .as_array()
                .expect("value array")
                .iter()
                .map(|t| t["TableName"].as_str().expect("TableName"))
                .collect();
            assert_eq!(names, expected, "{context}");
        }
        Kind::Table => {
            let name = codec::decode_table_name(body).unwrap_or_else(|e| panic!("{context}: {e}"));
            assert_eq!(Some(name.as_str()), json["TableName"].as_str(), "{context}");
        }
        Kind::Other => {}
    }
    Some(kind)
}

fn assert_invalid(invalid: bool, err: &DecodeError, context: &str) {
    assert!(invalid, "{context}: {err}");
    assert!(err.what.contains("`X`"), "{context}: {err}");
}

// ---------------------------------------------------------------------------------------------
// The tests

#[test]
fn every_entity_page_and_table_list_in_the_captures_decodes() {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for message in all_messages() {
        let direction = if message.request {
            "request"
        } else {
            "response"
        };
        let context = format!("{} {direction} {}", message.file, message.request_line);
        if message.is_multipart() {
            for part in multipart_json_parts(&message) {
                if let Some(kind) = decode_and_check(&message, &part, &context) {
                    *counts.entry(format!("batch {kind:?}")).or_default() += 1;
                }
            }
        } else if !message.truncated {
            if let Some(kind) = decode_and_check(&message, &message.body, &context) {
                *counts.entry(format!("{kind:?}")).or_default() += 1;
            }
        }
    }
    // Every kind of vector was met, in the numbers the captures hold.
    let count = |k: &str| counts.get(k).copied().unwrap_or(0);
    assert!(count("Entity") >= 90, "{counts:?}");
    assert!(count("Page") >= 12, "{counts:?}");
    assert!(count("TableList") >= 14, "{counts:?}");
    assert!(count("Table") >= 20, "{counts:?}");
    assert!(count("batch Entity") >= 20, "{counts:?}");
}

#[test]
fn bodies_cut_short_are_decode_errors() {
    let mut seen = 0;
    for message in all_messages().iter().filter(|m| m.truncated) {
        let body = &message.body;
        assert!(codec::decode_page(body).is_err());
        assert!(codec::decode_entity(body).is_err());
        assert!(codec::decode_table_names(body).is_err());
        seen += 1;
    }
    assert!(seen >= 15, "{seen}");
}

fn utc(y: i32, mo: u32, d: u32, h: u32, mi: u32, s: u32, nanos: u32) -> chrono::DateTime<Utc> {
    Utc.with_ymd_and_hms(y, mo, d, h, mi, s).unwrap() + chrono::Duration::nanoseconds(nanos.into())
}

/// The eight EDM types as the SDK wrote them (annotation after the value) and as Azurite echoed
/// them (annotation before, minimalmetadata).
#[test]
fn edm_types_vector_has_exact_values() {
    let request = find_body("02_insert_edm_types.txt", true, "\"Int64\"");
    let response = find_body("02_insert_edm_types.txt", false, "\"Int64\"");
    for body in [&request, &response] {
        let e = codec::decode_entity(body).unwrap();
        assert_eq!((e.partition_key(), e.row_key()), ("pk1", "rk1"));
        assert_eq!(e.value("Bool"), Some(&Value::Bool(true)));
        assert_eq!(e.value("Int32"), Some(&Value::Int32(i32::MAX)));
        assert_eq!(e.value("Int64"), Some(&Value::Int64(i64::MAX)));
        assert_eq!(e.value("Int64Small"), Some(&Value::Int64(5)));
        assert_eq!(e.value("Double"), Some(&Value::Double(3.5)));
        // `2.0` is a Double even without an annotation (Azurite drops it).
        assert_eq!(e.value("DoubleWhole"), Some(&Value::Double(2.0)));
        assert!(matches!(e.value("DoubleNaN"), Some(Value::Double(d)) if d.is_nan()));
        assert_eq!(e.value("DoublePosInf"), Some(&Value::Double(f64::INFINITY)));
        assert_eq!(
            e.value("DoubleNegInf"),
            Some(&Value::Double(f64::NEG_INFINITY))
        );
        assert_eq!(
            e.value("DateTime"),
            Some(&Value::DateTime(utc(2024, 1, 2, 3, 4, 5, 123_456_000)))
        );
        assert_eq!(
            e.get::<uuid::Uuid>("Guid")
                .map(|g| g.to_string())
                .as_deref(),
            Some("c9da6455-213d-42c9-9a79-3e9149a57833")
        );
        assert_eq!(
            e.get::<String>("String").as_deref(),
            Some("héllo \"quoted\" 'single' ünïcødé ☃")
        );
        assert_eq!(
            e.get::<Vec<u8>>("Binary").as_deref(),
            Some(&b"\x00\x01\x02\xff binary"[..])
        );
        assert_eq!(e.get::<String>("EmptyString").as_deref(), Some(""));
        assert_eq!(e.len(), 14);
    }
    let e = codec::decode_entity(&response).unwrap();
    assert_eq!(
        e.etag().unwrap().as_str(),
        "W/\"datetime'2026-11-22T11%3A42%3A23.1097388Z'\""
    );
    // Timestamp keeps all 7 fractional digits.
    let ts = e.timestamp().unwrap();
    assert_eq!(ts, utc(2026, 11, 22, 11, 42, 23, 109_738_800));
    assert_eq!(codec::format_datetime(&ts), "2026-11-22T11:42:23.1097388Z");
}

/// One entity read in nometadata, minimalmetadata and fullmetadata.
#[test]
fn metadata_levels_decode_to_the_same_entity_except_nometadata_strings() {
    let messages = read_capture(&captures_dir().join("raw_metadata_levels.txt"));
    let entities: Vec<(String, DynamicEntity)> = messages
        .iter()
        .filter(|m| !m.request && m.status == 200)
        .filter(|m| find(&m.body, b"\"RowKey\":\"r1\"").is_some())
        .map(|m| {
            let kind = m.json().map(|j| classify(m, &j));
            let entity = match kind {
                Some(Kind::Page) => codec::decode_page(&m.body).unwrap().remove(0),
                _ => codec::decode_entity(&m.body).unwrap(),
            };
            (String::from_utf8_lossy(&m.body).into_owned(), entity)
        })
        .collect();
    assert_eq!(entities.len(), 6, "2 reads x 3 levels");
    let typed: Vec<&DynamicEntity> = entities
        .iter()
        .filter(|(body, _)| body.contains("odata.metadata"))
        .map(|(_, e)| e)
        .collect();
    let untyped: Vec<&DynamicEntity> = entities
        .iter()
        .filter(|(body, _)| !body.contains("odata.metadata"))
        .map(|(_, e)| e)
        .collect();
    assert_eq!((typed.len(), untyped.len()), (4, 2));
    let reference = typed[0];
    assert_eq!(
        reference.value("I64"),
        Some(&Value::Int64(1_234_567_890_123))
    );
    assert_eq!(
        reference.value("T"),
        Some(&Value::DateTime(utc(2020, 1, 1, 0, 0, 0, 0)))
    );
    assert_eq!(reference.value("Bin"), Some(&Value::Binary(vec![1, 2, 3])));
    assert_eq!(reference.value("DWhole"), Some(&Value::Double(3.0)));
    for e in &typed {
        assert_eq!(*e, reference);
    }
    for e in untyped {
        // nometadata: no etag, and the annotated types come back as plain strings.
        assert_eq!(e.etag(), None);
        assert_eq!(e.value("I64"), Some(&Value::String("1234567890123".into())));
        assert_eq!(
            e.value("G"),
            Some(&Value::String(
                "00000000-0000-0000-0000-000000000001".into()
            ))
        );
        assert_eq!(e.value("Bin"), Some(&Value::String("AQID".into())));
        assert_eq!(e.value("I32"), Some(&Value::Int32(42)));
        assert_eq!(e.value("DWhole"), Some(&Value::Double(3.0)));
        assert_eq!(e.timestamp(), reference.timestamp());
        assert_eq!(e.len(), reference.len());
    }
}

#[test]
fn select_of_a_missing_property_reads_without_it() {
    // Azure answers `$select=N,Missing` with `"Missing":null`; Azurite leaves it out.
    let body = find_body(
        "raw_metadata_levels.txt",
        false,
        "{\"value\":[{\"I32\":42}]}",
    );
    let page = codec::decode_page(&body).unwrap();
    assert_eq!(page[0].len(), 1);
    let azure = br#"{"value":[{"I32":42,"Missing":null}]}"#;
    assert_eq!(codec::decode_page(azure).unwrap(), page);
}

#[test]
fn select_page_holds_only_the_selected_properties() {
    let body = find_body("06_query.txt", false, "\"RowKey\":\"005\",\"N\":5}");
    let page = codec::decode_page(&body).unwrap();
    let rows: Vec<(&str, Option<i32>)> = page.iter().map(|e| (e.row_key(), e.get("N"))).collect();
    assert_eq!(
        rows,
        [
            ("005", Some(5)),
            ("006", Some(6)),
            ("007", Some(7)),
            ("008", Some(8)),
            ("009", Some(9))
        ]
    );
    assert!(page
        .iter()
        .all(|e| e.partition_key().is_empty() && e.len() == 1));
    assert!(page
        .iter()
        .all(|e| e.etag().is_some() && e.timestamp().is_none()));
}

#[test]
fn raw_type_probes_decode_as_the_service_means_them() {
    let body = |row: &str| find_body("raw_types.txt", true, &format!("\"RowKey\":\"{row}\""));
    let x = |row: &str| codec::decode_entity(&body(row)).map(|e| e.value("X").cloned());
    assert!(matches!(x("nan1"), Ok(Some(Value::Double(d))) if d.is_nan()));
    // Without an annotation "NaN" is just text.
    assert_eq!(x("nan2").unwrap(), Some(Value::String("NaN".into())));
    assert_eq!(x("i32big").unwrap(), Some(Value::Int64(3_000_000_000)));
    assert_eq!(
        x("dtun").unwrap(),
        Some(Value::String("2020-01-01T00:00:00Z".into()))
    );
    let dt7 = x("dt7").unwrap();
    assert_eq!(
        dt7,
        Some(Value::DateTime(utc(2020, 1, 1, 0, 0, 0, 123_456_700)))
    );
    assert_eq!(x("nullp").unwrap(), None);
    for row in [
        "i64num", "i64bad", "dtbad", "gbad", "binbad", "unk", "obj", "arr",
    ] {
        let err = x(row).unwrap_err();
        assert!(err.what == "property `X`", "{row}: {err}");
    }
    let inf = codec::decode_entity(&body("inf1")).unwrap();
    assert_eq!(inf.value("Y"), Some(&Value::Double(f64::NEG_INFINITY)));
}

#[test]
fn table_lists_decode_in_order() {
    let body = find_body(
        "09_tables.txt",
        false,
        "\"value\":[{\"TableName\":\"edmtest\"",
    );
    assert_eq!(
        codec::decode_table_names(&body).unwrap(),
        ["edmtest", "pagetest", "tablea", "tableb"]
    );
    // fullmetadata adds odata.type/id/editLink to each table.
    let full = find_body("raw_metadata_levels.txt", false, "devstoreaccount1.Tables");
    assert_eq!(
        codec::decode_table_names(&full).unwrap(),
        ["edmtest", "pagetest", "rawtest", "tablea"]
    );
    let empty = find_body("01_create_table.txt", false, "\"value\":[]");
    assert!(codec::decode_table_names(&empty).unwrap().is_empty());
}

#[test]
fn keys_with_quotes_and_unicode_survive() {
    let body = find_body("raw_keys.txt", false, "\"RowKey\":\"a b'c");
    let e = codec::decode_entity(&body).unwrap();
    assert_eq!(e.row_key(), "a b'c ü ☃");
    let body = find_body("raw_keys.txt", true, "\\u00fc");
    assert_eq!(codec::decode_entity(&body).unwrap().row_key(), "a b'c ü ☃");
}
