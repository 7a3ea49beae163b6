//! What the integration test binaries share: the servers a suite runs on (and the one macro
//! that runs a suite on each of them), the models the tests use, a raw, hand-signed HTTP
//! client, and the capture of what the client traces.
//!
//! Each binary (`tests/NAME/main.rs`) includes it first, with `#[macro_use]`, so the macro is
//! in scope in every module after it; a binary uses only some of it.
#![allow(dead_code, unused_macros)]

#[macro_use]
pub mod servers;

pub mod models;
pub mod raw;
pub mod traces;
