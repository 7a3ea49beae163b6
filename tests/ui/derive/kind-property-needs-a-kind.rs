use tablekit::prelude::*;

#[derive(TableEntity)]
#[tablekit(kind_property = "Type")]
pub struct Order {
    #[tablekit(partition_key)]
    pub customer: String,
}

fn main() {}
