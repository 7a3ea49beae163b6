use tablekit::prelude::*;

#[derive(Debug, Clone, PartialEq, Default, TableValue)]
enum Shape {
    Circle(f64),
    #[default]
    Square,
}

#[derive(TableEntity)]
struct Drawing {
    #[tablekit(partition_key)]
    name: String,
    shape: Shape,
}

// The value traits are implemented all the same: the enum works as a field.
fn main() {
    let mut drawing = DrawingEntity::new("logo");
    drawing.set_shape(Shape::Square);
    let _: Shape = drawing.shape();
}
