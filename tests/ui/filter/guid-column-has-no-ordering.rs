use tablekit::prelude::*;

#[derive(TableEntity)]
struct Gamer {
    #[tablekit(partition_key)]
    tag: String,
    id: Uuid,
}

fn main() {
    let _ = Gamer::ID.lt(Uuid::nil());
}
