use tablekit::prelude::*;

#[derive(TableEntity)]
struct Gamer {
    #[tablekit(partition_key)]
    tag: String,
    #[tablekit(records(max_properties = 4))]
    levels: String,
}

// The generated API is there all the same: only the field type is reported.
fn main() {
    let gamer = GamerEntity::new("dragon");
    let _: String = gamer.levels();
    let _ = (gamer.try_levels(), Gamer::LEVELS);
}
