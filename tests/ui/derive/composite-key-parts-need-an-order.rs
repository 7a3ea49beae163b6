use tablekit::prelude::*;

#[derive(TableEntity)]
struct ExpenseItem {
    #[tablekit(partition_key)]
    user: String,
    #[tablekit(row_key)]
    expense_id: Uuid,
    #[tablekit(row_key)]
    item_id: Uuid,
}

// The generated API is there all the same: only the missing orders are reported.
fn main() {
    let (expense, item) = (Uuid::from_u128(1), Uuid::from_u128(2));
    let mut entity = ExpenseItemEntity::new("jeff", expense, item);
    entity.set_item_id(entity.expense_id());
    let _: String = ExpenseItem::row_key_of(&expense, &item);
    let _: Filter<ExpenseItem> = ExpenseItem::row_key_prefix(&expense);
    let _ = Query::<ExpenseItem>::new().filter(ExpenseItem::USER.eq("jeff"));
}
