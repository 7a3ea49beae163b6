//! The entity operations: query a table, get, insert, update, merge and delete one entity.
//! A table SAS may call them within its table, permissions and key range.

use std::sync::Arc;

use http::header::{ETAG, LOCATION};
use http::StatusCode;

use crate::auth::{Action, Caller};
use crate::format::continuation;
use crate::format::entity_json::EntityWriter;
use crate::format::error_response::ErrorResponse;
use crate::format::headers as names;
use crate::format::response;
use crate::handlers::context::Ctx;
use crate::handlers::operations::{self, EntityOp};
use crate::handlers::query_options;
use crate::pipeline::outgoing::{with_header, OutgoingResponse};
use crate::query::cost::QueryCost;
use crate::query::scan;
use crate::storage::store::entity_key;
use crate::storage::stored::Stored;

/// `GET /T()`: one page of entities, filtered and selected, with a continuation.
pub(crate) fn query(
    ctx: &Ctx<'_>,
    caller: &Caller,
    table_name: &str,
) -> Result<OutgoingResponse, ErrorResponse> {
    let level = ctx.json_level()?;
    caller.may_on_entities(Action::QueryEntities, table_name, None)?;
    let filter = query_options::filter(ctx.params)?;
    let top = query_options::top(ctx.params)?;
    let select = query_options::select(ctx.params)?;
    let start = query_options::entity_start(ctx.params)?;
    // A query bound to one partition is that partition's load; any other, the table's.
    let partition = filter
        .as_ref()
        .and_then(|f| f.key_range().partition.single().map(str::to_owned));
    ctx.admit(table_name, partition.as_deref(), 0)?;
    let table = ctx.state.store.table(ctx.account, table_name)?;
    let (page, stored_name) = {
        let table = table.read().unwrap_or_else(|e| e.into_inner());
        if table.deleted {
            return Err(ErrorResponse::table_not_found());
        }
        let page = scan::page(&table, filter.as_ref(), start, top, |pk, rk| match caller {
            Caller::Owner => true,
            Caller::Sas(grant) => grant.allows_keys(pk, rk),
        });
        (page, table.name.clone())
    };
    let returned = page.entities.len() as u64;
    ctx.charge(table_name, partition.as_deref(), returned.max(1));
    // The lock is released: the answer is written from shared pointers.
    let writer = EntityWriter {
        base: &ctx.base(),
        account: ctx.account,
        table: &stored_name,
        level,
        select: select.as_deref(),
    };
    let body = writer.page(page.entities.iter().map(|e| &**e));
    let reply = ctx.reply(StatusCode::OK, Some(level.content_type()), body);
    let mut reply = costed(ctx, table_name, page.examined, returned, reply);
    if let Some((pk, rk)) = page.next {
        reply = with_header(
            reply,
            names::NEXT_PARTITION_KEY,
            continuation::encode(&pk.0),
        );
        reply = with_header(reply, names::NEXT_ROW_KEY, continuation::encode(&rk.0));
    }
    Ok(reply)
}

/// `GET /T(PartitionKey='p',RowKey='r')`: one entity, with its ETag.
pub(crate) fn get(
    ctx: &Ctx<'_>,
    caller: &Caller,
    table_name: &str,
    pk: &str,
    rk: &str,
) -> Result<OutgoingResponse, ErrorResponse> {
    let level = ctx.json_level()?;
    caller.may_on_entities(Action::QueryEntities, table_name, Some((pk, rk)))?;
    let select = query_options::select(ctx.params)?;
    ctx.admit(table_name, Some(pk), 1)?;
    let table = ctx.state.store.table(ctx.account, table_name)?;
    let (entity, stored_name) = {
        let table = table.read().unwrap_or_else(|e| e.into_inner());
        if table.deleted {
            return Err(ErrorResponse::table_not_found());
        }
        let entity = table.entities.get(&entity_key(pk, rk)).cloned();
        (entity, table.name.clone())
    };
    let found = u64::from(entity.is_some());
    let Some(entity) = entity else {
        record_cost(ctx, table_name, found, found);
        return Err(ErrorResponse::resource_not_found());
    };
    let writer = EntityWriter {
        base: &ctx.base(),
        account: ctx.account,
        table: &stored_name,
        level,
        select: select.as_deref(),
    };
    let reply = ctx.reply(
        StatusCode::OK,
        Some(level.content_type()),
        writer.single(&entity),
    );
    let reply = costed(ctx, table_name, found, found, reply);
    Ok(with_header(reply, ETAG, response::entity_etag(&entity)))
}

/// Records what a read cost, and says it in the answer's headers.
fn costed(
    ctx: &Ctx<'_>,
    table: &str,
    examined: u64,
    returned: u64,
    reply: OutgoingResponse,
) -> OutgoingResponse {
    record_cost(ctx, table, examined, returned);
    let reply = with_header(reply, names::ENTITIES_EXAMINED, examined.to_string());
    with_header(reply, names::ENTITIES_RETURNED, returned.to_string())
}

