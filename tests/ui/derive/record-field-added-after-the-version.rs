use tablekit::prelude::*;
use tablekit::record::encode_records;

#[derive(Debug, Clone, PartialEq, Record)]
#[record(version = 1)]
struct CompletedLevel {
    level: i32,
    #[record(since = 2)]
    stars: u8,
}

#[derive(TableEntity)]
struct Gamer {
    #[tablekit(partition_key)]
    tag: String,
    #[tablekit(records(max_properties = 4))]
    levels: Vec<CompletedLevel>,
}

// The `Record` impl is there all the same: records and the entities holding them compile.
fn main() {
    let levels = [CompletedLevel { level: 1, stars: 3 }];
    let _ = encode_records(&levels);
    let mut gamer = GamerEntity::new("dragon");
    let _ = gamer.set_levels(&levels);
}
