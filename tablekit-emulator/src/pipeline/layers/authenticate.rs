//! [`Authenticate`]: checks who sent a request from its headers and query alone, before its
//! body is read, so an unauthenticated client cannot make the emulator hold its body.
//!
//! Shared Key and Shared Key Lite sign headers and the path, and a SAS is in the query: none
//! needs the body. A refused request is answered at once, its body unread; hyper then closes
//! the connection rather than read what is left of it.

use std::future::{ready, Future};
use std::sync::Arc;

use futures::future::Either;

use crate::auth;
use crate::format::error_response::ErrorResponse;
use crate::pipeline::incoming::IncomingRequest;
use crate::pipeline::outgoing::{Dropped, OutgoingResponse};
use crate::pipeline::service::Service;
use crate::pipeline::state::State;

/// Authenticates requests that name a resource, then hands them to `inner`; a request
/// whose path names none is answered with why at once, its body unread: whoever sent it,
/// nothing on the server would read that body.
#[derive(Debug)]
pub(crate) struct Authenticate<S> {
    state: Arc<State>,
    inner: S,
}

impl<S> Authenticate<S> {
    pub(crate) fn new(state: Arc<State>, inner: S) -> Self {
        Authenticate { state, inner }
    }
}

impl<B, S> Service<B> for Authenticate<S>
where
    B: Send,
    S: Service<B> + Sync,
{
    fn call(
        &self,
        mut call: IncomingRequest<B>,
    ) -> impl Future<Output = Result<OutgoingResponse, Dropped>> + Send {
        match self.admit(&mut call) {
            Ok(()) => Either::Left(self.inner.call(call)),
            Err(err) => Either::Right(ready(Ok(call.responder().error(&err)))),
        }
    }
}

impl<S> Authenticate<S> {
    /// Notes who sent `call` on it, or says why it is refused.
    fn admit<B>(&self, call: &mut IncomingRequest<B>) -> Result<(), ErrorResponse> {
        if let Err(err) = &call.route {
            return Err(err.clone());
        }
        call.caller = Some(self.caller(call)?);
        // The secondary is a read-only copy of the account.
        let read = matches!(call.parts.method, http::Method::GET | http::Method::HEAD);
        if call.secondary && !read {
            return Err(ErrorResponse::write_on_secondary());
        }
        Ok(())
    }

    /// Who sent `call`: the account's owner or a SAS holder; 403 for anyone else.
    fn caller<B>(&self, call: &IncomingRequest<B>) -> Result<auth::Caller, ErrorResponse> {
        let keys = self.state.accounts.get(&call.account).ok_or_else(|| {
            ErrorResponse::authentication_failed("The account does not exist on this emulator.")
        })?;
        if let Some(token) = bearer_token(&call.parts) {
            return match self.state.accepts_bearer(token) {
                true => Ok(auth::Caller::Owner),
                false => Err(ErrorResponse::authentication_failed(
                    "The bearer token is not one this emulator issued.",
                )),
            };
        }
        let request = auth::Request {
            parts: &call.parts,
            params: &call.params,
            account: &call.account,
            peer: call.peer,
        };
        auth::authenticate(&request, keys, &self.state.store)
    }
}

/// The token of an `Authorization: Bearer` header.
fn bearer_token(parts: &http::request::Parts) -> Option<&str> {
    let value = parts
        .headers
        .get(http::header::AUTHORIZATION)?
        .to_str()
        .ok()?;
    value.strip_prefix("Bearer ")
}
