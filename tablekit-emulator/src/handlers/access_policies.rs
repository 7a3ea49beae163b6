//! Get and Set Table ACL: a table's stored access policies, as the service's
//! `SignedIdentifiers` XML (read and written by `tablekit::client`'s functions).

use http::StatusCode;
use tablekit::client::{access_policies_from_xml, access_policies_to_xml, MAX_ACCESS_POLICIES};
use tablekit::limits::Feature;

use crate::auth::{Action, Caller};
use crate::format::error_response::ErrorResponse;
use crate::handlers::context::Ctx;
use crate::pipeline::outgoing::OutgoingResponse;

/// `GET /T?comp=acl`: the table's policies.
pub(crate) fn get(
    ctx: &Ctx<'_>,
    caller: &Caller,
    table: &str,
) -> Result<OutgoingResponse, ErrorResponse> {
    ctx.state
        .limits
        .check_supported(Feature::TableAccessPolicies)
        .map_err(ErrorResponse::not_implemented)?;
    caller.may(Action::GetTableAcl)?;
    let policies = ctx.state.store.policies(ctx.account, table)?;
    let body = service_times(&access_policies_to_xml(&policies)).into_bytes();
    Ok(ctx.reply(StatusCode::OK, Some("application/xml"), body))
}

/// `PUT /T?comp=acl`: replaces the table's policies (an empty body removes them).
pub(crate) fn set(
    ctx: &Ctx<'_>,
    caller: &Caller,
    table: &str,
    body: &[u8],
) -> Result<OutgoingResponse, ErrorResponse> {
    ctx.state
        .limits
        .check_supported(Feature::TableAccessPolicies)
        .map_err(ErrorResponse::not_implemented)?;
    caller.may(Action::SetTableAcl)?;
    let policies = if body.iter().all(u8::is_ascii_whitespace) {
        Vec::new()
    } else {
        access_policies_from_xml(body).map_err(|problem| invalid_xml(&problem.message))?
    };
    if policies.len() > MAX_ACCESS_POLICIES {
        return Err(invalid_xml(&format!(
            "A table holds at most {MAX_ACCESS_POLICIES} signed identifiers."
        )));
    }
    if let Some(long) = policies.iter().find(|p| p.id.chars().count() > 64) {
        return Err(invalid_xml(&format!(
            "The signed identifier `{}` is longer than 64 characters.",
            long.id
        )));
    }
    ctx.state.store.set_policies(ctx.account, table, policies)?;
    Ok(ctx.reply(StatusCode::NO_CONTENT, None, Vec::new()))
}

/// The times written as the service answers them, with seven fraction digits
/// (`2030-01-01T00:00:00.0000000Z`). Stored times are whole seconds, each written ending in
/// `Z` right before its closing tag; an id cannot hold that text, since `<` is escaped.
fn service_times(xml: &str) -> String {
    xml.replace("Z</Start>", ".0000000Z</Start>")
        .replace("Z</Expiry>", ".0000000Z</Expiry>")
}

/// 400 InvalidXmlDocument, as the service answers a body it cannot take.
fn invalid_xml(problem: &str) -> ErrorResponse {
    ErrorResponse::new(
        StatusCode::BAD_REQUEST,
        "InvalidXmlDocument",
        format!("XML specified is not syntactically valid. {problem}"),
    )
}
