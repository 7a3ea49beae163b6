use tablekit::prelude::*;

#[derive(TableEntity)]
#[tablekit(kind = "Blog")]
pub struct Blog {
    #[tablekit(partition_key)]
    pub channel: String,
}

#[derive(TableEntity)]
pub enum Post {
    Blog(Blog),
    Photo { uri: String },
    Pair(Blog, Blog),
}

// The family's other variants, its entity and its key columns are there all the same.
fn main() {
    let post = PostEntity::from(BlogEntity::new("football"));
    let _ = post.as_blog();
    let _ = Query::<Post>::new().filter(Post::PARTITION_KEY.eq("football"));
}
