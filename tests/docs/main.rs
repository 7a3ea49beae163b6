//! The documentation holds: every public item has a doc example, the README's set-up and
//! examples table are true, the examples do what they say (on both servers), and the crate's
//! layers are as its docs describe them.

// Fixtures are `pub` for the modules that share them; a test binary has no API.
#![allow(unreachable_pub)]

#[macro_use]
#[path = "../support/mod.rs"]
mod support;

mod doc_examples;
mod examples;
mod layers;
mod patterns_examples;
mod readme;
