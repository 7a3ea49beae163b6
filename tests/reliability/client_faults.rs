//! The client's behaviour under faults and with each credential, against a scripted HTTP
//! server on 127.0.0.1: retries and their limits, `Retry-After`, timeouts, dropped
//! connections, the idempotency rules for retried deletes and inserts, bearer tokens, and
//! secrets kept out of errors and traces. (Azurite cannot be told to fail on cue; everything
//! it can answer is covered by the conformance suite.)

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tablekit::client::{Credential, RetryPolicy, TableServiceClient, TokenFuture, TokenProvider};
use tablekit::patterns::bulk::{BulkWriter, WriteOp};
use tablekit::{DynamicEntity, ETag, Error};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// What the scripted server does with one request.
#[derive(Clone)]
enum Step {
    /// Answer with status, extra headers and a body.
    Reply(u16, Vec<(&'static str, &'static str)>, &'static str),
    /// Read the request, then close the connection without answering.
    Drop,
    /// Read the request and never answer.
    Hang,
    /// Answer 200 with these headers, but send the body only once another request has
    /// arrived (or after 0.3 s, within the test clients' timeout), and note when it was sent
    /// among the requests seen.
    BodyAfterNextRequest(Vec<(&'static str, &'static str)>, &'static str),
}

/// What [`Step::BodyAfterNextRequest`] notes among the requests seen when it sends the body.
const BODY_SENT: &str = "(body sent)";

fn reply(status: u16) -> Step {
    Step::Reply(status, Vec::new(), "")
}

fn error_reply(status: u16, code: &'static str) -> Step {
    Step::Reply(
        status,
        vec![
            ("x-ms-error-code", code),
            ("x-ms-request-id", "server-req-1"),
        ],
        "",
    )
}

const TABLES: &str = r#"{"value":[{"TableName":"alpha"}]}"#;

/// One request as the server saw it.
#[derive(Clone, Debug)]
struct Seen {
    head: String,
}

impl Seen {
    fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|line| {
            let (n, v) = line.split_once(':')?;
            n.trim()
                .eq_ignore_ascii_case(name)
                .then(|| v.trim().to_owned())
        })
    }
}

