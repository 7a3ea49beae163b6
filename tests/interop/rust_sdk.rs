//! Microsoft's `azure_data_tables` crate, pinned with everything it builds
//! (`rust/Cargo.lock`), built with the cargo running the tests into `target/interop-rust`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use crate::emulator::EmulatorProcess;
use crate::install::sources;
use crate::script::{passes, target_dir};

/// The scenario's binary, built once per test process (cargo makes later builds no-ops).
fn binary() -> &'static Path {
    static BINARY: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    match BINARY.get_or_init(build) {
        Ok(path) => path,
        Err(e) => panic!("{e}"),
    }
}

fn build() -> Result<PathBuf, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let target = target_dir().join("interop-rust");
    let output = Command::new(cargo)
        .args(["build", "--quiet", "--locked", "--manifest-path"])
        .arg(sources().join("rust/Cargo.toml"))
        .arg("--target-dir")
        .arg(&target)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run cargo to build the Rust scenario: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "building the Rust scenario failed: {}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(target.join("debug").join(format!(
        "tablekit-interop-rust{}",
        std::env::consts::EXE_SUFFIX
    )))
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
