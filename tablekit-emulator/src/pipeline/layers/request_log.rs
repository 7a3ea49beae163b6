//! [`RequestLog`]: one line per request in a file, for `tablekit-emulator --debug FILE`
//! (Azurite's debug log option), to see what a client under test really sent.
//!
//! A line reads `2026-11-26T02:10:00.123Z 3f2a... GET /devstoreaccount1/Tables?$top=5 -> 200
//! 0.412 ms`. Secrets stay out: headers (where Shared Key signatures and bearer tokens travel)
//! are not written, and a SAS signature in the query is replaced by `REDACTED`.

use std::fs::File;
use std::future::Future;
use std::io::{LineWriter, Write};
use std::sync::Mutex;
use std::time::Instant;

use chrono::{SecondsFormat, Utc};
use futures::future::Either;
use futures::FutureExt;
use http::Uri;
use percent_encoding::percent_decode_str;

use crate::pipeline::incoming::IncomingRequest;
use crate::pipeline::outgoing::{Dropped, OutgoingResponse};
use crate::pipeline::service::Service;

/// Writes a line for each request to its file, when it has one, around `inner`.
#[derive(Debug)]
pub(crate) struct RequestLog<S> {
    file: Option<Mutex<LineWriter<File>>>,
    inner: S,
}

impl<S> RequestLog<S> {
    /// Logs to `file`; with `None`, requests pass straight through.
    pub(crate) fn new(file: Option<File>, inner: S) -> Self {
        let file = file.map(|f| Mutex::new(LineWriter::new(f)));
        RequestLog { file, inner }
    }
}

impl<B: Send, S: Service<B> + Sync> Service<B> for RequestLog<S> {
    fn call(
        &self,
        call: IncomingRequest<B>,
    ) -> impl Future<Output = Result<OutgoingResponse, Dropped>> + Send {
        let Some(file) = &self.file else {
            return Either::Left(self.inner.call(call));
        };
        let started = Instant::now();
        let head = format!(
            "{} {} {} {}",
            Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true),
            call.request_id(),
            call.parts.method,
            redacted(&call.parts.uri),
        );
        Either::Right(self.inner.call(call).map(move |outcome| {
            let status = match &outcome {
                Ok(reply) => reply.status().as_u16().to_string(),
                Err(_) => "no answer".to_owned(),
            };
            let millis = started.elapsed().as_secs_f64() * 1e3;
            let line = format!("{head} -> {status} {millis:.3} ms\n");
            // A log that cannot be written must not fail the request it describes.
            let mut file = file.lock().unwrap_or_else(|e| e.into_inner());
            let _ = file.write_all(line.as_bytes());
            outcome
        }))
    }
}

/// The path and query of `uri`, with the value of a `sig` parameter (a SAS signature)
/// replaced. The name is compared as the server reads it, percent-decoded: `%73ig` is `sig`.
fn redacted(uri: &Uri) -> String {
    let path = uri.path();
    let Some(query) = uri.query() else {
        return path.to_owned();
    };
    let params: Vec<&str> = query
        .split('&')
        .map(|param| {
            let name = param.split_once('=').map_or(param, |(name, _)| name);
            let decoded = percent_decode_str(name).decode_utf8_lossy();
            match decoded.eq_ignore_ascii_case("sig") {
                true => "sig=REDACTED",
                false => param,
            }
        })
        .collect();
    format!("{path}?{}", params.join("&"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sas_signature_is_never_written() {
        let uri: Uri = "/acct/T?sv=2019-02-02&sig=c2VjcmV0%3D&se=2030-01-01&SIG=x"
            .parse()
            .unwrap();
        assert_eq!(
            redacted(&uri),
            "/acct/T?sv=2019-02-02&sig=REDACTED&se=2030-01-01&sig=REDACTED"
        );
        assert_eq!(redacted(&"/acct/Tables".parse().unwrap()), "/acct/Tables");
    }

    #[test]
    fn a_signature_is_redacted_by_its_decoded_name() {
        for name in ["%73ig", "s%69g", "%53%49%47", "%73%69%67", "sig", "SIG"] {
            let uri: Uri = format!("/acct/T?sv=2019-02-02&{name}=c2VjcmV0&se=2030")
                .parse()
                .unwrap();
            assert_eq!(
                redacted(&uri),
                "/acct/T?sv=2019-02-02&sig=REDACTED&se=2030",
                "{name}"
            );
        }
        // A bare `sig` with no value is redacted too; other names are kept.
        let uri: Uri = "/acct/T?%73ig&signal=1".parse().unwrap();
        assert_eq!(redacted(&uri), "/acct/T?sig=REDACTED&signal=1");
    }
}
