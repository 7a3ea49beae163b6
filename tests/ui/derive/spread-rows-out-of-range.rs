use tablekit::prelude::*;

#[derive(TableEntity)]
pub struct Report {
    #[tablekit(partition_key)]
    pub id: String,
    #[tablekit(split(rows = 0))]
    pub pdf: Vec<u8>,
    #[tablekit(records(rows = 17))]
    pub pages: Vec<u8>,
}

fn main() {}
