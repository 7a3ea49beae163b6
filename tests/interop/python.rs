//! Microsoft's `azure-data-tables` for Python, pinned with everything it installs
//! (`python/requirements.txt`), in a venv in the cache directory.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::emulator::EmulatorProcess;
use crate::install::{installed, run, sources};
use crate::script::passes;

/// The pinned SDK version: it names the venv.
const VERSION: &str = "12.7.0";

fn python(venv: &Path) -> PathBuf {
    venv.join("bin/python")
}

/// The venv's Python, once the pinned packages are installed. Only `bin/python` is used:
/// it finds the venv's packages wherever the venv was renamed to.
fn venv_python() -> PathBuf {
    static VENV: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let venv = VENV.get_or_init(|| {
        let requirements = sources().join("python/requirements.txt");
        installed(
            &format!("python-azure-data-tables-{VERSION}"),
            |dir| dir.join(".installed").is_file(),
            |dir| {
                let venv_failed = "make a Python venv (Python 3 with its `venv` module, \
                                   the `python3-venv` package on Debian, is needed)";
                run(
                    Command::new("python3").args(["-m", "venv", "."]),
                    dir,
                    venv_failed,
                )?;
                let pip = "install the pinned Python packages with pip";
                run(
                    Command::new(python(dir))
                        .args([
                            "-m",
                            "pip",
                            "install",
                            "--quiet",
                            "--disable-pip-version-check",
                        ])
                        .arg("--requirement")
                        .arg(&requirements),
                    dir,
                    pip,
                )?;
                std::fs::write(dir.join(".installed"), VERSION)
                    .map_err(|e| format!("cannot mark the venv installed: {e}"))
            },
        )
    });
    match venv {
        Ok(dir) => python(dir),
        Err(e) => panic!("{e}"),
    }
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
