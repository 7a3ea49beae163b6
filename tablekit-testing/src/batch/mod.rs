//! `$batch` (entity group transactions): the multipart request parser, the all-or-nothing
//! execution and the multipart response writer.
//!
//! As on the service (and unlike Azurite): one changeset, 1 to 100 operations, one table,
//! one PartitionKey (400 CommandsInBatchActOnDifferentPartitions), each entity once
//! (400 InvalidDuplicateRow), nothing applied when any operation fails, and the failure
//! answered with the failing operation's index as the message's `N:` prefix.

use std::collections::HashMap;

use futures::FutureExt as _;
use http::StatusCode;
use http_body_util::BodyExt as _;
use tablekit::limits::MAX_BATCH_OPERATIONS;

use crate::auth::Caller;
use crate::operations::{self, EntityOp, Planned};
use crate::response::{self, EntityWriter, Metadata};
use crate::route::{self, Route};
use crate::router::{Ctx, Reply};
use crate::service_error::ServiceError;
use crate::store::entity_key;

/// Header lines in order, as (name, value).
type Headers<'a> = Vec<(&'a str, &'a str)>;

/// One part of a multipart body: its MIME headers and its content.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Part<'a> {
    pub(crate) headers: Headers<'a>,
    pub(crate) body: &'a [u8],
}

impl Part<'_> {
    fn header(&self, name: &str) -> Option<&str> {
        find_header(&self.headers, name)
    }
}

/// One operation of a changeset, as sent: borrowed from the request body, never copied.
#[derive(Debug)]
pub(crate) struct SubRequest<'a> {
    pub(crate) method: &'a str,
    /// The path of the (usually absolute) URL.
    pub(crate) path: &'a str,
    /// The path and query of the URL.
    pub(crate) target: &'a str,
    pub(crate) headers: Headers<'a>,
    pub(crate) body: &'a [u8],
}

impl SubRequest<'_> {
    fn header(&self, name: &str) -> Option<&str> {
        find_header(&self.headers, name)
    }
}

fn find_header<'a>(headers: &[(&'a str, &'a str)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| *v)
}

/// The `boundary` parameter of a `multipart/mixed` Content-Type.
pub(crate) fn boundary(content_type: &str) -> Option<&str> {
    let (kind, params) = content_type.split_once(';')?;
    if !kind.trim().eq_ignore_ascii_case("multipart/mixed") {
        return None;
    }
    params.split(';').find_map(|p| {
        let (name, value) = p.split_once('=')?;
        name.trim()
            .eq_ignore_ascii_case("boundary")
            .then(|| value.trim().trim_matches('"'))
            .filter(|b| !b.is_empty())
    })
}

/// Splits a multipart body on `--boundary` lines (CRLF or LF), up to `--boundary--`.
pub(crate) fn split_parts<'a>(body: &'a [u8], boundary: &str) -> Result<Vec<Part<'a>>, String> {
    let delimiter = format!("--{boundary}");
    let delimiter = delimiter.as_bytes();
    // A delimiter counts only at the start of a line; memmem finds candidates in one pass.
    let starts: Vec<usize> = memchr::memmem::find_iter(body, delimiter)
        .filter(|&at| at == 0 || body.get(at - 1) == Some(&b'\n'))
        .collect();
    let mut parts = Vec::with_capacity(starts.len());
    for (n, &start) in starts.iter().enumerate() {
        let after = start + delimiter.len();
        if body.get(after..after + 2) == Some(b"--") {
            return Ok(parts);
        }
        let content_start = line_end(body, after).ok_or("a delimiter line does not end")?;
        let end = *starts
            .get(n + 1)
            .ok_or("the multipart body is not closed")?;
        let content = trim_line_break(body.get(content_start..end).unwrap_or_default());
        let (headers, part_body) = split_head(content)?;
        parts.push(Part {
            headers,
            body: part_body,
        });
    }
    Err("the multipart body is not closed".to_owned())
}

/// The index just past the end of the line that contains `from`.
fn line_end(body: &[u8], from: usize) -> Option<usize> {
    let rest = body.get(from..)?;
    memchr::memchr(b'\n', rest).map(|p| from + p + 1)
}

/// Drops the line break that belongs to the next delimiter.
fn trim_line_break(content: &[u8]) -> &[u8] {
    let content = content.strip_suffix(b"\n").unwrap_or(content);
    content.strip_suffix(b"\r").unwrap_or(content)
}

