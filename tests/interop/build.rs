//! Building a binary with the cargo running the tests, once per test process, into a target
//! directory of its own under the tests' (later builds in the same process are no-ops).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use crate::script::target_dir;

/// What to build: `what` names it in errors; `args` select it (after `cargo build --quiet`).
pub(crate) struct Build {
    pub(crate) what: &'static str,
    pub(crate) args: &'static [&'static str],
    pub(crate) manifest: PathBuf,
    /// The target directory's name under the tests' own.
    pub(crate) target: &'static str,
    /// The binary's name (without the platform's suffix).
    pub(crate) binary: &'static str,
}

/// The binary `cell` holds, built by `build` on first use; a failed build fails the test.
pub(crate) fn once(
    cell: &'static OnceLock<Result<PathBuf, String>>,
    build: fn() -> Build,
) -> &'static Path {
    match cell.get_or_init(|| cargo_build(build())) {
        Ok(path) => path,
        Err(e) => panic!("{e}"),
    }
}

fn cargo_build(build: Build) -> Result<PathBuf, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let target = target_dir().join(build.target);
    let output = Command::new(cargo)
        .args(["build", "--quiet"])
        .args(build.args)
        .arg("--manifest-path")
        .arg(&build.manifest)
        .arg("--target-dir")
        .arg(&target)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run cargo to build {}: {e}", build.what))?;
    if !output.status.success() {
        return Err(format!(
            "building {} failed: {}",
            build.what,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let binary =
        target
            .join("debug")
            .join(format!("{}{}", build.binary, std::env::consts::EXE_SUFFIX));
    match binary.is_file() {
        true => Ok(binary),
        false => Err(format!("no binary of {} at {binary:?}", build.what)),
    }
}
