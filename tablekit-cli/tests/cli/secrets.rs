//! Account keys and SAS tokens never appear in the output, whatever goes wrong.

use tablekit::sas::{TablePermissions, TableSas};
use tablekit_testing::{Emulator, DEV_KEY};

use crate::support::{command, run_with, table_name, tablekit};

fn assert_hidden(secret: &str, run: &crate::support::Run) {
    let signature = secret.split("sig=").nth(1).unwrap_or(secret);
    assert!(
        !run.stdout.contains(signature),
        "secret in stdout: {}",
        run.stdout
    );
    assert!(
        !run.stderr.contains(signature),
        "secret in stderr: {}",
        run.stderr
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn secrets_never_reach_the_output() {
    let emulator = Emulator::start().await.unwrap();
    let endpoint = emulator.endpoint();
    let table = table_name("Secret");
    emulator.client().create_table(&table).await.unwrap();

    // A key from a variable works; a wrong one fails without showing it.
    let with_key = |key: &str, args: &[&str]| {
        let mut command = command("", args);
        command
            .env_remove("TABLEKIT_CONNECTION_STRING")
            .env("SECRET_KEY", key)
            .args([
                "--account",
                emulator.account(),
                "--endpoint",
                &endpoint,
                "--key-env",
                "SECRET_KEY",
            ]);
        run_with(&mut command, b"")
    };
    let run = with_key(DEV_KEY, &["tables", "list"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains(&table));
    let wrong = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==";
    let run = with_key(wrong, &["stats", &table]);
    assert_ne!(run.code, 0);
    assert_hidden(wrong, &run);
    let not_base64 = "not-a-key-but-a-secret-all-the-same";
    let run = with_key(not_base64, &["tables", "list"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("variable `SECRET_KEY` does not hold a base64 account key"),
        "{}",
        run.stderr
    );
    assert_hidden(not_base64, &run);

    let expiry = chrono::Utc::now() + chrono::Duration::minutes(10);
    // A SAS from a file: its signature is never shown, not even when the service refuses it.
    let sas = emulator
        .sas(&TableSas::new(&table, TablePermissions::QUERY, expiry))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("sas");
    std::fs::write(&file, &sas).unwrap();
    let sas_args = [
        "--account",
        emulator.account(),
        "--endpoint",
        &endpoint,
        "--sas-file",
        file.to_str().unwrap(),
    ];
    let mut query = command("", &[&["query", &table][..], &sas_args].concat());
    query.env_remove("TABLEKIT_CONNECTION_STRING");
    let run = run_with(&mut query, b"");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let mut put = command("", &[&["put", &table][..], &sas_args].concat());
    put.env_remove("TABLEKIT_CONNECTION_STRING");
    let run = run_with(&mut put, br#"{"PartitionKey":"p","RowKey":"r"}"#);
    assert_eq!(run.code, 1, "read-only SAS: {}", run.stderr);
    assert_hidden(&sas, &run);

    // An Entra ID access token from a variable: accepted once the service knows it, never
    // shown when refused.
    let token = "eyJ0eXAi.entra-token-never-shown";
    let token_args = [
        "--account",
        emulator.account(),
        "--endpoint",
        &endpoint,
        "--token-env",
        "ENTRA_TOKEN",
    ];
    let with_token = || {
        let mut command = command("", &[&["tables", "list"][..], &token_args].concat());
        command
            .env_remove("TABLEKIT_CONNECTION_STRING")
            .env("ENTRA_TOKEN", token);
        run_with(&mut command, b"")
    };
    let refused = with_token();
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    assert!(refused.stderr.contains("403"), "{}", refused.stderr);
    assert_hidden(token, &refused);
    emulator.accept_bearer_token(token);
    let run = with_token();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains(&table));

    // A connection string's key is not shown when the connection fails.
    let unreachable = format!(
        "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey={DEV_KEY};\
         TableEndpoint=http://127.0.0.1:9/devstoreaccount1"
    );
    let run = tablekit(&unreachable, &["tables", "list"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_hidden(DEV_KEY, &run);
    let broken = format!("AccountName=x;AccountKey={DEV_KEY};Nonsense");
    let run = tablekit(&broken, &["tables", "list"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_hidden(DEV_KEY, &run);
}
