//! The expenses of "Composition in Windows Azure Table Storage: choosing the row key and
//! simulating StartsWith": composition (an `Expense` owns its `ExpenseItem`s) with composite
//! row keys and a simulated StartsWith.
//!
//! Both kinds live in one table, in the user's partition. An expense's RowKey is its id; an
//! item's is `{expense id}_{item id}`, so one expense's items are the RowKeys starting with
//! `{expense id}_`: the generated `ExpenseItem::row_key_prefix(&id)` turns that into the range
//! `[ "{id}_", "{id}`" )` (backtick is the character after underscore). Sharing a partition
//! also lets an expense and all its items be deleted in one entity group transaction.
//!
//! Run with `cargo run --example expenses` (the embedded emulator), or against any service
//! with `TABLEKIT_CONNECTION_STRING` set.

#[path = "support/mod.rs"]
mod support;

use std::process::ExitCode;

use chrono::TimeZone;
use tablekit::prelude::*;

use support::BoxError;

/// An expense report. PartitionKey = user, RowKey = the expense id.
#[derive(Debug, Clone, PartialEq, TableEntity)]
#[tablekit(table = "Expenses")]
pub struct Expense {
    /// Whose expense it is.
    #[tablekit(partition_key)]
    pub user: String,
    /// The expense id.
    #[tablekit(row_key)]
    pub expense_id: Uuid,
    /// What it was for.
    pub title: String,
    /// When it was submitted.
    pub submitted: DateTime<Utc>,
}

/// One line of an expense. PartitionKey = user, RowKey = `{expense id}_{item id}`.
#[derive(Debug, Clone, PartialEq, TableEntity)]
#[tablekit(table = "Expenses")]
pub struct ExpenseItem {
    /// Whose expense it is.
    #[tablekit(partition_key)]
    pub user: String,
    /// The expense the item belongs to: the first part of the RowKey.
    #[tablekit(row_key(order = 0))]
    pub expense_id: Uuid,
    /// The item id: the second part.
    #[tablekit(row_key(order = 1))]
    pub item_id: Uuid,
    /// What was bought.
    pub description: String,
    /// How much it cost.
    pub amount: f64,
}

/// The user the demo files expenses for.
pub const USER: &str = "jeff";

/// What the demo observed, for the test suite to check.
#[derive(Debug, Default)]
pub struct Outcome {
    /// The travel expense's item descriptions, read back by RowKey prefix.
    pub travel_items: Vec<String>,
    /// The travel expense's total.
    pub travel_total: f64,
    /// A delete from a stale read was refused as a whole.
    pub stale_delete_refused: bool,
    /// Entities in the user's partition after the refused delete.
    pub after_refused_delete: usize,
    /// Entities in the user's partition after the travel expense was deleted.
    pub after_delete: usize,
    /// Whether the travel expense itself is still there after the delete.
    pub travel_expense_exists: bool,
    /// How many items the other expense still has.
    pub other_items_left: usize,
}

#[cfg_attr(test, allow(dead_code))]
fn main() -> ExitCode {
    support::main("expenses", async |client| {
        run(client).await?;
        Ok(())
    })
}

/// Files two expenses, reads one back with its items, and deletes it atomically.
pub async fn run(client: &TableServiceClient) -> Result<Outcome, BoxError> {
    let table = support::fresh_table::<DynamicEntity>(client, "Expenses").await?;
    support::cleaning_up(client, table.name(), demo(client, table.name())).await
}

