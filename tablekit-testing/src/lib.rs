#![doc = include_str!("../README.md")]

mod auth;
mod azurite;
mod batch;
mod continuation;
mod counter;
mod datetime;
mod error;
mod faults;
pub mod filter;
mod fixtures;
#[doc(hidden)]
pub mod fuzzing;
mod headers;
mod journal;
mod operations;
mod prefetch;
mod proxy;
mod response;
mod route;
mod router;
mod scan;
mod server;
mod service_error;
mod store;
mod stored;

pub use auth::TableSas;
pub use azurite::{
    azurite_client, azurite_connection_string, AZURITE_CONNECTION_STRING_VAR, AZURITE_VERSION,
};
pub use counter::{Operation, RequestCounts};
pub use error::{Error, Result};
pub use faults::{Fault, Faults};
pub use fixtures::TestTable;
pub use proxy::FaultProxy;
pub use server::{Emulator, EmulatorBuilder, DEV_ACCOUNT, DEV_KEY};
