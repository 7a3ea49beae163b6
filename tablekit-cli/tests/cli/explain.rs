//! `query --explain`: the plan of a filter, the query's pages and entities, and on the
//! emulator the entities the server examined.

use tablekit::DynamicEntity;

use crate::support::{client, ok, on_servers, table_name, tablekit};

/// 30 entities over 3 partitions, with a Score.
async fn scores(connection_string: &str) -> String {
    let name = table_name("Explain");
    let table = client(connection_string).table_named::<DynamicEntity>(&name);
    table.create().await.expect("create");
    for i in 0..30 {
        let mut e = DynamicEntity::new(format!("p{}", i % 3), format!("{i:02}"));
        e.set("Score", i);
        table.insert(&mut e).await.expect("insert");
    }
    name
}

fn explain(connection_string: &str, table: &str, filter: &str) -> serde_json::Value {
    let run = ok(tablekit(
        connection_string,
        &[
            "query",
            table,
            "--filter",
            filter,
            "--explain",
            "--format",
            "json",
        ],
    ));
    serde_json::from_str(&run.stdout).expect("JSON")
}

async fn explain_shows_the_plan_and_what_the_query_read(connection_string: &str) {
    let on_emulator = connection_string != tablekit_testing::azurite_connection_string();
    let name = scores(connection_string).await;

    let partition = explain(
        connection_string,
        &name,
        "PartitionKey eq 'p1' and Score ge 20",
    );
    assert_eq!(partition["plan"], r#"whole partition "p1""#);
    assert_eq!(partition["table_scan"], false);
    assert_eq!(partition["returned"], 3); // 22, 25 and 28
    let scan = explain(connection_string, &name, "Score ge 20");
    assert_eq!(scan["table_scan"], true);
    assert_eq!(scan["returned"], 10);
    let point = explain(
        connection_string,
        &name,
        "PartitionKey eq 'p2' and RowKey eq '05'",
    );
    assert_eq!(point["plan"], r#"point read of ("p2", "05")"#);
    assert_eq!(point["returned"], 1);
    if on_emulator {
        // Only the partition's 10 entities are read for it; the scan reads all 30.
        assert_eq!(partition["examined"], 10);
        assert_eq!(scan["examined"], 30);
        assert_eq!(point["examined"], 1);
    } else {
        assert!(scan["examined"].is_null(), "{scan}");
    }

    let text = ok(tablekit(
        connection_string,
        &["query", &name, "--filter", "Score ge 20", "--explain"],
    ));
    assert!(
        text.stdout
            .starts_with("plan: table scan: every entity is read\n"),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout.contains("returned: 10 entities"),
        "{}",
        text.stdout
    );
    let examined = if on_emulator {
        "examined: 30 entities"
    } else {
        "examined: not reported"
    };
    assert!(text.stdout.contains(examined), "{}", text.stdout);
}

on_servers!(explain_shows_the_plan_and_what_the_query_read);