async fn demo(client: &TableServiceClient, name: &str) -> Result<Outcome, BoxError> {
    let mut outcome = Outcome::default();
    let expenses: Table<Expense> = client.table_named(name);
    let items: Table<ExpenseItem> = client.table_named(name);

    support::heading("file two expenses");
    let travel = file_expense(
        &expenses,
        &items,
        "Conference travel",
        &[("Flight", 420.0), ("Hotel", 3.0 * 129.5), ("Taxi", 38.2)],
    )
    .await?;
    let other = file_expense(
        &expenses,
        &items,
        "Team lunch",
        &[("Pizza", 64.0), ("Drinks", 21.5)],
    )
    .await?;

    support::heading("get the travel expense by id, with its items");
    let (expense, travel_items) = expense_by_id(&expenses, &items, USER, travel).await?;
    println!("{} ({} items)", expense.title(), travel_items.len());
    for item in &travel_items {
        println!("  {:<8} {:>8.2}", item.description(), item.amount());
    }
    outcome.travel_total = travel_items.iter().map(|i| i.amount()).sum();
    println!("  total    {:>8.2}", outcome.travel_total);
    outcome.travel_items = travel_items.iter().map(|i| i.description()).collect();

    support::heading("delete it with everything it owns, atomically");
    // Someone edits an item after we read it: our delete is conditional on what we read, so
    // it is refused as a whole and nothing is deleted.
    let first = travel_items
        .first()
        .ok_or("the travel expense has no items")?;
    let mut edited = items
        .get(first.partition_key(), first.row_key())
        .await?
        .ok_or("the item vanished")?;
    edited.set_amount(edited.amount() + 10.0);
    items.merge(&mut edited).await?;
    match delete_expense(client, name, &expense, &travel_items).await {
        Err(e) if matches!(&e, tablekit::Error::Batch { source, .. } if source.status() == 412) => {
            println!("refused, nothing deleted: {e}");
            outcome.stale_delete_refused = true;
        }
        other => return Err(format!("a stale delete was not refused: {other:?}").into()),
    }
    outcome.after_refused_delete = partition_size(client, name, USER).await?;

    // Read again and delete what is there now.
    let (expense, travel_items) = expense_by_id(&expenses, &items, USER, travel).await?;
    delete_expense(client, name, &expense, &travel_items).await?;
    println!("deleted the expense and its {} items", travel_items.len());
    outcome.after_delete = partition_size(client, name, USER).await?;
    outcome.travel_expense_exists = expenses
        .get(USER, &Expense::row_key_of(&travel))
        .await?
        .is_some();
    outcome.other_items_left = expense_by_id(&expenses, &items, USER, other).await?.1.len();
    println!(
        "{} entities left for {USER}; the lunch still has {} items",
        outcome.after_delete, outcome.other_items_left
    );
    Ok(outcome)
}

/// Inserts an expense and its items; returns the expense id.
async fn file_expense(
    expenses: &Table<Expense>,
    items: &Table<ExpenseItem>,
    title: &str,
    lines: &[(&str, f64)],
) -> Result<Uuid, BoxError> {
    let id = Uuid::new_v4();
    let mut expense = ExpenseEntity::new(USER, id);
    expense.set_title(title);
    expense.set_submitted(
        Utc.with_ymd_and_hms(2010, 4, 22, 12, 35, 0)
            .single()
            .unwrap_or(DateTime::UNIX_EPOCH),
    );
    expenses.insert(&mut expense).await?;
    println!("{title}: RowKey {}", expense.row_key());
    for (description, amount) in lines {
        let mut item = ExpenseItemEntity::new(USER, id, Uuid::new_v4());
        item.set_description(*description);
        item.set_amount(*amount);
        items.insert(&mut item).await?;
        println!("  item RowKey {}", item.row_key());
    }
    Ok(id)
}

/// The article's `GetExpenseById`: the expense by its keys, then its items by RowKey prefix.
async fn expense_by_id(
    expenses: &Table<Expense>,
    items: &Table<ExpenseItem>,
    user: &str,
    id: Uuid,
) -> Result<(ExpenseEntity, Vec<ExpenseItemEntity>), BoxError> {
    let expense = expenses
        .get(user, &Expense::row_key_of(&id))
        .await?
        .ok_or_else(|| format!("no expense {id}"))?;
    let query = Query::<ExpenseItem>::new().filter(
        ExpenseItem::PARTITION_KEY
            .eq(user)
            .and(ExpenseItem::row_key_prefix(&id)),
    );
    println!(
        "items filter: {}",
        query.filter_string().unwrap_or_default()
    );
    let found = items.query(query).collect_all().await?;
    Ok((expense, found))
}

/// Deletes an expense and its items in one entity group transaction, each conditional on
/// the ETag read: all of them go, or (if anything changed since the read) none.
async fn delete_expense(
    client: &TableServiceClient,
    name: &str,
    expense: &ExpenseEntity,
    items: &[ExpenseItemEntity],
) -> tablekit::Result<()> {
    // One transaction holds both kinds, so it runs on the table's untyped view.
    let table: Table<DynamicEntity> = client.table_named(name);
    let mut batch = table.batch();
    batch.delete(expense.as_dynamic())?;
    for item in items {
        // More than 99 items would exceed the 100-operation limit: a typed error here.
        batch.delete(item.as_dynamic())?;
    }
    batch.submit().await?;
    Ok(())
}

/// How many entities (expenses and items) a user's partition holds.
async fn partition_size(
    client: &TableServiceClient,
    name: &str,
    user: &str,
) -> tablekit::Result<usize> {
    let table: Table<DynamicEntity> = client.table_named(name);
    let query = Query::<DynamicEntity>::new()
        .filter(Column::<DynamicEntity, String>::dynamic("PartitionKey").eq(user));
    table.query(query).count().await
}
