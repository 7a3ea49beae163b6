//! The `tablekit-emulator` binary's command line: its help, Azurite's table options (so a
//! script written for `azurite-table` starts it unchanged), `AZURITE_ACCOUNTS`, and bad
//! values refused with a message before anything listens.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

use tablekit::client::{Credential, TableServiceClient};
use tablekit_emulator::{DEV_ACCOUNT, DEV_KEY};

const BINARY: &str = env!("CARGO_BIN_EXE_tablekit-emulator");

/// The emulator process this test started: killed by its PID when dropped, so a failing
/// assertion leaves no server behind.
struct Server {
    child: Child,
    /// The base URL it listens on, `http://127.0.0.1:PORT`.
    base: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// A client for `account` signed with `key`.
    fn client(&self, account: &str, key: &str) -> TableServiceClient {
        TableServiceClient::builder()
            .endpoint(&format!("{}/{account}", self.base))
            .credential(Credential::shared_key(key).unwrap())
            .build()
            .unwrap()
    }
}

/// Starts the binary with `args` (which pick port 0, a free one) and `env`, once it listens.
fn start(args: &[&str], env: &[(&str, &str)]) -> Server {
    let mut child = Command::new(BINARY)
        .args(args)
        .env_remove("AZURITE_ACCOUNTS")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first_line = String::new();
    // Read only the first line; the rest of stdout stays unread in the pipe.
    let read = BufReader::new(child.stdout.as_mut().unwrap()).read_line(&mut first_line);
    let mut server = Server {
        child,
        base: String::new(),
    };
    read.unwrap();
    let endpoint = first_line
        .trim()
        .strip_prefix("tablekit-emulator listening on ")
        .unwrap_or_else(|| panic!("not listening: {first_line:?}"));
    let base = endpoint.rsplit_once('/').unwrap().0;
    server.base = base.to_owned();
    server
}