/// Splits header lines from the body at the first empty line.
fn split_head(content: &[u8]) -> Result<(Headers<'_>, &[u8]), String> {
    let (head, body) = head_and_body(content);
    // One UTF-8 check for all the lines: this runs for every operation of every batch.
    let head = text(head)?;
    let mut headers = Vec::with_capacity(8);
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', head.as_bytes()) {
        push_header(&mut headers, head.get(start..end).unwrap_or_default())?;
        start = end + 1;
    }
    push_header(&mut headers, head.get(start..).unwrap_or_default())?;
    Ok((headers, body))
}

/// The header lines, and what follows the first empty line (nothing when there is none).
fn head_and_body(content: &[u8]) -> (&[u8], &[u8]) {
    let mut pos = 0;
    while let Some(end) = line_end(content, pos) {
        let line = content.get(pos..end).unwrap_or_default();
        if line.iter().all(|&b| b == b'\r' || b == b'\n') {
            let head = content.get(..pos).unwrap_or_default();
            return (head, content.get(end..).unwrap_or_default());
        }
        pos = end;
    }
    (content, &[])
}

fn push_header<'a>(headers: &mut Headers<'a>, line: &'a str) -> Result<(), String> {
    let line = line.trim_ascii();
    if line.is_empty() {
        return Ok(());
    }
    let Some(colon) = memchr::memchr(b':', line.as_bytes()) else {
        return Err(format!("`{line}` is not a header"));
    };
    let name = line.get(..colon).unwrap_or_default().trim_ascii();
    let value = line.get(colon + 1..).unwrap_or_default().trim_ascii();
    headers.push((name, value));
    Ok(())
}

fn text(line: &[u8]) -> Result<&str, String> {
    std::str::from_utf8(line).map_err(|_| "a header line is not UTF-8".to_owned())
}

/// Parses a changeset part's content: `METHOD URL HTTP/1.1`, headers, body.
pub(crate) fn parse_sub_request(content: &[u8]) -> Result<SubRequest<'_>, String> {
    let first_end = line_end(content, 0).ok_or("an operation has no request line")?;
    let request_line = text(content.get(..first_end).unwrap_or_default())?;
    let mut words = request_line.split_ascii_whitespace();
    let (Some(method), Some(url)) = (words.next(), words.next()) else {
        return Err(format!("`{}` is not a request line", request_line.trim()));
    };
    let (headers, body) = split_head(content.get(first_end..).unwrap_or_default())?;
    Ok(SubRequest {
        method,
        path: url_path(url),
        target: url_target(url),
        headers,
        body,
    })
}

/// The path of an absolute or relative URL, without its query.
fn url_path(url: &str) -> &str {
    let target = url_target(url);
    target.split_once('?').map_or(target, |(p, _)| p)
}

/// The path and query of an absolute or relative URL.
fn url_target(url: &str) -> &str {
    match url.find("://") {
        Some(i) => {
            let rest = url.get(i + 3..).unwrap_or_default();
            rest.find('/').and_then(|j| rest.get(j..)).unwrap_or("/")
        }
        None => url,
    }
}

/// A parsed operation: what it does, and what its response needs.
struct Operation {
    op: EntityOp,
    answer: Answer,
}

/// What one operation's part of the response needs besides the outcome.
struct Answer {
    table: String,
    content_id: Option<String>,
    no_content: bool,
    level: Metadata,
}

/// Runs a `$batch` request.
pub(crate) fn execute(ctx: &Ctx<'_>, caller: &Caller, body: &[u8]) -> Result<Reply, ServiceError> {
    let content_type = ctx
        .parts
        .headers
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let outer = boundary(content_type)
        .ok_or_else(|| ServiceError::invalid_input("A batch needs a multipart/mixed boundary."))?;
    let parts = split_parts(body, outer).map_err(ServiceError::invalid_input)?;
    let [changeset] = parts.as_slice() else {
        return Err(ServiceError::invalid_input(
            "A batch holds exactly one changeset.",
        ));
    };
    let Some(inner) = changeset.header("content-type").and_then(boundary) else {
        return query(ctx, caller, changeset);
    };
    let requests = split_parts(changeset.body, inner).map_err(ServiceError::invalid_input)?;
    let response = BatchResponse::new();
    match plan_and_apply(ctx, caller, &requests) {
        Ok(done) => {
            done.iter()
                .filter_map(|(_, planned)| planned.stored())
                .for_each(|stored| stored.prepare());
            Ok(response.success(ctx, &done))
        }
        Err(failure) => Ok(response.failure(ctx, &failure)),
    }
}

