use tablekit::prelude::*;

#[derive(TableEntity)]
enum Level {
    Dungeon,
    Castle,
}

// The wrapper, its trait impls and the key columns are there all the same.
fn main() {
    let entity = LevelEntity::wrap(DynamicEntity::new("dungeon", ""));
    let _: &str = entity.row_key();
    let _ = Query::<Level>::new().filter(Level::ROW_KEY.eq(""));
}
