//! [`Count`]: counts every request by kind, before anything else can happen to it, for
//! [`Emulator::requests`](crate::Emulator::requests).

use std::future::Future;
use std::sync::Arc;

use crate::pipeline::incoming::IncomingRequest;
use crate::pipeline::outgoing::{Dropped, OutgoingResponse};
use crate::pipeline::service::Service;
use crate::pipeline::state::State;

/// Counts requests, then hands them to `inner`.
#[derive(Debug)]
pub(crate) struct Count<S> {
    state: Arc<State>,
    inner: S,
}

impl<S> Count<S> {
    pub(crate) fn new(state: Arc<State>, inner: S) -> Self {
        Count { state, inner }
    }
}

impl<B: Send, S: Service<B> + Sync> Service<B> for Count<S> {
    fn call(
        &self,
        call: IncomingRequest<B>,
    ) -> impl Future<Output = Result<OutgoingResponse, Dropped>> + Send {
        self.state.counter.record(call.operation);
        self.inner.call(call)
    }
}
