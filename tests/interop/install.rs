//! Installs a pinned SDK once into the cache directory, safely when test processes race.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The cache directory: `TABLEKIT_CACHE_DIR`, else the user's cache directory, as for the
/// Azurite that `tablekit_testing` installs.
fn cache_root() -> PathBuf {
    std::env::var_os("TABLEKIT_CACHE_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("XDG_CACHE_HOME").map(|d| PathBuf::from(d).join("tablekit")))
        .or_else(|| std::env::var_os("HOME").map(|d| PathBuf::from(d).join(".cache/tablekit")))
        .unwrap_or_else(|| std::env::temp_dir().join("tablekit-cache"))
}

/// `name` in the cache directory, made by `make` unless `ready` says it is there. `make`
/// fills a directory of this process's own, renamed into place when complete, so a
/// half-made install is never used; when another process wins the race, its install is
/// used and ours dropped.
pub(crate) fn installed(
    name: &str,
    ready: impl Fn(&Path) -> bool,
    make: impl FnOnce(&Path) -> Result<(), String>,
) -> Result<PathBuf, String> {
    let dir = cache_root().join(name);
    if ready(&dir) {
        return Ok(dir);
    }
    let staging = cache_root().join(format!(".{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::create_dir_all(&staging).map_err(|e| format!("cannot make {staging:?}: {e}"))?;
    if let Err(e) = make(&staging) {
        let _ = std::fs::remove_dir_all(&staging);
        return Err(e);
    }
    if std::fs::rename(&staging, &dir).is_err() {
        let _ = std::fs::remove_dir_all(&staging);
    }
    if ready(&dir) {
        Ok(dir)
    } else {
        Err(format!(
            "the install in {dir:?} is incomplete: delete it to install again"
        ))
    }
}

/// Runs an install step in `dir`; a failure says what `what` could not do, with its stderr.
pub(crate) fn run(command: &mut Command, dir: &Path, what: &str) -> Result<(), String> {
    let output = command
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot {what}: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "cannot {what} ({}): {}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout).trim(),
            String::from_utf8_lossy(&output.stderr).trim()
        ))
    }
}

/// The Python of a venv named `name` in the cache directory, with the packages pinned in
/// `requirements` installed once (`version` marks the install): what every suite that runs
/// a Python program (an SDK, pyarrow) uses.
pub(crate) fn python_venv(
    name: &str,
    requirements: &Path,
    version: &str,
) -> Result<PathBuf, String> {
    let venv = installed(
        name,
        |dir| dir.join(".installed").is_file(),
        |dir| {
            let venv_failed = "make a Python venv (Python 3 with its `venv` module, \
                               the `python3-venv` package on Debian, is needed)";
            run(
                Command::new("python3").args(["-m", "venv", "."]),
                dir,
                venv_failed,
            )?;
            run(
                Command::new(dir.join("bin/python"))
                    .args([
                        "-m",
                        "pip",
                        "install",
                        "--quiet",
                        "--disable-pip-version-check",
                    ])
                    .arg("--requirement")
                    .arg(requirements),
                dir,
                "install the pinned Python packages with pip",
            )?;
            std::fs::write(dir.join(".installed"), version)
                .map_err(|e| format!("cannot mark the venv installed: {e}"))
        },
    )?;
    // Only `bin/python` is used: it finds the venv's packages wherever the venv was renamed to.
    Ok(venv.join("bin/python"))
}

/// The venv of the Python Table SDK pinned in `python/requirements.txt`, named after its
/// version as the interop suite names it: the same install for every user.
pub(crate) fn table_sdk_python() -> Result<PathBuf, String> {
    let requirements = sources().join("python/requirements.txt");
    let text = std::fs::read_to_string(&requirements).map_err(|e| e.to_string())?;
    let version = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("azure-data-tables=="))
        .ok_or("requirements.txt pins no azure-data-tables")?
        .to_owned();
    python_venv(
        &format!("python-azure-data-tables-{version}"),
        &requirements,
        &version,
    )
}

/// The directory of the interop sources, `tests/interop`.
pub(crate) fn sources() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop")
}
