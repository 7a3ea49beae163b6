//! The emulator's request pipeline: the layers every request passes through, outermost
//! first, and the [`Router`] at the end.
//!
//! A request's way through the server: [`server`](crate::http::server) accepts the connection and
//! reads the request line into a [`IncomingRequest`](crate::pipeline::incoming::IncomingRequest); the [`layers`](crate::pipeline::layers)
//! count it, inject faults, authenticate it and read its body; the router calls the
//! handler for its method and resource ([`handlers`](crate::handlers)), which works on the
//! [`Store`](crate::storage::store::Store) and answers through a [`Ctx`](crate::handlers::context::Ctx) with
//! the JSON of [`entity_json`](crate::format::entity_json) and [`response`](crate::format::response).

use std::fs::File;
use std::sync::Arc;
use std::time::Duration;

use crate::pipeline::layers::{
    Authenticate, BusyTime, Count, InjectFaults, LoseAnswers, ReadBody, RequestLog,
};
use crate::pipeline::router::Router;
use crate::pipeline::state::State;

/// The whole pipeline: logged (when asked), counted, then faults drawn (and latency added), then authenticated
/// on its headers, then the body read within its limit, then (for an `Applied*` fault) the answer lost after the work, the
/// work timed, and the request routed to its handler.
pub(crate) type App =
    RequestLog<Count<InjectFaults<Authenticate<ReadBody<LoseAnswers<BusyTime<Router>>>>>>>;

/// The pipeline of an emulator with this state, writing a line per request to `log`.
pub(crate) fn app(state: &Arc<State>, body_timeout: Duration, log: Option<File>) -> App {
    let router = Router::new(state.clone());
    let timed = BusyTime::new(state.clone(), router);
    let lossy = LoseAnswers::new(timed);
    let limited = ReadBody::new(body_timeout, lossy).batch_limit(state.limits.max_batch_bytes);
    let authenticated = Authenticate::new(state.clone(), limited);
    let faulty = InjectFaults::new(state.clone(), authenticated);
    RequestLog::new(log, Count::new(state.clone(), faulty))
}
