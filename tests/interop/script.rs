//! Runs a scenario script to its end and asserts that it passed, showing its output if not.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A script that runs longer is stuck (a scenario takes seconds): it is killed, and the
/// test fails with what the script printed so far.
const STUCK: Duration = Duration::from_secs(600);

/// The target directory the tests run from (`target/debug/deps/` holds this binary).
pub(crate) fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    exe.ancestors()
        .nth(3)
        .expect("the tests run inside a target directory")
        .to_path_buf()
}

/// Runs `command` (a scenario given its connection string) and panics unless it exits
/// successfully after printing `passed_line`; the panic shows its stdout and stderr.
pub(crate) fn passes(mut command: Command, what: &str, passed_line: &str) {
    let dir = tempfile::tempdir().unwrap();
    let stdout_path = dir.path().join("stdout");
    let stderr_path = dir.path().join("stderr");
    let mut child = command
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&stdout_path).unwrap())
        .stderr(std::fs::File::create(&stderr_path).unwrap())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start the {what} scenario: {e}"));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if started.elapsed() > STUCK {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let stdout = std::fs::read_to_string(&stdout_path).unwrap_or_default();
    let stderr = std::fs::read_to_string(&stderr_path).unwrap_or_default();
    let passed = status.is_some_and(|s| s.success()) && stdout.contains(passed_line);
    assert!(
        passed,
        "the {what} scenario failed ({}):\n{stdout}\n{stderr}",
        match status {
            Some(status) => status.to_string(),
            None => format!("stuck for {STUCK:?}, killed"),
        }
    );
}
