//! The `tablekit-emulator` binary, built with the cargo running the tests and started with
//! the options a script would start Azurite's table server with.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;

use tablekit_testing::{DEV_ACCOUNT, DEV_KEY};

use crate::build::{self, Build};

/// A running emulator binary: killed by its PID when dropped, so a failing test leaves no
/// server behind.
pub(crate) struct EmulatorProcess {
    child: Child,
    connection_string: String,
}

impl Drop for EmulatorProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl EmulatorProcess {
    /// Starts the binary on a free port, in memory, once it listens.
    pub(crate) fn start() -> EmulatorProcess {
        let binary = binary();
        let mut child = Command::new(binary)
            .args(["--tableHost", "127.0.0.1", "--tablePort", "0"])
            .args([
                "--inMemoryPersistence",
                "--disableTelemetry",
                "--skipApiVersionCheck",
            ])
            .args(["--disableProductStyleUrl", "--loose", "--silent"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {binary:?}: {e}"));
        let mut first_line = String::new();
        // Read only the first line; the rest of stdout stays unread in the pipe.
        let read = BufReader::new(child.stdout.as_mut().unwrap()).read_line(&mut first_line);
        let mut process = EmulatorProcess {
            child,
            connection_string: String::new(),
        };
        read.unwrap();
        let endpoint = first_line
            .trim()
            .strip_prefix("tablekit-emulator listening on ")
            .unwrap_or_else(|| panic!("the emulator did not start: {first_line:?}"));
        process.connection_string = format!(
            "DefaultEndpointsProtocol=http;AccountName={DEV_ACCOUNT};AccountKey={DEV_KEY};\
             TableEndpoint={endpoint};"
        );
        process
    }

    /// The connection string of its development account.
    pub(crate) fn connection_string(&self) -> &str {
        &self.connection_string
    }
}

/// Built once per test process, into a target directory of its own
/// (`target/interop-emulator`), as the bench `scan_memory` does: in the tests' own, its build
/// and the tests' (other features of the same crates) would each make the other rebuild.
fn binary() -> &'static Path {
    static BINARY: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    build::once(&BINARY, || Build {
        what: "`tablekit-emulator`",
        args: &["-p", "tablekit-emulator", "--bin", "tablekit-emulator"],
        manifest: Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"),
        target: "interop-emulator",
        binary: "tablekit-emulator",
    })
}
