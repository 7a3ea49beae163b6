use tablekit::prelude::*;

#[derive(TableEntity)]
#[tablekit(kind = "Order")]
pub struct Order {
    #[tablekit(partition_key)]
    pub customer: String,
    pub kind: String,
}

// The generated API is there all the same: only the clash is reported.
fn main() {
    let mut order = OrderEntity::new("alice");
    order.set_kind("express");
    let _ = Query::<Order>::new().filter(Order::KIND.eq("express"));
}
