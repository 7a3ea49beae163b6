use tablekit::prelude::*;

#[derive(TableEntity)]
struct Gamer {
    #[tablekit(partition_key)]
    tag: String,
    #[tablekit(records(max_properties = 4))]
    levels: String,
}

fn main() {}
