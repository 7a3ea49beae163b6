//! The HTTP client under the transport: hyper's connection pool over TCP, with rustls for
//! https (HTTP/1.1, or HTTP/2 when the server offers it), and reqwest for an endpoint that the
//! environment's proxy settings (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`, `NO_PROXY`) send
//! through a proxy.
//!
//! Why two: a request sent straight to the service costs about a fifth less CPU without
//! reqwest's layers (a redirect policy and a retry layer, both disabled but still passed
//! through, the URL converted to a `Uri` and back, the headers copied), measured on single
//! inserts against the emulator; reqwest knows every way through a proxy (absolute-form
//! requests, `CONNECT` tunnels, proxy credentials). Which one an endpoint uses is decided
//! once, when the client is built, as reqwest itself decides per request.
//!
//! A client built with an [`InProcessService`] hands every request to it instead.

use std::error::Error as StdError;
use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderMap, Request};
use http_body_util::{BodyExt, Full};
use hyper::body::Body as _;
use hyper_rustls::{HttpsConnector, HttpsConnectorBuilder};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::client::proxy::matcher::Matcher;
use hyper_util::rt::{TokioExecutor, TokioTimer};
use url::Url;

use super::body_pool::BodyPool;
use super::in_process::InProcessService;

/// Below Azurite's 5 s keep-alive: never reuse a connection the server is closing.
const POOL_IDLE: Duration = Duration::from_secs(4);

type Direct = Client<HttpsConnector<HttpConnector>, Full<Bytes>>;

/// The connection pools requests go through: one straight to servers, and one through the
/// environment's proxy when an endpoint needs it. Cheap to clone (the pools are shared).
#[derive(Clone)]
pub(crate) struct HttpClient {
    direct: Direct,
    proxied: Option<reqwest::Client>,
    /// The service in this process that answers instead of a network, when there is one.
    in_process: Option<Arc<dyn InProcessService>>,
    /// Buffers that large answers are joined in.
    bodies: Arc<BodyPool>,
}

/// How an endpoint is reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Delivery {
    Direct,
    Proxied,
    /// No network: the client's [`InProcessService`].
    InProcess,
}

/// A response whose head has arrived; its body is read with [`Answer::bytes`].
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) headers: HeaderMap,
    body: Body,
    bodies: Arc<BodyPool>,
}

enum Body {
    Direct(hyper::body::Incoming),
    /// Boxed: the rare way out, and over three times the size of either other.
    Proxied(Box<reqwest::Response>),
    InProcess(Bytes),
}

/// A request that got no (complete) answer: the connection failed, broke, or the TLS
/// handshake failed. Its text names each cause in turn, never the URL (which may carry a SAS
/// signature).
#[derive(Debug)]
pub(crate) struct HttpError {
    /// Whether it failed before a connection was made, so nothing was sent.
    pub(crate) connect: bool,
    /// Whether a connect timeout ended it.
    pub(crate) timed_out: bool,
    source: Box<dyn StdError + Send + Sync>,
}

impl HttpClient {
    /// Pools for `endpoints`, with connections given `connect_timeout` to open.
    pub(crate) fn new<'a>(
        endpoints: impl IntoIterator<Item = &'a Url>,
        connect_timeout: Duration,
    ) -> Result<(HttpClient, Vec<Delivery>), String> {
        let proxies = Matcher::from_env();
        let deliveries: Vec<Delivery> = endpoints
            .into_iter()
            .map(|url| delivery(&proxies, url))
            .collect();
        let proxied = match deliveries.contains(&Delivery::Proxied) {
            true => Some(proxied(connect_timeout)?),
            false => None,
        };
        let client = HttpClient {
            direct: direct(connect_timeout)?,
            proxied,
            in_process: None,
            bodies: Arc::default(),
        };
        Ok((client, deliveries))
    }

    /// A client whose requests `service` answers, whatever their URL.
    /// Its pool for servers is made but stays empty: every delivery is in-process.
    pub(crate) fn in_process(
        service: Arc<dyn InProcessService>,
        connect_timeout: Duration,
    ) -> Result<HttpClient, String> {
        Ok(HttpClient {
            direct: direct(connect_timeout)?,
            proxied: None,
            in_process: Some(service),
            bodies: Arc::default(),
        })
    }

    /// Sends `request` by `delivery` and waits for the response's head.
    pub(crate) async fn send(
        &self,
        request: Request<Bytes>,
        delivery: Delivery,
    ) -> Result<Answer, HttpError> {
        if let (Delivery::InProcess, Some(service)) = (delivery, &self.in_process) {
            let (parts, body) = service
                .call(request)
                .await
                .map_err(HttpError::in_process)?
                .into_parts();
            return Ok(Answer {
                status: parts.status.as_u16(),
                headers: parts.headers,
                body: Body::InProcess(body),
                bodies: self.bodies.clone(),
            });
        }
        match (delivery, &self.proxied) {
            (Delivery::Proxied, Some(proxied)) => {
                let request = reqwest::Request::try_from(request).map_err(HttpError::reqwest)?;
                let mut response = proxied.execute(request).await.map_err(HttpError::reqwest)?;
                Ok(Answer {
                    status: response.status().as_u16(),
                    headers: std::mem::take(response.headers_mut()),
                    body: Body::Proxied(Box::new(response)),
                    bodies: self.bodies.clone(),
                })
            }
            _ => {
                let response = self
                    .direct
                    .request(request.map(Full::new))
                    .await
                    .map_err(HttpError::direct)?;
                let (parts, body) = response.into_parts();
                Ok(Answer {
                    status: parts.status.as_u16(),
                    headers: parts.headers,
                    body: Body::Direct(body),
                    bodies: self.bodies.clone(),
                })
            }
        }
    }
}

