//! [`Router`]: the end of the layer chain. It hands an authenticated request to the handler
//! its method and resource name; an error becomes the service's error answer.

use std::future::{ready, Future};
use std::sync::Arc;

use bytes::Bytes;
use futures::future::Either;
use futures::FutureExt;
use http::StatusCode;

use crate::auth::Caller;
use crate::format::error_response::ErrorResponse;
use crate::handlers::context::Ctx;
use crate::handlers::{access_policies, batch, entities, service_properties, tables};
use crate::pipeline::incoming::IncomingRequest;
use crate::pipeline::outgoing::{Dropped, OutgoingResponse};
use crate::pipeline::resource::Resource;
use crate::pipeline::service::Service;
use crate::pipeline::state::State;

/// Answers requests whose body has been read.
#[derive(Debug)]
pub(crate) struct Router {
    state: Arc<State>,
}

impl Router {
    pub(crate) fn new(state: Arc<State>) -> Self {
        Router { state }
    }
}

impl Service<Bytes> for Router {
    fn call(
        &self,
        call: IncomingRequest<Bytes>,
    ) -> impl Future<Output = Result<OutgoingResponse, Dropped>> + Send {
        let answer = self.answer(&call);
        if !self.state.store.is_durable() {
            // In memory, what the answer shows is already all there is.
            return Either::Left(ready(Ok(self.reply(&call, answer))));
        }
        // Nothing goes out before what it may show is durable (see `group_commit`).
        Either::Right(
            self.state
                .store
                .settled()
                .map(move |settled| Ok(self.reply(&call, settled.and(answer)))),
        )
    }
}

impl Router {
    /// What the handler answers, or why it refused.
    fn answer(&self, call: &IncomingRequest<Bytes>) -> Result<OutgoingResponse, ErrorResponse> {
        let ctx = Ctx::new(call, &self.state);
        match (&call.route, &call.caller) {
            (Ok(route), Some(caller)) => dispatch(&ctx, caller, route, &call.body),
            (Err(err), _) => Err(err.clone()),
            // The chain authenticates every request that names a resource before this.
            (Ok(_), None) => Err(ErrorResponse::authentication_failed(
                "The request was not authenticated.",
            )),
        }
    }

    /// The answer, an error becoming the service's error answer.
    fn reply(
        &self,
        call: &IncomingRequest<Bytes>,
        answer: Result<OutgoingResponse, ErrorResponse>,
    ) -> OutgoingResponse {
        answer.unwrap_or_else(|err| Ctx::new(call, &self.state).error(&err))
    }
}

/// Runs the handler for the request's method and resource on behalf of `caller`.
pub(crate) fn dispatch(
    ctx: &Ctx<'_>,
    caller: &Caller,
    route: &Resource,
    body: &[u8],
) -> Result<OutgoingResponse, ErrorResponse> {
    match (ctx.parts.method.as_str(), route) {
        ("GET", Resource::Tables) => tables::list(ctx, caller),
        ("POST", Resource::Tables) => tables::create(ctx, caller, body),
        ("GET", Resource::Table(name)) => tables::get(ctx, caller, name),
        ("DELETE", Resource::Table(name)) => tables::delete(ctx, caller, name),
        ("POST", Resource::Batch) => batch::execute(ctx, caller, body),
        ("GET", Resource::Entities(table)) => entities::query(ctx, caller, table),
        ("POST", Resource::Entities(table)) => entities::insert(ctx, caller, table, body),
        (
            "GET",
            Resource::Entity {
                table,
                partition_key,
                row_key,
            },
        ) => entities::get(ctx, caller, table, partition_key, row_key),
        (
            "PUT" | "MERGE" | "PATCH" | "DELETE",
            Resource::Entity {
                table,
                partition_key,
                row_key,
            },
        ) => entities::write(ctx, caller, table, (partition_key, row_key), body),
        ("GET", Resource::TableAcl(table)) => access_policies::get(ctx, caller, table),
        ("PUT", Resource::TableAcl(table)) => access_policies::set(ctx, caller, table, body),
        (_, Resource::Service) => service_properties::dispatch(ctx, caller, body),
        _ => Err(ErrorResponse::new(
            StatusCode::METHOD_NOT_ALLOWED,
            "UnsupportedHttpVerb",
            "The resource doesn't support the specified HTTP verb.",
        )),
    }
}
