//! Suites that run on every server: the in-process emulator and Azurite, both over real HTTP
//! (see `support::servers` for how a suite names its cases and servers).

// Cases and fixtures are `pub` for the modules that share them; a test binary has no API.
#![allow(unreachable_pub)]

#[macro_use]
#[path = "../support/mod.rs"]
mod support;

mod access_policies;
mod body_keys;
mod bulk_pacing;
mod composition;
mod concurrency;
mod conformance;
mod cosmos;
mod data_safety;
mod filter_cases;
mod index;
mod index_races;
mod insight;
mod model_based;
mod parallel_scan;
mod patterns;
mod records_gamer;
mod serde_bridge;
mod service_properties;
mod split;
mod spread;
mod uncertain_writes;
mod value_types;
