use tablekit::prelude::*;

#[derive(TableEntity)]
enum Level {
    Dungeon,
    Castle,
}

fn main() {}