impl HttpClient {
    /// Keeps the buffer of a large answer's body, read and done with, for the next one.
    pub(crate) fn give_back(&self, body: Bytes) {
        self.bodies.give_back(body);
    }
}

impl Answer {
    /// The whole body: as it came when it came in one piece, else joined in one buffer.
    pub(crate) fn bytes(self) -> impl Future<Output = Result<Bytes, HttpError>> {
        // Taken apart before the future is made, which then holds the body and the pool
        // rather than the whole answer (twice, as an `async fn`'s argument and local).
        let Answer { body, bodies, .. } = self;
        async move {
            match body {
                Body::Direct(body) => join(body, &bodies).await,
                // Boxed when taken: reqwest's future is larger than the rest of this one.
                Body::Proxied(response) => {
                    Box::pin(response.bytes()).await.map_err(HttpError::reqwest)
                }
                Body::InProcess(bytes) => Ok(bytes),
            }
        }
    }
}

/// Reads `body` to its end, joining its pieces in a buffer from `bodies`.
async fn join(mut body: hyper::body::Incoming, bodies: &BodyPool) -> Result<Bytes, HttpError> {
    let announced = body.size_hint().exact();
    let Some(first) = next_data(&mut body).await? else {
        return Ok(Bytes::new());
    };
    if body.is_end_stream() {
        return Ok(first);
    }
    let announced = announced.and_then(|n| usize::try_from(n).ok());
    let mut joined = bodies.take(announced.unwrap_or(2 * first.len()));
    joined.extend_from_slice(&first);
    while let Some(data) = next_data(&mut body).await? {
        joined.extend_from_slice(&data);
    }
    Ok(Bytes::from(joined))
}

/// The body's next piece of data, skipping trailers; `None` at its end.
async fn next_data(body: &mut hyper::body::Incoming) -> Result<Option<Bytes>, HttpError> {
    while let Some(frame) = body.frame().await {
        if let Ok(data) = frame.map_err(HttpError::broken)?.into_data() {
            return Ok(Some(data));
        }
    }
    Ok(None)
}

/// Whether the environment's proxy settings send requests to `url` through a proxy.
fn delivery(proxies: &Matcher, url: &Url) -> Delivery {
    let proxied = url
        .as_str()
        .parse::<http::Uri>()
        .is_ok_and(|uri| proxies.intercept(&uri).is_some());
    match proxied {
        true => Delivery::Proxied,
        false => Delivery::Direct,
    }
}

fn direct(connect_timeout: Duration) -> Result<Direct, String> {
    let mut tcp = HttpConnector::new();
    tcp.enforce_http(false);
    tcp.set_nodelay(true);
    tcp.set_connect_timeout(Some(connect_timeout));
    let tls = HttpsConnectorBuilder::new()
        .with_provider_and_webpki_roots(rustls::crypto::ring::default_provider())
        .map_err(|e| format!("cannot set up TLS: {e}"))?
        .https_or_http()
        .enable_all_versions()
        .wrap_connector(tcp);
    let client = Client::builder(TokioExecutor::new())
        .pool_idle_timeout(POOL_IDLE)
        .pool_timer(TokioTimer::new())
        .build(tls);
    Ok(client)
}

