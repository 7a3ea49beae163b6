//! `generate model` and `schema check`: a model generated as JSON from a table, then the
//! table's drift from it, for people and as JSON, with the exit status CI relies on.

use tablekit::DynamicEntity;

use crate::support::{client, ok, on_servers, table_name, tablekit};

/// A table of orders `order_000001`.. with an optional note.
async fn orders(connection_string: &str) -> String {
    let name = table_name("Drift");
    let table = client(connection_string).table_named::<DynamicEntity>(&name);
    table.create().await.expect("create");
    for i in 1..=4 {
        let mut e = DynamicEntity::new("eu", format!("order_{i:06}"));
        e.set("Quantity", i);
        e.set("Total", 2.5 * f64::from(i));
        if i % 2 == 0 {
            e.set("Note", "gift");
        }
        table.insert(&mut e).await.expect("insert");
    }
    name
}

async fn generated_model_then_drift(connection_string: &str) {
    let name = orders(connection_string).await;
    let source = ok(tablekit(
        connection_string,
        &["generate", "model", &name, "--name", "Order"],
    ));
    assert!(
        source
            .stdout
            .contains("#[tablekit(row_key(order = 1, pad = 6), key_only)]"),
        "{}",
        source.stdout
    );
    assert!(source.stdout.contains("pub note: Option<String>,"));
    let json = ok(tablekit(
        connection_string,
        &["generate", "model", &name, "--json"],
    ));
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("order.model.json");
    std::fs::write(&model, &json.stdout).unwrap();
    let model = model.to_str().unwrap();

    let clean = ok(tablekit(
        connection_string,
        &["schema", "check", &name, "--model", model],
    ));
    assert!(
        clean.stdout.contains("=> every field reads"),
        "{}",
        clean.stdout
    );

    // Later writers: a quantity as text, a property the model lacks, a RowKey of another form.
    let table = client(connection_string).table_named::<DynamicEntity>(&name);
    let mut text = DynamicEntity::new("eu", "order_000005");
    text.set("Quantity", "five");
    text.set("Total", 1.0);
    text.set("Currency", "EUR");
    table.insert(&mut text).await.unwrap();
    let mut odd = DynamicEntity::new("eu", "order-6");
    odd.set("Quantity", 6);
    odd.set("Total", 1.0);
    table.insert(&mut odd).await.unwrap();

    let drift = tablekit(
        connection_string,
        &["schema", "check", &name, "--model", model],
    );
    assert_eq!(drift.code, 1, "{}{}", drift.stdout, drift.stderr);
    let out = &drift.stdout;
    assert!(
        out.contains("unreadable: `quantity` (Quantity) in 1 rows"),
        "{out}"
    );
    assert!(out.contains("(\"eu\", \"order_000005\")"), "{out}");
    assert!(
        out.contains("key: RowKey not \"order\"_{6 digits} in 1 rows, e.g. \"order-6\""),
        "{out}"
    );
    assert!(
        out.contains("unknown property: `Currency` (String) in 1 rows"),
        "{out}"
    );
    assert!(
        out.contains("absent: `note` (Note) in 4 rows: reads None"),
        "{out}"
    );
    assert!(drift.stderr.contains("cannot read"), "{}", drift.stderr);

    let drift = tablekit(
        connection_string,
        &["schema", "check", &name, "--model", model, "--json"],
    );
    assert_eq!(drift.code, 1);
    let report: serde_json::Value = serde_json::from_str(&drift.stdout).expect("JSON");
    assert_eq!(report["sampled"], 6);
    assert_eq!(report["unreadable"][0]["property"], "Quantity");
    assert_eq!(report["key_mismatches"][0]["examples"][0], "order-6");
    assert_eq!(report["unknown_properties"][0]["property"], "Currency");
}

async fn a_model_file_that_is_not_one_is_bad_input(connection_string: &str) {
    let name = orders(connection_string).await;
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("model.json");
    std::fs::write(&model, "{\"fields\": 3}").unwrap();
    let run = tablekit(
        connection_string,
        &["schema", "check", &name, "--model", model.to_str().unwrap()],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("is not a model from `generate model --json`"),
        "{}",
        run.stderr
    );
}

on_servers!(
    generated_model_then_drift,
    a_model_file_that_is_not_one_is_bad_input
);
