use tablekit::prelude::*;

#[derive(TableEntity)]
#[tablekit(table = "my-gamers")]
struct Gamer {
    #[tablekit(partition_key)]
    tag: String,
}

fn main() {}
