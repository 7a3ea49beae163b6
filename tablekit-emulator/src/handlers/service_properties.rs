//! `/?restype=service&comp=properties|stats`: Get and Set Table Service Properties, and Get
//! Table Service Stats, as XML documents.
//!
//! Properties are kept per account, in memory. A set lays the parts it names over what the
//! account has (a part left out keeps its value), after the checks the service makes:
//! malformed XML is 400 `InvalidXmlDocument`, values outside the documented ranges 400
//! `InvalidXmlNodeValue`. Statistics are answered on the secondary location only
//! (`/acct-secondary/`), as the service does; on the primary they are 400
//! `InvalidQueryParameterValue`. The Cosmos flavor offers neither (501 `NotImplemented`).

use chrono::{SubsecRound, Utc};
use http::StatusCode;
use tablekit::client::{
    GeoReplication, GeoReplicationStatus, Metrics, ServiceProperties, ServiceStatistics,
};
use tablekit::limits::Feature;

use crate::auth::{Action, Caller};
use crate::format::error_response::ErrorResponse;
use crate::handlers::context::Ctx;
use crate::pipeline::outgoing::OutgoingResponse;

const XML: &str = "application/xml";

/// Answers a request to the service itself by its `restype` and `comp`.
pub(crate) fn dispatch(
    ctx: &Ctx<'_>,
    caller: &Caller,
    body: &[u8],
) -> Result<OutgoingResponse, ErrorResponse> {
    let param = |name: &str| ctx.params.get(name).map(String::as_str);
    let comp = match (param("restype"), param("comp")) {
        (Some("service"), Some(comp @ ("properties" | "stats"))) => comp,
        _ => return Err(invalid_query()),
    };
    let feature = match comp {
        "stats" => Feature::ServiceStatistics,
        _ => Feature::ServiceProperties,
    };
    ctx.state
        .limits
        .check_supported(feature)
        .map_err(ErrorResponse::not_implemented)?;
    match (ctx.parts.method.as_str(), comp) {
        ("GET", "properties") => {
            caller.may(Action::GetServiceProperties)?;
            get(ctx)
        }
        ("PUT", "properties") => {
            caller.may(Action::SetServiceProperties)?;
            set(ctx, body)
        }
        ("GET", "stats") => {
            caller.may(Action::GetServiceStats)?;
            stats(ctx)
        }
        _ => Err(ErrorResponse::new(
            StatusCode::METHOD_NOT_ALLOWED,
            "UnsupportedHttpVerb",
            "The resource doesn't support the specified HTTP verb.",
        )),
    }
}

fn invalid_query() -> ErrorResponse {
    ErrorResponse::new(
        StatusCode::BAD_REQUEST,
        "InvalidQueryParameterValue",
        "Value for one of the query parameters specified in the request URI is invalid.",
    )
}

/// What a new account has: nothing logged, no metrics, no CORS rules.
fn defaults() -> ServiceProperties {
    ServiceProperties {
        logging: Some(Default::default()),
        hour_metrics: Some(Metrics::default()),
        minute_metrics: Some(Metrics::default()),
        cors: Some(Vec::new()),
    }
}

fn get(ctx: &Ctx<'_>) -> Result<OutgoingResponse, ErrorResponse> {
    let properties = ctx
        .state
        .service_properties
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .get(ctx.account)
        .cloned()
        .unwrap_or_else(defaults);
    let xml = properties.to_xml().map_err(internal)?;
    Ok(ctx.reply(StatusCode::OK, Some(XML), xml.into_bytes()))
}

fn set(ctx: &Ctx<'_>, body: &[u8]) -> Result<OutgoingResponse, ErrorResponse> {
    let malformed = || {
        ErrorResponse::new(
            StatusCode::BAD_REQUEST,
            "InvalidXmlDocument",
            "XML specified is not syntactically valid.",
        )
    };
    let text = std::str::from_utf8(body).map_err(|_| malformed())?;
    let update = ServiceProperties::from_xml(text).map_err(|_| malformed())?;
    update.validate().map_err(|problem| {
        ErrorResponse::new(
            StatusCode::BAD_REQUEST,
            "InvalidXmlNodeValue",
            format!("The value for one of the XML nodes is not in the correct format: {problem}."),
        )
    })?;
    let mut all = ctx
        .state
        .service_properties
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let current = all.entry(ctx.account.to_owned()).or_insert_with(defaults);
    // A part the request leaves out keeps its value.
    let ServiceProperties {
        logging,
        hour_metrics,
        minute_metrics,
        cors,
    } = update;
    current.logging = logging.or(current.logging.take());
    current.hour_metrics = hour_metrics.or(current.hour_metrics.take());
    current.minute_metrics = minute_metrics.or(current.minute_metrics.take());
    current.cors = cors.or(current.cors.take());
    Ok(ctx.reply(StatusCode::ACCEPTED, None, Vec::new()))
}

fn stats(ctx: &Ctx<'_>) -> Result<OutgoingResponse, ErrorResponse> {
    if !ctx.secondary {
        return Err(invalid_query());
    }
    // One copy of the data: the secondary is always caught up.
    let stats = ServiceStatistics {
        geo_replication: GeoReplication {
            status: GeoReplicationStatus::Live,
            last_sync_time: Some(Utc::now().trunc_subsecs(0)),
        },
    };
    let xml = stats.to_xml().map_err(internal)?;
    Ok(ctx.reply(StatusCode::OK, Some(XML), xml.into_bytes()))
}

fn internal(err: tablekit::Error) -> ErrorResponse {
    ErrorResponse::new(
        StatusCode::INTERNAL_SERVER_ERROR,
        "InternalError",
        format!("The server encountered an internal error: {err}."),
    )
}
