use tablekit::prelude::*;

#[derive(TableEntity)]
#[tablekit(kind = "Post")]
pub struct Blog {
    #[tablekit(partition_key)]
    pub channel: String,
}

#[derive(TableEntity)]
#[tablekit(kind = "Post")]
pub struct Photo {
    #[tablekit(partition_key)]
    pub channel: String,
}

#[derive(TableEntity)]
pub enum Post {
    Blog(Blog),
    Photo(Photo),
}

#[derive(TableEntity)]
pub enum Feed {
    Blog(Blog),
    Again(Blog),
}

fn main() {}
