//! What the client tells observers, checked against what crossed the wire: one span per
//! operation with the Azure SDK attributes, its ids equal to the request's and the answer's
//! headers, retries visible, the `User-Agent` with an application id, and the wait a 503
//! asks for honoured in each header form.

use std::sync::{Arc, Mutex};

use tablekit::client::{Credential, RetryPolicy, TableServiceClient, DEVELOPMENT_KEY};
use tablekit::{DynamicEntity, Error};
use tablekit_testing::{Emulator, Fault, Faults, Operation, RetryAfter};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::support::traces::{closed_spans, SpanRecord};

/// A TCP relay on 127.0.0.1 in front of the emulator that keeps what each side sent.
struct Tap {
    port: u16,
    requests: Arc<Mutex<String>>,
    answers: Arc<Mutex<String>>,
}

impl Tap {
    async fn start(upstream: std::net::SocketAddr) -> Tap {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let tap = Tap {
            port,
            requests: Arc::default(),
            answers: Arc::default(),
        };
        let (requests, answers) = (tap.requests.clone(), tap.answers.clone());
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let Ok(server) = TcpStream::connect(upstream).await else {
                    continue;
                };
                let (client_read, client_write) = client.into_split();
                let (server_read, server_write) = server.into_split();
                tokio::spawn(relay(client_read, server_write, requests.clone()));
                tokio::spawn(relay(server_read, client_write, answers.clone()));
            }
        });
        tap
    }

    fn client(&self, emulator: &Emulator) -> tablekit::client::ClientBuilder {
        let endpoint = format!("http://127.0.0.1:{}/{}", self.port, emulator.account());
        TableServiceClient::builder()
            .endpoint(&endpoint)
            .credential(Credential::shared_key(DEVELOPMENT_KEY).expect("key"))
    }

    fn requests(&self) -> String {
        self.requests.lock().expect("lock").clone()
    }

    fn answers(&self) -> String {
        self.answers.lock().expect("lock").clone()
    }
}

async fn relay(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    seen: Arc<Mutex<String>>,
) {
    let mut buf = vec![0u8; 16 * 1024];
    while let Ok(n) = from.read(&mut buf).await {
        if n == 0 {
            break;
        }
        let bytes = buf.get(..n).unwrap_or_default();
        seen.lock()
            .expect("lock")
            .push_str(&String::from_utf8_lossy(bytes));
        if to.write_all(bytes).await.is_err() {
            break;
        }
    }
}

/// Every value of header `name` in `text` (HTTP/1.1 heads, names case-insensitive).
fn header_values(text: &str, name: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| {
            let (n, v) = line.split_once(':')?;
            n.trim()
                .eq_ignore_ascii_case(name)
                .then(|| v.trim().to_owned())
        })
        .collect()
}

/// The one closed span named `name` whose client request id is among `ids`.
fn span_for(name: &str, ids: &[String]) -> SpanRecord {
    let found: Vec<_> = closed_spans()
        .into_iter()
        .filter(|s| s.name == name)
        .filter(|s| {
            s.field("az.client_request_id")
                .is_some_and(|id| ids.iter().any(|i| i == id))
        })
        .collect();
    assert_eq!(found.len(), 1, "one `{name}` span for {ids:?}: {found:?}");
    found.into_iter().next().expect("one")
}

