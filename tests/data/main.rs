//! The data layer, mostly without a server: values, the wire codec (against captured answers of
//! the service), keys, limits, filters and their parameters, records and split values. Where a
//! server helps, it is the emulator as a reference: its filter engine, in process or over HTTP.

// Fixtures are `pub` for the modules that share them; a test binary has no API.
#![allow(unreachable_pub)]

#[macro_use]
#[path = "../support/mod.rs"]
mod support;

mod codec_captures;
mod codec_proptest;
mod filter_params;
mod filter_params_property;
mod filters;
mod filters_property;
mod keys;
mod limits;
mod records;
mod split;
mod values;
