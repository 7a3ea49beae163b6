//! What the client tells observers: one `tracing` span per operation with the attributes of
//! OpenTelemetry's Azure SDK conventions, and the `User-Agent` it sends.
//!
//! The span is named after the operation (`Table.insert`, `TableService.create_table`, ...)
//! and carries `az.namespace`, `server.address`, `server.port`, `http.request.method`,
//! `az.client_request_id` (one per operation, the same on each retry), and once answered
//! `http.response.status_code`, `az.service_request_id` (`x-ms-request-id`),
//! `http.request.resend_count` (retries sent) and on failure `error.type`. Each retry is an
//! event in the span with the wait chosen. No field ever holds a key, signature or token.

use std::time::Duration;

use http::header::HeaderValue;
use http::Method;
use tracing::Span;

use super::endpoint::Endpoint;
use super::error::{Error, Result};
/// The most characters of an application id, as in the Azure SDKs.
const MAX_APPLICATION_ID: usize = 24;

/// The `User-Agent`: `[<application id> ]tablekit/<version> (<os>; <arch>)`.
pub(crate) fn user_agent(application_id: Option<&str>) -> Result<HeaderValue> {
    let ours = concat!("tablekit/", env!("CARGO_PKG_VERSION"));
    let platform = format!("({}; {})", std::env::consts::OS, std::env::consts::ARCH);
    let text = match application_id {
        None => format!("{ours} {platform}"),
        Some(id) => {
            check_application_id(id)?;
            format!("{id} {ours} {platform}")
        }
    };
    HeaderValue::from_str(&text)
        .map_err(|_| Error::Configuration("the `User-Agent` cannot be sent in HTTP".into()))
}

fn check_application_id(id: &str) -> Result<()> {
    let printable = id.bytes().all(|b| b.is_ascii_graphic());
    if id.is_empty() || id.chars().count() > MAX_APPLICATION_ID || !printable {
        return Err(Error::Configuration(format!(
            "the application id must be 1 to {MAX_APPLICATION_ID} printable ASCII characters without spaces"
        )));
    }
    Ok(())
}

/// `az.namespace`: the resource provider the endpoint belongs to.
pub(crate) fn namespace(endpoint: &Endpoint) -> &'static str {
    if endpoint.is_cosmos() {
        "Microsoft.DocumentDB"
    } else {
        "Microsoft.Storage"
    }
}

/// The operation a request performs, named as the span is.
pub(crate) fn operation_name(
    method: &Method,
    path: &str,
    query: &[(&str, String)],
    conditional: bool,
) -> &'static str {
    let param = |name: &str| {
        query
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    };
    let get = method == Method::GET;
    match param("comp") {
        Some("properties") if get => return "TableService.get_properties",
        Some("properties") => return "TableService.set_properties",
        Some("stats") => return "TableService.get_statistics",
        Some("acl") if get => return "Table.get_access_policy",
        Some("acl") => return "Table.set_access_policy",
        _ => {}
    }
    if path == "/Tables" {
        return if get {
            "TableService.query_tables"
        } else {
            "TableService.create_table"
        };
    }
    if path.starts_with("/Tables(") {
        return if get {
            "TableService.get_table"
        } else {
            "TableService.delete_table"
        };
    }
    if path == "/$batch" {
        return "Table.transaction";
    }
    let entity = path.contains("PartitionKey=");
    match method.as_str() {
        "GET" if entity => "Table.get",
        "GET" => "Table.query",
        "POST" => "Table.insert",
        "PUT" if conditional => "Table.replace",
        "PUT" => "Table.upsert_replace",
        "MERGE" | "PATCH" if conditional => "Table.merge",
        "MERGE" | "PATCH" => "Table.upsert_merge",
        "DELETE" => "Table.delete",
        _ => "Table.request",
    }
}

