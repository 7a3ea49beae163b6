use tablekit::prelude::*;

#[derive(TableEntity)]
#[tablekit(table = "W1")]
struct Row {
    #[tablekit(partition_key)]
    tag: String,
    score: i32,
}

// The generated API is there all the same: only the table name is reported.
fn main() {
    let client = TableServiceClient::from_connection_string("UseDevelopmentStorage=true").unwrap();
    let _: Table<Row> = client.table::<Row>();
    let mut row = RowEntity::new("dragon");
    row.set_score(row.score() + 1);
    let _ = Query::<Row>::new().filter(Row::SCORE.ge(1)).select((Row::TAG, Row::SCORE));
}
