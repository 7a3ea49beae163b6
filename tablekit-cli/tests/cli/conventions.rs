//! Connecting as operators expect: options override the environment, the variables `az
//! storage` reads are fallbacks, a key on the command line is warned about, `--allow-http`,
//! `--timeout`, `--retries` and `-v`.

use std::time::Duration;

use tablekit_testing::{Emulator, Fault, Faults, DEV_KEY};

use crate::support::{command, run_with, table_name, Run};

/// Runs `args` with only the variables `vars` set (no connection from the test's shell).
fn run_env(args: &[&str], vars: &[(&str, &str)]) -> Run {
    let mut command = command("", args);
    command.env_remove("TABLEKIT_CONNECTION_STRING");
    for (name, value) in vars {
        command.env(name, value);
    }
    run_with(&mut command, b"")
}

#[tokio::test(flavor = "multi_thread")]
async fn options_override_the_environment_and_az_variables_are_read() {
    let emulator = Emulator::start().await.unwrap();
    let table = table_name("Conventions");
    emulator.client().create_table(&table).await.unwrap();
    let endpoint = emulator.endpoint();
    let account = emulator.account();
    let nowhere = format!(
        "DefaultEndpointsProtocol=http;AccountName={account};AccountKey={DEV_KEY};\
         TableEndpoint=http://127.0.0.1:9/{account}"
    );

    // `--account` with `--key-env` wins over `TABLEKIT_CONNECTION_STRING`.
    let run = run_env(
        &[
            "tables",
            "list",
            "--account",
            account,
            "--endpoint",
            &endpoint,
            "--key-env",
            "KEY",
        ],
        &[("TABLEKIT_CONNECTION_STRING", &nowhere), ("KEY", DEV_KEY)],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains(&table));

    // `AZURE_STORAGE_CONNECTION_STRING`, then `AZURE_STORAGE_ACCOUNT` with its key.
    let run = run_env(
        &["tables", "list"],
        &[(
            "AZURE_STORAGE_CONNECTION_STRING",
            &emulator.connection_string(),
        )],
    );
    assert!(run.stdout.contains(&table), "{}", run.stderr);
    let run = run_env(
        &["tables", "list", "--endpoint", &endpoint],
        &[
            ("AZURE_STORAGE_ACCOUNT", account),
            ("AZURE_STORAGE_KEY", DEV_KEY),
        ],
    );
    assert!(run.stdout.contains(&table), "{}", run.stderr);
    // ... and tablekit's own variable before them.
    let run = run_env(
        &["tables", "list"],
        &[
            ("TABLEKIT_CONNECTION_STRING", &emulator.connection_string()),
            ("AZURE_STORAGE_CONNECTION_STRING", &nowhere),
        ],
    );
    assert!(run.stdout.contains(&table), "{}", run.stderr);

    // A key on the command line works, with a warning that does not show it.
    let run = run_env(
        &[
            "tables",
            "list",
            "--connection-string",
            &emulator.connection_string(),
        ],
        &[],
    );
    assert!(run.stdout.contains(&table), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("warning: `--connection-string` puts the key"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains(DEV_KEY));

    // 0.0.0.0 reaches this machine but is not a loopback name: plain http needs the flag.
    let port = endpoint
        .rsplit(':')
        .next()
        .unwrap()
        .split('/')
        .next()
        .unwrap();
    let open = format!("http://0.0.0.0:{port}/{account}");
    let args = [
        "tables",
        "list",
        "--account",
        account,
        "--endpoint",
        &open,
        "--key-env",
        "KEY",
    ];
    let run = run_env(&args, &[("KEY", DEV_KEY)]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("--allow-http"), "{}", run.stderr);
    let run = run_env(
        &[&args[..], &["--allow-http"]].concat(),
        &[("KEY", DEV_KEY)],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains(&table));

    // `-v` logs each request, without the key.
    let run = run_env(
        &["tables", "list", "-v"],
        &[("TABLEKIT_CONNECTION_STRING", &emulator.connection_string())],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("TableService.query_tables"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains(DEV_KEY));
}

/// A service that accepts and never answers: `--timeout` and `--retries` bound the wait, and
/// each retry says what it waited for.
#[tokio::test(flavor = "multi_thread")]
async fn a_silent_service_is_waited_for_as_told_and_said() {
    let hang = Faults::seeded(1)
        .rate(Fault::Timeout, 1.0)
        .hold(Duration::from_secs(30));
    let emulator = Emulator::builder().faults(hang).start().await.unwrap();
    let run = run_env(
        &["tables", "list", "--timeout", "1", "--retries", "1"],
        &[("TABLEKIT_CONNECTION_STRING", &emulator.connection_string())],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("retrying a transient failure"),
        "{}",
        run.stderr
    );
    assert_eq!(emulator.requests().total(), 2, "{}", run.stderr);
}
