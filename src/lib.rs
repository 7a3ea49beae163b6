// The root package of the workspace: it holds the shared `examples/`, `tests/` and `benches/`.
// Its crate documentation is the workspace README, so the README's quick start is compiled by
// `cargo test --doc` and cannot drift from the API.
#![doc = include_str!("../README.md")]
