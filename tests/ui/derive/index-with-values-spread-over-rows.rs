use tablekit::prelude::*;

#[derive(TableEntity)]
pub struct Report {
    #[tablekit(partition_key)]
    pub owner: String,
    #[tablekit(row_key)]
    pub id: String,
    #[tablekit(index)]
    pub title: String,
    #[tablekit(split(rows = 2))]
    pub pdf: Vec<u8>,
}

fn main() {}
