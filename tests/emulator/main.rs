//! The emulator's own behaviour over real HTTP, spoken to with raw, hand-signed requests: the
//! service's answers (compared with captured ones), `$batch`, injected faults, large tables and
//! persistence.

// Fixtures are `pub` for the modules that share them; a test binary has no API.
#![allow(unreachable_pub)]

#[macro_use]
#[path = "../support/mod.rs"]
mod support;

mod batch;
mod captures;
mod faults;
mod http;
mod large;
mod persistence;