/// An HTTP/1.1 server on 127.0.0.1 that plays `steps` in order, one per request.
struct ScriptedServer {
    port: u16,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl ScriptedServer {
    async fn start(steps: Vec<Step>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let steps = Arc::new(Mutex::new(steps.into_iter()));
        let record = seen.clone();
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                tokio::spawn(serve(socket, steps.clone(), record.clone()));
            }
        });
        ScriptedServer { port, seen }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/devstoreaccount1", self.port)
    }

    fn client(&self, credential: Credential, retry: RetryPolicy) -> TableServiceClient {
        TableServiceClient::builder()
            .endpoint(&self.url())
            .credential(credential)
            .retry_policy(retry.base_delay(Duration::from_millis(1)))
            .timeout(Duration::from_millis(500))
            .build()
            .unwrap()
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

async fn serve(
    mut socket: TcpStream,
    steps: Arc<Mutex<std::vec::IntoIter<Step>>>,
    seen: Arc<Mutex<Vec<Seen>>>,
) {
    loop {
        let Some(head) = read_request(&mut socket).await else {
            return;
        };
        seen.lock().unwrap().push(Seen { head });
        let step = steps.lock().unwrap().next();
        match step {
            Some(Step::Reply(status, headers, body)) => {
                let mut response = response_head(status, &headers, body.len());
                response.push_str(body);
                if socket.write_all(response.as_bytes()).await.is_err() {
                    return;
                }
            }
            Some(Step::BodyAfterNextRequest(headers, body)) => {
                let before = seen.lock().unwrap().len();
                let head = response_head(200, &headers, body.len());
                if socket.write_all(head.as_bytes()).await.is_err() {
                    return;
                }
                for _ in 0..30 {
                    if seen.lock().unwrap().len() > before {
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
                seen.lock().unwrap().push(Seen {
                    head: BODY_SENT.into(),
                });
                if socket.write_all(body.as_bytes()).await.is_err() {
                    return;
                }
            }
            Some(Step::Hang) => {
                tokio::time::sleep(Duration::from_secs(3600)).await;
                return;
            }
            Some(Step::Drop) | None => return,
        }
    }
}

/// A response's status line and headers, with the blank line that ends them.
fn response_head(status: u16, headers: &[(&str, &str)], length: usize) -> String {
    let mut head = format!(
        "HTTP/1.1 {status} X\r\ncontent-length: {length}\r\ncontent-type: application/json\r\n"
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    head
}

/// Reads one request (head and Content-Length body); `None` when the peer closed.
async fn read_request(socket: &mut TcpStream) -> Option<String> {
    let mut data = Vec::new();
    let mut buf = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let n = socket.read(&mut buf).await.ok()?;
        if n == 0 {
            return None;
        }
        data.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8_lossy(&data[..head_end]).into_owned();
    let length: usize = Seen { head: head.clone() }
        .header("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    while data.len() < head_end + length {
        let n = socket.read(&mut buf).await.ok()?;
        if n == 0 {
            return None;
        }
        data.extend_from_slice(&buf[..n]);
    }
    Some(head)
}

fn key() -> Credential {
    Credential::shared_key(tablekit::client::DEVELOPMENT_KEY).unwrap()
}

#[tokio::test]
async fn transient_statuses_are_retried_until_success() {
    let server = ScriptedServer::start(vec![
        Step::Reply(
            503,
            vec![("retry-after", "0"), ("x-ms-error-code", "ServerBusy")],
            "",
        ),
        reply(500),
        reply(429),
        Step::Reply(200, Vec::new(), TABLES),
    ])
    .await;
    let client = server.client(key(), RetryPolicy::default().max_attempts(4));
    assert_eq!(client.list_table_names(None).await.unwrap(), ["alpha"]);
    let seen = server.seen();
    assert_eq!(seen.len(), 4);
    let ids: std::collections::BTreeSet<_> = seen
        .iter()
        .map(|s| s.header("x-ms-client-request-id").unwrap())
        .collect();
    assert_eq!(
        ids.len(),
        1,
        "one client request id per operation, on every attempt"
    );
    assert!(seen.iter().all(|s| s.header("authorization").is_some()));
    assert!(seen.iter().all(|s| s.header("date").is_none()));
}

#[tokio::test]
async fn gives_up_after_the_configured_attempts() {
    let server = ScriptedServer::start(vec![reply(502), reply(504), reply(500), reply(200)]).await;
    let client = server.client(key(), RetryPolicy::default().max_attempts(3));
    let err = client.list_table_names(None).await.unwrap_err();
    assert_eq!(err.status(), Some(500));
    assert!(err.is_transient());
    assert_eq!(server.seen().len(), 3);
}

#[tokio::test]
async fn definite_answers_are_not_retried() {
    let server = ScriptedServer::start(vec![
        error_reply(409, "TableAlreadyExists"),
        error_reply(412, "UpdateConditionNotSatisfied"),
        error_reply(400, "InvalidInput"),
    ])
    .await;
    let client = server.client(key(), RetryPolicy::default());
    let err = client.create_table("alpha").await.unwrap_err();
    assert!(err.is_conflict());
    assert_eq!(
        err.service_error().unwrap().request_id(),
        Some("server-req-1")
    );
    assert_eq!(server.seen().len(), 1);
    let table = client.table_named::<DynamicEntity>("alpha");
    let mut e = DynamicEntity::new("p", "r");
    e.set_etag(Some(ETag::new("W/\"x\"")));
    assert!(table
        .replace(&mut e)
        .await
        .unwrap_err()
        .is_precondition_failed());
    assert_eq!(server.seen().len(), 2);
    assert_eq!(
        server.seen()[1].header("if-match").as_deref(),
        Some("W/\"x\"")
    );
}

#[tokio::test]
async fn throttling_is_reported_as_such() {
    let server = ScriptedServer::start(vec![error_reply(503, "ServerBusy")]).await;
    let client = server.client(key(), RetryPolicy::none());
    let err = client.table_exists("alpha").await.unwrap_err();
    assert!(err.is_throttled(), "{err}");
}

#[tokio::test]
async fn a_silent_server_times_out_with_a_typed_error() {
    let server = ScriptedServer::start(vec![Step::Hang, Step::Hang]).await;
    let client = server.client(key(), RetryPolicy::default().max_attempts(2));
    let err = client.list_table_names(None).await.unwrap_err();
    assert!(matches!(err, Error::Timeout { .. }), "{err}");
    assert_eq!(server.seen().len(), 2);
}

#[tokio::test]
async fn a_retried_delete_that_finds_nothing_succeeded_earlier() {
    // The first attempt reaches the server and the connection drops before the answer: the
    // delete may have been applied, so the retry's 404 means it was.
    let server = ScriptedServer::start(vec![
        Step::Drop,
        error_reply(404, "ResourceNotFound"),
        Step::Drop,
        error_reply(404, "ResourceNotFound"),
    ])
    .await;
    let client = server.client(key(), RetryPolicy::default());
    let table = client.table_named::<DynamicEntity>("alpha");
    table.delete_by_key("p", "r", &ETag::any()).await.unwrap();
    assert_eq!(server.seen().len(), 2);
    assert!(client.delete_table_if_exists("alpha").await.unwrap());
    assert_eq!(server.seen().len(), 4);
}

#[tokio::test]
async fn a_retried_delete_in_a_missing_table_still_fails() {
    let server = ScriptedServer::start(vec![Step::Drop, error_reply(404, "TableNotFound")]).await;
    let client = server.client(key(), RetryPolicy::default());
    let table = client.table_named::<DynamicEntity>("alpha");
    let err = table
        .delete_by_key("p", "r", &ETag::any())
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("TableNotFound"));
}

#[tokio::test]
async fn a_first_attempt_404_on_delete_is_an_error() {
    let server =
        ScriptedServer::start(vec![reply(503), error_reply(404, "ResourceNotFound")]).await;
    let client = server.client(key(), RetryPolicy::default());
    let table = client.table_named::<DynamicEntity>("alpha");
    // 503 means "not processed": the 404 is the real answer.
    let err = table
        .delete_by_key("p", "r", &ETag::any())
        .await
        .unwrap_err();
    assert!(err.is_not_found());
}

#[tokio::test]
async fn a_retried_insert_reports_the_ambiguous_conflict() {
    // The re-read after the 409 finds no entity: not ours, so the 409 stands, flagged.
    let server = ScriptedServer::start(vec![
        Step::Drop,
        error_reply(409, "EntityAlreadyExists"),
        error_reply(404, "ResourceNotFound"),
    ])
    .await;
    let client = server.client(key(), RetryPolicy::default());
    let table = client.table_named::<DynamicEntity>("alpha");
    let err = table
        .insert(&mut DynamicEntity::new("p", "r"))
        .await
        .unwrap_err();
    assert!(err.is_conflict(), "{err}");
    assert!(err.after_uncertain_attempt() && err.may_have_been_applied());
    let seen = server.seen();
    assert_eq!(seen.len(), 3);
    assert!(seen[2].head.starts_with("GET "), "{}", seen[2].head);
}

#[tokio::test]
async fn connection_refused_is_a_transport_error_without_secrets() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let client = TableServiceClient::builder()
        .endpoint(&format!("http://127.0.0.1:{port}/devstoreaccount1"))
        .credential(Credential::sas("sv=2019-02-02&sig=TOPSECRETSIG").unwrap())
        .retry_policy(
            RetryPolicy::default()
                .max_attempts(2)
                .base_delay(Duration::from_millis(1)),
        )
        .build()
        .unwrap();
    let err = client.list_table_names(None).await.unwrap_err();
    assert!(matches!(err, Error::Transport { .. }), "{err}");
    let mut text = format!("{err} {err:?}");
    let mut source = std::error::Error::source(&err);
    while let Some(s) = source {
        text.push_str(&format!(" {s} {s:?}"));
        source = s.source();
    }
    assert!(!text.contains("TOPSECRETSIG"), "{text}");
}

struct FixedToken;

impl TokenProvider for FixedToken {
    fn token(&self) -> TokenFuture<'_> {
        Box::pin(async { Ok("entra-token-123".to_owned()) })
    }
}

struct FailingToken;

impl TokenProvider for FailingToken {
    fn token(&self) -> TokenFuture<'_> {
        Box::pin(async { Err("identity endpoint unreachable".into()) })
    }
}

