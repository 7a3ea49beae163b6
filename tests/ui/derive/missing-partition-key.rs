use tablekit::prelude::*;

#[derive(TableEntity)]
struct Gamer {
    tag: String,
    score: i32,
}

// The generated API is there all the same (with no key fields): only the missing key is
// reported.
fn main() {
    let mut gamer = GamerEntity::new();
    gamer.set_tag("dragon");
    gamer.set_score(gamer.score() + 1);
    let _: String = Gamer::partition_key_of();
}
