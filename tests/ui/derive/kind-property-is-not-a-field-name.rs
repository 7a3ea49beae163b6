use tablekit::prelude::*;

#[derive(TableEntity)]
#[tablekit(kind = "Order")]
pub struct Order {
    #[tablekit(partition_key)]
    pub customer: String,
    pub kind: String,
}

fn main() {}
