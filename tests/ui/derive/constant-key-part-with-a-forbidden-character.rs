use tablekit::prelude::*;

#[derive(TableEntity)]
#[tablekit(row_key(constant = "a/b"))]
struct Gamer {
    #[tablekit(partition_key)]
    tag: String,
}

fn main() {}
