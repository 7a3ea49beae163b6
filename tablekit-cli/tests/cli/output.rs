//! What the commands print: a closed pipe ends them quietly with 0, `export` ends with a
//! summary, the table form streams in blocks, and filters that cannot mean what they say get
//! a hint.

use std::io::{BufRead, BufReader};

use tablekit::DynamicEntity;

use crate::support::{client, command, finish, ok, on_servers, table_name, tablekit};

async fn filled(connection_string: &str, n: usize) -> String {
    let name = table_name("Output");
    let table = client(connection_string).table_named::<DynamicEntity>(&name);
    table.create().await.unwrap();
    let entities = (0..n).map(|i| {
        let mut e = DynamicEntity::new("p", format!("{i:05}"));
        e.set("N", i as i32);
        e
    });
    let report = tablekit::patterns::bulk::BulkWriter::new(&client(connection_string))
        .write_iter(entities.map(|e| tablekit::patterns::bulk::WriteOp::insert(&name, e)))
        .await;
    assert_eq!(report.committed(), n);
    name
}

/// `query | head -1`: the reader goes away after one line; tablekit ends with 0, silently.
async fn a_closed_pipe_ends_quietly(connection_string: &str) {
    let name = filled(connection_string, 3_000).await;
    for format in ["jsonl", "csv", "table", "json"] {
        let mut child = command(connection_string, &["query", &name, "--format", format])
            .spawn()
            .unwrap();
        drop(child.stdin.take());
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        drop(out);
        let run = finish(tokio::task::block_in_place(|| child.wait_with_output()).unwrap());
        assert_eq!(run.code, 0, "{format}: {}", run.stderr);
        assert_eq!(run.stderr, "", "{format}");
    }
    let run = ok(tablekit(connection_string, &["export", &name]));
    assert_eq!(run.stdout.lines().count(), 3_000);
    assert!(
        run.stderr
            .contains(&format!("exported 3000 entities of `{name}` to stdout")),
        "{}",
        run.stderr
    );
}

/// The table form sizes its columns from the first rows and prints a new header when a
/// property appears later: every value is shown.
async fn the_table_form_streams_in_blocks(connection_string: &str) {
    let name = filled(connection_string, 1_001).await;
    let table = client(connection_string).table_named::<DynamicEntity>(&name);
    let mut late = DynamicEntity::new("p", "99999");
    late.set("Late", "shown");
    table.insert(&mut late).await.unwrap();
    let run = ok(tablekit(
        connection_string,
        &["query", &name, "--format", "table"],
    ));
    let headers: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.starts_with("PartitionKey"))
        .collect();
    assert_eq!(headers.len(), 2, "{headers:?}");
    assert!(headers[1].ends_with("Late"), "{headers:?}");
    assert!(run.stdout.contains("shown"));
    assert!(run.stdout.ends_with("(1002 entities)\n"));
}

async fn filters_get_hints(connection_string: &str) {
    let name = filled(connection_string, 2).await;
    let run = ok(tablekit(
        connection_string,
        &["query", &name, "--filter", "PartitionKey eq p"],
    ));
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr.contains("`p` is read as a property name"),
        "{}",
        run.stderr
    );
    let run = tablekit(
        connection_string,
        &["query", &name, "--filter", "substringof('p', PartitionKey)"],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("the Table service supports no OData functions, so not `substringof`"),
        "{}",
        run.stderr
    );
}

on_servers!(
    a_closed_pipe_ends_quietly,
    the_table_form_streams_in_blocks,
    filters_get_hints
);
