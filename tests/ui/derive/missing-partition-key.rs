use tablekit::prelude::*;

#[derive(TableEntity)]
struct Gamer {
    tag: String,
    score: i32,
}

fn main() {}
