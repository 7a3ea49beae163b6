use tablekit::prelude::*;

#[derive(TableEntity)]
#[tablekit(tabel = "Gamers")]
struct Gamer {
    #[tablekit(partition_key)]
    tag: String,
    #[tablekit(rename = "Row Key")]
    score: i32,
    #[tablekit(pad = 4)]
    name: String,
}

// Three mistakes, three errors, and none from the code that uses the generated API (not
// even where the misspelled `table` would have named the table).
fn main() {
    let client = TableServiceClient::from_connection_string("UseDevelopmentStorage=true").unwrap();
    let _: Table<Gamer> = client.table::<Gamer>();
    let mut gamer = GamerEntity::new("dragon");
    gamer.set_name("Puff");
    gamer.set_score(gamer.score() + 1);
    let _: Gamer = gamer.to_model();
    let _ = Query::<Gamer>::new().filter(Gamer::NAME.eq("Puff"));
}
