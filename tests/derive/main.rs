//! The derives (`TableEntity`, `TableValue`, `Record`): what the generated code stores, reads
//! and filters, with keys composed from fields, and on the emulator over real HTTP.

// Fixtures are `pub` for the modules that share them; a test binary has no API.
#![allow(unreachable_pub)]

#[macro_use]
#[path = "../support/mod.rs"]
mod support;

mod emulator;
mod family;
mod flatten;
mod gamer;
mod index;
mod keys;
mod kinds;
mod records;
mod time_ranges;
