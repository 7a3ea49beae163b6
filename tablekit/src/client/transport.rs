//! Sending one signed request: URL and headers, signature, timeout, retries, tracing.
//!
//! Every request carries the protocol headers the service expects (`x-ms-version`,
//! `DataServiceVersion`, `MaxDataServiceVersion`, `x-ms-date`, `Accept`,
//! `User-Agent`, `x-ms-client-request-id`: one per operation, the same on each retry), is
//! signed again on every attempt (the date changes), and runs in the operation's `tracing`
//! span (see the telemetry module). Only `x-ms-date` is sent, never `Date`: Azurite signs with
//! `Date` when both are present. The HTTP client under it is the `http_client` module's.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use bytes::Bytes;
use http::header::{
    HeaderMap, HeaderName, HeaderValue, ACCEPT as ACCEPT_HEADER, CONTENT_TYPE, IF_MATCH, USER_AGENT,
};
use http::{Method, Request};
use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use tracing::Instrument;

use super::credential::{Credential, SignedParts};
use super::endpoint::Endpoint;
use super::error::{Error, Result};
use super::http_client::{Delivery, HttpClient, HttpError};
use super::location::{Location, LocationMode};
use super::retry::{requested_wait, RetryPolicy};
use super::service_error::ServiceError;
use super::telemetry;
use crate::protocol::auth::http_date;
use crate::protocol::limits::Limits;

/// The protocol version tablekit speaks.
pub(crate) const API_VERSION: &str = "2019-02-02";
/// What every response should be: JSON with type annotations only where JSON is ambiguous.
pub(crate) const ACCEPT: &str = "application/json;odata=minimalmetadata";

const X_MS_DATE: HeaderName = HeaderName::from_static("x-ms-date");
const CLIENT_REQUEST_ID: HeaderName = HeaderName::from_static("x-ms-client-request-id");
const PREFER: HeaderName = HeaderName::from_static("prefer");

/// The headers every request carries with the same value.
const FIXED_HEADERS: [(HeaderName, HeaderValue); 4] = [
    (
        HeaderName::from_static("x-ms-version"),
        HeaderValue::from_static(API_VERSION),
    ),
    (
        HeaderName::from_static("dataserviceversion"),
        HeaderValue::from_static("3.0"),
    ),
    (
        HeaderName::from_static("maxdataserviceversion"),
        HeaderValue::from_static("3.0;NetFx"),
    ),
    (ACCEPT_HEADER, HeaderValue::from_static(ACCEPT)),
];

/// The body type of entity and table writes.
pub(crate) const JSON: &str = "application/json";

/// Characters left as they are in query values: the unreserved set (so `'` and spaces are
/// escaped, as the SDKs do).
pub(crate) const QUERY_VALUE: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// Characters left as they are in a key inside `(PartitionKey='..',RowKey='..')`: the
/// unreserved set plus the (already doubled) single quote, as the captures show.
pub(crate) const KEY_IN_PATH: &AsciiSet = &QUERY_VALUE.remove(b'\'');

/// What a 404 on a retried attempt means (see the retry module's idempotency notes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Gone {
    /// A 404 is an error whatever happened before.
    Error,
    /// An entity delete: a 404 (other than `TableNotFound`) after an attempt that may have
    /// been applied means that attempt deleted it.
    Entity,
    /// A table delete: a 404 after an attempt that may have been applied means it was.
    Table,
}

/// One request to send.
pub(crate) struct ServiceRequest {
    pub(crate) method: Method,
    /// Path under the endpoint, percent-encoded, starting with `/`.
    pub(crate) path: String,
    /// Query parameters, not yet encoded.
    pub(crate) query: Vec<(&'static str, String)>,
    pub(crate) content_type: Option<String>,
    /// `Accept` other than JSON (the ACL operations answer XML).
    pub(crate) accept: Option<&'static str>,
    pub(crate) body: Bytes,
    pub(crate) if_match: Option<String>,
    pub(crate) prefer_no_content: bool,
    pub(crate) gone: Gone,
}

impl ServiceRequest {
    /// A request without a body.
    pub(crate) fn new(method: Method, path: String) -> Self {
        ServiceRequest {
            method,
            path,
            query: Vec::new(),
            content_type: None,
            accept: None,
            body: Bytes::new(),
            if_match: None,
            prefer_no_content: false,
            gone: Gone::Error,
        }
    }

