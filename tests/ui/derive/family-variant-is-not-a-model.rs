use tablekit::prelude::*;

#[derive(TableEntity)]
pub enum Post {
    Text(String),
}

fn main() {}
