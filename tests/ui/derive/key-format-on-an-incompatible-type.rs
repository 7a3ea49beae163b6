use tablekit::prelude::*;

#[derive(TableEntity)]
struct Log {
    #[tablekit(partition_key(inverted_ticks))]
    source: String,
}

// The generated API is there all the same: only the format is reported.
fn main() {
    let mut log = LogEntity::new("web");
    log.set_source(log.source() + "-1");
    let _: String = Log::partition_key_of("web");
}
