use tablekit::prelude::*;

#[derive(TableEntity)]
struct Gamer {
    #[tablekit(partition_key)]
    tag: String,
    #[tablekit(rename = "High Score")]
    score: i32,
}

// The generated API is there all the same: only the name is reported.
fn main() {
    let mut gamer = GamerEntity::new("dragon");
    gamer.set_score(gamer.score() + 10);
    let _ = Query::<Gamer>::new().filter(Gamer::SCORE.ge(20));
}