#[tokio::test(flavor = "current_thread")]
async fn each_operation_is_a_span_whose_ids_are_the_wire_s() {
    crate::support::traces::captured();
    let emulator = Emulator::start().await.expect("emulator");
    let tap = Tap::start(emulator.addr()).await;
    let client = tap
        .client(&emulator)
        .application_id("telemetry-test")
        .build()
        .expect("client");
    let table = client.table_named::<DynamicEntity>("Spans");
    table.create().await.expect("create");
    let before = header_values(&tap.requests(), "x-ms-client-request-id");
    table
        .insert(&mut DynamicEntity::new("eu", "dragon"))
        .await
        .expect("insert");
    let sent = header_values(&tap.requests(), "x-ms-client-request-id");
    let insert_id = sent.get(before.len()).expect("the insert's id").clone();

    let span = span_for("Table.insert", std::slice::from_ref(&insert_id));
    assert_eq!(span.field("az.namespace"), Some("Microsoft.Storage"));
    assert_eq!(span.field("server.address"), Some("127.0.0.1"));
    assert_eq!(
        span.field("server.port"),
        Some(tap.port.to_string().as_str())
    );
    assert_eq!(span.field("http.request.method"), Some("POST"));
    assert_eq!(span.field("http.response.status_code"), Some("204")); // inserted, answered without a body
    assert_eq!(span.field("error.type"), None);
    assert_eq!(span.field("http.request.resend_count"), None);
    let answered = header_values(&tap.answers(), "x-ms-request-id");
    let service_id = span.field("az.service_request_id").expect("service id");
    assert!(answered.iter().any(|id| id == service_id), "{answered:?}");
    // the emulator echoes the client's id
    let echoed = header_values(&tap.answers(), "x-ms-client-request-id");
    assert!(echoed.contains(&insert_id));

    let agents = header_values(&tap.requests(), "user-agent");
    assert!(
        agents
            .iter()
            .all(|a| a.starts_with("telemetry-test tablekit/")),
        "{agents:?}"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn a_refusal_names_its_error_type() {
    crate::support::traces::captured();
    let emulator = Emulator::start().await.expect("emulator");
    let tap = Tap::start(emulator.addr()).await;
    let client = tap.client(&emulator).build().expect("client");
    let err = client
        .table_named::<DynamicEntity>("Missing")
        .insert(&mut DynamicEntity::new("eu", "dragon"))
        .await
        .expect_err("404");
    assert!(err.is_not_found());
    let ids = header_values(&tap.requests(), "x-ms-client-request-id");
    let span = span_for("Table.insert", &ids);
    assert_eq!(span.field("http.response.status_code"), Some("404"));
    assert_eq!(span.field("error.type"), Some("TableNotFound"));
    let service_id = err.service_error().and_then(|e| e.request_id());
    assert_eq!(span.field("az.service_request_id"), service_id);
}

#[tokio::test(flavor = "current_thread")]
async fn retries_keep_the_operation_s_id_and_are_counted() {
    crate::support::traces::captured();
    let busy_once = Faults::seeded(1)
        .rate(Fault::ServerBusy, 1.0)
        .only(&[Operation::Get])
        .at_most(1);
    let emulator = Emulator::builder()
        .faults(busy_once)
        .start()
        .await
        .expect("emulator");
    let tap = Tap::start(emulator.addr()).await;
    let quick = std::time::Duration::from_millis(1);
    let client = tap
        .client(&emulator)
        .retry_policy(RetryPolicy::default().base_delay(quick))
        .build()
        .expect("client");
    let table = client.table_named::<DynamicEntity>("Retried");
    table.create().await.expect("create");
    let before = header_values(&tap.requests(), "x-ms-client-request-id").len();
    assert!(table.get("eu", "dragon").await.expect("get").is_none());

    let ids = header_values(&tap.requests(), "x-ms-client-request-id");
    let get_ids = ids.get(before..).expect("the get's attempts");
    assert_eq!(get_ids.len(), 2, "a 503, then the retry");
    assert_eq!(
        get_ids[0], get_ids[1],
        "one id per operation, on each attempt"
    );
    let span = span_for("Table.get", &get_ids[..1]);
    assert_eq!(span.field("http.request.resend_count"), Some("1"));
    assert_eq!(span.field("http.response.status_code"), Some("404"));
    let retries: Vec<_> = span
        .events
        .iter()
        .filter(|e| e.get("message").is_some_and(|m| m.contains("retrying")))
        .collect();
    assert_eq!(retries.len(), 1, "{:?}", span.events);
    assert_eq!(
        retries[0].get("error.type").map(String::as_str),
        Some("ServerBusy")
    );
}

#[tokio::test(flavor = "current_thread")]
async fn no_span_field_holds_a_secret() {
    crate::support::traces::captured();
    let emulator = Emulator::start().await.expect("emulator");
    let client = emulator.client();
    client.create_table("Secretive").await.expect("create");
    let spans = closed_spans();
    assert!(!spans.is_empty());
    for span in spans {
        let mut text = format!("{span:?}");
        text.retain(|c| c != '\\');
        assert!(!text.contains(&DEVELOPMENT_KEY[..16]), "{text}");
        assert!(!text.contains("SharedKey "), "{text}");
        assert!(!text.contains("sig="), "{text}");
        assert!(!text.contains("Bearer "), "{text}");
    }
}

/// The wait the one retry of a 503 answered with `asking` chose, as the retry event says.
async fn wait_chosen(asking: RetryAfter) -> std::time::Duration {
    let once = Faults::seeded(1)
        .rate(Fault::ServerBusyAsking(asking), 1.0)
        .at_most(1);
    let emulator = Emulator::builder()
        .faults(once)
        .start()
        .await
        .expect("emulator");
    let tap = Tap::start(emulator.addr()).await;
    let client = tap
        .client(&emulator)
        .retry_policy(RetryPolicy::default().max_delay(std::time::Duration::from_secs(3)))
        .build()
        .expect("client");
    assert!(!client.table_exists("Waited").await.expect("exists"));
    let ids = header_values(&tap.requests(), "x-ms-client-request-id");
    let span = span_for("TableService.query_tables", &ids[..1]);
    let retry = span
        .events
        .iter()
        .find(|e| e.get("message").is_some_and(|m| m.contains("retrying")))
        .expect("a retry event");
    let ms: u64 = retry["delay_ms"].parse().expect("a number");
    std::time::Duration::from_millis(ms)
}

#[tokio::test(flavor = "current_thread")]
async fn the_wait_a_503_asks_for_is_honoured_in_each_form() {
    crate::support::traces::captured();
    use std::time::Duration;
    assert_eq!(
        wait_chosen(RetryAfter::XMsMilliseconds(120)).await,
        Duration::from_millis(120)
    );
    assert_eq!(
        wait_chosen(RetryAfter::Milliseconds(80)).await,
        Duration::from_millis(80)
    );
    assert_eq!(
        wait_chosen(RetryAfter::Seconds(1)).await,
        Duration::from_secs(1)
    );
    // capped by the policy's maximum delay
    assert_eq!(
        wait_chosen(RetryAfter::Seconds(60)).await,
        Duration::from_secs(3)
    );
    // a date has whole seconds: two seconds from an answer sent within this second
    let dated = wait_chosen(RetryAfter::HttpDate(2)).await;
    assert!(
        dated > Duration::from_secs(1) && dated <= Duration::from_secs(2),
        "{dated:?}"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn the_operation_timeout_ends_every_retry_and_tells_what_may_have_been_applied() {
    use std::time::Duration;
    let hang = Faults::seeded(1)
        .rate(Fault::Timeout, 1.0)
        .hold(Duration::from_secs(5));
    let emulator = Emulator::start().await.expect("emulator");
    let table = emulator.client().table_named::<DynamicEntity>("Bounded");
    table.create().await.expect("create");
    emulator.set_faults(Some(hang));
    let client = emulator
        .client_builder()
        .timeout(Duration::from_millis(100))
        .retry_policy(RetryPolicy::default().max_attempts(50))
        .operation_timeout(Duration::from_millis(400))
        .build()
        .expect("client");
    let table = client.table_named::<DynamicEntity>("Bounded");
    let err = table
        .insert(&mut DynamicEntity::new("eu", "dragon"))
        .await
        .expect_err("timed out");
    assert!(
        matches!(err, Error::OperationTimeout { after, .. } if after == Duration::from_millis(400)),
        "{err}"
    );
    assert!(err.may_have_been_applied(), "an insert was under way");
    assert!(err.to_string().starts_with("the operation timed out"));
    let attempts = emulator.requests().count(Operation::Insert);
    assert!((1..50).contains(&attempts), "{attempts}");
    let err = table.get("eu", "dragon").await.expect_err("timed out");
    assert!(matches!(err, Error::OperationTimeout { .. }));
    assert!(!err.may_have_been_applied(), "a read applies nothing");
}
