//! The fuzz targets' way into the emulator (`fuzz/`): each entry point reads a request with
//! the server's own [`IncomingRequest`] and answers it with the server's own router and handlers, as
//! an authenticated account owner, on a fresh in-memory emulator holding a table of sample
//! entities. Nothing here parses on its own, so what is fuzzed is what the server runs.
//! Built only by `cargo fuzz` (`cfg(fuzzing)`) and the crate's tests; not part of the API.

use std::collections::HashMap;

use futures::FutureExt as _;
use http::Request;
use http_body_util::BodyExt as _;
use percent_encoding::{utf8_percent_encode, NON_ALPHANUMERIC};
use tablekit::auth::AccountKey;
use tablekit::DynamicEntity;

use crate::auth::Caller;
use crate::fixtures;
use crate::handlers::context::Ctx;
use crate::http::server::{DEV_ACCOUNT, DEV_KEY};
use crate::pipeline::incoming::IncomingRequest;
use crate::pipeline::outgoing::OutgoingResponse;
use crate::pipeline::router;
use crate::pipeline::state::State;
use crate::storage::store::Store;

/// The table of sample entities every entry point's emulator holds.
pub const TABLE: &str = "Sample";

/// The emulator's answer to one request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// The HTTP status.
    pub status: u16,
    /// The `Content-Type` header (empty when there is none).
    pub content_type: String,
    /// The body.
    pub body: Vec<u8>,
}

