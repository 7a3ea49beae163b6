use tablekit::prelude::*;

#[derive(TableEntity)]
struct Gamer {
    #[tablekit(partition_key, rename = GamerTag)]
    tag: String,
}

// The generated API is there all the same: only the rename is reported.
fn main() {
    let gamer = GamerEntity::new("dragon");
    let _: String = gamer.tag();
    let _ = Query::<Gamer>::new().filter(Gamer::TAG.eq("dragon"));
}
