use tablekit::prelude::*;

// A transform is `lowercase`, `uppercase` or the path of a `fn(&T) -> String`, not a string.
#[derive(TableEntity)]
struct Account {
    #[tablekit(partition_key(transform = "upper"))]
    country: String,
}

fn main() {}
