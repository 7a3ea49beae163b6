use tablekit::prelude::*;

#[derive(TableEntity)]
struct Gamer {
    #[tablekit(partition_key)]
    tag: String,
    score: i32,
}

#[derive(TableEntity)]
struct Blog {
    #[tablekit(partition_key)]
    channel: String,
    text: String,
}

fn main() {
    let _ = Query::<Gamer>::new().select((Gamer::SCORE, Blog::TEXT));
}
