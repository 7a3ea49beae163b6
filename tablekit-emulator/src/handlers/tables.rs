//! The table operations: list, create, get and delete tables. The account owner may call
//! them, and an account SAS that grants them; a table SAS may not.

use http::StatusCode;
use tablekit::limits;

use crate::auth::{Action, Caller};
use crate::format::continuation;
use crate::format::error_response::ErrorResponse;
use crate::format::headers as names;
use crate::format::response;
use crate::handlers::context::Ctx;
use crate::handlers::query_options;
use crate::pipeline::outgoing::{with_header, OutgoingResponse};
use crate::query::filter::{utf16_cmp, Field, Subject};

/// `GET /Tables`: one page of table names in order, filtered, with a continuation.
pub(crate) fn list(ctx: &Ctx<'_>, caller: &Caller) -> Result<OutgoingResponse, ErrorResponse> {
    caller.may(Action::QueryTables)?;
    let level = ctx.json_level()?;
    let filter = query_options::filter(ctx.params)?;
    let top = query_options::top(ctx.params)?;
    let start = query_options::table_start(ctx.params)?;
    let names = ctx.state.store.table_names(ctx.account);
    let mut page = Vec::new();
    let mut next = None;
    for name in names {
        if start
            .as_deref()
            .is_some_and(|s| utf16_cmp(&name, s).is_lt())
        {
            continue;
        }
        if filter
            .as_ref()
            .is_some_and(|f| !f.matches(&TableRow(&name)))
        {
            continue;
        }
        if page.len() == top {
            next = Some(name);
            break;
        }
        page.push(name);
    }
    let body = response::table_page(&ctx.base(), ctx.account, &page, level);
    let reply = ctx.reply(StatusCode::OK, Some(level.content_type()), body);
    Ok(match next {
        Some(name) => with_header(reply, names::NEXT_TABLE_NAME, continuation::encode(&name)),
        None => reply,
    })
}

/// `POST /Tables`: creates the table named in the body.
pub(crate) fn create(
    ctx: &Ctx<'_>,
    caller: &Caller,
    body: &[u8],
) -> Result<OutgoingResponse, ErrorResponse> {
    #[derive(serde::Deserialize)]
    struct CreateTable {
        #[serde(rename = "TableName")]
        table_name: String,
    }
    caller.may(Action::CreateTable)?;
    let request: CreateTable = serde_json::from_slice(body)
        .map_err(|_| ErrorResponse::invalid_input("The body must be {\"TableName\": \"...\"}."))?;
    let name = request.table_name;
    limits::validate_table_name(&name)?;
    let level = if ctx.wants_no_content() {
        None
    } else {
        Some(ctx.json_level()?)
    };
    ctx.state.store.create_table(ctx.account, &name)?;
    let reply = match level {
        None => ctx.preference_applied(
            ctx.reply(StatusCode::NO_CONTENT, None, Vec::new()),
            "return-no-content",
        ),
        Some(level) => {
            let body = response::table_single(&ctx.base(), ctx.account, &name, level);
            ctx.preference_applied(
                ctx.reply(StatusCode::CREATED, Some(level.content_type()), body),
                "return-content",
            )
        }
    };
    // Like an entity insert, the new table's address; a valid table name is alphanumeric,
    // so it needs no encoding.
    let location = format!("{}/Tables('{name}')", ctx.base());
    let reply = with_header(reply, names::DATA_SERVICE_ID, location.clone());
    Ok(with_header(reply, http::header::LOCATION, location))
}

/// `GET /Tables('T')`: the table, named as it was created.
pub(crate) fn get(
    ctx: &Ctx<'_>,
    caller: &Caller,
    name: &str,
) -> Result<OutgoingResponse, ErrorResponse> {
    caller.may(Action::QueryTables)?;
    let level = ctx.json_level()?;
    let table = ctx.state.store.table(ctx.account, name)?;
    let stored_name = table.read().unwrap_or_else(|e| e.into_inner()).name.clone();
    let body = response::table_single(&ctx.base(), ctx.account, &stored_name, level);
    Ok(ctx.reply(StatusCode::OK, Some(level.content_type()), body))
}

/// `DELETE /Tables('T')`.
pub(crate) fn delete(
    ctx: &Ctx<'_>,
    caller: &Caller,
    name: &str,
) -> Result<OutgoingResponse, ErrorResponse> {
    caller.may(Action::DeleteTable)?;
    ctx.state.store.delete_table(ctx.account, name)?;
    Ok(ctx.reply(StatusCode::NO_CONTENT, None, Vec::new()))
}

/// A table in the listing, as a filter sees it (`TableName eq 'x'`).
struct TableRow<'a>(&'a str);

impl Subject for TableRow<'_> {
    fn field(&self, name: &str) -> Option<Field<'_>> {
        (name == "TableName").then_some(Field::Text(self.0))
    }
}
