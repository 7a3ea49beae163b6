//! The "Starts With Query Pattern" (of the series "Windows Azure Table Design Patterns"): a
//! fast "titles beginning with ..." search.
//!
//! The service has no StartsWith, but rows of a partition come back in RowKey order, so
//! "starts with `METABOLIS`" is the range `RowKey ge 'METABOLIS' and RowKey lt 'METABOLIT'`.
//! Each title is stored under its upper-cased text as RowKey (the search is case-insensitive)
//! in a partition named by its first letter, and keeps its own spelling in `Title`. `top(n)`
//! returns the first n matches.
//!
//! Run with `cargo run --example titles` (the embedded emulator), or against any service with
//! `TABLEKIT_CONNECTION_STRING` set.

#[path = "support/mod.rs"]
mod support;

use std::process::ExitCode;

use tablekit::prelude::*;

use support::BoxError;

/// A searchable title: PartitionKey = its first letter (upper case), RowKey = the title in
/// upper case, `Title` = the title as written.
#[derive(Debug, Clone, PartialEq, TableEntity)]
#[tablekit(table = "Titles")]
pub struct TitleSearch {
    /// The first letter of the key; read back from the PartitionKey, not stored twice.
    #[tablekit(partition_key, key_only)]
    pub initial: String,
    /// The upper-cased title; read back from the RowKey.
    #[tablekit(row_key, key_only)]
    pub key: String,
    /// The title as written.
    pub title: String,
}

/// The pattern's titles, and a few neighbours a wrong range would pick up.
pub const TITLES: &[&str] = &[
    "Metabolife",
    "Metabolise",
    "Metabolised",
    "Metabolism",
    "Metabolite",
    "metabolic rate",
    "Meta",
    "Metal",
    "Mexico",
    "Nostalgia",
];

/// A title the service could not key: `/` is forbidden in keys.
pub const UNKEYABLE: &str = "AC/DC";

/// What the demo observed, for the test suite to check.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Each search: the prefix, the limit, and the titles found in order.
    pub searches: Vec<(String, usize, Vec<String>)>,
    /// The error refusing [`UNKEYABLE`], before anything was sent.
    pub refused: Option<String>,
}

#[cfg_attr(test, allow(dead_code))]
fn main() -> ExitCode {
    support::main("titles", async |client| {
        run(client).await?;
        Ok(())
    })
}

/// Stores the titles, then searches them by prefix.
pub async fn run(client: &TableServiceClient) -> Result<Outcome, BoxError> {
    let table = support::fresh_table::<TitleSearch>(client, "Titles").await?;
    support::cleaning_up(client, table.name(), demo(&table)).await
}

async fn demo(table: &Table<TitleSearch>) -> Result<Outcome, BoxError> {
    let mut outcome = Outcome::default();

    support::heading("store titles under upper-cased keys");
    for title in TITLES {
        let mut entity = entity_for(title)?;
        table.insert(&mut entity).await?;
        println!(
            "  {:<16} PartitionKey `{}` RowKey `{}`",
            title,
            entity.partition_key(),
            entity.row_key()
        );
    }
    match entity_for(UNKEYABLE) {
        Err(e) => {
            println!("  {UNKEYABLE:<16} refused before sending: {e}");
            outcome.refused = Some(e.to_string());
        }
        Ok(_) => return Err(format!("{UNKEYABLE} was not refused").into()),
    }

    for (prefix, top) in [("Metabolis", 2), ("metabolis", 10), ("Meta", 3), ("Mex", 5)] {
        support::heading(&format!("titles starting with `{prefix}`, top {top}"));
        let found = starts_with(table, prefix, top).await?;
        for title in &found {
            println!("  {title}");
        }
        outcome.searches.push((prefix.to_owned(), top, found));
    }
    Ok(outcome)
}

/// The entity for a title; a title that cannot be a key is a typed error.
pub fn entity_for(title: &str) -> tablekit::Result<TitleSearchEntity> {
    let key = title.to_uppercase();
    let initial: String = key.chars().take(1).collect();
    let mut entity = TitleSearchEntity::try_new(initial, key)?;
    entity.set_title(title.to_owned());
    Ok(entity)
}

/// The first `top` titles starting with `prefix`, in any case, in key order.
async fn starts_with(
    table: &Table<TitleSearch>,
    prefix: &str,
    top: usize,
) -> Result<Vec<String>, BoxError> {
    let key = prefix.to_uppercase();
    let initial: String = key.chars().take(1).collect();
    if initial.is_empty() {
        return Err("search for at least one character".into());
    }
    let query = Query::<TitleSearch>::new()
        .filter(
            TitleSearch::PARTITION_KEY
                .eq(initial.as_str())
                .and(TitleSearch::ROW_KEY.starts_with(&key)),
        )
        .take(top);
    println!("filter: {}", query.filter_string().unwrap_or_default());
    // A total, not a page size: a page may come back short, and the query reads on across
    // pages until it has `top` titles (no request asks for more than are left).
    let found = table.query(query).collect_all().await?;
    Ok(found.iter().map(|t| t.title()).collect())
}