/// Answers one request to the development account: `target` is the path and query, as on
/// the request line. `None` when `http` cannot represent the request (hyper would have
/// refused it before the server saw it).
pub fn request(
    method: &str,
    target: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Option<Answer> {
    let mut builder = Request::builder().method(method).uri(target);
    for &(name, value) in headers {
        builder = builder.header(name, value);
    }
    let call = IncomingRequest::new(builder.body(()).ok()?);
    let state = sample_state();
    let ctx = Ctx::new(&call, &state);
    let reply = match &call.route {
        Ok(route) => router::dispatch(&ctx, &Caller::Owner, route, body),
        Err(err) => Err(err.clone()),
    }
    .unwrap_or_else(|err| ctx.error(&err));
    Some(answer(reply))
}

/// Answers a `$batch` request with this `Content-Type` and body.
pub fn batch_request(content_type: &str, body: &[u8]) -> Option<Answer> {
    let target = format!("/{DEV_ACCOUNT}/$batch");
    let headers = [("content-type", content_type), ("accept", MINIMAL)];
    request("POST", &target, &headers, body)
}

/// Answers a query of the sample table and a listing of the tables, both with
/// `$filter=text` (percent-encoded on the way, as a client sends it).
pub fn filter(text: &str) -> [Answer; 2] {
    let encoded = utf8_percent_encode(text, NON_ALPHANUMERIC);
    let targets = [
        format!("/{DEV_ACCOUNT}/{TABLE}()?$filter={encoded}"),
        format!("/{DEV_ACCOUNT}/Tables?$filter={encoded}"),
    ];
    targets.map(|target| {
        request("GET", &target, &[("accept", MINIMAL)], b"")
            .unwrap_or_else(|| unreachable!("a percent-encoded query is a valid URI"))
    })
}

const MINIMAL: &str = "application/json;odata=minimalmetadata";

/// A fresh in-memory emulator's state: the development account, the sample table with an
/// entity of every property type in two partitions, and an empty table.
fn sample_state() -> State {
    let mut accounts = HashMap::new();
    if let Ok(key) = AccountKey::from_base64(DEV_KEY) {
        accounts.insert(DEV_ACCOUNT.to_owned(), vec![key]);
    }
    let state = State::new(Store::in_memory(), accounts, None);
    for table in [TABLE, "Empty"] {
        let _ = state.store.create_table(DEV_ACCOUNT, table);
    }
    let _ = fixtures::seed(&state, DEV_ACCOUNT, TABLE, sample_entities());
    state
}

fn sample_entities() -> Vec<DynamicEntity> {
    let when = chrono::DateTime::from_timestamp(1_700_000_000, 0).unwrap_or_default();
    let mut all = DynamicEntity::new("a", "1");
    all.set("Text", "O'Brien");
    all.set("Int", 42);
    all.set("Long", 1_234_567_890_123i64);
    all.set("Double", 1.5);
    all.set("NaN", f64::NAN);
    all.set("Flag", true);
    all.set("When", when);
    all.set("Id", uuid::Uuid::from_u128(7));
    all.set("Bytes", vec![0u8, 1, 2]);
    let mut other = DynamicEntity::new("a", "2");
    other.set("Int", -1);
    other.set("Text", "ünï ☃");
    let mut second = DynamicEntity::new("b", "");
    second.set("Flag", false);
    vec![all, other, second]
}

/// Reads the whole answer: its body is a `Full`, ready at once.
fn answer(reply: OutgoingResponse) -> Answer {
    let status = reply.status().as_u16();
    let content_type = reply
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let body = match reply.into_body().collect().now_or_never() {
        Some(Ok(collected)) => collected.to_bytes().to_vec(),
        _ => Vec::new(),
    };
    Answer {
        status,
        content_type,
        body,
    }
}

/// Reads a write-ahead log file's bytes as a restart reads them: its frames, then each
/// frame's records. The frames read, with each one's records read or refused; `None` when
/// the file is refused as damaged.
pub fn write_ahead_log(bytes: &[u8]) -> Option<Vec<Result<usize, String>>> {
    let frames = crate::storage::write_ahead_log::frames(bytes, 0).ok()?;
    let read = frames.iter().map(|frame| {
        crate::storage::log_record::decode(&frame.payload).map(|records| records.len())
    });
    Some(read.collect())
}

/// Reads bytes as one commit group of the log (what a frame's checksums protect): the
/// number of records, or why they do not read.
pub fn log_group(bytes: &[u8]) -> Result<usize, String> {
    crate::storage::log_record::decode(bytes).map(|records| records.len())
}

/// Reads bytes as a write's body both ways a write may: drafted straight into the stored
/// text, and decoded then stored, for Table Storage and Cosmos DB, with and without the
/// URL's keys. `Err` names a body drafted that the general path refuses or stores otherwise.
pub fn draft(body: &[u8]) -> Result<(), String> {
    for limits in [
        &tablekit::limits::Limits::STORAGE,
        &tablekit::limits::Limits::COSMOS,
    ] {
        for url_keys in [None, Some(("p", "r"))] {
            crate::handlers::operations::check_draft(body, url_keys, limits)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(answer: &Answer) -> String {
        String::from_utf8_lossy(&answer.body).into_owned()
    }

    const DELETE: &[u8] = b"--b\r\nContent-Type: multipart/mixed; boundary=c\r\n\r\n--c\r\n\
Content-Type: application/http\r\n\r\nDELETE http://h/devstoreaccount1/Sample(PartitionKey='a',RowKey='2') HTTP/1.1\r\n\
If-Match: *\r\n\r\n\r\n--c--\r\n\r\n--b--\r\n";

    #[test]
    fn a_body_drafts_as_it_decodes() {
        assert_eq!(draft(br#"{"PartitionKey":"p","RowKey":"r","N":1}"#), Ok(()));
        assert_eq!(draft(b"not json"), Ok(()));
    }

    #[test]
    fn a_log_file_reads_as_a_restart_reads_it() {
        assert_eq!(write_ahead_log(&[]), Some(Vec::new()));
        assert_eq!(write_ahead_log(&[0; 4096]), Some(Vec::new()));
        assert_eq!(write_ahead_log(b"not a log"), Some(Vec::new()));
        assert!(log_group(b"\x01\0\0\0\x09").is_err());
        assert_eq!(log_group(&[0; 4]), Ok(0));
    }

    #[test]
    fn a_batch_runs_as_the_server_runs_it() {
        let answer = batch_request("multipart/mixed; boundary=b", DELETE).unwrap();
        assert_eq!(answer.status, 202, "{}", text(&answer));
        assert!(answer
            .content_type
            .starts_with("multipart/mixed; boundary=batchresponse_"));
        assert!(text(&answer).contains("HTTP/1.1 204 No Content"));
    }

    #[test]
    fn a_failing_operation_fails_the_changeset_with_its_index() {
        let missing = String::from_utf8_lossy(DELETE).replace("RowKey='2'", "RowKey='9'");
        let answer = batch_request("multipart/mixed; boundary=b", missing.as_bytes()).unwrap();
        assert_eq!(answer.status, 202);
        assert!(
            text(&answer).contains("HTTP/1.1 404 Not Found"),
            "{}",
            text(&answer)
        );
        assert!(text(&answer).contains("\"0:"), "{}", text(&answer));
    }

    #[test]
    fn a_batched_query_is_answered_like_the_server_does() {
        // No changeset: one `application/http` part holding a GET, which the server answers
        // with the query's result (a parser of changesets alone would refuse it).
        let body = b"--b\r\nContent-Type: application/http\r\n\r\n\
GET http://h/devstoreaccount1/Sample(PartitionKey='a',RowKey='1') HTTP/1.1\r\n\
Accept: application/json;odata=nometadata\r\n\r\n\r\n--b--\r\n";
        let answer = batch_request("multipart/mixed; boundary=b", body).unwrap();
        assert_eq!(answer.status, 202, "{}", text(&answer));
        assert!(
            text(&answer).contains("\"Text\":\"O'Brien\""),
            "{}",
            text(&answer)
        );
    }

    #[test]
    fn malformed_batches_are_400s() {
        for (content_type, body) in [
            ("text/plain", DELETE),
            ("multipart/mixed; boundary=b", &b"--b\r\nno end"[..]),
            ("multipart/mixed; boundary=b", &b""[..]),
        ] {
            let answer = batch_request(content_type, body).unwrap();
            assert_eq!(answer.status, 400, "{content_type}: {}", text(&answer));
        }
        // A header value `http` cannot hold never reaches the server.
        assert_eq!(batch_request("a\nb", DELETE), None);
    }

    #[test]
    fn filters_run_against_the_sample_table_and_the_listing() {
        let [entities, tables] = filter("Text eq 'O''Brien'");
        assert_eq!(entities.status, 200);
        assert!(
            text(&entities).contains("\"RowKey\":\"1\""),
            "{}",
            text(&entities)
        );
        assert!(!text(&entities).contains("\"RowKey\":\"2\""));
        assert_eq!(tables.status, 200);
        assert!(text(&tables).contains("\"value\":[]"), "{}", text(&tables));
        let [entities, tables] = filter("TableName ge 'S' or not (Int lt 42)");
        assert!(
            text(&entities).contains("\"RowKey\":\"1\""),
            "{}",
            text(&entities)
        );
        assert!(
            text(&tables).contains("\"TableName\":\"Sample\""),
            "{}",
            text(&tables)
        );
        for bad in ["Int eq", "startswith(Text, 'O')", "'open"] {
            let [entities, tables] = filter(bad);
            assert_eq!((entities.status, tables.status), (400, 400), "{bad}");
        }
    }

    #[test]
    fn any_request_line_is_answered() {
        let answer = request(
            "GET",
            "/devstoreaccount1/Sample()?$top=1",
            &[("accept", MINIMAL)],
            b"",
        )
        .unwrap();
        assert_eq!(answer.status, 200);
        let answer = request("GET", "/devstoreaccount1/t/x", &[], b"").unwrap();
        assert_eq!(answer.status, 400);
        assert_eq!(request("GET", "not a uri", &[], b""), None);
    }
}
