use tablekit::prelude::*;

// `pad` needs an unsigned integer whose width the format knows; `usize` changes with the target.
#[derive(TableEntity)]
struct Ticket {
    #[tablekit(partition_key)]
    queue: String,
    #[tablekit(row_key, pad = 10)]
    number: usize,
}

fn main() {}
