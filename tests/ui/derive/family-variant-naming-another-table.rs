use tablekit::prelude::*;

#[derive(TableEntity)]
#[tablekit(table = "Microblog", kind = "Blog")]
pub struct Blog {
    #[tablekit(partition_key)]
    pub channel: String,
}

#[derive(TableEntity)]
#[tablekit(table = "Photos", kind = "Photo")]
pub struct Photo {
    #[tablekit(partition_key)]
    pub channel: String,
}

#[derive(TableEntity)]
#[tablekit(kind = "Comment")]
pub struct Comment {
    #[tablekit(partition_key)]
    pub channel: String,
}

#[derive(TableEntity)]
#[tablekit(table = "Microblog")]
pub enum Post {
    Blog(Blog),
    Comment(Comment),
    Photo(Photo),
}

fn main() {}
