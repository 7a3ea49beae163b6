//! Reliability under faults: the client's retries, optimistic retry after a lost answer, and
//! a workload with 10% of requests failing, checked against what is stored.

// Fixtures are `pub` for the modules that share them; a test binary has no API.
#![allow(unreachable_pub)]

#[macro_use]
#[path = "../support/mod.rs"]
mod support;

mod client_faults;
mod conflict_retry_faults;
mod index_faults;
mod workload_faults;
