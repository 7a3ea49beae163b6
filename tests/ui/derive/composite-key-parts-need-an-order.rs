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

fn main() {}