#[tokio::test]
async fn bearer_tokens_come_from_the_provider() {
    let server = ScriptedServer::start(vec![Step::Reply(200, Vec::new(), TABLES)]).await;
    let client = server.client(Credential::bearer(FixedToken), RetryPolicy::none());
    client.list_table_names(None).await.unwrap();
    assert_eq!(
        server.seen()[0].header("authorization").as_deref(),
        Some("Bearer entra-token-123")
    );
    assert!(!format!("{client:?}").contains("entra-token-123"));

    let failing = server.client(Credential::bearer(FailingToken), RetryPolicy::default());
    let err = failing.list_table_names(None).await.unwrap_err();
    assert!(matches!(err, Error::Credential(_)), "{err}");
    assert_eq!(server.seen().len(), 1, "nothing sent without a token");
}

#[tokio::test]
async fn sas_tokens_ride_in_the_query_string() {
    let server = ScriptedServer::start(vec![Step::Reply(200, Vec::new(), TABLES)]).await;
    let client = server.client(
        Credential::sas("?sv=2019-02-02&ss=t&sig=abc%2Bdef").unwrap(),
        RetryPolicy::none(),
    );
    client.list_table_names(Some("al")).await.unwrap();
    let seen = &server.seen()[0];
    let request_line = seen.head.lines().next().unwrap();
    assert!(
        request_line.contains("?$filter=TableName%20ge%20%27al%27%20and%20TableName%20lt%20%27am%27&sv=2019-02-02&ss=t&sig=abc%2Bdef "),
        "{request_line}"
    );
    assert!(seen.header("authorization").is_none());
}

