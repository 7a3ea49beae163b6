use tablekit::prelude::*;

#[derive(TableEntity)]
struct Gamer(String, i32);

// The wrapper, its trait impls and the key columns are there all the same.
fn main() {
    let entity = GamerEntity::wrap(DynamicEntity::new("dragon", ""));
    let _: &str = entity.partition_key();
    let _ = Query::<Gamer>::new().filter(Gamer::PARTITION_KEY.eq("dragon"));
    let client = TableServiceClient::from_connection_string("UseDevelopmentStorage=true").unwrap();
    let _: Table<Gamer> = client.table_named("Gamers");
}