    /// Adds a JSON body.
    pub(crate) fn json(mut self, body: Vec<u8>) -> Self {
        self.content_type = Some(JSON.to_owned());
        self.body = Bytes::from(body);
        self
    }
}

/// A successful answer.
pub(crate) struct ServiceResponse {
    pub(crate) headers: HeaderMap,
    pub(crate) body: Bytes,
    /// Whether it answers a write after an earlier attempt that may have been applied: a
    /// transaction's failed operation may then be the echo of that attempt.
    pub(crate) after_uncertain_attempt: bool,
}

impl ServiceResponse {
    /// A header's value as text (names compare case-insensitively).
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        header_str(&self.headers, name)
    }
}

/// Told the headers of a successful answer before its body is read.
pub(crate) type OnHead<'a> = &'a (dyn Fn(&HeaderMap) + Send + Sync);

/// The shared connection pool, endpoint, credential and policies.
#[derive(Clone)]
pub(crate) struct Transport {
    pub(crate) http: HttpClient,
    pub(crate) endpoint: Endpoint,
    /// How the endpoint is reached: straight, or through the environment's proxy.
    pub(crate) delivery: Delivery,
    pub(crate) credential: Credential,
    pub(crate) retry: RetryPolicy,
    /// Writes retry by this instead, when a caller handles their failures itself; the reads
    /// that settle a lost write's answer still retry by `retry`.
    pub(crate) write_retry: Option<RetryPolicy>,
    /// The timeout of each attempt.
    pub(crate) timeout: Duration,
    /// The limits of the service it talks to.
    pub(crate) limits: &'static Limits,
    /// The timeout of a whole operation, retries included.
    pub(crate) operation_timeout: Option<Duration>,
    /// The `Host` header, made once: otherwise the HTTP client formats it for every request.
    pub(crate) host: Option<HeaderValue>,
    /// The read-only secondary, with its `Host` header and delivery, when reads may go there.
    pub(crate) secondary: Option<(Endpoint, Option<HeaderValue>, Delivery)>,
    pub(crate) location_mode: LocationMode,
    pub(crate) user_agent: HeaderValue,
}

/// What an operation cut short by its timeout leaves uncertain.
#[derive(Default)]
struct Progress {
    /// An attempt is under way: its request may have been applied.
    in_flight: AtomicBool,
    /// An earlier attempt may have been applied.
    maybe_applied: AtomicBool,
}

/// The outcome of one attempt.
enum Attempt {
    Done(ServiceResponse),
    Failed {
        error: Error,
        retry_after: Option<Duration>,
        /// Whether the request may have been applied although it failed.
        maybe_applied: bool,
    },
}

impl Transport {
    /// The same connection pool, credential and policies, sending every request to the
    /// secondary: the configured one, else the primary's by the `-secondary` convention.
    pub(crate) fn at_secondary(&self) -> Result<Transport> {
        let (endpoint, http, delivery) = match &self.secondary {
            Some((endpoint, _, delivery)) => (endpoint.clone(), self.http.clone(), *delivery),
            // The same service in this process answers for both.
            None if self.delivery == Delivery::InProcess => {
                let endpoint = super::location::secondary_endpoint(&self.endpoint)?;
                (endpoint, self.http.clone(), self.delivery)
            }
            None => {
                let endpoint = super::location::secondary_endpoint(&self.endpoint)?;
                // Another host, which the proxy settings may treat otherwise: its own pools.
                let (http, deliveries) = HttpClient::new([endpoint.base_url()], self.timeout)
                    .map_err(Error::Configuration)?;
                (endpoint, http, deliveries[0])
            }
        };
        Ok(Transport {
            http,
            delivery,
            host: host_header(&endpoint),
            endpoint,
            secondary: None,
            location_mode: LocationMode::PrimaryOnly,
            ..self.clone()
        })
    }

