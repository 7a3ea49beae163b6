//! The root package of the workspace: it holds the shared `examples/`, `tests/` and `benches/`.
