//! [`FaultProxy`]: an HTTP proxy on 127.0.0.1 that forwards every request to a Table service
//! and injects faults by a [`Faults`] plan, as the emulator does itself, so the same fault
//! tests run against servers that cannot fail on cue (Azurite).
//!
//! Each fault does to a forwarded request what the emulator does to one it serves: the
//! `Applied*` faults forward the request and wait for the whole answer (the service has
//! acted on it), then close the connection without answering or answer 500; the others
//! answer at once, never forwarding. Bodies stream through in both directions, and an answer
//! that is thrown away is read and dropped piece by piece, so the proxy holds no more than
//! the connections' buffers whatever the size of a request or a page.

use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use http::request::Parts;
use http::{HeaderValue, Request, Response, StatusCode, Uri};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

use crate::error::{Error, Result};
use crate::format::error_response::ErrorResponse;
use crate::format::headers as names;
use crate::format::response;
use crate::http::server::DEFAULT_MAX_CONNECTIONS;
use crate::http::serving::Serving;
use crate::pipeline::counter::{Operation, RequestCounter, RequestCounts};
use crate::pipeline::faults::{ActiveFaults, Fault, Faults};
use crate::pipeline::outgoing::Dropped;
use crate::pipeline::resource;

/// A body streamed from the upstream, or one the proxy made.
type ProxyBody = BoxBody<Bytes, hyper::Error>;

/// A fault-injecting HTTP proxy on `127.0.0.1` in front of a Table service: requests sent to
/// [`endpoint`](FaultProxy::endpoint) are forwarded to the upstream unless the plan's fault
/// says otherwise. It stops when dropped.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use tablekit::client::{Credential, RetryPolicy, TableServiceClient};
/// use tablekit_emulator::{Emulator, Fault, FaultProxy, Faults, DEV_KEY};
/// let server = Emulator::start().await?; // any Table service: Azurite, say
/// // every request is forwarded and carried out, then its connection closes unanswered
/// let lost = Faults::seeded(1).rate(Fault::AppliedThenDropped, 1.0);
/// let proxy = FaultProxy::start(&server.endpoint(), lost).await?;
/// let client = TableServiceClient::builder()
///     .endpoint(&proxy.endpoint())
///     .credential(Credential::shared_key(DEV_KEY)?)
///     .retry_policy(RetryPolicy::none())
///     .build()?;
/// let err = client.create_table("Gamers").await.unwrap_err();
/// assert!(err.may_have_been_applied());
/// assert_eq!(server.table_names(), ["Gamers"]); // it was
/// # Ok(()) }
/// ```
pub struct FaultProxy {
    addr: SocketAddr,
    endpoint: String,
    state: Arc<ProxyState>,
    serving: Serving,
}

/// What every connection's tasks share.
struct ProxyState {
    /// `host:port` of the upstream.
    upstream: String,
    faults: ActiveFaults,
    counter: RequestCounter,
}

impl fmt::Debug for FaultProxy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FaultProxy")
            .field("endpoint", &self.endpoint)
            .field("upstream", &self.state.upstream)
            .finish_non_exhaustive()
    }
}

impl FaultProxy {
    /// Starts a proxy on a free port of `127.0.0.1` that forwards to `upstream` (a plain
    /// `http://host:port/account` endpoint, as Azurite and the emulator serve) and injects
    /// faults by `faults`.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use tablekit_emulator::{Emulator, FaultProxy, Faults};
    /// let server = Emulator::start().await?;
    /// let proxy = FaultProxy::start(&server.endpoint(), Faults::seeded(0)).await?;
    /// assert!(proxy.addr().ip().is_loopback());
    /// assert_ne!(proxy.addr(), server.addr());
    /// // only plain http: the proxy reads what it forwards
    /// let err = FaultProxy::start("https://example.invalid/acct", Faults::seeded(0)).await;
    /// assert!(err.unwrap_err().to_string().contains("http://"));
    /// # Ok(()) }
    /// ```
    pub async fn start(upstream: &str, faults: Faults) -> Result<FaultProxy> {
        let (authority, path) = parse_upstream(upstream)?;
        let listener = TcpListener::bind(("127.0.0.1", 0))
            .await
            .map_err(Error::Bind)?;
        let addr = listener.local_addr().map_err(Error::Bind)?;
        let state = Arc::new(ProxyState {
            upstream: authority,
            faults: ActiveFaults::new(Some(faults)),
            counter: RequestCounter::default(),
        });
        let serving = Serving::accept(listener, DEFAULT_MAX_CONNECTIONS, {
            let state = state.clone();
            move |stream, stop| connection(stream, state.clone(), stop)
        });
        Ok(FaultProxy {
            addr,
            endpoint: format!("http://{addr}{path}"),
            state,
            serving,
        })
    }

