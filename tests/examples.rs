//! Runs each example's logic against a real server over HTTP and checks what it observed.
//!
//! The example files are compiled in as modules (`#[path]`), so the test calls the same `run`
//! their `main` calls and asserts on the outcome it returns, not on printed text.

// The examples' `main` functions are not called from here, and their public items (public for
// this test to use) are private modules of this crate.
#![allow(dead_code, unreachable_pub)]

#[path = "../examples/gamers.rs"]
mod gamers;

use tablekit::client::TableServiceClient;

/// The server the examples run against: Azurite, started by `scripts/test.sh`.
fn client() -> TableServiceClient {
    let Ok(connection_string) = std::env::var("TABLEKIT_AZURITE_CONNECTION_STRING") else {
        panic!(
            "TABLEKIT_AZURITE_CONNECTION_STRING is not set: run the tests with scripts/test.sh \
             (or `eval \"$(scripts/azurite.sh start)\"` first)"
        );
    };
    TableServiceClient::from_connection_string(&connection_string)
        .unwrap_or_else(|e| panic!("TABLEKIT_AZURITE_CONNECTION_STRING: {e}"))
}

fn tags(shown: &[gamers::Shown]) -> Vec<&str> {
    shown.iter().map(|g| g.tag.as_str()).collect()
}

#[tokio::test]
async fn gamers_follows_the_seed_demo() {
    let outcome = gamers::run(&client())
        .await
        .expect("the gamers example runs");
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
    assert!(outcome.duplicate_refused);
    assert!(outcome.stale_write_refused);
    assert_eq!(
        outcome.final_dragon_score, 131,
        "30 + 1 + 100: no update lost"
    );
}
