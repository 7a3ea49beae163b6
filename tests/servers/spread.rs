//! Values spread over continuation rows (`split(rows = n)`, `records(rows = n)`) on every
//! server: a value of about 3 MiB round trips through one transaction, a smaller value deletes
//! the rows it no longer uses and a larger one adds them (checked against what the partition
//! holds, read untyped), a delete leaves no row behind, queries read entities with and
//! without rows, continuation rows never read as entities, and what cannot be written is
//! refused before anything is sent.

// Fixtures mirror user code; documenting them adds nothing.
#![allow(missing_docs)]

use futures::TryStreamExt;
use tablekit::client::{Table, TableServiceClient};
use tablekit::prelude::*;
use tablekit::split::SplitError;
use tablekit::spread;
use tablekit::InvalidInput;

use crate::support::models::CompletedLevel;
use crate::support::servers::unique_name;

/// A report with its PDF, spread over up to 6 continuation rows.
#[derive(TableEntity)]
pub struct Report {
    #[tablekit(partition_key)]
    pub owner: String,
    #[tablekit(row_key)]
    pub id: String,
    pub title: String,
    #[tablekit(split(rows = 6))]
    pub pdf: Vec<u8>,
}

/// A gamer's whole history, records spread over up to 2 continuation rows.
#[derive(TableEntity)]
pub struct History {
    #[tablekit(partition_key)]
    pub tag: String,
    #[tablekit(row_key)]
    pub season: String,
    #[tablekit(records(rows = 2))]
    pub levels: Vec<CompletedLevel>,
}

/// A plain model sharing the reports' table: it knows nothing of continuation rows.
#[derive(TableEntity)]
pub struct Note {
    #[tablekit(partition_key)]
    pub owner: String,
    #[tablekit(row_key)]
    pub id: String,
    pub title: String,
}

/// A value of `len` bytes that tells its chunks apart.
pub fn bytes(len: usize, salt: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i % 251) as u8 ^ salt ^ (i >> 16) as u8)
        .collect()
}

fn report(id: &str, len: usize, salt: u8) -> ReportEntity {
    ReportEntity::from_model(Report {
        owner: "alice".into(),
        id: id.into(),
        title: format!("report {id}"),
        pdf: bytes(len, salt),
    })
    .unwrap()
}

async fn reports(client: &TableServiceClient) -> Table<Report> {
    let table = client.table_named::<Report>(&unique_name("Reports"));
    table.create().await.unwrap();
    table
}

/// Every RowKey the partition holds, read untyped (continuation rows included), sorted.
pub async fn stored_keys<M: TableModel>(table: &Table<M>, partition_key: &str) -> Vec<String> {
    let raw = table.client().table_named::<DynamicEntity>(table.name());
    let filter = format!("PartitionKey eq '{partition_key}'");
    let rows = raw
        .query(Query::new().filter_raw(filter))
        .collect_all()
        .await
        .unwrap();
    let mut keys: Vec<String> = rows.iter().map(|r| r.row_key().to_owned()).collect();
    keys.sort();
    keys
}

/// The RowKeys a report `id` with a value of `len` bytes is stored in.
pub fn expected_keys(id: &str, len: usize) -> Vec<String> {
    let chunks = 1 + len.saturating_sub(65_536 - 11).div_ceil(65_536);
    let rows = (chunks - 1).div_ceil(spread::CHUNKS_PER_ROW);
    let mut keys = vec![id.to_owned()];
    keys.extend((1..=rows).map(|i| spread::continuation_key(id, "Pdf", i)));
    keys
}

async fn pdf_of(table: &Table<Report>, id: &str) -> Vec<u8> {
    let read = table.get("alice", id).await.unwrap().expect("stored");
    read.try_pdf().unwrap()
}

/// About 3 MiB (five continuation rows) in one transaction, back bit-exact by get and query.
async fn a_three_mebibyte_value_round_trips(client: &TableServiceClient) {
    let table = reports(client).await;
    let len = 3_000_000;
    let mut big = report("r1", len, 1);
    table.insert(&mut big).await.unwrap();
    assert!(big.as_dynamic().etag().is_some());
    assert_eq!(stored_keys(&table, "alice").await, expected_keys("r1", len));
    assert_eq!(expected_keys("r1", len).len(), 6); // five continuation rows

    let read = table.get("alice", "r1").await.unwrap().expect("stored");
    assert_eq!(read.as_dynamic().etag(), big.as_dynamic().etag());
    assert_eq!(read.try_pdf().unwrap(), bytes(len, 1));
    assert_eq!(read.title(), "report r1");
    let all = table.query_all().collect_all().await.unwrap();
    assert_eq!(all.len(), 1);
    assert_eq!(all[0].try_pdf().unwrap(), bytes(len, 1));
}

