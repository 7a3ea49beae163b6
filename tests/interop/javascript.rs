//! Microsoft's `@azure/data-tables` for JavaScript, pinned with everything it installs
//! (`js/package-lock.json`), installed with `npm ci` in the cache directory.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use crate::emulator::EmulatorProcess;
use crate::install::{installed, run, sources};
use crate::script::passes;

/// The pinned SDK version: it names the install.
const VERSION: &str = "13.3.2";

/// The install directory, holding `node_modules`.
fn install_dir() -> PathBuf {
    static INSTALL: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let dir = INSTALL.get_or_init(|| {
        installed(
            &format!("js-data-tables-{VERSION}"),
            |dir| {
                dir.join("node_modules/@azure/data-tables/package.json")
                    .is_file()
            },
            |dir| {
                for file in ["package.json", "package-lock.json"] {
                    std::fs::copy(sources().join("js").join(file), dir.join(file))
                        .map_err(|e| format!("cannot copy {file}: {e}"))?;
                }
                let npm = "install the pinned JavaScript packages with `npm ci` (Node.js and \
                           npm 18 or later are needed)";
                run(
                    Command::new("npm").args(["ci", "--no-audit", "--no-fund", "--loglevel=error"]),
                    dir,
                    npm,
                )
            },
        )
    });
    match dir {
        Ok(dir) => dir.clone(),
        Err(e) => panic!("{e}"),
    }
}

fn scenario(connection_string: &str) {
    let mut command = Command::new("node");
    command
        .arg(sources().join("js/scenario.mjs"))
        .arg(connection_string)
        .arg(install_dir());
    passes(command, "JavaScript", "javascript scenario passed");
}

#[test]
fn javascript_sdk_on_the_emulator() {
    let emulator = EmulatorProcess::start();
    scenario(emulator.connection_string());
}

#[test]
fn javascript_sdk_on_azurite() {
    scenario(&tablekit_testing::azurite_connection_string());
}
