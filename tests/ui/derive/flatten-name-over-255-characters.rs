use tablekit::prelude::*;

#[derive(Debug, Default, TableFields)]
pub struct Deep {
    #[tablekit(rename = "Aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")]
    pub value: i32,
}

#[derive(TableEntity)]
pub struct Holder {
    #[tablekit(partition_key)]
    id: String,
    #[tablekit(flatten)]
    deep: Deep,
}

fn main() {}
