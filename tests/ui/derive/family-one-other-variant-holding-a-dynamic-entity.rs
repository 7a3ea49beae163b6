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
    #[tablekit(other)]
    Unknown(String),
    #[tablekit(other)]
    Unlisted(DynamicEntity),
}

// The `other` variants hold the row as it is all the same.
fn main() {
    let post = PostEntity::wrap(DynamicEntity::new("football", "1"));
    let _: Option<&DynamicEntity> = post.as_unknown();
}