fn record_cost(ctx: &Ctx<'_>, table: &str, examined: u64, returned: u64) {
    ctx.state.costs.record(QueryCost {
        table: table.to_owned(),
        filter: ctx.params.get("$filter").cloned(),
        examined,
        returned,
    });
}

/// `POST /T`: inserts an entity; answers with it unless asked not to.
pub(crate) fn insert(
    ctx: &Ctx<'_>,
    caller: &Caller,
    table_name: &str,
    body: &[u8],
) -> Result<OutgoingResponse, ErrorResponse> {
    let level = if ctx.wants_no_content() {
        None
    } else {
        Some(ctx.json_level()?)
    };
    let entity = operations::parse_written(body, None, ctx.state.limits, false)?;
    ctx.admit(table_name, Some(entity.keys().0), 1)?;
    let (stored, table_name) = apply(ctx, caller, table_name, EntityOp::Insert(entity))?;
    let stored = stored.ok_or_else(ErrorResponse::resource_not_found)?;
    let etag = response::entity_etag(&stored);
    let reply = match level {
        None => ctx.preference_applied(
            ctx.reply(StatusCode::NO_CONTENT, None, Vec::new()),
            "return-no-content",
        ),
        Some(level) => {
            let writer = EntityWriter {
                base: &ctx.base(),
                account: ctx.account,
                table: &table_name,
                level,
                select: None,
            };
            ctx.preference_applied(
                ctx.reply(
                    StatusCode::CREATED,
                    Some(level.content_type()),
                    writer.single(&stored),
                ),
                "return-content",
            )
        }
    };
    let location = response::entity_location(&ctx.base(), &table_name, &stored);
    let reply = with_header(reply, names::DATA_SERVICE_ID, location.clone());
    let reply = with_header(reply, LOCATION, location);
    Ok(with_header(reply, ETAG, etag))
}

/// `PUT`, `MERGE`/`PATCH` and `DELETE` of one entity: replace, merge (upserts without
/// `If-Match`) and delete.
pub(crate) fn write(
    ctx: &Ctx<'_>,
    caller: &Caller,
    table_name: &str,
    (pk, rk): (&str, &str),
    body: &[u8],
) -> Result<OutgoingResponse, ErrorResponse> {
    let op = entity_op(ctx, pk, rk, body)?;
    ctx.admit(table_name, Some(pk), 1)?;
    let (stored, _) = apply(ctx, caller, table_name, op)?;
    let reply = ctx.reply(StatusCode::NO_CONTENT, None, Vec::new());
    Ok(match stored {
        Some(entity) => with_header(reply, ETAG, response::entity_etag(&entity)),
        None => reply,
    })
}

/// The write a `PUT`, `MERGE`/`PATCH` or `DELETE` request asks for.
fn entity_op(ctx: &Ctx<'_>, pk: &str, rk: &str, body: &[u8]) -> Result<EntityOp, ErrorResponse> {
    let method = ctx.parts.method.as_str();
    let if_match = operations::parse_if_match(ctx.header("if-match"))?;
    if method == "DELETE" {
        return Ok(EntityOp::Delete {
            partition_key: pk.to_owned(),
            row_key: rk.to_owned(),
            if_match: if_match.ok_or_else(|| ErrorResponse::missing_header("If-Match"))?,
        });
    }
    let merge = method != "PUT";
    let entity = operations::parse_written(body, Some((pk, rk)), ctx.state.limits, merge)?;
    Ok(EntityOp::Update {
        entity,
        if_match,
        merge,
    })
}

/// Runs one entity operation under the table's lock; returns the stored entity and the
/// table's name as created.
fn apply(
    ctx: &Ctx<'_>,
    caller: &Caller,
    table_name: &str,
    op: EntityOp,
) -> Result<(Option<Arc<Stored>>, String), ErrorResponse> {
    caller.may_on_entities(op.action(), table_name, Some(op.keys()))?;
    let key = {
        let (pk, rk) = op.keys();
        entity_key(pk, rk)
    };
    let store = &ctx.state.store;
    let table = store.table(ctx.account, table_name)?;
    let mut table = table.write().unwrap_or_else(|e| e.into_inner());
    if table.deleted {
        return Err(ErrorResponse::table_not_found());
    }
    let current = table.entities.get(&key).map(|e| &**e);
    let planned = operations::plan(op, current, store.next_timestamp())?;
    let stored = planned.stored().cloned();
    store.commit(ctx.account, &mut table, vec![planned.change])?;
    let name = table.name.clone();
    drop(table);
    Ok((stored, name))
}