    /// The upstream's endpoint with the proxy's address in place of the upstream's: what a
    /// client under test connects to (with the upstream's credential).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use tablekit_emulator::{Emulator, FaultProxy, Faults};
    /// let server = Emulator::start().await?;
    /// let proxy = FaultProxy::start(&server.endpoint(), Faults::seeded(0)).await?;
    /// assert_eq!(proxy.endpoint(), format!("http://{}/devstoreaccount1", proxy.addr()));
    /// # Ok(()) }
    /// ```
    pub fn endpoint(&self) -> String {
        self.endpoint.clone()
    }

    /// The address the proxy listens on.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use tablekit_emulator::{Emulator, FaultProxy, Faults};
    /// let server = Emulator::start().await?;
    /// let proxy = FaultProxy::start(&server.endpoint(), Faults::seeded(0)).await?;
    /// let stream = tokio::net::TcpStream::connect(proxy.addr()).await?;
    /// assert_eq!(stream.peer_addr()?, proxy.addr());
    /// # Ok(()) }
    /// ```
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Replaces the fault-injection plan (`None` forwards everything untouched).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use tablekit::client::{Credential, RetryPolicy, TableServiceClient};
    /// use tablekit_emulator::{Emulator, Fault, FaultProxy, Faults, DEV_KEY};
    /// let server = Emulator::start().await?;
    /// let busy = Faults::seeded(1).rate(Fault::ServerBusy, 1.0);
    /// let proxy = FaultProxy::start(&server.endpoint(), busy).await?;
    /// let client = TableServiceClient::builder()
    ///     .endpoint(&proxy.endpoint())
    ///     .credential(Credential::shared_key(DEV_KEY)?)
    ///     .retry_policy(RetryPolicy::none())
    ///     .build()?;
    /// assert!(client.create_table("Gamers").await.unwrap_err().is_throttled());
    /// assert!(server.table_names().is_empty()); // answered by the proxy, never forwarded
    /// proxy.set_faults(None);
    /// client.create_table("Gamers").await?;
    /// assert_eq!(server.table_names(), ["Gamers"]);
    /// # Ok(()) }
    /// ```
    pub fn set_faults(&self, faults: Option<Faults>) {
        self.state.faults.set(faults);
    }

    /// How many requests of each kind reached the proxy, faulted or not.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use tablekit::client::{Credential, TableServiceClient};
    /// use tablekit_emulator::{Emulator, FaultProxy, Faults, Operation, DEV_KEY};
    /// let server = Emulator::start().await?;
    /// let proxy = FaultProxy::start(&server.endpoint(), Faults::seeded(0)).await?;
    /// let client = TableServiceClient::builder()
    ///     .endpoint(&proxy.endpoint())
    ///     .credential(Credential::shared_key(DEV_KEY)?)
    ///     .build()?;
    /// client.create_table("Gamers").await?;
    /// assert!(client.table_exists("Gamers").await?);
    /// let requests = proxy.requests();
    /// assert_eq!(requests.count(Operation::CreateTable), 1);
    /// assert_eq!(requests.total(), 2);
    /// assert_eq!(server.requests(), requests); // every one forwarded
    /// # Ok(()) }
    /// ```
    pub fn requests(&self) -> RequestCounts {
        self.state.counter.snapshot()
    }

    /// Stops accepting connections, closes the open ones and waits for the proxy's task.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use tablekit_emulator::{Emulator, FaultProxy, Faults};
    /// let server = Emulator::start().await?;
    /// let proxy = FaultProxy::start(&server.endpoint(), Faults::seeded(0)).await?;
    /// let addr = proxy.addr();
    /// proxy.shutdown().await;
    /// assert!(tokio::net::TcpStream::connect(addr).await.is_err()); // nothing listens
    /// # Ok(()) }
    /// ```
    pub async fn shutdown(mut self) {
        self.serving.stop().await;
    }
}

/// `http://host:port/path` -> (`host:port`, `/path` without a trailing slash).
fn parse_upstream(upstream: &str) -> Result<(String, String)> {
    let invalid = |reason: &str| Error::Upstream {
        url: upstream.to_owned(),
        reason: reason.to_owned(),
    };
    let uri: Uri = upstream.parse().map_err(|_| invalid("not a valid URL"))?;
    if uri.scheme_str() != Some("http") {
        return Err(invalid("only plain `http://` upstreams can be proxied"));
    }
    let authority = uri.authority().ok_or_else(|| invalid("no host"))?.as_str();
    if authority.contains('@') {
        return Err(invalid("credentials in the URL are not supported"));
    }
    let port = uri.port_u16().unwrap_or(80);
    let host = uri.host().unwrap_or_default();
    let path = uri.path().trim_end_matches('/').to_owned();
    Ok((format!("{host}:{port}"), path))
}

