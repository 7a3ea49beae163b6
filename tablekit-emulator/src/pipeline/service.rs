//! [`Service`]: one step of answering a request, as in tower. A layer does its part and
//! hands the request to the service it wraps; the [`Router`](crate::pipeline::router::Router) at the
//! end of the chain answers it. [`app`](crate::pipeline::app) puts the chain together.

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
