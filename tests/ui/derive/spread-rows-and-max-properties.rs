use tablekit::prelude::*;

#[derive(TableEntity)]
pub struct Report {
    #[tablekit(partition_key)]
    pub id: String,
    #[tablekit(split(max_properties = 4, rows = 2))]
    pub pdf: Vec<u8>,
}

fn main() {}
