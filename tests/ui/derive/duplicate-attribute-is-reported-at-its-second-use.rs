use tablekit::prelude::*;

#[derive(TableEntity)]
struct Gamer {
    #[tablekit(partition_key)]
    tag: String,
    #[tablekit(rename = "Points")]
    #[tablekit(rename = "Score")]
    score: i32,
}

fn main() {}
