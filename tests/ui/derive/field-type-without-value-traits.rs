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

// One error per trait `Point` lacks, at the field, and none at each use below.
fn main() {
    let mut place = PlaceEntity::new("home");
    place.set_at(Point { x: 1, y: 2 });
    let Point { x, y } = place.at();
    let _ = (x, y, place.try_at());
    let _: Place = place.to_model();
    let _ = PlaceEntity::from_model(Place { name: "work".into(), at: Point { x: 0, y: 0 } });
    let _ = Place::AT;
}
