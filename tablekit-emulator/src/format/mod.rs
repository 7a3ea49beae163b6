//! The service's bytes, written as the service writes them (see the protocol captures):
//! entities at each OData metadata level, error bodies, headers, time texts and continuation
//! tokens.

pub(crate) mod continuation;
pub(crate) mod datetime;
pub(crate) mod entity_json;
pub(crate) mod error_response;
pub(crate) mod headers;
pub(crate) mod metadata;
pub(crate) mod minimal_json;
pub(crate) mod response;