#[tokio::test]
async fn redirects_are_answers_not_detours() {
    // A signed request is valid for one path, and a SAS token must not follow a Location
    // header anywhere: a 3xx is reported, and nothing more is sent.
    let server = ScriptedServer::start(vec![
        Step::Reply(302, vec![("location", "/devstoreaccount1/Elsewhere")], ""),
        Step::Reply(200, Vec::new(), TABLES),
    ])
    .await;
    let client = server.client(key(), RetryPolicy::default());
    let err = client.list_table_names(None).await.unwrap_err();
    assert_eq!(err.status(), Some(302), "{err}");
    assert_eq!(server.seen().len(), 1);
}

#[tokio::test]
async fn the_host_header_names_the_endpoint() {
    let server = ScriptedServer::start(vec![Step::Reply(200, Vec::new(), TABLES)]).await;
    let client = server.client(key(), RetryPolicy::none());
    client.list_table_names(None).await.unwrap();
    let host = server.seen()[0].header("host");
    assert_eq!(host, Some(format!("127.0.0.1:{}", server.port)));
}

#[test]
fn credentials_over_plain_http_to_a_remote_host_need_an_opt_in() {
    let build = |url: &str, credential: Credential, allow: bool| {
        TableServiceClient::builder()
            .endpoint(url)
            .credential(credential)
            .allow_insecure_http(allow)
            .build()
    };
    let err = build("http://acct.table.core.windows.net", key(), false).unwrap_err();
    assert!(matches!(err, Error::Configuration(_)), "{err}");
    let sas = || Credential::sas("sv=1&sig=x").unwrap();
    assert!(build("http://acct.table.core.windows.net", sas(), false).is_err());
    assert!(build("http://acct.table.core.windows.net", key(), true).is_ok());
    assert!(build("http://10.0.0.5:10002/devstoreaccount1", key(), false).is_err());
    assert!(build("http://127.0.0.1:10002/devstoreaccount1", key(), false).is_ok());
    assert!(build("http://localhost:10002/devstoreaccount1", key(), false).is_ok());
    assert!(build("http://[::1]:10002/devstoreaccount1", key(), false).is_ok());
    assert!(build("https://acct.table.cosmos.azure.com", key(), false).is_ok());
    assert!(build(
        "http://acct.table.core.windows.net",
        Credential::anonymous(),
        false
    )
    .is_ok());
}

