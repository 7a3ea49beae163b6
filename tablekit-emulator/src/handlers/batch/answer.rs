//! The multipart answer to a `$batch`: one part per operation after a success, the failing
//! operation's error alone after a failure, or the answer to a batched query.

use futures::FutureExt as _;
use http::StatusCode;
use http_body_util::BodyExt as _;

use super::changeset::{Answer, Failure};
use crate::format::entity_json::EntityWriter;
use crate::format::response;
use crate::handlers::context::Ctx;
use crate::handlers::operations::Planned;
use crate::pipeline::outgoing::OutgoingResponse;

/// Writes the multipart answer.
pub(crate) struct BatchResponse {
    batch: String,
    changeset: String,
}

impl BatchResponse {
    pub(crate) fn new() -> Self {
        BatchResponse {
            batch: format!("batchresponse_{}", uuid::Uuid::new_v4()),
            changeset: format!("changesetresponse_{}", uuid::Uuid::new_v4()),
        }
    }

    fn open(&self, out: &mut Vec<u8>) {
        push(
            out,
            &[
                "--",
                &self.batch,
                "\r\nContent-Type: multipart/mixed; boundary=",
            ],
        );
        push(out, &[&self.changeset, "\r\n\r\n"]);
    }

    fn part_head(&self, out: &mut Vec<u8>) {
        push(out, &["--", &self.changeset]);
        out.extend_from_slice(
            b"\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n",
        );
    }

    fn close(&self, out: &mut Vec<u8>) {
        push(
            out,
            &["--", &self.changeset, "--\r\n--", &self.batch, "--\r\n"],
        );
    }

    fn finish(&self, ctx: &Ctx<'_>, body: Vec<u8>) -> OutgoingResponse {
        let content_type = format!("multipart/mixed; boundary={}", self.batch);
        ctx.reply(StatusCode::ACCEPTED, Some(&content_type), body)
    }

    /// One part per operation, written straight into one buffer.
    pub(crate) fn success(&self, ctx: &Ctx<'_>, done: &[(Answer, Planned)]) -> OutgoingResponse {
        let base = ctx.base();
        let mut out = Vec::with_capacity(256 + done.len() * 600);
        self.open(&mut out);
        for (answer, planned) in done {
            self.part_head(&mut out);
            status_line(&mut out, planned.status);
            out.extend_from_slice(
                b"X-Content-Type-Options: nosniff\r\nCache-Control: no-cache\r\nDataServiceVersion: 3.0;\r\n",
            );
            if let Some(id) = &answer.content_id {
                push(&mut out, &["Content-ID: ", id, "\r\n"]);
            }
            let mut body = None;
            if let Some(stored) = planned.stored() {
                if planned.status == StatusCode::CREATED {
                    // Both headers carry the entity's address: written once, then copied.
                    out.extend_from_slice(b"Location: ");
                    let start = out.len();
                    response::write_entity_location(&mut out, &base, &answer.table, stored);
                    let location = start..out.len();
                    out.extend_from_slice(b"\r\nDataServiceId: ");
                    out.extend_from_within(location);
                    out.extend_from_slice(b"\r\n");
                    if answer.no_content {
                        out.extend_from_slice(b"Preference-Applied: return-no-content\r\n");
                    } else {
                        let writer = EntityWriter {
                            base: &base,
                            account: ctx.account,
                            table: &answer.table,
                            level: answer.level,
                            select: None,
                        };
                        push(
                            &mut out,
                            &["Content-Type: ", answer.level.content_type(), "\r\n"],
                        );
                        body = Some(writer.single(stored));
                    }
                }
                out.extend_from_slice(b"ETag: ");
                let timestamp = stored.timestamp();
                crate::format::datetime::write_etag(&mut out, &timestamp);
                out.extend_from_slice(b"\r\n");
            }
            out.extend_from_slice(b"\r\n");
            if let Some(body) = body {
                out.extend_from_slice(&body);
            }
            out.extend_from_slice(b"\r\n");
        }
        self.close(&mut out);
        self.finish(ctx, out)
    }

    /// The answer to a batch holding one query: the query's response as the only part.
    pub(crate) fn query(&self, ctx: &Ctx<'_>, answer: OutgoingResponse) -> OutgoingResponse {
        let mut out = Vec::with_capacity(1024);
        push(&mut out, &["--", &self.batch]);
        out.extend_from_slice(
            b"\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n",
        );
        status_line(&mut out, answer.status());
        out.extend_from_slice(b"DataServiceVersion: 3.0;\r\n");
        for name in [
            "content-type",
            "etag",
            "x-ms-error-code",
            "x-ms-continuation-NextPartitionKey",
            "x-ms-continuation-NextRowKey",
        ] {
            if let Some(value) = answer.headers().get(name).and_then(|v| v.to_str().ok()) {
                push(&mut out, &[name, ": ", value, "\r\n"]);
            }
        }
        out.extend_from_slice(b"\r\n");
        // The body is a `Full`: it is ready at once.
        if let Some(Ok(body)) = answer.into_body().collect().now_or_never() {
            out.extend_from_slice(&body.to_bytes());
        }
        push(&mut out, &["\r\n--", &self.batch, "--\r\n"]);
        self.finish(ctx, out)
    }

    pub(crate) fn failure(&self, ctx: &Ctx<'_>, failure: &Failure) -> OutgoingResponse {
        let err = &failure.error;
        let prefix = format!("{}:", failure.index);
        let (content_type, body) =
            response::error_body(err, ctx.respond.request_id(), ctx.respond.level(), &prefix);
        let mut out = Vec::with_capacity(512 + body.len());
        self.open(&mut out);
        self.part_head(&mut out);
        status_line(&mut out, err.status);
        out.extend_from_slice(b"X-Content-Type-Options: nosniff\r\nDataServiceVersion: 3.0;\r\n");
        push(&mut out, &["Content-Type: ", content_type, "\r\n"]);
        if let Some(id) = &failure.content_id {
            push(&mut out, &["Content-ID: ", id, "\r\n"]);
        }
        out.extend_from_slice(b"\r\n");
        out.extend_from_slice(&body);
        out.extend_from_slice(b"\r\n");
        self.close(&mut out);
        self.finish(ctx, out)
    }
}

/// `HTTP/1.1 201 Created\r\n`.
fn status_line(out: &mut Vec<u8>, status: StatusCode) {
    out.extend_from_slice(b"HTTP/1.1 ");
    out.extend_from_slice(status.as_str().as_bytes());
    out.push(b' ');
    out.extend_from_slice(status.canonical_reason().unwrap_or_default().as_bytes());
    out.extend_from_slice(b"\r\n");
}

/// Appends text pieces.
fn push(out: &mut Vec<u8>, pieces: &[&str]) {
    for piece in pieces {
        out.extend_from_slice(piece.as_bytes());
    }
}
