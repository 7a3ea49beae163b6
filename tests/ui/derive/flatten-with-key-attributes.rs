use tablekit::prelude::*;

#[derive(Debug, Default, TableFields)]
pub struct Address {
    pub city: String,
    #[tablekit(row_key)]
    pub zip: String,
}

#[derive(TableEntity)]
pub struct Customer {
    #[tablekit(partition_key)]
    id: String,
    #[tablekit(flatten, row_key)]
    address: Address,
}

// The generated API is there all the same: only the misplaced keys are reported.
fn main() {
    let mut customer = CustomerEntity::new("c1");
    let _ = customer.set_address(customer.address());
    let _ = Query::<Customer>::new().filter(Customer::ADDRESS.city().eq("Oslo"));
}
