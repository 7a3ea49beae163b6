#![doc = include_str!("../README.md")]
//!
//! # Layout
//!
//! Each folder is one layer of the server; a request goes down through them and its answer
//! comes back up:
//!
//! | Folder | What it holds |
//! |---|---|
//! | `http` | The listener and its connections ([`Emulator`], [`FaultProxy`]), the in-process transport |
//! | `pipeline` | The request on its way: its parsed head, the layers (authenticate, count, faults, body), the router |
//! | `auth` | Shared Key, bearer tokens and SAS: who sent a request and what it may do |
//! | `handlers` | One function per operation of the Table service, and what each write does |
//! | `query` | The `$filter` language ([`filter`]) and the scan that reads one page |
//! | `format` | The service's bytes: entity JSON at each metadata level, error bodies, headers, continuation tokens |
//! | `storage` | The tables in memory and their durable copy (write-ahead log, redb, group commit) |

mod auth;
pub mod command;
mod error;
mod fixtures;
mod format;
// The fuzz targets' way in: only `cargo fuzz` builds set `cfg(fuzzing)`; the crate's own
// tests build it too, so the entry points are checked on every test run.
#[cfg(any(fuzzing, test))]
#[doc(hidden)]
pub mod fuzzing;
mod handlers;
mod http;
mod pipeline;
mod query;
mod storage;

pub use error::{Error, Result};
pub use fixtures::TestTable;
pub use http::proxy::FaultProxy;
pub use http::server::{
    Emulator, EmulatorBuilder, DEFAULT_BODY_TIMEOUT, DEFAULT_HEADER_TIMEOUT,
    DEFAULT_MAX_CONNECTIONS, DEV_ACCOUNT, DEV_KEY,
};
pub use pipeline::counter::{Operation, RequestCounts};
pub use pipeline::faults::{Fault, Faults, RetryAfter};
pub use pipeline::throttle::{Throttle, ThrottledCounts};
pub use query::cost::{QueryCost, QueryCosts, EXAMINED_HEADER, RECENT_READS, RETURNED_HEADER};
pub use query::filter;