async fn connection(
    stream: TcpStream,
    state: Arc<ProxyState>,
    mut shutdown: watch::Receiver<bool>,
) {
    let service = service_fn(move |req| handle(state.clone(), req));
    let conn = http1::Builder::new()
        .keep_alive(true)
        .serve_connection(TokioIo::new(stream), service);
    tokio::select! {
        _ = conn => {}
        _ = shutdown.changed() => {}
    }
}

/// Handles one request; `Err` closes the client's connection without an answer.
async fn handle(
    state: Arc<ProxyState>,
    req: Request<Incoming>,
) -> Result<Response<ProxyBody>, Dropped> {
    let (parts, body) = req.into_parts();
    let op = classify(&parts);
    state.counter.record(op);
    let drawn = state.faults.draw(op);
    if !drawn.latency.is_zero() {
        tokio::time::sleep(drawn.latency).await;
    }
    match drawn.fault {
        Some(Fault::InternalError) => Ok(injected(StatusCode::INTERNAL_SERVER_ERROR)),
        Some(Fault::ServerBusy) => Ok(injected(StatusCode::SERVICE_UNAVAILABLE)),
        Some(Fault::ServerBusyAsking(wait)) => {
            let mut busy = injected(StatusCode::SERVICE_UNAVAILABLE);
            let (name, value) = wait.header();
            if let Ok(value) = http::HeaderValue::from_str(&value) {
                busy.headers_mut().insert(name, value);
            }
            Ok(busy)
        }
        Some(Fault::Timeout) => {
            tokio::time::sleep(drawn.hold).await;
            Err(Dropped)
        }
        Some(Fault::DropConnection) => Err(Dropped),
        Some(Fault::AppliedThenDropped) => {
            state.forward_and_discard(parts, body).await;
            Err(Dropped)
        }
        Some(Fault::AppliedThenInternalError) => {
            state.forward_and_discard(parts, body).await;
            Ok(injected(StatusCode::INTERNAL_SERVER_ERROR))
        }
        None => match state.forward(parts, body).await {
            Ok(answer) => Ok(answer.map(BodyExt::boxed)),
            Err(_) => Ok(bad_gateway()),
        },
    }
}

/// The kind of request, by the emulator's own classification.
fn classify(parts: &Parts) -> Operation {
    match resource::parse(parts.uri.path()) {
        Ok((_, route)) => route.operation(&parts.method, &parts.headers),
        Err(_) => Operation::Other,
    }
}

impl ProxyState {
    /// Sends the request upstream on a connection of its own and returns the answer, its
    /// body still streaming.
    async fn forward(
        &self,
        parts: Parts,
        body: Incoming,
    ) -> Result<Response<Incoming>, Box<dyn std::error::Error + Send + Sync>> {
        let stream = TcpStream::connect(&self.upstream).await?;
        let _ = stream.set_nodelay(true);
        let (mut sender, conn) =
            hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
        // Drives the connection until the answer's body is read or dropped.
        tokio::spawn(conn);
        Ok(sender
            .send_request(Request::from_parts(parts, body))
            .await?)
    }

    /// Forwards the request and waits for the whole answer, reading its body and dropping it.
    async fn forward_and_discard(&self, parts: Parts, body: Incoming) {
        let Ok(answer) = self.forward(parts, body).await else {
            return;
        };
        let mut body = answer.into_body();
        while let Some(Ok(_)) = body.frame().await {}
    }
}

/// An injected error answer, as the emulator gives it.
fn injected(status: StatusCode) -> Response<ProxyBody> {
    error_answer(&ErrorResponse::injected(status))
}

/// The answer when the upstream cannot be reached or drops the request.
fn bad_gateway() -> Response<ProxyBody> {
    error_answer(&ErrorResponse::new(
        StatusCode::BAD_GATEWAY,
        "BadGateway",
        "The proxy could not get an answer from the upstream service.",
    ))
}

