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
    rating: i32,
}

fn main() {
    let _ = Query::<Gamer>::new().filter(Blog::RATING.ge(3));
}
