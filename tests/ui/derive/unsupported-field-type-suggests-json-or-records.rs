use tablekit::prelude::*;

#[derive(TableEntity)]
struct Gamer {
    #[tablekit(partition_key)]
    tag: String,
    friends: Vec<String>,
}

// The generated API is there all the same: only the field type is reported.
fn main() {
    let mut gamer = GamerEntity::new("dragon");
    let mut friends: Vec<String> = gamer.friends();
    friends.push("wyvern".into());
    gamer.set_friends(friends);
    let _ = Gamer::FRIENDS;
}
