//! Fault injection by the emulator's [`Faults`](crate::Faults) plan, in two layers around
//! the request's work. [`InjectFaults`] draws the request's fault, waits out the plan's
//! latency and answers in the service's place (500, 503, a dropped or held connection).
//! [`LoseAnswers`], nearer the router, lets an `Applied*` request be carried out and then
//! loses its answer; a request refused before it got there (a body too large) keeps its
//! answer, since nothing was applied.

use std::future::Future;
use std::sync::Arc;

use futures::future::Either;
use futures::FutureExt;

use http::StatusCode;

use crate::format::error_response::ErrorResponse;
use crate::pipeline::faults::{Drawn, Fault};
use crate::pipeline::incoming::IncomingRequest;
use crate::pipeline::outgoing::{Dropped, OutgoingResponse};
use crate::pipeline::service::Service;
use crate::pipeline::state::State;

/// Draws each request's fault; answers the faults that replace the service's answer, and
/// hands on the others (marked on the request) with the requests that drew none.
#[derive(Debug)]
pub(crate) struct InjectFaults<S> {
    state: Arc<State>,
    inner: S,
}

impl<S> InjectFaults<S> {
    pub(crate) fn new(state: Arc<State>, inner: S) -> Self {
        InjectFaults { state, inner }
    }
}

impl<B: Send, S: Service<B> + Sync> Service<B> for InjectFaults<S> {
    fn call(
        &self,
        mut call: IncomingRequest<B>,
    ) -> impl Future<Output = Result<OutgoingResponse, Dropped>> + Send {
        let drawn = self.state.faults.draw(call.operation);
        if drawn.latency.is_zero() && !answers_itself(drawn.fault) {
            call.fault = drawn.fault;
            return Either::Left(self.inner.call(call));
        }
        // Boxed: the rare faulted request's state stays out of every other request's.
        Either::Right(Box::pin(self.faulted(call, drawn)))
    }
}

/// Whether `fault` replaces the service's answer (rather than losing it once applied).
fn answers_itself(fault: Option<Fault>) -> bool {
    matches!(
        fault,
        Some(
            Fault::InternalError
                | Fault::ServerBusy
                | Fault::ServerBusyAsking(_)
                | Fault::Timeout
                | Fault::DropConnection
        )
    )
}

impl<S> InjectFaults<S> {
    /// A request that drew latency or a fault that answers in the service's place.
    async fn faulted<B>(
        &self,
        mut call: IncomingRequest<B>,
        drawn: Drawn,
    ) -> Result<OutgoingResponse, Dropped>
    where
        S: Service<B>,
    {
        if !drawn.latency.is_zero() {
            tokio::time::sleep(drawn.latency).await;
        }
        let injected = |status| ErrorResponse::injected(status);
        match drawn.fault {
            Some(Fault::InternalError) => {
                return Ok(call
                    .responder()
                    .error(&injected(StatusCode::INTERNAL_SERVER_ERROR)))
            }
            Some(Fault::ServerBusy) => {
                return Ok(call
                    .responder()
                    .error(&injected(StatusCode::SERVICE_UNAVAILABLE)))
            }
            Some(Fault::ServerBusyAsking(wait)) => {
                let busy = call
                    .responder()
                    .error(&injected(StatusCode::SERVICE_UNAVAILABLE));
                let (name, value) = wait.header();
                let name = http::HeaderName::from_static(name);
                return Ok(crate::pipeline::outgoing::with_header(busy, name, value));
            }
            Some(Fault::Timeout) => {
                tokio::time::sleep(drawn.hold).await;
                return Err(Dropped);
            }
            Some(Fault::DropConnection) => return Err(Dropped),
            _ => {}
        }
        call.fault = drawn.fault;
        self.inner.call(call).await
    }
}

/// Carries out a request marked with an `Applied*` fault, then drops its connection or
/// answers 500 instead of the real answer.
#[derive(Debug)]
pub(crate) struct LoseAnswers<S> {
    inner: S,
}

impl<S> LoseAnswers<S> {
    pub(crate) fn new(inner: S) -> Self {
        LoseAnswers { inner }
    }
}

impl<B: Send, S: Service<B> + Sync> Service<B> for LoseAnswers<S> {
    fn call(
        &self,
        call: IncomingRequest<B>,
    ) -> impl Future<Output = Result<OutgoingResponse, Dropped>> + Send {
        let fault = call.fault;
        // Written now: the request itself goes to the handler.
        let lost = (fault == Some(Fault::AppliedThenInternalError)).then(|| {
            call.responder()
                .error(&ErrorResponse::injected(StatusCode::INTERNAL_SERVER_ERROR))
        });
        self.inner.call(call).map(move |reply| {
            let reply = reply?;
            match fault {
                Some(Fault::AppliedThenDropped) => Err(Dropped),
                _ => Ok(lost.unwrap_or(reply)),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use bytes::Bytes;
    use http::Request;

    use super::*;
    use crate::pipeline::faults::Faults;
    use crate::pipeline::layers::echo::Echo;
    use crate::storage::store::Store;

    /// Both fault layers around an [`Echo`], injecting `fault` into every request.
    fn faulty(fault: Fault) -> InjectFaults<LoseAnswers<Echo>> {
        let plan = Faults::seeded(1).rate(fault, 1.0);
        let state = Arc::new(State::new(Store::in_memory(), HashMap::new(), Some(plan)));
        InjectFaults::new(state, LoseAnswers::new(Echo::default()))
    }

    fn insert() -> IncomingRequest<Bytes> {
        let request = Request::post("/acct/T").body(Bytes::from_static(b"{}"));
        IncomingRequest::new(request.unwrap())
    }

    #[tokio::test]
    async fn faults_in_place_of_the_answer_never_reach_the_handler() {
        for (fault, status) in [
            (Fault::InternalError, Some(500)),
            (Fault::ServerBusy, Some(503)),
            (Fault::DropConnection, None),
        ] {
            let layers = faulty(fault);
            let answer = layers.call(insert()).await;
            assert_eq!(
                answer.ok().map(|r| r.status().as_u16()),
                status,
                "{fault:?}"
            );
            assert_eq!(layers.inner.inner.seen(), 0, "{fault:?}");
        }
    }

    #[tokio::test]
    async fn applied_faults_lose_the_answer_after_the_handler_ran() {
        let layers = faulty(Fault::AppliedThenDropped);
        assert!(layers.call(insert()).await.is_err());
        assert_eq!(layers.inner.inner.seen(), 1);
        let layers = faulty(Fault::AppliedThenInternalError);
        let reply = layers.call(insert()).await.unwrap();
        assert_eq!(reply.status(), StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(reply.headers()["x-ms-error-code"], "InternalError");
        assert_eq!(layers.inner.inner.seen(), 1);
    }

    #[tokio::test]
    async fn without_a_plan_every_request_is_answered() {
        let state = Arc::new(State::new(Store::in_memory(), HashMap::new(), None));
        let layers = InjectFaults::new(state, LoseAnswers::new(Echo::default()));
        let reply = layers.call(insert()).await.unwrap();
        assert_eq!(reply.status(), StatusCode::OK);
    }
}