/// Shrink from three rows to one (the stale rows go in the same transaction), grow back with
/// an upsert, shrink to none with a merge, and delete: no orphan row at any step.
async fn rows_follow_the_value_and_a_delete_leaves_none(client: &TableServiceClient) {
    let table = reports(client).await;
    let mut r = report("r1", 2_000_000, 1);
    table.insert(&mut r).await.unwrap();
    assert_eq!(stored_keys(&table, "alice").await.len(), 1 + 3);

    let mut read = table.get("alice", "r1").await.unwrap().unwrap();
    read.set_pdf(&bytes(700_000, 2)).unwrap();
    table.replace(&mut read).await.unwrap();
    assert_eq!(
        stored_keys(&table, "alice").await,
        expected_keys("r1", 700_000)
    );
    assert_eq!(stored_keys(&table, "alice").await.len(), 1 + 1);
    assert_eq!(pdf_of(&table, "r1").await, bytes(700_000, 2));

    let mut grown = report("r1", 2_200_000, 3);
    table.upsert_replace(&mut grown).await.unwrap();
    assert_eq!(
        stored_keys(&table, "alice").await,
        expected_keys("r1", 2_200_000)
    );
    assert_eq!(pdf_of(&table, "r1").await, bytes(2_200_000, 3));

    let mut small = table.get("alice", "r1").await.unwrap().unwrap();
    small.set_pdf(b"tiny").unwrap();
    table.merge(&mut small).await.unwrap();
    assert_eq!(stored_keys(&table, "alice").await, ["r1"]);
    assert_eq!(pdf_of(&table, "r1").await, b"tiny");

    let mut big = report("r1", 1_200_000, 4);
    table.upsert_merge(&mut big).await.unwrap();
    assert_eq!(pdf_of(&table, "r1").await, bytes(1_200_000, 4));
    table.delete(&mut big).await.unwrap();
    assert!(stored_keys(&table, "alice").await.is_empty());
    assert!(table.get("alice", "r1").await.unwrap().is_none());
}

/// A query returns each entity once, its value loaded, whether it has rows or not; records
/// spread the same way.
async fn a_query_mixes_entities_with_and_without_rows(client: &TableServiceClient) {
    let table = reports(client).await;
    let sizes = [("a", 10), ("b", 1_000_000), ("c", 0), ("d", 70_000)];
    for (id, len) in sizes {
        table.insert(&mut report(id, len, 5)).await.unwrap();
    }
    assert_eq!(stored_keys(&table, "alice").await.len(), 4 + 2 + 1);
    let read = table.query_all().collect_all().await.unwrap();
    let got: Vec<(String, Vec<u8>)> = read
        .iter()
        .map(|r| (r.id(), r.try_pdf().unwrap()))
        .collect();
    let want: Vec<(String, Vec<u8>)> = sizes
        .iter()
        .map(|(id, len)| (id.to_string(), bytes(*len, 5)))
        .collect();
    assert_eq!(got, want);
    // Pages of one: continuation rows take places in a page, never in the results.
    let paged = table.query(Query::new().top(1).unwrap());
    assert_eq!(paged.count().await.unwrap(), 4);

    let histories = client.table_named::<History>(table.name());
    let levels: Vec<CompletedLevel> = (0..60_000)
        .map(|i| CompletedLevel {
            level: crate::support::models::Level::Castle,
            completed: chrono::DateTime::from_timestamp(1_400_000_000 + i, 0).unwrap(),
            stars: (i % 4) as u8,
        })
        .collect();
    let mut history = HistoryEntity::from_model(History {
        tag: "dragon".into(),
        season: "s1".into(),
        levels: levels.clone(),
    })
    .unwrap();
    histories.insert(&mut history).await.unwrap();
    assert!(stored_keys(&histories, "dragon").await.len() > 1);
    let read = histories.get("dragon", "s1").await.unwrap().unwrap();
    assert_eq!(read.try_levels().unwrap(), levels);
}

