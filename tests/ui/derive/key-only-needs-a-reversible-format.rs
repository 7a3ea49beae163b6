use tablekit::prelude::*;

#[derive(TableEntity)]
struct Gamer {
    #[tablekit(partition_key, transform = lowercase, key_only)]
    tag: String,
}

// The generated API is there all the same: only `key_only` is reported.
fn main() {
    let mut gamer = GamerEntity::new("Dragon");
    gamer.set_tag(gamer.tag() + "2");
    let _: String = Gamer::partition_key_of("Dragon");
}
