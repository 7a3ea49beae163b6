use tablekit::prelude::*;

#[derive(TableEntity)]
#[tablekit(kind = "Blog")]
pub struct Blog {
    #[tablekit(partition_key)]
    pub channel: String,
}

#[derive(TableEntity)]
pub struct Photo {
    #[tablekit(partition_key)]
    pub channel: String,
}

#[derive(TableEntity)]
pub enum Post {
    Blog(Blog),
    Photo(Photo),
}

fn main() {}
