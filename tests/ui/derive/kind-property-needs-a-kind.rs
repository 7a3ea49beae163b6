use tablekit::prelude::*;

#[derive(TableEntity)]
#[tablekit(kind_property = "Type")]
pub struct Order {
    #[tablekit(partition_key)]
    pub customer: String,
}

// The generated API is there all the same: only the missing kind is reported.
fn main() {
    let order = OrderEntity::new("alice");
    let _: String = order.customer();
}
