use tablekit::prelude::*;

#[derive(TableEntity)]
struct Gamer {
    #[tablekit(partition_key)]
    tag: String,
    active: bool,
}

fn main() {
    let _ = Gamer::ACTIVE.gt(true);
}