/// Continuation keys are refused for main entities, and typed reads never return a
/// continuation row: not through the model, not through another model of the table.
async fn continuation_rows_never_read_as_entities(client: &TableServiceClient) {
    let table = reports(client).await;
    let mut clash = report("r~Pdf~01", 10, 0);
    let err = table.insert(&mut clash).await.unwrap_err();
    assert!(err.is_invalid_input(), "{err}");
    assert!(stored_keys(&table, "alice").await.is_empty()); // nothing sent

    table.insert(&mut report("r", 100_000, 6)).await.unwrap();
    let key = spread::continuation_key("r", "Pdf", 1);
    let err = table.get("alice", &key).await.unwrap_err();
    assert!(
        matches!(&err, Error::AuxiliaryRow(row) if row.row_key == key && row.role == "continuation"),
        "{err}"
    );
    let notes = client.table_named::<Note>(table.name());
    let err = notes.get("alice", &key).await.unwrap_err();
    assert!(matches!(err, Error::AuxiliaryRow(_)), "{err}");
    let ids: Vec<String> = notes
        .query_all()
        .entities()
        .map_ok(|n| n.id())
        .try_collect()
        .await
        .unwrap();
    assert_eq!(ids, ["r"]);
    // Untyped reads see every row as it is.
    let raw = client.table_named::<DynamicEntity>(table.name());
    let row = raw.get("alice", &key).await.unwrap().unwrap();
    assert_eq!(
        row.get::<String>(spread::AUXILIARY_PROPERTY).as_deref(),
        Some(spread::CONTINUATION)
    );
}

/// More than the declared rows, or more than one transaction carries, fails before sending;
/// so does a transaction of a spread model's entities, which would not keep its rows.
async fn what_cannot_be_written_is_refused_before_sending(client: &TableServiceClient) {
    let table = reports(client).await;
    // 6 rows hold about 4.2 MiB, but base64 makes 3.3 MB a body above 4 MiB.
    let mut too_big = report("r1", 3_300_000, 0);
    let err = table.insert(&mut too_big).await.unwrap_err();
    assert!(
        matches!(err, Error::InvalidInput(InvalidInput::BatchTooLarge { .. })),
        "{err}"
    );
    let mut small = report("r1", 10, 0);
    let err = small.set_pdf(&vec![0; 5_000_000]).unwrap_err();
    assert!(
        matches!(err, Error::Split(SplitError::TooLarge { .. })),
        "{err}"
    );
    // a transaction cannot know the stored continuation rows: a write that changes them is
    // refused by a typed error naming the table's own write
    let mut batch = table.batch();
    let mut stored = report("r2", 10, 0);
    stored
        .as_dynamic_mut()
        .set_etag(Some(tablekit::ETag::any()));
    for (err, table_write) in [
        (batch.merge(&stored).unwrap_err(), "Table::merge"),
        (
            batch.upsert_replace(&stored).unwrap_err(),
            "Table::upsert_replace",
        ),
        (batch.delete(&stored).unwrap_err(), "Table::delete"),
        (
            batch
                .delete_by_key("alice", "r2", &tablekit::ETag::any())
                .unwrap_err(),
            "Table::delete_by_key",
        ),
    ] {
        let Error::InvalidInput(InvalidInput::NotInTransaction { instead, .. }) = &err else {
            panic!("{err}")
        };
        assert_eq!(*instead, table_write);
    }
    assert!(batch.is_empty());
    assert!(stored_keys(&table, "alice").await.is_empty());
}

/// Inserts join a transaction with their continuation rows, counted against its 100
/// operations; each entity gets its own ETag back; a delete of entities read whole takes
/// their rows with them.
async fn a_transaction_inserts_and_deletes_spread_values(client: &TableServiceClient) {
    let table = reports(client).await;
    let (big, small) = (1_500_000, 10);
    let mut entities = [report("r1", big, 1), report("r2", small, 2)];
    let mut batch = table.batch();
    for entity in &entities {
        batch.insert(entity).unwrap();
    }
    let rows = expected_keys("r1", big).len() + expected_keys("r2", small).len();
    assert_eq!(batch.len(), rows);
    batch.submit().await.unwrap().record_etags(&mut entities);
    let mut keys = expected_keys("r1", big);
    keys.extend(expected_keys("r2", small));
    keys.sort();
    assert_eq!(stored_keys(&table, "alice").await, keys);
    assert_eq!(pdf_of(&table, "r1").await, bytes(big, 1));
    assert_eq!(pdf_of(&table, "r2").await, bytes(small, 2));
    for entity in &mut entities {
        let stored = table.get("alice", &entity.id()).await.unwrap().unwrap();
        assert_eq!(entity.as_dynamic().etag(), stored.as_dynamic().etag());
        entity.set_title("renamed");
        table.merge(entity).await.unwrap(); // on the ETag the transaction gave it
    }

    // one row over the limit: refused whole, the transaction as it was
    let mut batch = table.batch();
    for i in 0..99 {
        batch.insert(&report(&format!("n{i}"), 0, 0)).unwrap();
    }
    assert!(batch
        .insert(&report("n99", big, 0))
        .unwrap_err()
        .is_invalid_input());
    assert_eq!(batch.len(), 99);

    let mut batch = table.batch();
    for id in ["r1", "r2"] {
        let read = table.get("alice", id).await.unwrap().unwrap();
        batch.delete(&read).unwrap();
    }
    batch.submit().await.unwrap();
    assert!(stored_keys(&table, "alice").await.is_empty());
}

