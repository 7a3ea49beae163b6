use tablekit::prelude::*;

#[derive(TableEntity)]
struct Gamer {
    #[tablekit(partition_key, rename = GamerTag)]
    tag: String,
}

fn main() {}
