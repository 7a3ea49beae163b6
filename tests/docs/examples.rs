//! Runs each example's logic on the in-process emulator and on Azurite (real HTTP both) and
//! checks what it observed.
//!
//! The example files are compiled in as modules (`#[path]`), so the test calls the same `run`
//! their `main` calls and asserts on the outcome it returns, not on printed text.

// The examples' `main` functions are not called from here, and their public items (public for
// this test to use) are private modules of this crate.
#![allow(dead_code, unreachable_pub)]
// Each example includes the shared `support` module itself, as a standalone example must.
#![allow(clippy::duplicate_mod)]

#[path = "../../examples/entra_id.rs"]
mod entra_id;
#[path = "../../examples/expenses.rs"]
mod expenses;
#[path = "../../examples/gamers.rs"]
mod gamers;
#[path = "../../examples/microblog.rs"]
mod microblog;
#[path = "../../examples/secondary_index.rs"]
mod secondary_index;
#[path = "../../examples/serde_model.rs"]
mod serde_model;
#[path = "../../examples/testing_repository.rs"]
mod testing_repository;
#[path = "../../examples/titles.rs"]
mod titles;
#[path = "../../examples/web_paging.rs"]
mod web_paging;

use tablekit::client::TableServiceClient;

on_servers!(
    gamers_follows_the_guide_demo,
    microblog_queries_transactions_and_upgrade,
    expenses_read_by_prefix_and_delete_atomically,
    titles_starts_with_is_a_case_insensitive_range,
    web_paging_follows_next_links_and_refuses_foreign_tokens,
    secondary_index_finds_by_unique_and_shared_values,
    serde_model_and_derived_model_read_the_same_entities,
    testing_repository_tests_pass,
);

fn tags(shown: &[gamers::Shown]) -> Vec<&str> {
    shown.iter().map(|g| g.tag.as_str()).collect()
}

async fn gamers_follows_the_guide_demo(client: &TableServiceClient) {
    let outcome = gamers::run(client).await.expect("the gamers example runs");
    assert_eq!(outcome.shown.len(), 3);
    assert!(
        outcome.shown[0].is_empty(),
        "Dragon has 10: outside 20..=40"
    );
    assert_eq!(tags(&outcome.shown[1]), ["Creeper"]);
    assert_eq!(outcome.shown[1][0].score, 20);
    assert!(
        outcome.shown[1][0].levels.is_empty(),
        "levels were not selected"
    );
    assert_eq!(tags(&outcome.shown[2]), ["Creeper", "Dragon"]);
    assert_eq!(outcome.shown[2][0].levels, [gamers::Level::Forest]);
    assert_eq!(
        outcome.shown[2][1].levels,
        [gamers::Level::Castle, gamers::Level::Forest],
        "completing the Castle twice records it once"
    );
    assert_eq!(outcome.shown[2][1].score, 30);
    assert_eq!(
        outcome.legacy_levels,
        [(gamers::Level::Dungeon, 0)],
        "version-0 records read with the new field's default"
    );
    assert!(outcome.duplicate_refused);
    assert!(outcome.stale_write_refused);
    assert_eq!(
        outcome.final_dragon_score, 131,
        "30 + 1 + 100: no update lost"
    );
}

async fn microblog_queries_transactions_and_upgrade(client: &TableServiceClient) {
    use chrono::{Datelike, TimeZone, Utc};
    use microblog::Kind;

    let outcome = microblog::run(client)
        .await
        .expect("the microblog example runs");

    // The 10 newest football blogs: two a month, October 2009 back to June 2009.
    let expected: Vec<_> = [10, 9, 8, 7, 6]
        .into_iter()
        .flat_map(|m| [17, 3].map(|d| Utc.with_ymd_and_hms(2009, m, d, 12, 0, 0).unwrap()))
        .collect();
    assert_eq!(outcome.most_recent, expected);

    // A year by PartitionKey range: all of 2009's, none of 2008's, none of the other channel.
    assert_eq!(outcome.year_2009.len(), 20);
    assert!(outcome.year_2009.iter().all(|t| t.year() == 2009));
    assert!(
        outcome.year_2009.windows(2).all(|w| w[0] > w[1]),
        "newest first: {:?}",
        outcome.year_2009
    );

    // Kinds come back as their own types, in key order: blog, its comment, photo, ...
    assert_eq!(
        outcome.home_page,
        [
            Kind::Blog,
            Kind::Comment,
            Kind::Photo,
            Kind::Blog,
            Kind::Comment
        ]
    );

    assert_eq!(outcome.after_transaction, 14 * 5 + 14 + 3);
    assert_eq!(outcome.failed_operation, Some(1));
    assert_eq!(
        outcome.after_failed_transaction, outcome.after_transaction,
        "a failed transaction applies nothing"
    );

    assert_eq!(outcome.old_blog_category, "general");
    assert!(outcome.upgraded_properties.contains(&"Category".to_owned()));
    assert!(
        !outcome.upgraded_properties.contains(&"Rating".to_owned()),
        "Replace dropped the removed property: {:?}",
        outcome.upgraded_properties
    );
    assert!(outcome.upgraded_properties.contains(&"Text".to_owned()));
}

