//! The layers (middleware) around the [`Router`](crate::pipeline::router::Router): each does one thing
//! to every request and hands it on. [`app`](crate::pipeline::app) orders them.

mod authenticate;
mod busy_time;
mod count;
mod faults;
mod read_body;
mod request_log;

pub(crate) use authenticate::Authenticate;
pub(crate) use busy_time::BusyTime;
pub(crate) use count::Count;
pub(crate) use faults::{InjectFaults, LoseAnswers};
pub(crate) use read_body::ReadBody;
pub(crate) use request_log::RequestLog;

/// A stand-in for the router, for the layers' own tests.
#[cfg(test)]
mod echo {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use bytes::Bytes;
    use http::StatusCode;

    use crate::pipeline::incoming::IncomingRequest;
    use crate::pipeline::outgoing::{Dropped, OutgoingResponse};
    use crate::pipeline::service::Service;

    /// Answers 200 with the body it was given, counting the requests that reached it.
    #[derive(Debug, Default)]
    pub(super) struct Echo(AtomicUsize);

    impl Echo {
        pub(super) fn seen(&self) -> usize {
            self.0.load(Ordering::Relaxed)
        }
    }

    impl Service<Bytes> for Echo {
        async fn call(&self, call: IncomingRequest<Bytes>) -> Result<OutgoingResponse, Dropped> {
            self.0.fetch_add(1, Ordering::Relaxed);
            Ok(call
                .responder()
                .reply(StatusCode::OK, None, call.body.to_vec()))
        }
    }
}
