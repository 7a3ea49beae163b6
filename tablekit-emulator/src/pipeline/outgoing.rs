//! What the server sends back: a response with its whole body, written with the headers
//! every answer carries, or nothing at all (a connection closed by an injected fault).

use bytes::Bytes;
use http::{header, HeaderMap, HeaderName, HeaderValue, Response, StatusCode};
use http_body_util::Full;

use crate::format::error_response::ErrorResponse;
use crate::format::headers as names;
use crate::format::metadata::Metadata;
use crate::format::response;

/// A response with its whole body.
pub(crate) type OutgoingResponse = Response<Full<Bytes>>;

/// Closing the connection without an answer (an injected fault).
#[derive(Debug)]
pub(crate) struct Dropped;

impl std::fmt::Display for Dropped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("connection dropped by fault injection")
    }
}

impl std::error::Error for Dropped {}

/// Writes the answers to one request: every answer carries its request id and echoes the
/// client's, and an error is worded in the metadata level the client asked for.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Responder<'a> {
    request_id: &'a str,
    client_request_id: Option<&'a HeaderValue>,
    level: Option<Metadata>,
}

impl<'a> Responder<'a> {
    /// Answers a request with these headers, asking for `level` (`None`: no JSON).
    pub(crate) fn new(
        request_id: &'a str,
        headers: &'a HeaderMap,
        level: Option<Metadata>,
    ) -> Self {
        Responder {
            request_id,
            client_request_id: headers.get(names::CLIENT_REQUEST_ID),
            level,
        }
    }

    /// The id this server gave the request.
    pub(crate) fn request_id(&self) -> &'a str {
        self.request_id
    }

    /// The metadata level the request asked for in `Accept`.
    pub(crate) fn level(&self) -> Option<Metadata> {
        self.level
    }

    /// A response with the headers every answer carries.
    pub(crate) fn reply(
        &self,
        status: StatusCode,
        content_type: Option<&str>,
        body: Vec<u8>,
    ) -> OutgoingResponse {
        let mut response = Response::new(Full::new(Bytes::from(body)));
        *response.status_mut() = status;
        let headers = response.headers_mut();
        // Room for every header an answer carries, so the map never grows.
        headers.reserve(16);
        service_headers(headers, self.request_id);
        if let Some(id) = self.client_request_id {
            headers.insert(names::CLIENT_REQUEST_ID, id.clone());
        }
        if let Some(ct) = content_type.and_then(|ct| HeaderValue::from_str(ct).ok()) {
            headers.insert(http::header::CONTENT_TYPE, ct);
        }
        response
    }

    /// An error answer.
    pub(crate) fn error(&self, err: &ErrorResponse) -> OutgoingResponse {
        let (content_type, body) = response::error_body(err, self.request_id, self.level, "");
        let reply = self.reply(err.status, Some(content_type), body);
        let reply = with_header(reply, names::ERROR_CODE, err.code);
        match err.retry_after {
            // Whole milliseconds, rounded up: a client that waits that long is admitted.
            Some(wait) => with_header(
                reply,
                names::RETRY_AFTER_MS,
                wait.as_micros().div_ceil(1000).max(1).to_string(),
            ),
            None => reply,
        }
    }
}

/// The headers the service puts on every answer, errors included: clients read some of
/// them unconditionally (the `azure_data_tables` crate stops without `Server`).
pub(crate) fn service_headers(headers: &mut HeaderMap, request_id: &str) {
    if let Ok(v) = HeaderValue::from_str(request_id) {
        headers.insert(names::REQUEST_ID, v);
    }
    headers.insert(
        names::VERSION,
        HeaderValue::from_static(names::SERVICE_VERSION),
    );
    headers.insert(header::SERVER, HeaderValue::from_static(names::SERVER_NAME));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    if let Some(date) = crate::format::datetime::http_date() {
        headers.insert(header::DATE, date);
    }
}

/// Adds a header; an owned or static value becomes the header without a copy.
pub(crate) fn with_header(
    mut reply: OutgoingResponse,
    name: HeaderName,
    value: impl Into<Bytes>,
) -> OutgoingResponse {
    if let Ok(v) = HeaderValue::from_maybe_shared(value.into()) {
        reply.headers_mut().insert(name, v);
    }
    reply
}