    /// The same connection pool, endpoint and credential, retrying writes by `write_retry`
    /// and reads as before.
    pub(crate) fn with_write_retry(&self, write_retry: RetryPolicy) -> Transport {
        Transport {
            write_retry: Some(write_retry),
            ..self.clone()
        }
    }

    /// Sends `call`, retrying transient failures; a non-2xx answer becomes
    /// [`Error::Service`].
    pub(crate) async fn send(&self, call: &ServiceRequest) -> Result<ServiceResponse> {
        self.send_observed(call, &|_| {}).await
    }

    /// [`send`](Self::send), calling `on_head` with the headers of a successful answer as
    /// soon as they arrive, before its body is read (once per attempt that gets that far).
    pub(crate) async fn send_observed(
        &self,
        call: &ServiceRequest,
        on_head: OnHead<'_>,
    ) -> Result<ServiceResponse> {
        let mut id_text = [0u8; uuid::fmt::Hyphenated::LENGTH];
        let client_request_id: &str = uuid::Uuid::new_v4().hyphenated().encode_lower(&mut id_text);
        let span = telemetry::operation_span(
            telemetry::operation_name(
                &call.method,
                &call.path,
                &call.query,
                call.if_match.is_some(),
            ),
            &self.endpoint,
            &call.method,
            client_request_id,
        );
        let progress = Progress::default();
        // Boxed: the attempts' state (the connection's, the retries') is kilobytes, which
        // would otherwise be copied with every operation's future each time it moves.
        let attempts = Box::pin(
            self.attempts(call, client_request_id, on_head, &progress)
                .instrument(span.clone()),
        );
        let result = match self.operation_timeout {
            None => attempts.await,
            Some(limit) => match tokio::time::timeout(limit, attempts).await {
                Ok(result) => result,
                Err(_) => {
                    let write = call.method != Method::GET;
                    let uncertain = progress.in_flight.load(Ordering::Relaxed)
                        || progress.maybe_applied.load(Ordering::Relaxed);
                    Err(Error::OperationTimeout {
                        after: limit,
                        after_uncertain_attempt: write && uncertain,
                    })
                }
            },
        };
        if let Err(error) = &result {
            telemetry::record_failure(&span, error);
        }
        result
    }

    /// Every attempt of `call`, until one succeeds or retrying must stop.
    async fn attempts(
        &self,
        call: &ServiceRequest,
        client_request_id: &str,
        on_head: OnHead<'_>,
        progress: &Progress,
    ) -> Result<ServiceResponse> {
        let write = call.method != Method::GET;
        let retry = match &self.write_retry {
            Some(write_retry) if write => write_retry,
            _ => &self.retry,
        };
        let mut maybe_applied = false;
        let mut attempt = 1;
        loop {
            let location = self.location_mode.location(write, attempt)?;
            let span = tracing::Span::current();
            telemetry::record_attempt(&span, attempt, location.name());
            let attempt_span = tracing::debug_span!(
                "tablekit.request",
                path = %call.path,
                attempt,
                location = location.name(),
            );
            progress.in_flight.store(true, Ordering::Relaxed);
            let outcome = self
                .attempt(call, client_request_id, location, on_head, &span)
                .instrument(attempt_span)
                .await;
            progress.in_flight.store(false, Ordering::Relaxed);
            let (error, retry_after, applied) = match outcome? {
                Attempt::Done(mut reply) => {
                    reply.after_uncertain_attempt = write && maybe_applied;
                    return Ok(reply);
                }
                Attempt::Failed {
                    error,
                    retry_after,
                    maybe_applied,
                } => (error, retry_after, maybe_applied),
            };
            if maybe_applied && already_gone(call.gone, &error) {
                tracing::debug!("404 after a possibly applied delete: the delete took effect");
                return Ok(ServiceResponse {
                    headers: HeaderMap::new(),
                    body: Bytes::new(),
                    after_uncertain_attempt: true,
                });
            }
            if !error.is_transient() || attempt >= retry.attempts() {
                let mut error = flag_uncertain(error, write && maybe_applied, write && applied);
                if let Error::Service(service) = &mut error {
                    service.set_retry_after(retry_after);
                }
                return Err(error);
            }
            maybe_applied |= applied;
            progress
                .maybe_applied
                .store(write && maybe_applied, Ordering::Relaxed);
            let delay = retry.delay(attempt, retry_after);
            telemetry::retrying(attempt, delay, &error);
            tokio::time::sleep(delay).await;
            attempt += 1;
        }
    }

