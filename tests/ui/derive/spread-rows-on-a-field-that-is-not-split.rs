use tablekit::prelude::*;

#[derive(TableEntity)]
pub struct Report {
    #[tablekit(partition_key)]
    pub id: String,
    #[tablekit(split(rows = 2))]
    pub title: String,
}

fn main() {}