/// Runs the binary to its end with `args` and `env`.
fn run(args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(BINARY)
        .args(args)
        .env_remove("AZURITE_ACCOUNTS")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// The binary refuses `args`: a failure exit and a message on stderr containing `expected`.
fn refused(args: &[&str], env: &[(&str, &str)], expected: &str) {
    let output = run(args, env);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{args:?} was accepted");
    assert!(stderr.contains(expected), "{args:?}: {stderr}");
}

#[test]
fn help_documents_every_option() {
    let output = run(&["--help"], &[]);
    assert!(output.status.success());
    let help = String::from_utf8(output.stdout).unwrap();
    for flag in [
        "--port",
        "--tablePort",
        "--tableHost",
        "--data",
        "--location",
        "-l,",
        "--inMemoryPersistence",
        "--account ",
        "AZURITE_ACCOUNTS",
        "--header-timeout",
        "--tableKeepAliveTimeout",
        "--body-timeout",
        "--max-connections",
        "--silent",
        "-s,",
        "--debug",
        "-d,",
        "--loose",
        "-L,",
        "--skipApiVersionCheck",
        "--disableTelemetry",
        "--disableProductStyleUrl",
        "--throttle",
        "--partition-rate",
        "--account-rate",
        "--version",
    ] {
        assert!(help.contains(flag), "--help lacks {flag}:\n{help}");
    }
    // The one difference a script may trip over is stated.
    assert!(help.contains("in memory"), "{help}");
}

#[test]
fn version_prints_the_crate_version() {
    for flag in ["--version", "-v", "-V"] {
        let output = run(&[flag], &[]);
        assert!(output.status.success(), "{flag}");
        let text = String::from_utf8(output.stdout).unwrap();
        assert_eq!(
            text.trim(),
            format!("tablekit-emulator {}", env!("CARGO_PKG_VERSION"))
        );
    }
}

#[tokio::test]
async fn azurite_options_start_a_server_that_answers() {
    let log = tempfile::tempdir().unwrap();
    let log_file = log.path().join("debug.log");
    // The options `tablekit_emulator::azurite` starts Azurite's table server with, and more.
    let server = start(
        &[
            "--tableHost",
            "127.0.0.1",
            "--tablePort",
            "0",
            "--tableKeepAliveTimeout",
            "5",
            "--inMemoryPersistence",
            "--disableTelemetry",
            "--skipApiVersionCheck",
            "--disableProductStyleUrl",
            "--loose",
            "--silent",
            "-d",
            log_file.to_str().unwrap(),
        ],
        &[],
    );
    assert!(
        server.base.starts_with("http://127.0.0.1:"),
        "{}",
        server.base
    );
    let client = server.client(DEV_ACCOUNT, DEV_KEY);
    client.create_table("Gamers").await.unwrap();
    assert_eq!(client.list_table_names(None).await.unwrap(), ["Gamers"]);
    // `-d` writes a line per request, and nothing secret.
    let logged = std::fs::read_to_string(&log_file).unwrap();
    let lines: Vec<&str> = logged.lines().collect();
    assert_eq!(lines.len(), 2, "{logged}");
    assert!(
        lines[0].contains(" POST /devstoreaccount1/Tables -> 204 "),
        "{logged}"
    );
    assert!(
        lines[1].contains(" GET /devstoreaccount1/Tables"),
        "{logged}"
    );
    assert!(lines[1].contains(" -> 200 "), "{logged}");
    assert!(
        !logged.contains(DEV_KEY) && !logged.contains("SharedKey"),
        "{logged}"
    );
}

#[tokio::test]
async fn a_partition_rate_throttles_the_binary() {
    let server = start(&["--port", "0", "--partition-rate", "1"], &[]);
    let client = TableServiceClient::builder()
        .endpoint(&format!("{}/{DEV_ACCOUNT}", server.base))
        .credential(Credential::shared_key(DEV_KEY).unwrap())
        .retry_policy(tablekit::client::RetryPolicy::none())
        .build()
        .unwrap();
    client.create_table("Hot").await.unwrap();
    let hot = client.table_named::<tablekit::DynamicEntity>("Hot");
    let mut entity = tablekit::DynamicEntity::new("p", "r");
    hot.upsert_merge(&mut entity).await.unwrap();
    let refused = hot.upsert_merge(&mut entity).await.unwrap_err();
    assert_eq!(refused.status(), Some(503), "{refused}");
    assert!(refused.is_throttled());
    refused_values_name_the_option();
}

/// A rate must be a positive whole number.
fn refused_values_name_the_option() {
    refused(&["--partition-rate", "0"], &[], "--partition-rate");
    refused(&["--account-rate", "many"], &[], "--account-rate");
}

#[tokio::test]
async fn location_keeps_the_data_across_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_str().unwrap();
    let first = start(&["--tablePort", "0", "--location", path], &[]);
    first
        .client(DEV_ACCOUNT, DEV_KEY)
        .create_table("Kept")
        .await
        .unwrap();
    drop(first);
    let second = start(&["--tablePort", "0", "-l", path], &[]);
    let tables = second
        .client(DEV_ACCOUNT, DEV_KEY)
        .list_table_names(None)
        .await
        .unwrap();
    assert_eq!(tables, ["Kept"]);
}

#[tokio::test]
async fn azurite_accounts_adds_accounts_and_keeps_the_development_one() {
    // Two accounts with their keys (base64 of "key1", "key2"), the form Azurite documents.
    let server = start(
        &["--tablePort", "0"],
        &[("AZURITE_ACCOUNTS", "acct1:a2V5MQ==;acct2:a2V5Mg==;")],
    );
    server
        .client("acct1", "a2V5MQ==")
        .create_table("Ones")
        .await
        .unwrap();
    server
        .client("acct2", "a2V5Mg==")
        .create_table("Twos")
        .await
        .unwrap();
    let wrong_key = server
        .client("acct1", "a2V5Mg==")
        .create_table("Nope")
        .await;
    assert_eq!(wrong_key.unwrap_err().status(), Some(403));
    let dev = server.client(DEV_ACCOUNT, DEV_KEY);
    assert!(dev.list_table_names(None).await.unwrap().is_empty());
}

