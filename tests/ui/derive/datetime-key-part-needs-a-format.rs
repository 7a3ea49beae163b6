use tablekit::prelude::*;

#[derive(TableEntity)]
struct Log {
    #[tablekit(partition_key)]
    at: DateTime<Utc>,
}

fn main() {}
