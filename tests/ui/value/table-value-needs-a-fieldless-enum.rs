use tablekit::prelude::*;

#[derive(TableValue)]
enum Shape {
    Circle(f64),
    Square,
}

fn main() {}
