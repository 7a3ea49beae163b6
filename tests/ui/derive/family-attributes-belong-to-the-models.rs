use tablekit::prelude::*;

#[derive(TableEntity)]
#[tablekit(kind = "Blog")]
pub struct Blog {
    #[tablekit(partition_key)]
    pub channel: String,
}

#[derive(TableEntity)]
#[tablekit(table = "Microblog", kind = "Post")]
pub enum Post {
    #[tablekit(rename = "Blogs")]
    Blog(Blog),
}

fn main() {
    assert_eq!(<Post as tablekit::NamedTable>::TABLE_NAME, "Microblog");
}
