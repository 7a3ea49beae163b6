use tablekit::prelude::*;

// A model without `#[tablekit(table = "...")]` has no table of its own: a handle on "its"
// table could only fail at every call.
#[derive(TableEntity)]
struct Gamer {
    #[tablekit(partition_key)]
    tag: String,
}

fn main() {
    let client = TableServiceClient::from_connection_string("UseDevelopmentStorage=true").unwrap();
    let _ = client.table::<Gamer>();
    let _ = client.table::<DynamicEntity>();
    let _: Table<Gamer> = client.table_named("Gamers"); // the way to name it
}