/// A `tracing` writer that keeps everything in memory.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn traces_name_requests_but_never_secrets() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let server = ScriptedServer::start(vec![
        error_reply(500, "InternalError"),
        Step::Reply(200, vec![("x-ms-request-id", "server-req-1")], TABLES),
        Step::Reply(200, Vec::new(), TABLES),
    ])
    .await;
    let sas = server.client(
        Credential::sas("sv=2019-02-02&sig=TRACESECRET").unwrap(),
        RetryPolicy::default(),
    );
    sas.list_table_names(None).await.unwrap();
    let keyed = server.client(key(), RetryPolicy::none());
    keyed.list_table_names(None).await.unwrap();

    let text = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    assert!(text.contains("client_request_id"), "{text}");
    assert!(text.contains("server-req-1"), "{text}");
    assert!(text.contains("retrying"), "{text}");
    assert!(!text.contains("TRACESECRET"), "{text}");
    assert!(
        !text.contains(&tablekit::client::DEVELOPMENT_KEY[..16]),
        "{text}"
    );
    assert!(!text.contains("SharedKey devstoreaccount1:"), "{text}");
}

fn request_line(seen: &Seen) -> String {
    seen.head.lines().next().unwrap_or_default().to_owned()
}

#[tokio::test]
async fn read_ahead_asks_for_the_next_page_before_this_body_arrives() {
    let server = ScriptedServer::start(vec![
        Step::BodyAfterNextRequest(
            vec![
                ("x-ms-continuation-NextPartitionKey", "1!4!Yg--"),
                ("x-ms-continuation-NextRowKey", "1!4!Mg--"),
            ],
            r#"{"value":[{"PartitionKey":"a","RowKey":"1"}]}"#,
        ),
        Step::Reply(
            200,
            Vec::new(),
            r#"{"value":[{"PartitionKey":"b","RowKey":"2"}]}"#,
        ),
    ])
    .await;
    let client = server.client(key(), RetryPolicy::none());
    let table = client.table_named::<DynamicEntity>("alpha");
    let all = table.query_all().collect_all().await.unwrap();
    let keys: Vec<_> = all.iter().map(|e| e.row_key().to_owned()).collect();
    assert_eq!(keys, ["1", "2"]);
    let order: Vec<String> = server.seen().iter().map(request_line).collect();
    assert_eq!(order.len(), 3, "{order:?}");
    assert!(order[1].contains("NextRowKey=1%214%21Mg--"), "{order:?}");
    assert_eq!(
        order[2], BODY_SENT,
        "page 2 was asked for after page 1's body"
    );
}

#[tokio::test]
async fn empty_pages_with_a_continuation_are_followed_and_empty_row_keys_never_sent() {
    let entity = |rk: &'static str| -> &'static str {
        match rk {
            "1" => r#"{"value":[{"PartitionKey":"a","RowKey":"1"}]}"#,
            _ => r#"{"value":[{"PartitionKey":"b","RowKey":"2"}]}"#,
        }
    };
    let server = ScriptedServer::start(vec![
        Step::Reply(
            200,
            vec![
                ("x-ms-continuation-NextPartitionKey", "1!4!YQ--"),
                ("x-ms-continuation-NextRowKey", ""),
            ],
            r#"{"value":[]}"#,
        ),
        Step::Reply(
            200,
            vec![
                ("x-ms-continuation-NextPartitionKey", "1!4!Yg--"),
                ("x-ms-continuation-NextRowKey", "1!4!Mg--"),
            ],
            entity("1"),
        ),
        Step::Reply(200, Vec::new(), entity("2")),
    ])
    .await;
    let client = server.client(key(), RetryPolicy::none());
    let table = client.table_named::<DynamicEntity>("alpha");
    let all = table.query_all().collect_all().await.unwrap();
    let keys: Vec<_> = all.iter().map(|e| e.row_key().to_owned()).collect();
    assert_eq!(
        keys,
        ["1", "2"],
        "the empty first page did not end the query"
    );
    let lines: Vec<String> = server.seen().iter().map(request_line).collect();
    assert_eq!(lines.len(), 3);
    assert!(
        lines[0].starts_with("GET /devstoreaccount1/alpha() "),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].contains("?NextPartitionKey=1%214%21YQ-- "),
        "no empty NextRowKey: {}",
        lines[1]
    );
    assert!(
        lines[2].contains("?NextPartitionKey=1%214%21Yg--&NextRowKey=1%214%21Mg-- "),
        "{}",
        lines[2]
    );
}

