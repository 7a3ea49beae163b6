use tablekit::prelude::*;

#[derive(TableEntity)]
#[tablekit(kind = "Blog")]
pub struct Blog {
    #[tablekit(partition_key)]
    pub channel: String,
}

#[derive(TableEntity)]
pub struct Gamer {
    #[tablekit(partition_key)]
    pub tag: String,
    pub score: i32,
}

#[derive(TableEntity)]
pub enum Post {
    Blog(Blog),
}

fn main() {
    let _ = Post::only(Gamer::SCORE.gt(3));
}