/// The span of one operation, named `name` (see [`operation_name`]).
pub(crate) fn operation_span(
    name: &'static str,
    endpoint: &Endpoint,
    method: &Method,
    client_request_id: &str,
) -> Span {
    let url = endpoint.base_url();
    let address = url.host_str().unwrap_or_default();
    let port = url.port_or_known_default().unwrap_or_default();
    let namespace = namespace(endpoint);
    // A span's name is fixed where it is written: one `info_span!` per operation, each with
    // the same fields.
    macro_rules! span {
        ($span:literal, $otel_name:expr) => {
            tracing::info_span!(
                $span,
                "otel.name" = $otel_name,
                "az.namespace" = namespace,
                "server.address" = address,
                "server.port" = port,
                "http.request.method" = %method,
                "az.client_request_id" = client_request_id,
                "tablekit.location" = tracing::field::Empty,
                "http.response.status_code" = tracing::field::Empty,
                "az.service_request_id" = tracing::field::Empty,
                "http.request.resend_count" = tracing::field::Empty,
                "error.type" = tracing::field::Empty,
            )
        };
    }
    macro_rules! spans {
        ($($name:literal),* $(,)?) => {
            match name {
                $($name => span!($name, $name),)*
                _ => span!("Table.request", name),
            }
        };
    }
    spans!(
        "TableService.get_properties",
        "TableService.set_properties",
        "TableService.get_statistics",
        "TableService.query_tables",
        "TableService.create_table",
        "TableService.get_table",
        "TableService.delete_table",
        "Table.get_access_policy",
        "Table.set_access_policy",
        "Table.transaction",
        "Table.get",
        "Table.query",
        "Table.insert",
        "Table.replace",
        "Table.upsert_replace",
        "Table.merge",
        "Table.upsert_merge",
        "Table.delete",
    )
}

/// Records an attempt's answer on the operation span: the last one stays.
pub(crate) fn record_answer(span: &Span, status: u16, service_request_id: Option<&str>) {
    span.record("http.response.status_code", status);
    if let Some(id) = service_request_id {
        span.record("az.service_request_id", id);
    }
}

/// Records which location attempt `attempt` (1 for the first) went to, and how many
/// retries have been sent.
pub(crate) fn record_attempt(span: &Span, attempt: u32, location: &'static str) {
    span.record("tablekit.location", location);
    if attempt > 1 {
        span.record("http.request.resend_count", attempt - 1);
    }
}

/// Records a retry as an event of the current span.
pub(crate) fn retrying(attempt: u32, delay: Duration, error: &Error) {
    let delay_ms = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX);
    tracing::warn!(
        attempt,
        delay_ms,
        "error.type" = error_type(error),
        error = %error,
        "retrying a transient failure"
    );
}

/// Records the operation's failure on its span.
pub(crate) fn record_failure(span: &Span, error: &Error) {
    span.record("error.type", error_type(error));
}

/// `error.type`: the service's error code, else the status, else the kind of failure.
pub(crate) fn error_type(error: &Error) -> String {
    if let Some(code) = error.code() {
        return code.to_owned();
    }
    if let Some(status) = error.status() {
        return status.to_string();
    }
    match error {
        Error::Timeout { .. } => "timeout".into(),
        Error::OperationTimeout { .. } => "operation_timeout".into(),
        Error::Transport { .. } => "transport".into(),
        Error::Credential(_) => "credential".into(),
        Error::Configuration(_) | Error::Sas(_) => "configuration".into(),
        _ => "_OTHER".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::transport::ServiceRequest;

    fn operation_name(call: &ServiceRequest) -> &'static str {
        super::operation_name(
            &call.method,
            &call.path,
            &call.query,
            call.if_match.is_some(),
        )
    }

    #[test]
    fn names_each_operation() {
        let call =
            |method: &str, path: &str| ServiceRequest::new(method.parse().unwrap(), path.into());
        assert_eq!(
            operation_name(&call("POST", "/Tables")),
            "TableService.create_table"
        );
        assert_eq!(operation_name(&call("GET", "/T()")), "Table.query");
        let entity = "/T(PartitionKey='a',RowKey='b')";
        assert_eq!(operation_name(&call("GET", entity)), "Table.get");
        let mut replace = call("PUT", entity);
        assert_eq!(operation_name(&replace), "Table.upsert_replace");
        replace.if_match = Some("*".into());
        assert_eq!(operation_name(&replace), "Table.replace");
        let mut acl = call("GET", "/T");
        acl.query.push(("comp", "acl".into()));
        assert_eq!(operation_name(&acl), "Table.get_access_policy");
    }

    #[test]
    fn tells_the_application_apart() {
        let plain = user_agent(None).unwrap();
        assert!(plain.to_str().unwrap().starts_with("tablekit/"));
        let named = user_agent(Some("inventory/2")).unwrap();
        assert!(named.to_str().unwrap().starts_with("inventory/2 tablekit/"));
        assert!(user_agent(Some("has space")).is_err());
        assert!(user_agent(Some("a-very-long-application-identifier")).is_err());
        let cosmos = Endpoint::parse("https://acct.table.cosmos.azure.com").unwrap();
        assert_eq!(namespace(&cosmos), "Microsoft.DocumentDB");
        let local = Endpoint::parse("http://127.0.0.1:10002/devstoreaccount1").unwrap();
        assert_eq!(namespace(&local), "Microsoft.Storage");
    }
}
