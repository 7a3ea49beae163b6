use tablekit::prelude::*;

#[derive(TableEntity)]
struct Gamer(String, i32);

fn main() {}