/// A batch holding one query (a point get or a table query) instead of a changeset.
fn query(ctx: &Ctx<'_>, caller: &Caller, part: &Part<'_>) -> Result<Reply, ServiceError> {
    let not_a_query =
        || ServiceError::invalid_input("The batch part is neither a changeset nor a query.");
    if !part
        .header("content-type")
        .is_some_and(|ct| ct.starts_with("application/http"))
    {
        return Err(not_a_query());
    }
    let request = parse_sub_request(part.body).map_err(ServiceError::invalid_input)?;
    if request.method != "GET" {
        return Err(not_a_query());
    }
    let mut builder = http::Request::builder().method("GET").uri(request.target);
    for &(name, value) in &request.headers {
        builder = builder.header(name, value);
    }
    let (parts, ()) = builder.body(()).map_err(|_| not_a_query())?.into_parts();
    let params = crate::router::query_params(parts.uri.query());
    let sub = Ctx {
        state: ctx.state,
        parts: &parts,
        params: &params,
        request_id: ctx.request_id,
        account: ctx.account.clone(),
        level: Metadata::from_accept(request.header("accept")),
    };
    let (account, route) = route::parse(parts.uri.path())?;
    if account != ctx.account {
        return Err(not_a_query());
    }
    let answer = match route {
        Route::Entities(table) => sub.query(caller, &table),
        Route::Entity {
            table,
            partition_key,
            row_key,
        } => sub.get_entity(caller, &table, &partition_key, &row_key),
        _ => return Err(not_a_query()),
    };
    let answer = answer.unwrap_or_else(|err| sub.error(&err));
    Ok(BatchResponse::new().query(ctx, answer))
}

/// Why a batch failed: the operation's index (and Content-ID) and the error.
struct Failure {
    index: usize,
    content_id: Option<String>,
    error: ServiceError,
}

fn fail(index: usize, content_id: Option<String>, error: ServiceError) -> Failure {
    Failure {
        index,
        content_id,
        error,
    }
}

