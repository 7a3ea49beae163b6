use tablekit::prelude::*;

#[derive(TableEntity)]
struct Doc {
    #[tablekit(partition_key)]
    id: String,
    #[tablekit(json)]
    tags: Vec<String>,
}

fn main() {
    let _ = Doc::TAGS.eq(vec!["a".to_owned()]);
}
