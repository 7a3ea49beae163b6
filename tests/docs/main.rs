//! The documentation works: every public item's doc example, the README's code, and the
//! examples, run on both servers.

// Fixtures are `pub` for the modules that share them; a test binary has no API.
#![allow(unreachable_pub)]

#[macro_use]
#[path = "../support/mod.rs"]
mod support;

mod doc_examples;
mod examples;
mod patterns_examples;
mod readme;
