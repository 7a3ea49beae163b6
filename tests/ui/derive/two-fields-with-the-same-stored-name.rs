use tablekit::prelude::*;

#[derive(TableEntity)]
struct Gamer {
    #[tablekit(partition_key)]
    tag: String,
    score: i32,
    #[tablekit(rename = "Score")]
    points: i32,
}

fn main() {}
