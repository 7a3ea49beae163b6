//! [`BusyTime`]: adds the time spent answering to
//! [`Emulator::busy_time`](crate::Emulator::busy_time). The handlers never wait, so this is
//! the server's own work, without the HTTP framing and the network.

use std::future::Future;
use std::sync::Arc;
use std::time::Instant;

use futures::FutureExt;

use crate::pipeline::incoming::IncomingRequest;
use crate::pipeline::outgoing::{Dropped, OutgoingResponse};
use crate::pipeline::service::Service;
use crate::pipeline::state::State;

/// Times `inner`.
#[derive(Debug)]
pub(crate) struct BusyTime<S> {
    state: Arc<State>,
    inner: S,
}

impl<S> BusyTime<S> {
    pub(crate) fn new(state: Arc<State>, inner: S) -> Self {
        BusyTime { state, inner }
    }
}

impl<B: Send, S: Service<B> + Sync> Service<B> for BusyTime<S> {
    fn call(
        &self,
        call: IncomingRequest<B>,
    ) -> impl Future<Output = Result<OutgoingResponse, Dropped>> + Send {
        let started = Instant::now();
        self.inner.call(call).map(move |reply| {
            self.state.counter.record_busy(started.elapsed());
            reply
        })
    }
}
