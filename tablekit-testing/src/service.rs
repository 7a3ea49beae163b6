//! [`Service`]: one step of answering a request, as in tower. A layer does its part and
//! hands the request to the service it wraps; the [`Router`](crate::router::Router) at the
//! end of the chain answers it. [`app`](crate::app) puts the chain together.

use std::future::Future;

use crate::call::Call;
use crate::reply::{Dropped, Reply};

/// Answers requests whose body is a `B`.
pub(crate) trait Service<B> {
    /// Answers `call`; `Err(Dropped)` closes the connection without an answer.
    fn call(&self, call: Call<B>) -> impl Future<Output = Result<Reply, Dropped>> + Send;
}
