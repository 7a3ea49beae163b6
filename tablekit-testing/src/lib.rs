#![doc = include_str!("../README.md")]

mod app;
mod auth;
mod azurite;
mod call;
pub mod command;
mod connections;
mod context;
mod continuation;
mod counter;
mod database;
mod datetime;
mod dir_sync;
mod entity_json;
mod error;
mod faults;
pub mod filter;
mod fixtures;
// The fuzz targets' way in: only `cargo fuzz` builds set `cfg(fuzzing)`; the crate's own
// tests build it too, so the entry points are checked on every test run.
#[cfg(any(fuzzing, test))]
#[doc(hidden)]
pub mod fuzzing;
mod group_commit;
mod handlers;
mod headers;
mod in_process;
mod journal;
mod layers;
mod metadata;
mod minimal_json;
mod operations;
mod parse_errors;
mod prefetch;
mod proxy;
mod quiet_panic;
mod reply;
mod response;
mod route;
mod router;
mod scan;
mod server;
mod service;
mod service_error;
mod serving;
mod state;
mod store;
mod stored;

pub use azurite::{
    azurite_client, azurite_connection_string, AZURITE_CONNECTION_STRING_VAR, AZURITE_VERSION,
};
pub use counter::{Operation, RequestCounts};
pub use error::{Error, Result};
pub use faults::{Fault, Faults, RetryAfter};
pub use fixtures::TestTable;
pub use proxy::FaultProxy;
pub use server::{
    Emulator, EmulatorBuilder, DEFAULT_BODY_TIMEOUT, DEFAULT_HEADER_TIMEOUT,
    DEFAULT_MAX_CONNECTIONS, DEV_ACCOUNT, DEV_KEY,
};
