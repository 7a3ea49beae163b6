//! `tables`, `put`, `get` and `stats` on one small table.

use crate::support::{ok, on_servers, table_name, tablekit, tablekit_stdin};

async fn tables_and_single_entities(connection_string: &str) {
    let name = table_name("Single");
    ok(tablekit(connection_string, &["tables", "create", &name]));
    let run = tablekit(connection_string, &["tables", "create", &name]);
    assert_eq!(run.code, 4, "{}", run.stderr);
    let prefix = &name[..name.len() - 2];
    let listed = ok(tablekit(
        connection_string,
        &["tables", "list", "--prefix", prefix],
    ));
    assert!(
        listed.stdout.lines().any(|l| l == name),
        "{}",
        listed.stdout
    );

    let entity = r#"{"PartitionKey":"eu","RowKey":"dragon","Big@odata.type":"Edm.Int64","Big":"9007199254740993"}"#;
    ok(tablekit_stdin(
        connection_string,
        &["put", &name],
        entity.as_bytes(),
    ));
    let run = tablekit_stdin(
        connection_string,
        &["put", &name, "--mode", "insert"],
        entity.as_bytes(),
    );
    assert_eq!(run.code, 4, "{}", run.stderr);
    let got = ok(tablekit(connection_string, &["get", &name, "eu", "dragon"]));
    assert_eq!(got.stdout.trim_end(), entity);
    let stats = ok(tablekit(
        connection_string,
        &["stats", &name, "--partitions"],
    ));
    assert!(
        stats.stdout.contains("entities:    1\npartitions:  1\n"),
        "{}",
        stats.stdout
    );
    assert!(
        stats.stdout.contains("partition \"eu\": 1 entities"),
        "{}",
        stats.stdout
    );
    ok(tablekit(connection_string, &["tables", "delete", &name]));
    let run = tablekit(connection_string, &["tables", "delete", &name]);
    assert_eq!(run.code, 3, "{}", run.stderr);
}

on_servers!(tables_and_single_entities);

/// `tablekit emulator --port 0` serves until killed, and says where.
#[test]
fn emulator_command_serves() {
    use std::io::BufRead;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_tablekit"))
        .args(["emulator", "--port", "0", "--inMemoryPersistence"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let endpoint = line.trim().rsplit(' ').next().unwrap().to_owned();
    assert!(endpoint.starts_with("http://127.0.0.1:"), "{line}");
    let connection_string = format!(
        "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey={};TableEndpoint={endpoint}",
        tablekit_testing::DEV_KEY
    );
    ok(tablekit(
        &connection_string,
        &["tables", "create", "Served"],
    ));
    let listed = ok(tablekit(&connection_string, &["tables", "list"]));
    assert_eq!(listed.stdout, "Served\n");
    child.kill().unwrap();
    child.wait().unwrap();
}
