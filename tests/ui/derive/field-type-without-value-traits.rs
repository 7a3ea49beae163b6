use tablekit::prelude::*;

struct Point {
    x: i32,
    y: i32,
}

#[derive(TableEntity)]
struct Place {
    #[tablekit(partition_key)]
    name: String,
    at: Point,
}

fn main() {}
