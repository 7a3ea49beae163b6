//! [`Service`]: one step of answering a request, as in tower. A layer does its part and
//! hands the request to the service it wraps; the [`Router`](crate::pipeline::router::Router) at the
//! end of the chain answers it. [`app`](crate::pipeline::app) puts the chain together.
//!
//! Layers do their work before the request moves on in `call` itself and return the inner
//! service's future, wrapped only when they have work after it. An `async fn call` would
//! keep its argument, the whole request, beside the inner future: each layer added a copy
//! of the request to the future of every request in flight (9 KB for the whole chain).

use std::future::Future;

use crate::pipeline::incoming::IncomingRequest;
use crate::pipeline::outgoing::{Dropped, OutgoingResponse};

/// Answers requests whose body is a `B`.
pub(crate) trait Service<B> {
    /// Answers `call`; `Err(Dropped)` closes the connection without an answer.
    fn call(
        &self,
        call: IncomingRequest<B>,
    ) -> impl Future<Output = Result<OutgoingResponse, Dropped>> + Send;
}
