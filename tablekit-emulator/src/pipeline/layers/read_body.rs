//! [`ReadBody`]: reads a request's body whole before the handlers see it, refusing one
//! larger than the service accepts (413 RequestBodyTooLarge) without keeping it, and one
//! that does not arrive within the time allowed (408), so a client that dribbles its body
//! cannot hold a connection and its buffer forever.
//!
//! A client that writes its whole body before it reads (most do) would meet a closed
//! connection, not the 413, if the answer came while it was still sending: so the rest of a
//! body over the limit is read and dropped first, up to [`MAX_DRAIN`] bytes and within the
//! same time allowed. Only an authenticated request gets this far.

use std::future::{ready, Future};
use std::time::Duration;

use bytes::{Buf, Bytes};
use futures::future::Either;
use futures::FutureExt;
use http_body_util::{BodyExt, Limited};
use hyper::body::Body;
use tablekit::limits;

use crate::format::error_response::ErrorResponse;
use crate::pipeline::incoming::{header, IncomingRequest};
use crate::pipeline::outgoing::{Dropped, OutgoingResponse};
use crate::pipeline::resource::Resource;
use crate::pipeline::service::Service;

/// The largest body accepted outside `$batch` (an entity is at most 1 MiB by the service's
/// formula; its JSON can be larger).
const MAX_BODY: usize = 8 * 1024 * 1024;

/// The most of a body over the limit read and dropped so that its sender reads the 413;
/// beyond it the connection is closed.
const MAX_DRAIN: usize = 32 * 1024 * 1024;

/// Reads bodies, then hands the request with its body to `inner`.
#[derive(Debug)]
pub(crate) struct ReadBody<S> {
    inner: S,
    /// How long the whole body may take to arrive.
    timeout: Duration,
    /// The largest `$batch` body: the flavor's limit.
    batch_limit: usize,
}

impl<S> ReadBody<S> {
    pub(crate) fn new(timeout: Duration, inner: S) -> Self {
        ReadBody {
            inner,
            timeout,
            batch_limit: limits::MAX_BATCH_BYTES,
        }
    }

    /// Refuses `$batch` bodies over `bytes` instead.
    pub(crate) fn batch_limit(mut self, bytes: usize) -> Self {
        self.batch_limit = bytes;
        self
    }
}

impl<B, S> Service<B> for ReadBody<S>
where
    B: Body + Send + Unpin,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    S: Service<Bytes> + Sync,
{
    fn call(
        &self,
        call: IncomingRequest<B>,
    ) -> impl Future<Output = Result<OutgoingResponse, Dropped>> + Send {
        let limit = match call.route {
            Ok(Resource::Batch) => self.batch_limit,
            _ => MAX_BODY,
        };
        let declared = header(&call.parts, "content-length").and_then(|v| v.parse().ok());
        let (call, body) = call.replace_body(());
        let read = tokio::time::timeout(self.timeout, read(body, declared, limit));
        // `then`, not `async`: the request is held once, beside the body's reading or the
        // inner service's future, never both.
        read.then(
            move |read| match read.unwrap_or_else(|_| Err(ErrorResponse::body_timeout())) {
                Ok(bytes) => Either::Left(self.inner.call(call.replace_body(bytes).0)),
                Err(err) => Either::Right(ready(Ok(call.responder().error(&err)))),
            },
        )
    }
}

/// The body, when it is at most `limit` bytes; `declared` is its `Content-Length`.
async fn read<B>(mut body: B, declared: Option<usize>, limit: usize) -> Result<Bytes, ErrorResponse>
where
    B: Body + Unpin,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    if let Some(declared) = declared.filter(|n| *n > limit) {
        if declared <= MAX_DRAIN {
            drain(&mut body).await;
        }
        return Err(ErrorResponse::body_too_large());
    }
    match Limited::new(&mut body, limit).collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(err) if err.is::<http_body_util::LengthLimitError>() => {
            drain(&mut body).await;
            Err(ErrorResponse::body_too_large())
        }
        Err(_) => Err(ErrorResponse::invalid_input(
            "The request body could not be read.",
        )),
    }
}

/// Reads and drops what is left of `body`, at most [`MAX_DRAIN`] bytes of it.
async fn drain<B: Body + Unpin>(body: &mut B) {
    let mut left = MAX_DRAIN;
    while let Some(Ok(frame)) = body.frame().await {
        let len = frame.data_ref().map_or(0, Buf::remaining);
        match left.checked_sub(len) {
            Some(rest) => left = rest,
            None => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use http::{Request, StatusCode};
    use http_body_util::Full;

    use super::*;
    use crate::pipeline::layers::echo::Echo;

    fn post(path: &str, body: Vec<u8>) -> IncomingRequest<Full<Bytes>> {
        let request = Request::post(path).body(Full::new(Bytes::from(body)));
        IncomingRequest::new(request.unwrap())
    }

    #[tokio::test]
    async fn the_handler_gets_the_whole_body() {
        let layer = ReadBody::new(Duration::from_secs(60), Echo::default());
        let reply = layer
            .call(post("/acct/T", b"{\"a\":1}".to_vec()))
            .await
            .unwrap();
        assert_eq!(reply.status(), StatusCode::OK);
        let body = reply.into_body().collect().await.unwrap().to_bytes();
        assert_eq!(body, &b"{\"a\":1}"[..]);
    }

    #[tokio::test]
    async fn a_body_over_its_limit_is_refused_before_the_handler() {
        let layer = ReadBody::new(Duration::from_secs(60), Echo::default());
        let over = vec![b' '; MAX_BODY + 1];
        let reply = layer.call(post("/acct/T", over)).await.unwrap();
        assert_eq!(reply.status(), StatusCode::PAYLOAD_TOO_LARGE);
        // A `$batch` has the service's smaller limit.
        let over = vec![b' '; limits::MAX_BATCH_BYTES + 1];
        let reply = layer.call(post("/acct/$batch", over)).await.unwrap();
        assert_eq!(reply.status(), StatusCode::PAYLOAD_TOO_LARGE);
        assert_eq!(layer.inner.seen(), 0);
    }

    #[tokio::test]
    async fn a_declared_length_over_the_limit_is_refused_before_the_handler() {
        let layer = ReadBody::new(Duration::from_secs(60), Echo::default());
        let mut call = post("/acct/T", Vec::new());
        let declared = (MAX_BODY + 1).to_string();
        call.parts
            .headers
            .insert(http::header::CONTENT_LENGTH, declared.parse().unwrap());
        let reply = layer.call(call).await.unwrap();
        assert_eq!(reply.status(), StatusCode::PAYLOAD_TOO_LARGE);
        assert_eq!(reply.headers()["x-ms-error-code"], "RequestBodyTooLarge");
        assert_eq!(layer.inner.seen(), 0);
    }
}
