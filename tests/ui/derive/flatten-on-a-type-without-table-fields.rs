use tablekit::prelude::*;

#[derive(Debug, Default)]
pub struct Address {
    pub city: String,
}

#[derive(TableEntity)]
pub struct Customer {
    #[tablekit(partition_key)]
    id: String,
    #[tablekit(flatten)]
    address: Address,
}

fn main() {}