/// Parses and checks every operation, then applies all of them or none.
fn plan_and_apply(
    ctx: &Ctx<'_>,
    caller: &Caller,
    parts: &[Part<'_>],
) -> Result<Vec<(Answer, Planned)>, Failure> {
    if parts.is_empty() {
        return Err(fail(
            0,
            None,
            ServiceError::invalid_input("The batch holds no operations."),
        ));
    }
    if parts.len() > MAX_BATCH_OPERATIONS {
        return Err(fail(
            0,
            None,
            ServiceError::invalid_input(
                "The batch request operation exceeds the maximum 100 changes per change set.",
            ),
        ));
    }
    let mut operations = Vec::with_capacity(parts.len());
    for (index, part) in parts.iter().enumerate() {
        let content_id = part.header("content-id").map(str::to_owned);
        let operation = parse_operation(ctx, part).map_err(|e| fail(index, content_id, e))?;
        operations.push(operation);
    }
    check_scope(&operations)?;
    if let Caller::Sas(grant) = caller {
        for (index, o) in operations.iter().enumerate() {
            let (pk, rk) = o.op.keys();
            grant
                .check_table(&o.answer.table)
                .and_then(|_| grant.check_permissions(o.op.permissions()))
                .and_then(|_| grant.check_keys(pk, rk))
                .map_err(|e| fail(index, o.answer.content_id.clone(), e))?;
        }
    }
    let first = operations
        .first()
        .map(|o| o.answer.table.clone())
        .unwrap_or_default();
    let first_id = || operations.first().and_then(|o| o.answer.content_id.clone());
    let table = ctx
        .state
        .store
        .table(&ctx.account, &first)
        .map_err(|e| fail(0, first_id(), e))?;
    let mut table = table.write().unwrap_or_else(|e| e.into_inner());
    if table.deleted {
        return Err(fail(0, None, ServiceError::table_not_found()));
    }
    // Every operation sees the table as it was: check_scope made each row appear once, so
    // no operation depends on an earlier one. Everything is applied at the end, or nothing.
    let mut planned = Vec::with_capacity(operations.len());
    for (index, Operation { op, answer }) in operations.into_iter().enumerate() {
        let key = {
            let (pk, rk) = op.keys();
            entity_key(pk, rk)
        };
        let current = table.entities.get(&key).map(|e| &***e);
        let result = operations::plan(op, current, ctx.state.store.next_timestamp())
            .map_err(|e| fail(index, answer.content_id.clone(), e))?;
        planned.push((answer, result));
    }
    let changes = planned.iter().map(|(_, p)| p.change.clone()).collect();
    ctx.state
        .store
        .commit(&ctx.account, &mut table, changes)
        .map_err(|e| fail(0, None, e))?;
    Ok(planned)
}

fn parse_operation(ctx: &Ctx<'_>, part: &Part<'_>) -> Result<Operation, ServiceError> {
    let request = parse_sub_request(part.body).map_err(ServiceError::invalid_input)?;
    let (account, route) = route::parse(request.path)?;
    if account != ctx.account {
        return Err(ServiceError::invalid_input(
            "An operation addresses another account.",
        ));
    }
    let if_match = operations::parse_if_match(request.header("if-match"))?;
    let (op, table) = match (request.method, route) {
        ("POST", Route::Entities(table)) => (
            EntityOp::Insert(operations::parse_entity(request.body, None)?),
            table,
        ),
        (
            method @ ("PUT" | "MERGE" | "PATCH"),
            Route::Entity {
                table,
                partition_key,
                row_key,
            },
        ) => {
            let entity = operations::parse_entity(request.body, Some((&partition_key, &row_key)))?;
            (
                EntityOp::Update {
                    entity,
                    if_match,
                    merge: method != "PUT",
                },
                table,
            )
        }
        (
            "DELETE",
            Route::Entity {
                table,
                partition_key,
                row_key,
            },
        ) => (
            EntityOp::Delete {
                partition_key,
                row_key,
                if_match: if_match.ok_or_else(|| ServiceError::missing_header("If-Match"))?,
            },
            table,
        ),
        _ => {
            return Err(ServiceError::invalid_input(
                "A changeset holds only inserts, updates, merges and deletes of entities.",
            ))
        }
    };
    let content_id = part
        .header("content-id")
        .or_else(|| request.header("content-id"))
        .map(str::to_owned);
    let no_content = request
        .header("prefer")
        .is_some_and(|p| p.contains("return-no-content"));
    let level = Metadata::from_accept(request.header("accept")).unwrap_or(Metadata::Minimal);
    Ok(Operation {
        op,
        answer: Answer {
            table,
            content_id,
            no_content,
            level,
        },
    })
}

/// One table, one PartitionKey, each row once.
fn check_scope(operations: &[Operation]) -> Result<(), Failure> {
    let Some(first) = operations.first() else {
        return Ok(());
    };
    let (first_pk, _) = first.op.keys();
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (index, o) in operations.iter().enumerate() {
        let (pk, rk) = o.op.keys();
        if !o.answer.table.eq_ignore_ascii_case(&first.answer.table) {
            return Err(fail(
                index,
                o.answer.content_id.clone(),
                ServiceError::invalid_input("All operations of a batch must address one table."),
            ));
        }
        if pk != first_pk {
            return Err(fail(
                index,
                o.answer.content_id.clone(),
                ServiceError::new(
                    StatusCode::BAD_REQUEST,
                    "CommandsInBatchActOnDifferentPartitions",
                    "All commands in a batch must operate on same entity group.",
                ),
            ));
        }
        if seen.insert(rk, index).is_some() {
            return Err(fail(
                index,
                o.answer.content_id.clone(),
                ServiceError::new(
                    StatusCode::BAD_REQUEST,
                    "InvalidDuplicateRow",
                    format!(
                        "A command with RowKey '{rk}' is already present in the batch. An entity can appear only once in a batch."
                    ),
                ),
            ));
        }
    }
    Ok(())
}

/// Writes the multipart answer.
struct BatchResponse {
    batch: String,
    changeset: String,
}

impl BatchResponse {
    fn new() -> Self {
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

    fn finish(&self, ctx: &Ctx<'_>, body: Vec<u8>) -> Reply {
        let content_type = format!("multipart/mixed; boundary={}", self.batch);
        ctx.reply(StatusCode::ACCEPTED, Some(&content_type), body)
    }

    /// One part per operation, written straight into one buffer.
    fn success(&self, ctx: &Ctx<'_>, done: &[(Answer, Planned)]) -> Reply {
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
                    for name in ["Location: ", "DataServiceId: "] {
                        out.extend_from_slice(name.as_bytes());
                        response::write_entity_location(&mut out, &base, &answer.table, stored);
                        out.extend_from_slice(b"\r\n");
                    }
                    if answer.no_content {
                        out.extend_from_slice(b"Preference-Applied: return-no-content\r\n");
                    } else {
                        let writer = EntityWriter {
                            base: &base,
                            account: &ctx.account,
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
                let timestamp = stored.timestamp().unwrap_or_default();
                crate::datetime::write_etag(&mut out, &timestamp);
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
    fn query(&self, ctx: &Ctx<'_>, answer: Reply) -> Reply {
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

    fn failure(&self, ctx: &Ctx<'_>, failure: &Failure) -> Reply {
        let err = &failure.error;
        let prefix = format!("{}:", failure.index);
        let (content_type, body) = response::error_body(err, ctx.request_id, ctx.level, &prefix);
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

#[cfg(test)]
mod tests;
