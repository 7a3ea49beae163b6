//! Any string value put into a hand-written filter through a placeholder (quotes, `@`, text
//! that looks like a placeholder or like more conditions, unicode, controls) selects exactly
//! the entities holding that value: checked by the emulator's filter engine for many values,
//! and by queries over HTTP to the emulator for fewer.

use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use tablekit::client::Table;
use tablekit::filter::{bind_params, Params};
use tablekit::prelude::*;
use tablekit_testing::Emulator;

/// Strings rich in what breaks spliced filters.
fn tricky() -> impl Strategy<Value = String> {
    let pieces = prop_oneof![
        Just("'".to_owned()),
        Just("''".to_owned()),
        Just("@".to_owned()),
        Just("@name".to_owned()),
        Just("' or Name ne '".to_owned()),
        Just(" and ".to_owned()),
        Just("\u{FFFF}".to_owned()),
        Just("\u{E000}".to_owned()),
        Just("\u{10FFFF}".to_owned()),
        Just("\n\t".to_owned()),
        "[a-c@]{0,3}",
        any::<char>().prop_map(String::from),
    ];
    proptest::collection::vec(pieces, 0..5).prop_map(|v| v.concat())
}

fn entity(pk: &str, row: usize, name: &str) -> DynamicEntity {
    let mut e = DynamicEntity::new(pk, format!("{row:03}"));
    e.set("Name", name);
    e.set("Mail", "x@name");
    e
}

/// The text a user writes: the value twice, beside literals holding `@` and `''`.
const TEXT: &str =
    "(Name eq @name or Name eq @name) and Mail eq 'x@name' and Mail ne 'it''s @name'";

fn emulator_engine_selects(text: &str, entity: &DynamicEntity) -> bool {
    tablekit_testing::filter::ParsedFilter::parse(text)
        .unwrap_or_else(|e| panic!("the emulator rejects {text:?}: {e}"))
        .matches(entity)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_string_selects_exactly_the_entities_holding_it(
        target in tricky(),
        others in proptest::collection::vec(tricky(), 0..6),
    ) {
        let text = bind_params(TEXT, [("name", target.as_str())]).unwrap();
        for (row, name) in others.iter().chain([&target]).enumerate() {
            let e = entity("p", row, name);
            prop_assert_eq!(emulator_engine_selects(&text, &e), *name == target, "{}", text);
        }
    }
}

/// Inserts the case's entities in its own partition and queries them back by `target`.
async fn query_case(
    table: &Table,
    pk: &str,
    target: &str,
    others: &[String],
) -> Result<(), TestCaseError> {
    let names: Vec<&str> = others.iter().map(String::as_str).chain([target]).collect();
    for (row, name) in names.iter().enumerate() {
        table.insert(&mut entity(pk, row, name)).await.unwrap();
    }
    let query = Query::new()
        .filter_raw_with(
            &format!("PartitionKey eq @pk and {TEXT}"),
            Params::new().bind("pk", pk).bind("name", target),
        )
        .unwrap();
    let mut found: Vec<String> = table
        .query(query)
        .collect_all()
        .await
        .unwrap()
        .iter()
        .map(|e| e.row_key().to_owned())
        .collect();
    found.sort();
    let expected: Vec<String> = names
        .iter()
        .enumerate()
        .filter(|(_, name)| **name == target)
        .map(|(row, _)| format!("{row:03}"))
        .collect();
    prop_assert_eq!(found, expected, "{:?} among {:?}", target, names);
    Ok(())
}

#[test]
fn any_string_selects_exactly_the_entities_holding_it_over_http() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (_emulator, table) = runtime.block_on(async {
        let emulator = Emulator::start().await.unwrap();
        let client = emulator.client();
        let table: Table = client.table_named("Params");
        table.create().await.unwrap();
        (emulator, table)
    });
    let case = AtomicUsize::new(0);
    let mut runner = TestRunner::new(Config::with_cases(64));
    let strategy = (tricky(), proptest::collection::vec(tricky(), 0..4));
    let result = runner.run(&strategy, |(target, others)| {
        let pk = format!("case{}", case.fetch_add(1, Ordering::Relaxed));
        runtime.block_on(query_case(&table, &pk, &target, &others))
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}
