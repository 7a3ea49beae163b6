//! Microsoft's `azure-data-tables` for Python, pinned with everything it installs
//! (`python/requirements.txt`), in a venv in the cache directory.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use crate::emulator::EmulatorProcess;
use crate::install::{sources, table_sdk_python};
use crate::script::passes;

/// The venv's Python, once the pinned packages are installed.
fn venv_python() -> PathBuf {
    static PYTHON: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let python = PYTHON.get_or_init(table_sdk_python);
    python.clone().unwrap_or_else(|e| panic!("{e}"))
}

fn scenario(connection_string: &str) {
    let mut command = Command::new(venv_python());
    command
        .arg(sources().join("python/scenario.py"))
        .arg(connection_string);
    passes(command, "Python", "python scenario passed");
}

#[test]
fn python_sdk_on_the_emulator() {
    let emulator = EmulatorProcess::start();
    scenario(emulator.connection_string());
}

#[test]
fn python_sdk_on_azurite() {
    scenario(&tablekit_testing::azurite_connection_string());
}
