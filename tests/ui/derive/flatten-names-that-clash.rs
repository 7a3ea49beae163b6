use tablekit::prelude::*;

#[derive(Debug, Default, TableFields)]
pub struct Geo {
    pub lat: f64,
}

#[derive(Debug, Default, TableFields)]
pub struct Address {
    pub city: String,
    #[tablekit(flatten)]
    pub geo: Geo,
}

// `Address_City` is both a field of its own and the flattened `address.city`.
#[derive(TableEntity)]
pub struct Customer {
    #[tablekit(partition_key)]
    id: String,
    #[tablekit(flatten)]
    address: Address,
    #[tablekit(rename = "Address_City")]
    city: String,
}

// Two prefixes whose full names meet: `Home_Geo_Lat` twice.
#[derive(TableEntity)]
pub struct Move {
    #[tablekit(partition_key)]
    id: String,
    #[tablekit(flatten(prefix = "Home"))]
    from: Address,
    #[tablekit(flatten(prefix = "Home_Geo"))]
    to: Geo,
}

fn main() {}