/// Azurite takes two keys per account, so keys can be rotated: either signs requests.
#[tokio::test]
async fn either_key_of_an_account_signs_requests() {
    let server = start(
        &["--tablePort", "0"],
        &[("AZURITE_ACCOUNTS", "acct1:a2V5MQ==:a2V5Mg==")],
    );
    let first = server
        .client("acct1", "a2V5MQ==")
        .create_table("Ones")
        .await;
    first.unwrap();
    let second = server
        .client("acct1", "a2V5Mg==")
        .create_table("Twos")
        .await;
    second.unwrap();
    let neither = server
        .client("acct1", "a2V5Mw==")
        .create_table("Threes")
        .await;
    assert_eq!(neither.unwrap_err().status(), Some(403));
}

#[test]
fn bad_values_exit_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_str().unwrap();
    refused(
        &["--location", path, "--inMemoryPersistence"],
        &[],
        "cannot be used with",
    );
    refused(&["--tablePort", "ten"], &[], "ten");
    refused(&["--port", "70000"], &[], "70000");
    refused(&["--tableHost", "nowhere"], &[], "not an IP address");
    refused(&["--max-connections", "0"], &[], "positive");
    refused(&["--header-timeout", "0"], &[], "--header-timeout");
    refused(&["--account", "nokey"], &[], "NAME:KEY");
    refused(&["--cert", "cert.pem"], &[], "--cert");
    refused(&[], &[("AZURITE_ACCOUNTS", "acct1")], "NAME:KEY");
    refused(&[], &[("AZURITE_ACCOUNTS", "acct1:a:b:c")], "NAME:KEY");
    // A key that is not base64 passes the parser and is refused when the server starts.
    refused(
        &["--tablePort", "0", "--account", "acct1:not base64!"],
        &[],
        "acct1",
    );
}

/// Nothing is left behind in a directory that a refused start was given.
#[test]
fn a_refused_start_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    refused(
        &[
            "--location",
            data.to_str().unwrap(),
            "--inMemoryPersistence",
        ],
        &[],
        "--inMemoryPersistence",
    );
    assert!(!Path::new(&data).exists());
}

/// A data directory holding table `Kept`, written by an in-process emulator.
async fn data_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let emulator = tablekit_emulator::Emulator::builder()
        .persist_to(dir.path())
        .start()
        .await
        .unwrap();
    emulator.create_table("Kept").unwrap();
    emulator.shutdown().await;
    dir
}

/// The binary refuses to start on `dir` with a message containing `expected`, and prints no
/// panic and no backtrace.
fn refused_plainly(dir: &Path, expected: &str) {
    let location = dir.to_str().unwrap();
    let output = Command::new(BINARY)
        .args(["--port", "0", "--location", location])
        .env_remove("AZURITE_ACCOUNTS")
        .env("RUST_BACKTRACE", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "started: {stderr}");
    assert!(stderr.contains(expected), "{stderr}");
    assert!(stderr.contains("tables.redb"), "{stderr}");
    for noise in ["panicked", "backtrace", "RUST_BACKTRACE"] {
        assert!(!stderr.contains(noise), "{noise}: {stderr}");
    }
}

#[tokio::test]
async fn a_truncated_data_file_is_refused_without_a_panic_message() {
    let dir = data_dir().await;
    let file = dir.path().join("tables.redb");
    let len = std::fs::metadata(&file).unwrap().len();
    let cut = std::fs::OpenOptions::new().write(true).open(&file).unwrap();
    cut.set_len(len * 2 / 3).unwrap();
    drop(cut);
    refused_plainly(dir.path(), "not a whole database");
}

#[tokio::test]
async fn a_directory_another_emulator_holds_is_refused_as_held() {
    let dir = data_dir().await;
    let holder = tablekit_emulator::Emulator::builder()
        .persist_to(dir.path())
        .start()
        .await
        .unwrap();
    refused_plainly(dir.path(), "another process holds it");
    drop(holder);
}
