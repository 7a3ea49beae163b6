use tablekit::prelude::*;

#[derive(TableEntity)]
#[tablekit(kind = "Blog")]
pub struct Blog {
    #[tablekit(partition_key)]
    pub channel: String,
}

#[derive(TableEntity)]
#[tablekit(kind = "Photo", kind_property = "Type")]
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
