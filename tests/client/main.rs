//! The client's promises that only a server that counts and checks can prove: bad input and
//! refused requests never reach it, secrets stay secret, and none of the defects of
//! Wintellect's C# library recur.

// Fixtures are `pub` for the modules that share them; a test binary has no API.
#![allow(unreachable_pub)]

#[macro_use]
#[path = "../support/mod.rs"]
mod support;

mod bad_input;
mod flavor;
mod query_plans;
mod refused_input;
mod sas_vectors;
mod secondary;
mod secrets;
mod telemetry;
mod token_credential;
mod wintellect_defects;
