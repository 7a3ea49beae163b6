use tablekit::prelude::*;

#[derive(TableFields)]
pub struct Attachment {
    #[tablekit(index)]
    pub title: String,
    #[tablekit(split(rows = 2))]
    pub body: Vec<u8>,
}

fn main() {}