/// A write conditional on a stale ETag loses as a whole: the other writer's value and rows
/// stay intact.
async fn a_stale_write_changes_nothing(client: &TableServiceClient) {
    let table = reports(client).await;
    table.insert(&mut report("r1", 1_500_000, 1)).await.unwrap();
    let mut mine = table.get("alice", "r1").await.unwrap().unwrap();
    let mut theirs = table.get("alice", "r1").await.unwrap().unwrap();
    theirs.set_pdf(&bytes(2_200_000, 2)).unwrap();
    table.replace(&mut theirs).await.unwrap();
    mine.set_pdf(b"small").unwrap();
    let err = table.replace(&mut mine).await.unwrap_err();
    assert!(err.is_precondition_failed(), "{err}");
    assert_eq!(
        stored_keys(&table, "alice").await,
        expected_keys("r1", 2_200_000)
    );
    assert_eq!(pdf_of(&table, "r1").await, bytes(2_200_000, 2));
}

on_servers!(
    a_three_mebibyte_value_round_trips,
    rows_follow_the_value_and_a_delete_leaves_none,
    a_query_mixes_entities_with_and_without_rows,
    continuation_rows_never_read_as_entities,
    what_cannot_be_written_is_refused_before_sending,
    a_stale_write_changes_nothing,
    a_transaction_inserts_and_deletes_spread_values,
);

/// Random sequences of writes and deletes on the emulator: after each, the partition holds
/// exactly the main row and the rows its value needs, and the value reads back.
mod sequences {
    use proptest::prelude::*;

    use super::*;

    #[derive(Clone, Debug)]
    enum Step {
        UpsertReplace(usize),
        UpsertMerge(usize),
        Replace(usize),
        Delete,
    }

    /// Sizes at the row boundaries: within the main entity, one row, just over one row.
    const ONE_ROW: usize = 65_525 + spread::CHUNKS_PER_ROW * 65_536;
    const SIZES: [usize; 5] = [0, 65_525, 65_526, ONE_ROW, ONE_ROW + 1];

    fn step() -> impl Strategy<Value = Step> {
        let size = proptest::sample::select(SIZES.to_vec());
        prop_oneof![
            size.clone().prop_map(Step::UpsertReplace),
            size.clone().prop_map(Step::UpsertMerge),
            size.prop_map(Step::Replace),
            Just(Step::Delete),
        ]
    }

    async fn run(table: &Table<Report>, steps: &[Step]) {
        let mut stored: Option<usize> = None;
        for (n, step) in steps.iter().enumerate() {
            let salt = n as u8;
            match (step, stored) {
                (Step::UpsertReplace(len), _) => {
                    table
                        .upsert_replace(&mut report("r", *len, salt))
                        .await
                        .unwrap();
                    stored = Some(*len);
                }
                (Step::UpsertMerge(len), _) => {
                    table
                        .upsert_merge(&mut report("r", *len, salt))
                        .await
                        .unwrap();
                    stored = Some(*len);
                }
                (Step::Replace(len), Some(_)) => {
                    let mut read = table.get("alice", "r").await.unwrap().unwrap();
                    read.set_pdf(&bytes(*len, salt)).unwrap();
                    table.replace(&mut read).await.unwrap();
                    stored = Some(*len);
                }
                (Step::Replace(_), None) => continue,
                (Step::Delete, Some(_)) => {
                    let mut read = table.get("alice", "r").await.unwrap().unwrap();
                    table.delete(&mut read).await.unwrap();
                    stored = None;
                }
                (Step::Delete, None) => continue,
            }
            let keys = stored_keys(table, "alice").await;
            match stored {
                Some(len) => {
                    assert_eq!(keys, expected_keys("r", len), "after {step:?}");
                    assert_eq!(pdf_of(table, "r").await, bytes(len, salt));
                }
                None => assert!(keys.is_empty(), "after {step:?}: {keys:?}"),
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]
        #[test]
        fn stored_rows_are_exactly_what_the_value_needs(steps in proptest::collection::vec(step(), 1..6)) {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            runtime.block_on(async {
                let emulator = tablekit_testing::Emulator::start().await.unwrap();
                let client = emulator.client();
                let table = reports(&client).await;
                run(&table, &steps).await;
            });
        }
    }
}
