//! Interop: Microsoft's Table SDKs for Python, JavaScript and Rust run one scenario each
//! against the `tablekit-emulator` binary, started with Azurite's options, and against
//! Azurite. Each scenario (create and list tables, every EDM type, paged queries with filter,
//! select and top, replace and merge with ETags, upserts, transactions, deletes) checks every
//! answer; a test passes when its script does, and shows the script's output when it fails.
//!
//! The pinned SDKs are installed on first use into the cache directory (the Python one in a
//! venv, the JavaScript one with `npm ci`), and the Rust scenario is built with the cargo
//! running the tests into `target/interop-rust`.

mod build;
mod emulator;
mod install;
mod javascript;
mod python;
mod rust_sdk;
mod script;