#[tokio::test]
async fn table_listings_follow_next_table_name() {
    let server = ScriptedServer::start(vec![
        Step::Reply(
            200,
            vec![("x-ms-continuation-NextTableName", "beta")],
            TABLES,
        ),
        Step::Reply(200, Vec::new(), r#"{"value":[{"TableName":"beta"}]}"#),
    ])
    .await;
    let client = server.client(key(), RetryPolicy::none());
    assert_eq!(
        client.list_table_names(None).await.unwrap(),
        ["alpha", "beta"]
    );
    let lines: Vec<String> = server.seen().iter().map(request_line).collect();
    assert!(
        lines[1].contains("/Tables?NextTableName=beta "),
        "{}",
        lines[1]
    );
}

#[tokio::test]
async fn malformed_answers_are_decode_errors_not_panics() {
    let server = ScriptedServer::start(vec![
        Step::Reply(200, Vec::new(), "{not json"),
        Step::Reply(200, Vec::new(), r#"{"PartitionKey":5}"#),
        Step::Reply(
            202,
            vec![("content-type", "multipart/mixed; boundary=batchresponse_x")],
            "--batchresponse_x\r\ngarbage",
        ),
    ])
    .await;
    let client = server.client(key(), RetryPolicy::none());
    let table = client.table_named::<DynamicEntity>("alpha");
    let err = table.query_all().first_page().await.unwrap_err();
    assert!(matches!(err, Error::Decode { .. }), "{err}");
    let err = table.get("p", "r").await.unwrap_err();
    assert!(matches!(err, Error::Decode { .. }), "{err}");
    let mut batch = table.batch();
    batch.insert(&DynamicEntity::new("p", "r")).unwrap();
    let err = batch.submit().await.unwrap_err();
    assert!(matches!(err, Error::Decode { .. }), "{err}");
}

/// The bulk writer sends its transactions again itself (its client does not), but the reads
/// that settle a lost answer retry by the client's policy: a dropped connection under one of
/// them does not turn an applied insert into a failure.
#[tokio::test]
async fn a_bulk_insert_whose_answer_was_lost_is_settled_though_a_re_read_is_dropped() {
    let server = ScriptedServer::start(vec![
        // Applied, then the connection closed: the writer sends it again.
        Step::Drop,
        // The second attempt meets the row the first inserted.
        Step::Reply(
            409,
            vec![
                ("x-ms-error-code", "EntityAlreadyExists"),
                ("x-ms-request-id", "server-req-1"),
            ],
            r#"{"odata.error":{"code":"EntityAlreadyExists","message":{"lang":"en-US","value":"0:The specified entity already exists."}}}"#,
        ),
        // The re-read of the row: dropped once, then answered with the row as sent.
        Step::Drop,
        Step::Reply(
            200,
            vec![("etag", "W/\"datetime'2026-01-01T00%3A00%3A00Z'\"")],
            r#"{"PartitionKey":"p","RowKey":"r","Name":"Kim"}"#,
        ),
    ])
    .await;
    let client = server.client(key(), RetryPolicy::default());
    let mut row = DynamicEntity::new("p", "r");
    row.set("Name", "Kim");
    let report = BulkWriter::new(&client)
        .write_iter([WriteOp::insert("alpha", row)])
        .await;
    assert!(report.is_complete(), "{:?}", report.failures().next());
    assert_eq!((report.committed(), report.verified()), (1, 1));
    let lines: Vec<String> = server.seen().iter().map(request_line).collect();
    assert_eq!(lines.len(), 4, "{lines:?}");
    assert!(lines[2].starts_with("GET ") && lines[3].starts_with("GET "));
}
