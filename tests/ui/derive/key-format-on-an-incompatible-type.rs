use tablekit::prelude::*;

#[derive(TableEntity)]
struct Log {
    #[tablekit(partition_key(inverted_ticks))]
    source: String,
}

fn main() {}
