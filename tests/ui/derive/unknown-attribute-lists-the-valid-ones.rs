use tablekit::prelude::*;

#[derive(TableEntity)]
struct Gamer {
    #[tablekit(partition_key)]
    tag: String,
    #[tablekit(renam = "Score")]
    score: i32,
}

fn main() {}