    /// One attempt: `Err` only for failures that must not be retried before sending.
    async fn attempt(
        &self,
        call: &ServiceRequest,
        client_request_id: &str,
        location: Location,
        on_head: OnHead<'_>,
        operation: &tracing::Span,
    ) -> Result<Attempt> {
        let date = http_date(chrono::Utc::now());
        let (request, delivery) = self
            .build_at(call, &date, client_request_id, location)
            .await?;
        // The attempt's timeout covers its answer's body too.
        let exchange = self.exchange(request, delivery, on_head, operation);
        let (status, headers, body) = match tokio::time::timeout(self.timeout, exchange).await {
            Ok(Ok(answer)) => answer,
            Ok(Err(e)) => return Ok(self.transport_failure(e)),
            Err(_) => return Ok(self.timed_out(true)),
        };
        if (200..300).contains(&status) {
            tracing::debug!("done");
            return Ok(Attempt::Done(ServiceResponse {
                headers,
                body,
                after_uncertain_attempt: false,
            }));
        }
        let error = ServiceError::from_response(
            status,
            header_text(&headers, "x-ms-error-code"),
            header_text(&headers, "x-ms-request-id"),
            &body,
        );
        tracing::debug!(error = %error, "service refused the request");
        Ok(Attempt::Failed {
            error: Error::Service(Box::new(error)),
            retry_after: requested_wait(|name| header_text(&headers, name), chrono::Utc::now()),
            // 500/502/504 may come after the write was applied; 408/429/503 mean "not done".
            maybe_applied: matches!(status, 500 | 502 | 504),
        })
    }

    /// Sends one request and reads its answer, telling `on_head` of a success's headers
    /// before its body arrives.
    async fn exchange(
        &self,
        request: Request<Bytes>,
        delivery: Delivery,
        on_head: OnHead<'_>,
        operation: &tracing::Span,
    ) -> std::result::Result<(u16, HeaderMap, Bytes), HttpError> {
        let mut answer = self.http.send(request, delivery).await?;
        let status = answer.status;
        // Taken, not copied: reading the body needs no headers.
        let headers = std::mem::take(&mut answer.headers);
        let service_request_id = header_str(&headers, "x-ms-request-id");
        tracing::debug!(status, service_request_id, "answered");
        telemetry::record_answer(operation, status, service_request_id);
        if (200..300).contains(&status) {
            on_head(&headers);
        }
        let body = answer.bytes().await?;
        Ok((status, headers, body))
    }

    fn transport_failure(&self, e: HttpError) -> Attempt {
        // A request is sent only once connected: a failure to connect applied nothing.
        let maybe_applied = !e.connect;
        if e.timed_out {
            return self.timed_out(maybe_applied);
        }
        let error = Error::Transport {
            source: Box::new(e),
            after_uncertain_attempt: false,
        };
        failed_without_answer(error, maybe_applied)
    }

