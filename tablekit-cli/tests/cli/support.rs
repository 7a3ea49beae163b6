//! Running the binary, unique table names, and the `on_servers!` macro.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};

use tablekit::client::TableServiceClient;
use tablekit::DynamicEntity;

/// What a run of the binary did.
#[derive(Debug)]
pub(crate) struct Run {
    pub(crate) code: i32,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

/// The binary with a clean environment: no connection from the caller's shell.
pub(crate) fn command(connection_string: &str, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tablekit"));
    command
        .args(args)
        .env_remove("TABLEKIT_TO_CONNECTION_STRING")
        .env_remove("AZURE_STORAGE_CONNECTION_STRING")
        .env_remove("AZURE_STORAGE_ACCOUNT")
        .env_remove("AZURE_STORAGE_KEY")
        .env_remove("AZURE_STORAGE_SAS_TOKEN")
        .env_remove("RUST_LOG")
        .env("TABLEKIT_CONNECTION_STRING", connection_string)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// Runs the binary to its end with `stdin`.
pub(crate) fn run_with(command: &mut Command, stdin: &[u8]) -> Run {
    let mut child = command.spawn().expect("the tablekit binary starts");
    let mut input = child.stdin.take().expect("stdin is piped");
    input.write_all(stdin).expect("stdin takes the input");
    drop(input);
    finish(child.wait_with_output().expect("the tablekit binary ends"))
}

/// Runs `tablekit ARGS` with the connection string in its variable.
pub(crate) fn tablekit(connection_string: &str, args: &[&str]) -> Run {
    run_with(&mut command(connection_string, args), b"")
}

/// Runs `tablekit ARGS` with `stdin`.
pub(crate) fn tablekit_stdin(connection_string: &str, args: &[&str], stdin: &[u8]) -> Run {
    run_with(&mut command(connection_string, args), stdin)
}

pub(crate) fn finish(output: Output) -> Run {
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Asserts the run succeeded, showing its stderr when not.
pub(crate) fn ok(run: Run) -> Run {
    assert_eq!(run.code, 0, "tablekit failed: {}", run.stderr);
    run
}

/// A table name no other test (or earlier run on a shared Azurite) uses.
pub(crate) fn table_name(prefix: &str) -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or_default();
    format!(
        "{prefix}{}x{nanos}x{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// A client of the same account, to set up and check tables without the binary.
pub(crate) fn client(connection_string: &str) -> TableServiceClient {
    TableServiceClient::from_connection_string(connection_string).expect("a valid connection")
}

/// Every entity of `table`, in order.
pub(crate) async fn entities(connection_string: &str, table: &str) -> Vec<DynamicEntity> {
    let table = client(connection_string).table_named::<DynamicEntity>(table);
    let mut all = table
        .query_all()
        .collect_all()
        .await
        .expect("the table reads");
    for e in &mut all {
        e.set_etag(None);
        e.set_timestamp(None);
    }
    all
}

/// The file's text.
pub(crate) fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).expect("the file reads")
}

/// Runs each `async fn case(connection_string: &str)` on the emulator and on Azurite.
macro_rules! on_servers {
    ($($case:ident),* $(,)?) => {
        mod on_emulator {
            $(
                #[tokio::test(flavor = "multi_thread")]
                async fn $case() {
                    let emulator = tablekit_testing::Emulator::start().await.expect("starts");
                    super::$case(&emulator.connection_string()).await;
                }
            )*
        }
        mod on_azurite {
            $(
                #[tokio::test(flavor = "multi_thread")]
                async fn $case() {
                    super::$case(&tablekit_testing::azurite_connection_string()).await;
                }
            )*
        }
    };
}
pub(crate) use on_servers;
