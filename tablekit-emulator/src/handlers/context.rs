//! [`Ctx`]: what a handler reads while it answers one request, and how it answers.

use std::collections::HashMap;

use http::request::Parts;
use http::StatusCode;

use crate::format::error_response::ErrorResponse;
use crate::format::headers::PREFERENCE_APPLIED;
use crate::format::metadata::Metadata;
use crate::pipeline::incoming::{header, IncomingRequest};
use crate::pipeline::outgoing::{with_header, OutgoingResponse, Responder};
use crate::pipeline::state::State;
use crate::pipeline::throttle::Target;

/// One request being answered: the emulator's state, the request, and its [`Responder`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ctx<'a> {
    pub(crate) state: &'a State,
    pub(crate) parts: &'a Parts,
    /// Query parameters, percent-decoded.
    pub(crate) params: &'a HashMap<String, String>,
    /// The account the path names.
    pub(crate) account: &'a str,
    /// Whether the request came to the account's secondary location.
    pub(crate) secondary: bool,
    pub(crate) respond: Responder<'a>,
}

impl<'a> Ctx<'a> {
    /// What a handler answering `call` reads.
    pub(crate) fn new<B>(call: &'a IncomingRequest<B>, state: &'a State) -> Self {
        Ctx {
            state,
            parts: &call.parts,
            params: &call.params,
            account: &call.account,
            secondary: call.secondary,
            respond: call.responder(),
        }
    }

    /// `http://host/account`, as the client addressed the server.
    pub(crate) fn base(&self) -> String {
        let host = self.header("host").unwrap_or("127.0.0.1");
        ["http://", host, "/", self.account].concat()
    }

    /// The metadata level for a JSON answer; 415 when the client asked for none.
    pub(crate) fn json_level(&self) -> Result<Metadata, ErrorResponse> {
        self.respond
            .level()
            .ok_or_else(ErrorResponse::atom_not_supported)
    }

    /// Admits a request that touches `entities` entities of one partition of `table` (or of
    /// the table, when it is bound to none), or refuses it as a busy service does; always
    /// admitted when the emulator is not [throttled](crate::EmulatorBuilder::throttle).
    pub(crate) fn admit(
        &self,
        table: &str,
        partition_key: Option<&str>,
        entities: u64,
    ) -> Result<(), ErrorResponse> {
        match &self.state.throttle {
            Some(throttle) => throttle.admit(self.target(table, partition_key), entities),
            None => Ok(()),
        }
    }

    /// Pays for `entities` more entities of an admitted request (a query's page, once read).
    pub(crate) fn charge(&self, table: &str, partition_key: Option<&str>, entities: u64) {
        if let Some(throttle) = &self.state.throttle {
            throttle.charge(self.target(table, partition_key), entities);
        }
    }

    fn target<'t>(&'t self, table: &'t str, partition_key: Option<&'t str>) -> Target<'t> {
        Target {
            account: self.account,
            table,
            partition_key,
        }
    }

    /// A request header's value, when it is text.
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        header(self.parts, name)
    }

    /// Whether the client asked for no body (`Prefer: return-no-content`).
    pub(crate) fn wants_no_content(&self) -> bool {
        self.header("prefer")
            .is_some_and(|p| p.contains("return-no-content"))
    }

    /// `reply` with `Preference-Applied: applied` when the request carried a `Prefer` header:
    /// the service names the preference it honoured and, asked nothing, says nothing
    /// ("Setting the Prefer header to manage response echo on insert operations").
    pub(crate) fn preference_applied(
        &self,
        reply: OutgoingResponse,
        applied: &'static str,
    ) -> OutgoingResponse {
        match self.header("prefer") {
            Some(_) => with_header(reply, PREFERENCE_APPLIED, applied),
            None => reply,
        }
    }

    /// A response with the headers every answer carries.
    pub(crate) fn reply(
        &self,
        status: StatusCode,
        content_type: Option<&str>,
        body: Vec<u8>,
    ) -> OutgoingResponse {
        self.respond.reply(status, content_type, body)
    }

    /// An error answer.
    pub(crate) fn error(&self, err: &ErrorResponse) -> OutgoingResponse {
        self.respond.error(err)
    }
}