    /// An attempt that ran out of time; `maybe_applied` unless it never connected.
    fn timed_out(&self, maybe_applied: bool) -> Attempt {
        let error = Error::Timeout {
            after: self.timeout,
            after_uncertain_attempt: false,
        };
        failed_without_answer(error, maybe_applied)
    }

    /// The full HTTP request for one attempt to the primary, signed for `date`.
    #[cfg(test)]
    pub(crate) async fn build(
        &self,
        call: &ServiceRequest,
        date: &str,
        client_request_id: &str,
    ) -> Result<Request<Bytes>> {
        let (request, _) = self
            .build_at(call, date, client_request_id, Location::Primary)
            .await?;
        Ok(request)
    }

    /// The full HTTP request for one attempt to `location`, signed for `date`, and how it
    /// goes there.
    async fn build_at(
        &self,
        call: &ServiceRequest,
        date: &str,
        client_request_id: &str,
        location: Location,
    ) -> Result<(Request<Bytes>, Delivery)> {
        let (endpoint, host, delivery) = match (location, &self.secondary) {
            (Location::Secondary, Some((endpoint, host, delivery))) => (endpoint, host, *delivery),
            _ => (&self.endpoint, &self.host, self.delivery),
        };
        let (uri, path) = self.uri(endpoint, call)?;
        let content_type = call.content_type.as_deref().unwrap_or("");
        let authorization = self
            .credential
            .authorization(
                self.endpoint.account(),
                &SignedParts {
                    method: call.method.as_str(),
                    path: &path,
                    comp: comp_parameter(&call.query),
                    content_type,
                    date,
                },
            )
            .await?;
        let mut headers = HeaderMap::with_capacity(16);
        // The fixed headers are made at compile time: only values that vary are checked.
        for (name, value) in FIXED_HEADERS {
            headers.insert(name, value);
        }
        if let Some(host) = host {
            headers.insert(http::header::HOST, host.clone());
        }
        headers.insert(USER_AGENT, self.user_agent.clone());
        if let Some(accept) = call.accept {
            headers.insert(ACCEPT_HEADER, HeaderValue::from_static(accept));
        }
        let mut put = |name: HeaderName, value: &str| -> Result<()> {
            let value = HeaderValue::from_str(value).map_err(|_| {
                Error::InvalidInput(crate::protocol::limits::InvalidInput::Other(format!(
                    "the `{name}` header value cannot be sent in HTTP"
                )))
            })?;
            headers.insert(name, value);
            Ok(())
        };
        put(X_MS_DATE, date)?;
        put(CLIENT_REQUEST_ID, client_request_id)?;
        if call.content_type.is_some() {
            put(CONTENT_TYPE, content_type)?;
        }
        if let Some(etag) = &call.if_match {
            put(IF_MATCH, etag)?;
        }
        if call.prefer_no_content {
            headers.insert(PREFER, HeaderValue::from_static("return-no-content"));
        }
        if let Some(mut value) = authorization.and_then(|a| HeaderValue::from_str(&a).ok()) {
            value.set_sensitive(true);
            headers.insert(http::header::AUTHORIZATION, value);
        }
        let mut request = Request::new(call.body.clone());
        *request.method_mut() = call.method.clone();
        *request.uri_mut() = uri;
        *request.headers_mut() = headers;
        Ok((request, delivery))
    }

    /// The request URI (endpoint + path + encoded query + the SAS token, if any) and its
    /// path, which the signature covers.
    fn uri(&self, endpoint: &Endpoint, call: &ServiceRequest) -> Result<(http::Uri, String)> {
        let base = endpoint.base_url();
        let path = [base.path().trim_end_matches('/'), &call.path].concat();
        let mut uri = String::with_capacity(128 + path.len());
        uri.push_str(&base[..url::Position::BeforePath]);
        uri.push_str(&path);
        let sas = self.credential.sas_query();
        let mut separator = '?';
        for (name, value) in &call.query {
            uri.extend([separator]);
            uri.push_str(name);
            uri.push('=');
            uri.extend(utf8_percent_encode(value, QUERY_VALUE));
            separator = '&';
        }
        if let Some(sas) = sas {
            uri.extend([separator]);
            uri.push_str(sas);
        }
        let uri = uri.parse().map_err(|_| {
            // Not reached for paths and queries encoded as above; never shows the URI, which
            // may carry a SAS signature.
            Error::InvalidInput(crate::protocol::limits::InvalidInput::Other(
                "the request path cannot be sent in HTTP".into(),
            ))
        })?;
        Ok((uri, path))
    }
}

