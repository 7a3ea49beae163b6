use tablekit::prelude::*;

#[derive(TableEntity)]
struct Gamer {
    #[tablekit(partition_key)]
    tag: String,
    score: i32,
    #[tablekit(rename = "Score")]
    points: i32,
}

// The generated API is there all the same: only the clash is reported.
fn main() {
    let mut gamer = GamerEntity::new("dragon");
    gamer.set_points(gamer.score());
    let _ = Query::<Gamer>::new().filter(Gamer::POINTS.gt(1));
}
