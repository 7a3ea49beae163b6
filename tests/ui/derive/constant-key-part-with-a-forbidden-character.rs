use tablekit::prelude::*;

#[derive(TableEntity)]
#[tablekit(row_key(constant = "a/b"))]
struct Gamer {
    #[tablekit(partition_key)]
    tag: String,
}

// The generated API is there all the same: only the forbidden character is reported.
fn main() {
    let mut gamer = GamerEntity::new("dragon");
    gamer.set_tag("wyvern");
    let _: Option<&str> = gamer.tag_str();
    let _: String = Gamer::row_key_of();
    let _: String = Gamer::partition_key_of("dragon");
}