/// An attempt that got no answer to retry by.
fn failed_without_answer(error: Error, maybe_applied: bool) -> Attempt {
    tracing::debug!(error = %error, "request failed");
    Attempt::Failed {
        error,
        retry_after: None,
        maybe_applied,
    }
}

/// Tells the caller that the write the error ends may have been applied: `before`, an
/// earlier attempt may have been (so a 412/409 may be the echo of that attempt); `now`, the
/// last attempt may have been (a 500/502/504, a timeout, a lost connection).
fn flag_uncertain(error: Error, before: bool, now: bool) -> Error {
    let error = if before {
        error.after_possibly_applied()
    } else {
        error
    };
    if now {
        error.with_uncertain_answer()
    } else {
        error
    }
}

fn already_gone(gone: Gone, error: &Error) -> bool {
    match gone {
        Gone::Error => false,
        Gone::Entity => error.is_not_found() && error.code() != Some("TableNotFound"),
        Gone::Table => error.is_not_found(),
    }
}

fn comp_parameter<'a>(query: &'a [(&'static str, String)]) -> Option<&'a str> {
    query
        .iter()
        .find(|(name, _)| *name == "comp")
        .map(|(_, value)| value.as_str())
}

fn header_text(headers: &HeaderMap, name: &str) -> Option<String> {
    header_str(headers, name).map(str::to_owned)
}

/// A header's value as text, when it has one.
pub(crate) fn header_str<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// The `Host` header for `endpoint`: its host, and its port when not the scheme's default.
pub(crate) fn host_header(endpoint: &Endpoint) -> Option<HeaderValue> {
    let url = endpoint.base_url();
    let host = url.host_str()?;
    let value = match url.port() {
        Some(port) => HeaderValue::from_str(&format!("{host}:{port}")),
        None => HeaderValue::from_str(host),
    };
    value.ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::{TableServiceClient, DEVELOPMENT_KEY};
    use crate::values::entity::DynamicEntity;

    const CAPTURE_ENDPOINT: &str = "http://127.0.0.1:10003/devstoreaccount1";

    fn client(credential: Credential) -> TableServiceClient {
        TableServiceClient::builder()
            .endpoint(CAPTURE_ENDPOINT)
            .credential(credential)
            .build()
            .unwrap()
    }

    async fn authorization(
        client: &TableServiceClient,
        call: &ServiceRequest,
        date: &str,
    ) -> String {
        let request = client.transport().build(call, date, "id").await.unwrap();
        request.headers()["authorization"]
            .to_str()
            .unwrap()
            .to_owned()
    }

    #[test]
    fn flags_each_error_by_what_may_have_been_applied() {
        let timeout = || Error::Timeout {
            after: Duration::from_secs(1),
            after_uncertain_attempt: false,
        };
        assert!(!flag_uncertain(timeout(), false, false).may_have_been_applied());
        let lost = flag_uncertain(timeout(), false, true);
        assert!(lost.after_uncertain_attempt() && lost.may_have_been_applied());
        assert!(lost.is_transient());
        assert!(lost
            .to_string()
            .ends_with(" (the write may have been applied)"));

        let service = |status| Error::Service(Box::new(ServiceError::new(status, None, "x")));
        let answered_500 = flag_uncertain(service(500), false, true);
        assert!(answered_500.may_have_been_applied() && !answered_500.after_uncertain_attempt());
        let echo = flag_uncertain(service(409), true, false);
        assert!(echo.may_have_been_applied() && echo.after_uncertain_attempt());
        assert!(!flag_uncertain(service(409), false, false).may_have_been_applied());
        let other = flag_uncertain(Error::Configuration("x".into()), true, true);
        assert!(!other.may_have_been_applied());
    }

    #[tokio::test]
    async fn signs_like_the_captured_requests() {
        let key = client(Credential::shared_key(DEVELOPMENT_KEY).unwrap());
        let lite = client(Credential::shared_key_lite(DEVELOPMENT_KEY).unwrap());
        let tables = ServiceRequest::new(Method::GET, "/Tables".into());
        // captures/raw_auth.txt
        assert_eq!(
            authorization(&key, &tables, "Sun, 22 Nov 2026 11:42:25 GMT").await,
            "SharedKey devstoreaccount1:u2a79CmWgyM3UhGEEKXyIDtvo6rdIye8+v08hCCkYkU="
        );
        assert_eq!(
            authorization(&lite, &tables, "Sun, 22 Nov 2026 11:42:25 GMT").await,
            "SharedKeyLite devstoreaccount1:njzPq9J637cRkqPVqKp9Y0GIAW+B4w1zAI9sK9mL2Xw="
        );
        // captures/raw_keys.txt: quotes doubled, non-ASCII percent-encoded
        let table = key.table_named::<DynamicEntity>("rawtest");
        let path = table.entity_path("keys", "a b'c ü ☃").unwrap();
        let get = ServiceRequest::new(Method::GET, path);
        assert_eq!(
            authorization(&key, &get, "Sun, 22 Nov 2026 11:42:25 GMT").await,
            "SharedKey devstoreaccount1:be51DqL0SFIrEH9fFHpoTdzwMg+chqbHG1ElqYQk558="
        );
        // captures/01_create_table.txt: the body's content type is signed
        let mut create = ServiceRequest::new(Method::POST, "/Tables".into());
        create.content_type = Some("application/json;odata=nometadata".into());
        assert_eq!(
            authorization(&key, &create, "Sun, 22 Nov 2026 11:42:23 GMT").await,
            "SharedKey devstoreaccount1:k+ZQfjLCnhmMMaCHdwNwRhkH9RPMvwZTX1fiW0p4u2k="
        );
    }

    #[tokio::test]
    async fn sends_the_protocol_headers_and_keeps_secrets_out_of_sight() {
        let key = client(Credential::shared_key(DEVELOPMENT_KEY).unwrap());
        let mut call = ServiceRequest::new(Method::GET, "/T()".into());
        call.query.push(("$filter", "PartitionKey eq 'a b'".into()));
        let request = key.transport().build(&call, "d", "rid").await.unwrap();
        let h = request.headers();
        assert_eq!(h["x-ms-version"], "2019-02-02");
        assert_eq!(h["dataserviceversion"], "3.0");
        assert_eq!(h["maxdataserviceversion"], "3.0;NetFx");
        assert_eq!(h["accept"], "application/json;odata=minimalmetadata");
        assert_eq!(h["x-ms-client-request-id"], "rid");
        assert_eq!(h["x-ms-date"], "d");
        assert!(h.get("date").is_none());
        assert!(h["authorization"].is_sensitive());
        assert_eq!(
            request.uri().query(),
            Some("$filter=PartitionKey%20eq%20%27a%20b%27")
        );

        let sas = client(Credential::sas("?sv=2019-02-02&sig=SECRETSIG").unwrap());
        let request = sas.transport().build(&call, "d", "rid").await.unwrap();
        assert!(request.headers().get("authorization").is_none());
        assert!(request
            .uri()
            .query()
            .unwrap()
            .ends_with("&sv=2019-02-02&sig=SECRETSIG"));
        assert!(!format!("{sas:?}").contains("SECRETSIG"));
        assert!(!format!("{key:?}").contains(&DEVELOPMENT_KEY[..12]));
    }
}
