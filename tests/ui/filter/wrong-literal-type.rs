use tablekit::prelude::*;

#[derive(TableEntity)]
struct Gamer {
    #[tablekit(partition_key)]
    tag: String,
    score: i32,
}

fn main() {
    let _ = Gamer::SCORE.eq("twenty");
}
