//! End-to-end tests of the `tablekit` binary, run as a child process against the in-process
//! emulator and against Azurite.

mod support;

mod backup;
mod bad_input;
mod conventions;
mod copy;
mod edge_values;
mod entities;
mod explain;
mod insight;
mod migrate;
mod output;
mod parallel;
#[cfg(feature = "parquet")]
mod parquet_export;
mod round_trip;
mod secrets;