async fn expenses_read_by_prefix_and_delete_atomically(client: &TableServiceClient) {
    let outcome = expenses::run(client)
        .await
        .expect("the expenses example runs");
    let mut items = outcome.travel_items.clone();
    items.sort();
    assert_eq!(
        items,
        ["Flight", "Hotel", "Taxi"],
        "the lunch's items are not in range"
    );
    assert!((outcome.travel_total - 846.7).abs() < 1e-9);
    assert!(outcome.stale_delete_refused);
    assert_eq!(
        outcome.after_refused_delete, 7,
        "2 expenses + 5 items: the refused transaction deleted nothing"
    );
    assert_eq!(outcome.after_delete, 3, "the lunch and its 2 items remain");
    assert!(!outcome.travel_expense_exists);
    assert_eq!(outcome.other_items_left, 2);
}

async fn titles_starts_with_is_a_case_insensitive_range(client: &TableServiceClient) {
    let outcome = titles::run(client).await.expect("the titles example runs");
    let found: Vec<(&str, Vec<&str>)> = outcome
        .searches
        .iter()
        .map(|(prefix, _, titles)| (prefix.as_str(), titles.iter().map(String::as_str).collect()))
        .collect();
    assert_eq!(
        found,
        [
            ("Metabolis", vec!["Metabolise", "Metabolised"]),
            ("metabolis", vec!["Metabolise", "Metabolised", "Metabolism"]),
            ("Meta", vec!["Meta", "metabolic rate", "Metabolife"]),
            ("Mex", vec!["Mexico"]),
        ]
    );
    let refused = outcome.refused.expect("AC/DC is refused");
    assert!(refused.contains("forbidden character '/'"), "{refused}");
}

async fn web_paging_follows_next_links_and_refuses_foreign_tokens(client: &TableServiceClient) {
    let outcome = web_paging::run(client)
        .await
        .expect("the web_paging example runs");
    assert_eq!(outcome.page_sizes, [10, 10, 5]);
    let expected: Vec<String> = (1..=25).map(|i| format!("player-{i:02}")).collect();
    assert_eq!(outcome.tags, expected, "nothing skipped, nothing repeated");
    assert_eq!(outcome.foreign_token_status, 400);
}

async fn secondary_index_finds_by_unique_and_shared_values(client: &TableServiceClient) {
    let outcome = secondary_index::run(client)
        .await
        .expect("the secondary_index example runs");
    assert_eq!(outcome.by_email.as_deref(), Some("e1"));
    assert_eq!(outcome.by_last_name, ["e1", "e2"]);
    assert!(outcome.duplicate_refused);
    assert_eq!(outcome.old_email_finds, None, "the old index row is gone");
    assert_eq!(outcome.new_email_finds.as_deref(), Some("e1"));
    assert_eq!(outcome.entities, 3, "index rows are not entities");
}

async fn serde_model_and_derived_model_read_the_same_entities(client: &TableServiceClient) {
    let outcome = serde_model::run(client)
        .await
        .expect("the serde_model example runs");
    assert_eq!(outcome.visits_after_update, 2);
    assert_eq!(outcome.frequent_in_oslo, ["Berg", "Lee"]);
    assert_eq!(outcome.derived, ("kim@example.com".to_owned(), 2));
    assert_eq!(outcome.frequent_typed, outcome.frequent_in_oslo);
}

async fn testing_repository_tests_pass(client: &TableServiceClient) {
    let passed = testing_repository::run_tests(client)
        .await
        .expect("the repository's tests pass");
    assert_eq!(passed.len(), 4);
}

// Azurite accepts bearer tokens only over https: the Entra ID example runs on the emulator.
mod entra {
    use crate::support::servers::OnEmulator;

    on_servers!({ emulator: crate::support::servers::emulator().await } entra_id_asks_for_one_storage_token);

    async fn entra_id_asks_for_one_storage_token(server: &OnEmulator) {
        server.emulator.accept_bearer_token(super::entra_id::TOKEN);
        let outcome = super::entra_id::run(&server.emulator.endpoint())
            .await
            .expect("the entra_id example runs");
        assert_eq!(outcome.token_calls, 1, "the token is cached");
        assert_eq!(outcome.scopes, ["https://storage.azure.com/.default"]);
        assert_eq!(outcome.score, Some(30));
    }
}
