//! The emulator without sockets: [`Emulator::in_process_client`] hands each request straight
//! to the request pipeline that the HTTP server feeds, so every layer after the HTTP framing
//! (counting, faults, authentication, the body's limits, the handlers) runs as it does for a
//! request that came over loopback TCP, without its system calls.
//!
//! A small request is answered in the caller's task: its memory is allocated and freed on
//! one thread, and no other thread is woken for it. Handing each request to a task of its
//! own, as the HTTP server does each connection, cost more than twice the CPU of a single
//! insert on a multi-threaded runtime (cross-thread frees contending for the allocator's
//! locks, and a wake-up each way); a thread of the emulator's own, fed by a channel, cost
//! about three times the CPU, whatever the caller's runtime. Callers that want more cores run
//! more tasks. A large request (a transaction of many entities) is still handed to a task of
//! its own there, where its work outweighs the hand-over. Either way a request whose caller
//! gives up (a timeout, a dropped future) is answered to its end, as over HTTP, so a write is
//! never cut off half-way through the pipeline.

use std::future::Future;
use std::net::{IpAddr, Ipv4Addr};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Context, Poll};

use bytes::Bytes;
use http::{HeaderValue, Request, Response, Uri};
use http_body_util::{BodyExt, Full};
use tablekit::client::{
    ClientBuilder, InProcessError, InProcessFuture, InProcessService, TableServiceClient,
};
use tokio::runtime::{Handle, RuntimeFlavor};

use crate::http::server::Emulator;
use crate::pipeline::app::App;
use crate::pipeline::incoming::IncomingRequest;
use crate::pipeline::service::Service;

/// The peer an in-process request comes from, for a SAS's `sip` range: this machine.
const PEER: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);

/// An emulator's request pipeline as an [`InProcessService`].
pub(crate) struct InProcess(pub(crate) Arc<App>);

impl InProcessService for InProcess {
    fn call(&self, request: Request<Bytes>) -> InProcessFuture<'_> {
        let large = request.body().len() >= HANDED_OVER_FROM;
        let answer = answer(Arc::clone(&self.0), request);
        match Handle::try_current() {
            // Spawned at once, so the future returned holds only the task's handle.
            Ok(runtime) if large && runtime.runtime_flavor() == RuntimeFlavor::MultiThread => {
                let task = runtime.spawn(answer);
                Box::pin(async move { task.await? })
            }
            _ => Box::pin(ToTheEnd(Some(Box::pin(answer)))),
        }
    }
}

/// The request body's size from which a request is answered on a task of its own on a
/// multi-threaded runtime: a transaction of many entities costs the emulator far more than
/// the hand-over, and its caller encodes the next one meanwhile.
const HANDED_OVER_FROM: usize = 16 * 1024;

/// Answers `request` as the HTTP server would, body and all.
async fn answer(app: Arc<App>, request: Request<Bytes>) -> Result<Response<Bytes>, InProcessError> {
    let request = as_received(request).map(Full::new);
    let reply = app
        .call(IncomingRequest::new(request).with_peer(Some(PEER)))
        .await?;
    let (parts, body) = reply.into_parts();
    let body = body.collect().await?.to_bytes();
    Ok(Response::from_parts(parts, body))
}

/// A request answered in its caller's task that, should the caller drop it unanswered,
/// finishes on a task of its own (where a runtime is at hand): the emulator then carries it
/// out whole, as it does a request whose client hung up.
struct ToTheEnd<F: Future + Send + 'static>(Option<Pin<Box<F>>>);

impl<F: Future + Send + 'static> Future for ToTheEnd<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let answer = self
            .0
            .as_mut()
            .expect("an in-process request polled after its answer");
        let output = ready!(answer.as_mut().poll(cx));
        self.0 = None;
        Poll::Ready(output)
    }
}

impl<F: Future + Send + 'static> Drop for ToTheEnd<F> {
    fn drop(&mut self) {
        if let (Some(answer), Ok(runtime)) = (self.0.take(), Handle::try_current()) {
            runtime.spawn(async move {
                let _ = answer.await;
            });
        }
    }
}

/// The request as the HTTP server would hand it on: the URI in origin form and the body's
/// length declared.
fn as_received(request: Request<Bytes>) -> Request<Bytes> {
    let (mut parts, body) = request.into_parts();
    if let Some(origin) = parts.uri.path_and_query().cloned() {
        parts.uri = Uri::from(origin);
    }
    if !body.is_empty() {
        parts
            .headers
            .insert(http::header::CONTENT_LENGTH, HeaderValue::from(body.len()));
    }
    Request::from_parts(parts, body)
}

impl Emulator {
    /// A client for the primary account that reaches this emulator without sockets: each
    /// request is signed and checked as over HTTP and goes through the same layers and
    /// handlers, only not through the network stack, which is most of a small operation's
    /// cost. For test suites of many operations; conformance tests keep
    /// [`client`](Self::client), which speaks HTTP.
    ///
    /// # Panics
    ///
    /// Only when the client cannot be built at all (no TLS backend), as
    /// [`client`](Self::client).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use tablekit::DynamicEntity;
    /// let emulator = tablekit_emulator::Emulator::start().await?;
    /// let client = emulator.in_process_client();
    /// let table = client.table_named::<DynamicEntity>("Gamers");
    /// table.create().await?;
    /// table.insert(&mut DynamicEntity::new("p", "r")).await?;
    /// assert!(table.get("p", "r").await?.is_some());
    /// assert_eq!(emulator.requests().total(), 3); // counted like any request
    /// # Ok(()) }
    /// ```
    pub fn in_process_client(&self) -> TableServiceClient {
        self.in_process_client_builder()
            .build()
            .unwrap_or_else(|e| panic!("a client for the emulator: {e}"))
    }

    /// A client builder set up like [`client_builder`](Self::client_builder), reaching this
    /// emulator without sockets as [`in_process_client`](Self::in_process_client) does: for
    /// another credential, retry policy or timeout.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use tablekit::client::Credential;
    /// let emulator = tablekit_emulator::Emulator::start().await?;
    /// let wrong_key = Credential::shared_key("d3Jvbmcga2V5")?;
    /// let client = emulator.in_process_client_builder().credential(wrong_key).build()?;
    /// let err = client.create_table("Gamers").await.unwrap_err();
    /// assert_eq!(err.status(), Some(403)); // signed and checked as over HTTP
    /// # Ok(()) }
    /// ```
    pub fn in_process_client_builder(&self) -> ClientBuilder {
        self.client_builder()
            .in_process(Arc::new(InProcess(self.app.clone())))
    }
}
