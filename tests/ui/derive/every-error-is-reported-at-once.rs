use tablekit::prelude::*;

#[derive(TableEntity)]
#[tablekit(tabel = "Gamers")]
struct Gamer {
    #[tablekit(partition_key)]
    tag: String,
    #[tablekit(rename = "Row Key")]
    score: i32,
    #[tablekit(pad = 4)]
    name: String,
}

// The stub impl keeps this line free of a second, cascading error.
const _: Option<&str> = <Gamer as TableModel>::TABLE_NAME;

fn main() {}
