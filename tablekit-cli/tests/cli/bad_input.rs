//! Bad input gets a clear message naming the problem and a non-zero exit code.

use tablekit::DynamicEntity;

use crate::support::{client, ok, on_servers, table_name, tablekit, tablekit_stdin};

async fn unknown_table_is_not_found(connection_string: &str) {
    for args in [
        vec!["query", "NoSuchTable1"],
        vec!["export", "NoSuchTable1"],
        vec!["get", "NoSuchTable1", "p", "r"],
        vec!["stats", "NoSuchTable1"],
        vec!["copy", "NoSuchTable1", "Elsewhere1"],
    ] {
        let run = tablekit(connection_string, &args);
        assert_eq!(run.code, 3, "{args:?}: {}", run.stderr);
        assert!(
            run.stderr.contains("table `NoSuchTable1` does not exist"),
            "{}",
            run.stderr
        );
    }
}

async fn malformed_filter_says_where(connection_string: &str) {
    let name = table_name("Filtered");
    client(connection_string).create_table(&name).await.unwrap();
    let run = tablekit(
        connection_string,
        &["query", &name, "--filter", "Score gt 'x"],
    );
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("malformed filter at character 10: unterminated string literal"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("\n  Score gt 'x\n           ^"),
        "{}",
        run.stderr
    );
    // A missing value is shown where it should have been: at the end.
    let run = tablekit(connection_string, &["query", &name, "--filter", "Score ge"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("malformed filter at character 9: "),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("\n  Score ge\n          ^"),
        "{}",
        run.stderr
    );
}

async fn csv_cell_of_the_wrong_type_names_line_and_column(connection_string: &str) {
    let name = table_name("BadCsv");
    let csv = "PartitionKey,RowKey,Name:String,Score:Int32\np,1,a,10\np,2,b,ten\n";
    let run = tablekit_stdin(
        connection_string,
        &["import", &name, "--format", "csv"],
        csv.as_bytes(),
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("line 3, column 4 (`Score:Int32`): `ten` is not an Int32"),
        "{}",
        run.stderr
    );
    let header = "PartitionKey,RowKey,Score\n";
    let run = tablekit_stdin(
        connection_string,
        &["import", &name, "--format", "csv"],
        header.as_bytes(),
    );
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("line 1, column 3: `Score` is not `Name:Type`"),
        "{}",
        run.stderr
    );
    let jsonl = "{\"PartitionKey\":\"p\",\"RowKey\":\"1\"}\n{\"PartitionKey\":\"p\",\n";
    let run = tablekit_stdin(connection_string, &["import", &name], jsonl.as_bytes());
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("line 2: not a typed entity"),
        "{}",
        run.stderr
    );
}

async fn etag_mismatch_is_a_conflict(connection_string: &str) {
    let name = table_name("Etags");
    let table = client(connection_string).table_named::<DynamicEntity>(&name);
    table.create().await.unwrap();
    table
        .insert(&mut DynamicEntity::new("p", "r"))
        .await
        .unwrap();
    let stale = "W/\"datetime'2020-01-01T00%3A00%3A00.0000000Z'\"";
    let run = tablekit(
        connection_string,
        &["delete", &name, "p", "r", "--etag", stale],
    );
    assert_eq!(run.code, 4, "{}", run.stderr);
    let fresh = table.get("p", "r").await.unwrap().unwrap();
    let etag = fresh.etag().unwrap().as_str().to_owned();
    ok(tablekit(
        connection_string,
        &["delete", &name, "p", "r", "--etag", &etag],
    ));
    let run = tablekit(connection_string, &["delete", &name, "p", "r"]);
    assert_eq!(run.code, 3, "{}", run.stderr);
}

on_servers!(
    unknown_table_is_not_found,
    malformed_filter_says_where,
    csv_cell_of_the_wrong_type_names_line_and_column,
    etag_mismatch_is_a_conflict,
);

#[test]
fn usage_errors_exit_with_2_and_help_lists_the_exit_codes() {
    let run = tablekit("", &["query"]);
    assert_eq!(run.code, 2);
    let help = ok(tablekit("", &["copy", "--help"]));
    assert!(help.stdout.contains("130  interrupted"), "{}", help.stdout);
    let bash = ok(tablekit("", &["completions", "bash"]));
    assert!(bash.stdout.contains("tablekit"), "{}", bash.stdout);
}
