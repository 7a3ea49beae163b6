//! `$batch` (entity group transactions): the multipart request is parsed
//! ([`multipart`]), its operations checked ([`changeset`]) and applied all or nothing, and
//! the answer written ([`answer`]).
//!
//! As on the service (and unlike Azurite): one changeset, 1 to 100 operations, one table,
//! one PartitionKey (400 CommandsInBatchActOnDifferentPartitions), each entity once
//! (400 InvalidDuplicateRow), nothing applied when any operation fails, and the failure
//! answered with the failing operation's index as the message's `N:` prefix.

mod answer;
mod changeset;
mod multipart;

use crate::auth::Caller;
use crate::format::error_response::ErrorResponse;
use crate::format::metadata::Metadata;
use crate::handlers::context::Ctx;
use crate::handlers::entities;
use crate::handlers::operations::{self, Planned};
use crate::pipeline::incoming::query_params;
use crate::pipeline::outgoing::{OutgoingResponse, Responder};
use crate::pipeline::resource::{self, Resource};
use crate::storage::store::entity_key;
use answer::BatchResponse;
use changeset::{fail, Answer, Failure, Operation};
use multipart::{boundary, parse_sub_request, split_parts, Part};

/// `POST /$batch`: runs a changeset all or nothing, or answers a batched query.
pub(crate) fn execute(
    ctx: &Ctx<'_>,
    caller: &Caller,
    body: &[u8],
) -> Result<OutgoingResponse, ErrorResponse> {
    let content_type = ctx
        .parts
        .headers
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let outer = boundary(content_type)
        .ok_or_else(|| ErrorResponse::invalid_input("A batch needs a multipart/mixed boundary."))?;
    let parts = split_parts(body, outer).map_err(ErrorResponse::invalid_input)?;
    let [part] = parts.as_slice() else {
        return Err(ErrorResponse::invalid_input(
            "A batch holds exactly one changeset.",
        ));
    };
    let Some(inner) = part.header("content-type").and_then(boundary) else {
        return query(ctx, caller, part);
    };
    let requests = split_parts(part.body, inner).map_err(ErrorResponse::invalid_input)?;
    let response = BatchResponse::new();
    let checked =
        changeset::parse(ctx.account, ctx.state.limits, &requests).and_then(|operations| {
            changeset::authorize(caller, &operations)?;
            Ok(operations)
        });
    if let Some(first) = checked.as_ref().ok().and_then(|ops| ops.first()) {
        // A busy service refuses the whole request, before any multipart answer.
        let entities = checked.as_ref().map_or(0, Vec::len) as u64;
        ctx.admit(&first.answer.table, Some(first.op.keys().0), entities)?;
    }
    let applied = checked.and_then(|operations| apply(ctx, operations));
    match applied {
        Ok(done) => Ok(response.success(ctx, &done)),
        Err(failure) => Ok(response.failure(ctx, &failure)),
    }
}

/// A batch holding one query (a point get or a table query) instead of a changeset.
fn query(
    ctx: &Ctx<'_>,
    caller: &Caller,
    part: &Part<'_>,
) -> Result<OutgoingResponse, ErrorResponse> {
    let not_a_query =
        || ErrorResponse::invalid_input("The batch part is neither a changeset nor a query.");
    if !part
        .header("content-type")
        .is_some_and(|ct| ct.starts_with("application/http"))
    {
        return Err(not_a_query());
    }
    let request = parse_sub_request(part.body).map_err(ErrorResponse::invalid_input)?;
    if request.method != "GET" {
        return Err(not_a_query());
    }
    let mut builder = http::Request::builder().method("GET").uri(request.target);
    for &(name, value) in &request.headers {
        builder = builder.header(name, value);
    }
    let (parts, ()) = builder.body(()).map_err(|_| not_a_query())?.into_parts();
    let params = query_params(parts.uri.query())?;
    let level = Metadata::from_accept(request.header("accept"));
    let sub = Ctx {
        state: ctx.state,
        parts: &parts,
        params: &params,
        account: ctx.account,
        secondary: ctx.secondary,
        // The outer request's id: the query's error names it.
        respond: Responder::new(ctx.respond.request_id(), &parts.headers, level),
    };
    let (account, route) = resource::parse(parts.uri.path())?;
    if account != ctx.account {
        return Err(not_a_query());
    }
    let answer = match route {
        Resource::Entities(table) => entities::query(&sub, caller, &table),
        Resource::Entity {
            table,
            partition_key,
            row_key,
        } => entities::get(&sub, caller, &table, &partition_key, &row_key),
        _ => return Err(not_a_query()),
    };
    let answer = answer.unwrap_or_else(|err| sub.error(&err));
    Ok(BatchResponse::new().query(ctx, answer))
}

/// Applies checked operations all or nothing, under their table's lock.
fn apply(ctx: &Ctx<'_>, operations: Vec<Operation>) -> Result<Vec<(Answer, Planned)>, Failure> {
    let first = operations
        .first()
        .map(|o| o.answer.table.clone())
        .unwrap_or_default();
    let first_id = || operations.first().and_then(|o| o.answer.content_id.clone());
    let table = ctx
        .state
        .store
        .table(ctx.account, &first)
        .map_err(|e| fail(0, first_id(), e))?;
    let mut table = table.write().unwrap_or_else(|e| e.into_inner());
    if table.deleted {
        return Err(fail(0, None, ErrorResponse::table_not_found()));
    }
    // Every operation sees the table as it was: check_scope made each row appear once, so
    // no operation depends on an earlier one. Everything is applied at the end, or nothing.
    let mut planned = Vec::with_capacity(operations.len());
    for (index, Operation { op, answer }) in operations.into_iter().enumerate() {
        let key = {
            let (pk, rk) = op.keys();
            entity_key(pk, rk)
        };
        let current = table.entities.get(&key).map(|e| &**e);
        let result = operations::plan(op, current, ctx.state.store.next_timestamp())
            .map_err(|e| fail(index, answer.content_id.clone(), e))?;
        planned.push((answer, result));
    }
    let changes = planned.iter().map(|(_, p)| p.change.clone()).collect();
    ctx.state
        .store
        .commit(ctx.account, &mut table, changes)
        .map_err(|e| fail(0, None, e))?;
    Ok(planned)
}
