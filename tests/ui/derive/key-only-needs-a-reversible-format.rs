use tablekit::prelude::*;

#[derive(TableEntity)]
struct Gamer {
    #[tablekit(partition_key, transform = lowercase, key_only)]
    tag: String,
}

fn main() {}
