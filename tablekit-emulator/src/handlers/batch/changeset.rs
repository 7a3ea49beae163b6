//! A changeset's operations, parsed and checked before any is applied: each a single-entity
//! write of the account, together addressing one table and one PartitionKey, each row once,
//! and 1 to 100 of them. A failure names the operation's index and Content-ID.

use std::collections::HashMap;

use http::StatusCode;
use tablekit::limits::{Limits, MAX_BATCH_OPERATIONS};

use super::multipart::{parse_sub_request, Part};
use crate::auth::Caller;
use crate::format::error_response::ErrorResponse;
use crate::format::metadata::Metadata;
use crate::handlers::operations::{self, EntityOp};
use crate::pipeline::resource::{self, Resource};

/// A parsed operation: what it does, and what its response needs.
pub(crate) struct Operation {
    pub(crate) op: EntityOp,
    pub(crate) answer: Answer,
}

/// What one operation's part of the response needs besides the outcome.
pub(crate) struct Answer {
    pub(crate) table: String,
    pub(crate) content_id: Option<String>,
    pub(crate) no_content: bool,
    pub(crate) level: Metadata,
}

/// Why a batch failed: the operation's index (and Content-ID) and the error.
pub(crate) struct Failure {
    pub(crate) index: usize,
    pub(crate) content_id: Option<String>,
    pub(crate) error: ErrorResponse,
}

pub(crate) fn fail(index: usize, content_id: Option<String>, error: ErrorResponse) -> Failure {
    Failure {
        index,
        content_id,
        error,
    }
}

/// Parses every operation of a changeset sent to `account` and checks their scope.
/// Entities are checked against `limits`, as single writes are.
pub(crate) fn parse(
    account: &str,
    limits: &Limits,
    parts: &[Part<'_>],
) -> Result<Vec<Operation>, Failure> {
    if parts.is_empty() {
        return Err(fail(
            0,
            None,
            ErrorResponse::invalid_input("The batch holds no operations."),
        ));
    }
    if parts.len() > MAX_BATCH_OPERATIONS {
        return Err(fail(
            0,
            None,
            ErrorResponse::invalid_input(
                "The batch request operation exceeds the maximum 100 changes per change set.",
            ),
        ));
    }
    let mut operations = Vec::with_capacity(parts.len());
    for (index, part) in parts.iter().enumerate() {
        let operation = parse_operation(account, limits, part).map_err(|e| {
            let content_id = part.header("content-id").map(str::to_owned);
            fail(index, content_id, e)
        })?;
        operations.push(operation);
    }
    check_scope(&operations)?;
    Ok(operations)
}

/// Whether `caller` may run every operation: a SAS must grant each one.
pub(crate) fn authorize(caller: &Caller, operations: &[Operation]) -> Result<(), Failure> {
    for (index, o) in operations.iter().enumerate() {
        caller
            .may_on_entities(o.op.action(), &o.answer.table, Some(o.op.keys()))
            .map_err(|e| fail(index, o.answer.content_id.clone(), e))?;
    }
    Ok(())
}

/// One operation: its request, addressed to an entity of `account`.
fn parse_operation(
    account: &str,
    limits: &Limits,
    part: &Part<'_>,
) -> Result<Operation, ErrorResponse> {
    let request = parse_sub_request(part.body).map_err(ErrorResponse::invalid_input)?;
    let (addressed, route) = resource::parse(request.path)?;
    if addressed != account {
        return Err(ErrorResponse::invalid_input(
            "An operation addresses another account.",
        ));
    }
    let if_match = operations::parse_if_match(request.header("if-match"))?;
    let (op, table) = match (request.method, route) {
        ("POST", Resource::Entities(table)) => (
            EntityOp::Insert(operations::parse_written(
                request.body,
                None,
                limits,
                false,
            )?),
            table,
        ),
        (
            method @ ("PUT" | "MERGE" | "PATCH"),
            Resource::Entity {
                table,
                partition_key,
                row_key,
            },
        ) => {
            let keys = Some((partition_key.as_str(), row_key.as_str()));
            let merge = method != "PUT";
            let entity = operations::parse_written(request.body, keys, limits, merge)?;
            (
                EntityOp::Update {
                    entity,
                    if_match,
                    merge,
                },
                table,
            )
        }
        (
            "DELETE",
            Resource::Entity {
                table,
                partition_key,
                row_key,
            },
        ) => (
            EntityOp::Delete {
                partition_key,
                row_key,
                if_match: if_match.ok_or_else(|| ErrorResponse::missing_header("If-Match"))?,
            },
            table,
        ),
        _ => {
            return Err(ErrorResponse::invalid_input(
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
    let mut seen: HashMap<&str, usize> = HashMap::with_capacity(operations.len());
    for (index, o) in operations.iter().enumerate() {
        let (pk, rk) = o.op.keys();
        if !o.answer.table.eq_ignore_ascii_case(&first.answer.table) {
            return Err(fail(
                index,
                o.answer.content_id.clone(),
                ErrorResponse::invalid_input("All operations of a batch must address one table."),
            ));
        }
        if pk != first_pk {
            return Err(fail(
                index,
                o.answer.content_id.clone(),
                ErrorResponse::new(
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
                ErrorResponse::new(
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