// reqwest stays for proxies: hyper-util's `client-proxy` (0.1.21 here) decides which proxy
// an endpoint takes and opens `CONNECT` tunnels with credentials, but the rest of what reqwest
// does would be ours to write and keep: absolute-form requests with `Proxy-Authorization`
// for http endpoints (the legacy client sends them only over a connection its connector marks
// as proxied), TLS to an `https://` proxy under the tunnel, and mapping each delivery to its own
// connector stack. Until that is written and tested against real proxies, one well-worn
// implementation beats a second, younger one.
fn proxied(connect_timeout: Duration) -> Result<reqwest::Client, String> {
    reqwest::Client::builder()
        .connect_timeout(connect_timeout)
        .pool_idle_timeout(POOL_IDLE)
        // A redirect is never followed: a signed request is valid for one path only, and a
        // SAS token must not travel to wherever a Location header points.
        .redirect(reqwest::redirect::Policy::none())
        // Retrying is the client's own `RetryPolicy`'s job, which knows which operations are
        // safe to repeat.
        .retry(reqwest::retry::never().max_retries_per_request(0))
        .build()
        .map_err(|e| format!("cannot build the HTTP client: {e}"))
}

impl HttpError {
    fn direct(e: hyper_util::client::legacy::Error) -> Self {
        HttpError {
            connect: e.is_connect(),
            timed_out: e.is_connect() && caused_by_timeout(&e),
            source: Box::new(e),
        }
    }

    fn broken(e: hyper::Error) -> Self {
        HttpError {
            connect: false,
            timed_out: false,
            source: Box::new(e),
        }
    }

    /// The in-process service gave no answer: like a connection closed after the request
    /// was sent, so it may have been applied.
    fn in_process(e: super::in_process::InProcessError) -> Self {
        HttpError {
            connect: false,
            timed_out: false,
            source: e,
        }
    }

    fn reqwest(e: reqwest::Error) -> Self {
        HttpError {
            connect: e.is_connect(),
            timed_out: e.is_timeout(),
            // Without the URL: it may carry a SAS signature.
            source: Box::new(e.without_url()),
        }
    }
}

/// Whether an I/O timeout is among the causes of `error`.
fn caused_by_timeout(error: &(dyn StdError + 'static)) -> bool {
    let mut cause = Some(error);
    while let Some(e) = cause {
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            if io.kind() == std::io::ErrorKind::TimedOut {
                return true;
            }
        }
        cause = e.source();
    }
    false
}

impl fmt::Display for HttpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // hyper's errors say "client error (Connect)" and leave the reason to their sources.
        write!(f, "{}", self.source)?;
        let mut cause = self.source.source();
        while let Some(e) = cause {
            write!(f, ": {e}")?;
            cause = e.source();
        }
        Ok(())
    }
}

impl StdError for HttpError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_environments_proxy_settings_pick_the_route() {
        let proxies = Matcher::builder()
            .https("http://proxy.example:3128")
            .no("localhost,127.0.0.1")
            .build();
        let url = |s: &str| Url::parse(s).unwrap();
        let account = url("https://account.table.core.windows.net");
        assert_eq!(delivery(&proxies, &account), Delivery::Proxied);
        let local = url("https://127.0.0.1:10002/devstoreaccount1");
        assert_eq!(delivery(&proxies, &local), Delivery::Direct);
        // Only https goes through this proxy.
        let plain = url("http://emulator.example:10002/devstoreaccount1");
        assert_eq!(delivery(&proxies, &plain), Delivery::Direct);
        let none = Matcher::builder().build();
        assert_eq!(delivery(&none, &account), Delivery::Direct);
    }

    #[tokio::test]
    async fn a_refused_connection_is_a_connect_error_that_names_its_cause() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        drop(listener);
        let url = Url::parse(&format!("http://{address}/t?sig=SECRETSIG")).unwrap();
        let (client, deliveries) = HttpClient::new([&url], Duration::from_secs(5)).unwrap();
        let request = Request::get(url.as_str()).body(Bytes::new()).unwrap();
        let error = match client.send(request, deliveries[0]).await {
            Err(error) => error,
            Ok(_) => panic!("nothing listens there"),
        };
        assert!(error.connect && !error.timed_out);
        let text = error.to_string();
        assert!(text.contains("refused"), "{text}");
        assert!(!text.contains("SECRETSIG"), "{text}");
    }

    #[tokio::test]
    async fn https_is_spoken_over_tls() {
        use tokio::io::AsyncWriteExt;
        // A server answering in plain HTTP: a client speaking TLS cannot read it.
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(async move {
            if let Ok((mut socket, _)) = listener.accept().await {
                let _ = socket.write_all(b"HTTP/1.1 200 OK\r\n\r\n").await;
            }
        });
        let url = Url::parse(&format!("https://{address}/")).unwrap();
        let (client, deliveries) = HttpClient::new([&url], Duration::from_secs(5)).unwrap();
        let request = Request::get(url.as_str()).body(Bytes::new()).unwrap();
        match client.send(request, deliveries[0]).await {
            Err(error) => assert!(error.connect, "{error}"),
            Ok(answer) => panic!("read {} from a plain HTTP server", answer.status),
        }
    }
}
