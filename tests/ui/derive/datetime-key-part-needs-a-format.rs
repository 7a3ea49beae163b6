use tablekit::prelude::*;

#[derive(TableEntity)]
struct Log {
    #[tablekit(partition_key)]
    at: DateTime<Utc>,
}

// The generated API is there all the same: only the missing format is reported.
fn main() {
    let entity = LogEntity::new(DateTime::UNIX_EPOCH);
    let _: DateTime<Utc> = entity.at();
    let _: String = Log::partition_key_of(&DateTime::UNIX_EPOCH);
    let _ = Query::<Log>::new().filter(Log::AT.ge(DateTime::UNIX_EPOCH));
}
