//! Microsoft's `azure_data_tables` crate, pinned with everything it builds
//! (`rust/Cargo.lock`), built with the cargo running the tests into `target/interop-rust`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::build::{self, Build};
use crate::emulator::EmulatorProcess;
use crate::install::sources;
use crate::script::passes;

/// The scenario's binary, built once per test process.
fn binary() -> &'static Path {
    static BINARY: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    build::once(&BINARY, || Build {
        what: "the Rust scenario",
        args: &["--locked"],
        manifest: sources().join("rust/Cargo.toml"),
        target: "interop-rust",
        binary: "tablekit-interop-rust",
    })
}

fn scenario(connection_string: &str) {
    let mut command = Command::new(binary());
    command.arg(connection_string);
    passes(command, "Rust", "rust scenario passed");
}

#[test]
fn rust_sdk_on_the_emulator() {
    let emulator = EmulatorProcess::start();
    scenario(emulator.connection_string());
}

#[test]
fn rust_sdk_on_azurite() {
    scenario(&tablekit_testing::azurite_connection_string());
}