fn error_answer(err: &ErrorResponse) -> Response<ProxyBody> {
    let request_id = uuid::Uuid::new_v4().to_string();
    let (content_type, body) = response::error_body(err, &request_id, None, "");
    let body = Full::new(Bytes::from(body)).map_err(|never| match never {});
    let mut answer = Response::new(body.boxed());
    *answer.status_mut() = err.status;
    let headers = answer.headers_mut();
    headers.insert(
        http::header::CONTENT_TYPE,
        HeaderValue::from_static(content_type),
    );
    headers.insert(names::ERROR_CODE, HeaderValue::from_static(err.code));
    if let Ok(id) = HeaderValue::from_str(&request_id) {
        headers.insert(names::REQUEST_ID, id);
    }
    answer
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Emulator, DEV_KEY};
    use std::time::Duration;
    use tablekit::client::{Credential, RetryPolicy, TableServiceClient};
    use tablekit::DynamicEntity;

    /// A proxy in front of a fresh emulator, and a client through it that does not retry.
    async fn proxied() -> (Emulator, FaultProxy, TableServiceClient) {
        let server = Emulator::start().await.unwrap();
        let proxy = FaultProxy::start(&server.endpoint(), Faults::seeded(0))
            .await
            .unwrap();
        let client = TableServiceClient::builder()
            .endpoint(&proxy.endpoint())
            .credential(Credential::shared_key(DEV_KEY).unwrap())
            .retry_policy(RetryPolicy::none())
            .timeout(Duration::from_secs(5))
            .build()
            .unwrap();
        (server, proxy, client)
    }

    #[tokio::test]
    async fn each_fault_forwards_or_not_as_the_emulator_applies_or_not() {
        let (server, proxy, client) = proxied().await;
        let cases = [
            (Fault::InternalError, Some(500), false),
            (Fault::ServerBusy, Some(503), false),
            (Fault::Timeout, None, false),
            (Fault::DropConnection, None, false),
            (Fault::AppliedThenDropped, None, true),
            (Fault::AppliedThenInternalError, Some(500), true),
        ];
        for (n, (fault, status, applied)) in cases.into_iter().enumerate() {
            let plan = Faults::seeded(0)
                .rate(fault, 1.0)
                .hold(Duration::from_millis(20));
            proxy.set_faults(Some(plan));
            let name = format!("Table{n}");
            let err = client.create_table(&name).await.unwrap_err();
            assert_eq!(err.status(), status, "{fault:?}: {err}");
            // The client cannot tell: only a 503 says "not done".
            assert_eq!(
                err.may_have_been_applied(),
                status != Some(503),
                "{fault:?}"
            );
            let forwarded = server.table_names().contains(&name);
            assert_eq!(forwarded, applied, "{fault:?}");
        }
        assert_eq!(proxy.requests().count(Operation::CreateTable), 6);
        assert_eq!(server.requests().count(Operation::CreateTable), 2);
    }

    #[tokio::test]
    async fn large_bodies_stream_through_both_ways() {
        let (server, _proxy, client) = proxied().await;
        let table = client.table_named::<DynamicEntity>("Large");
        table.create().await.unwrap();
        let mut batch = table.batch();
        for row in 0..4 {
            let mut e = DynamicEntity::new("p", format!("{row}"));
            for part in 0..15 {
                e.set(format!("Text{part}"), "x".repeat(30_000));
            }
            batch.insert(&e).unwrap();
        }
        assert!(batch.encoded_len() > 1_500_000);
        batch.submit().await.unwrap();
        let page = table.query_all().collect_all().await.unwrap();
        assert_eq!(page.len(), 4);
        assert_eq!(
            server.entities("Large").unwrap(),
            page.iter()
                .map(|e| {
                    let mut e = e.clone();
                    e.set_etag(None);
                    e
                })
                .collect::<Vec<_>>()
        );
    }

    #[tokio::test]
    async fn an_unreachable_upstream_is_a_bad_gateway() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let upstream = format!("http://127.0.0.1:{port}/devstoreaccount1");
        let proxy = FaultProxy::start(&upstream, Faults::seeded(0))
            .await
            .unwrap();
        let client = TableServiceClient::builder()
            .endpoint(&proxy.endpoint())
            .credential(Credential::shared_key(DEV_KEY).unwrap())
            .retry_policy(RetryPolicy::none())
            .build()
            .unwrap();
        let err = client.table_exists("Gamers").await.unwrap_err();
        assert_eq!(err.status(), Some(502), "{err}");
    }

    #[test]
    fn reads_the_upstream_address_and_path() {
        let parse = |url| parse_upstream(url).map_err(|e| e.to_string());
        assert_eq!(
            parse("http://127.0.0.1:10002/devstoreaccount1/"),
            Ok(("127.0.0.1:10002".into(), "/devstoreaccount1".into()))
        );
        assert_eq!(
            parse("http://localhost"),
            Ok(("localhost:80".into(), String::new()))
        );
        for bad in [
            "https://127.0.0.1/a",
            "127.0.0.1:10002",
            "http://u:p@h/a",
            "::",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
