//! One test per defect of Wintellect's C# library, the one that accompanies "Jeffrey Richter's
//! Guide to Working with Azure Storage Tables via C# and other .NET Languages", each proving
//! through the public API that tablekit does not have it. Where a request is involved the test
//! runs on the in-process emulator.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use futures::TryStreamExt;
use tablekit::client::{RetryPolicy, Table, TableServiceClient};
use tablekit::patterns::backup::{
    backup_table, restore, BackupHeader, BackupWriter, RestoreOptions,
};
use tablekit::patterns::migrate::{MigrateOptions, Migration};
use tablekit::patterns::progress::{NoProgress, Progress};
use tablekit::prelude::*;
use tablekit::record::{decode_records, encode_records, RecordReader, RecordWriter};
use tablekit::split::{self, SplitError};
use tablekit::{limits, InvalidInput, RecordError};
use tablekit_testing::{Emulator, Fault, Faults, Operation};

#[derive(Debug, Clone, PartialEq, Record)]
#[record(version = 1)]
struct Level {
    id: u32,
    name: String,
}

#[derive(TableEntity)]
#[tablekit(table = "Gamers")]
struct Gamer {
    #[tablekit(partition_key)]
    tag: String,
    #[tablekit(rename = "Points")]
    score: i32,
    big: i64,
    ratio: f64,
    #[tablekit(records(max_properties = 1))]
    levels: Vec<Level>,
}

async fn setup() -> (Emulator, TableServiceClient) {
    let emulator = Emulator::start().await.expect("emulator");
    let client = emulator.client();
    (emulator, client)
}

fn pattern(len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i % 251) as u8 ^ (i / 251) as u8)
        .collect()
}

// --- Split values -------------------------------------------------------------------------

#[test]
fn split_values_of_128_kib_and_more_come_back_intact() {
    for len in [128 * 1024, 200_000, 4 * 65_000] {
        let value = pattern(len);
        let mut e = DynamicEntity::new("p", "r");
        split::write_split(&mut e, "Blob", &value, 16).expect("fits");
        let back = split::read_split(&e, "Blob").expect("readable");
        assert_eq!(back.as_deref(), Some(value.as_slice()), "{len} bytes");
    }
}

#[test]
fn a_smaller_split_value_leaves_no_stale_chunks() {
    let mut e = DynamicEntity::new("p", "r");
    split::write_split(&mut e, "Blob", &pattern(300_000), 16).expect("fits");
    let chunks_before = e.len();
    split::write_split(&mut e, "Blob", b"tiny", 16).expect("fits");
    assert!(chunks_before > 1);
    assert_eq!(e.len(), 1, "only the one property remains");
    assert!(split::stale_chunks(&e, "Blob").is_empty());
    assert_eq!(
        split::read_split(&e, "Blob").expect("read").as_deref(),
        Some(&b"tiny"[..])
    );
    // No empty placeholder was written for the unused chunks.
    assert!(e
        .properties()
        .all(|(_, v)| !matches!(v, Value::Binary(b) if b.is_empty())));
}

#[test]
fn split_data_beyond_capacity_is_refused_not_cut() {
    let mut e = DynamicEntity::new("p", "r");
    let too_big = vec![1u8; split::max_bytes(2) + 1];
    let err = split::write_split(&mut e, "Blob", &too_big, 2).expect_err("too large");
    assert!(matches!(err, SplitError::TooLarge { .. }), "{err:?}");
    assert!(e.is_empty(), "the entity is unchanged");
}

// --- Records ------------------------------------------------------------------------------

#[test]
fn records_beyond_the_maximum_are_refused_not_dropped() {
    let many: Vec<Level> = (0..5000)
        .map(|id| Level {
            id,
            name: format!("level number {id}"),
        })
        .collect();
    let mut gamer = GamerEntity::new("dragon");
    let err = gamer
        .set_levels(&many)
        .expect_err("does not fit in one property");
    assert!(
        matches!(err, Error::Split(SplitError::TooLarge { .. })),
        "{err:?}"
    );
    // What fits is stored whole.
    gamer.set_levels(&many[..100]).expect("fits");
    assert_eq!(gamer.levels(), many[..100].to_vec());
}

#[test]
fn multibyte_strings_over_255_bytes_round_trip_in_records() {
    let names = ["é".repeat(200), "😀".repeat(100), "ü".repeat(127) + "x"];
    let levels: Vec<Level> = names
        .iter()
        .enumerate()
        .map(|(i, name)| Level {
            id: i as u32,
            name: name.clone(),
        })
        .collect();
    let back = decode_records::<Level>(&encode_records(&levels).unwrap()).expect("readable");
    assert_eq!(back, levels);
}

#[test]
fn strings_of_32768_to_65535_bytes_round_trip_in_records() {
    for len in [32_768, 40_000, 65_535] {
        let level = Level {
            id: 1,
            name: "s".repeat(len),
        };
        let back = decode_records::<Level>(&encode_records(std::slice::from_ref(&level)).unwrap())
            .expect("read");
        assert_eq!(back, [level], "{len} bytes");
    }
}

#[test]
fn the_record_reader_checks_the_version() {
    let mut bytes = encode_records(&[Level {
        id: 1,
        name: "a".into(),
    }])
    .unwrap();
    bytes[0] = 7;
    let err = decode_records::<Level>(&bytes).expect_err("unknown version");
    assert!(
        matches!(err, RecordError::UnknownVersion { found: 7, .. }),
        "{err:?}"
    );
}

/// A record whose reader reads nothing.
#[derive(Debug, PartialEq)]
struct Empty;

impl Record for Empty {
    const VERSION: u16 = 0;
    fn write(&self, _: &mut RecordWriter) {}
    fn read(_: &mut RecordReader<'_>, _: u16) -> Result<Self, RecordError> {
        Ok(Empty)
    }
}

#[test]
fn a_record_that_reads_nothing_does_not_loop_forever() {
    // A count of a billion records that read nothing, and no bytes behind it: the reader
    // refuses the count instead of spinning through it.
    let mut bytes = vec![0, 0];
    let mut count: u64 = 1_000_000_000;
    while count >= 0x80 {
        bytes.push((count as u8 & 0x7f) | 0x80);
        count >>= 7;
    }
    bytes.push(count as u8);
    let err = decode_records::<Empty>(&bytes).expect_err("an impossible count");
    assert!(matches!(err, RecordError::LengthPastEnd { .. }), "{err:?}");
}

#[test]
fn truncated_records_give_a_typed_error() {
    let bytes = encode_records(&[Level {
        id: 42,
        name: "a long enough name".into(),
    }])
    .unwrap();
    for cut in 0..bytes.len() {
        let err = decode_records::<Level>(&bytes[..cut]).expect_err("truncated");
        assert!(
            matches!(
                err,
                RecordError::Truncated { .. }
                    | RecordError::LengthPastEnd { .. }
                    | RecordError::InvalidVarint { .. }
            ),
            "cut at {cut}: {err:?}"
        );
    }
}

// --- Filters ------------------------------------------------------------------------------

#[tokio::test(flavor = "current_thread")]
async fn int64_filter_literals_carry_the_l_suffix_and_match() {
    let rendered = Gamer::BIG.eq(5i64).to_string();
    assert_eq!(rendered, "Big eq 5L");
    let (_emulator, client) = setup().await;
    let table = client.table::<Gamer>();
    table.create_if_not_exists().await.expect("table");
    let mut g = GamerEntity::new("a");
    g.set_big(5);
    table.insert(&mut g).await.expect("insert");
    let found = table
        .query(Query::new().filter(Gamer::BIG.eq(5i64)))
        .count()
        .await
        .expect("query");
    assert_eq!(found, 1);
}

#[test]
fn double_filter_literals_are_invariant_and_keep_the_fraction() {
    assert_eq!(Gamer::RATIO.eq(1.0).to_string(), "Ratio eq 1.0");
    assert_eq!(Gamer::RATIO.eq(1.23).to_string(), "Ratio eq 1.23");
    assert!(!Gamer::RATIO.eq(1.23).to_string().contains("1,23"));
}

#[test]
fn single_quotes_in_filter_strings_are_doubled() {
    let name: Column<DynamicEntity, String> = Column::dynamic("Name");
    assert_eq!(
        name.eq("x' or true or 'a").to_string(),
        "Name eq 'x'' or true or ''a'"
    );
}

#[test]
fn an_empty_sub_filter_leaves_no_dangling_operator() {
    let f = Filter::<Gamer>::all().and(Gamer::SCORE.eq(1));
    assert_eq!(f.to_string(), "Points eq 1");
    let g = Gamer::SCORE.eq(1).or(Filter::all());
    assert!(!g.to_string().contains("or )") && !g.to_string().ends_with("or "));
    assert!(!Filter::<Gamer>::all()
        .and(Filter::all())
        .to_string()
        .contains("and"));
}

#[test]
fn filters_use_the_renamed_property_name() {
    assert_eq!(Gamer::SCORE.ge(20).to_string(), "Points ge 20");
    let q = Query::<Gamer>::new().select((Gamer::SCORE,));
    assert_eq!(q.select_list(), Some(&["Points".to_owned()][..]));
}

#[test]
fn starts_with_an_empty_prefix_matches_everything_instead_of_throwing() {
    let name: Column<DynamicEntity, String> = Column::dynamic("Name");
    assert_eq!(name.starts_with("").to_string(), "true");
}

#[test]
fn starts_with_a_prefix_ending_in_u_ffff_does_not_wrap_to_u_0000() {
    let name: Column<DynamicEntity, String> = Column::dynamic("Name");
    let rendered = name.starts_with("a\u{ffff}").to_string();
    assert!(!rendered.contains('\u{0}'), "{rendered:?}");
    assert!(rendered.contains("Name ge 'a\u{ffff}'"), "{rendered:?}");
    // The upper bound, if any, is above the prefix.
    if let Some(upper) = tablekit::keys::prefix_upper_bound("a\u{ffff}") {
        assert!(upper.as_str() > "a\u{ffff}");
    }
}

// --- Queries ------------------------------------------------------------------------------

#[tokio::test(flavor = "current_thread")]
async fn the_chunker_never_drops_the_rest_of_a_page() {
    let (emulator, client) = setup().await;
    let test_table = emulator.unique_table("Chunks").expect("table");
    test_table
        .seed((0..2500).map(|i| {
            let mut e = DynamicEntity::new(format!("p{}", i % 3), format!("{i:05}"));
            e.set("Odd", i % 2 == 1);
            e
        }))
        .expect("seed");
    let table: Table = client.table_named(test_table.name());
    let mut chunks = table.query(Query::new().filter_raw("Odd eq true")).chunks();
    let mut seen = 0;
    while chunks.has_more() {
        let chunk = chunks.next_chunk(333).await.expect("chunk");
        assert!(chunk.len() == 333 || !chunks.has_more(), "{}", chunk.len());
        seen += chunk.len();
    }
    assert_eq!(seen, 1250);
}

// --- Backup and restore -------------------------------------------------------------------

async fn backup_of(n: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let mut w = BackupWriter::new(&mut out, &BackupHeader::for_table("Src"))
        .await
        .expect("header");
    for i in 0..n {
        let mut e = DynamicEntity::new(format!("p{}", i / 37), format!("{i:05}"));
        e.set("I", i as i32);
        w.write_entity(&e).await.expect("entity");
    }
    w.finish().await.expect("trailer");
    out
}

#[tokio::test(flavor = "current_thread")]
async fn restoring_a_truncated_backup_stops_with_an_error_instead_of_looping() {
    let (emulator, client) = setup().await;
    let test_table = emulator.unique_table("Restore").expect("table");
    let table: Table = client.table_named(test_table.name());
    let mut bytes = backup_of(300).await;
    bytes.truncate(bytes.len() * 2 / 3);
    let report = tokio::time::timeout(
        Duration::from_secs(60),
        restore(&bytes[..], &table, RestoreOptions::new()),
    )
    .await
    .expect("the restore ends")
    .expect("the header is intact");
    assert!(!report.is_complete());
    assert!(report.read_error().is_some());
    let restored = test_table.entities().expect("entities").len() as u64;
    assert_eq!(
        restored, report.checkpoint,
        "the checkpoint says what was restored"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restore_writes_every_entity_including_the_last_count_mod_4() {
    let (emulator, client) = setup().await;
    for n in [1, 3, 1003] {
        let test_table = emulator.unique_table("Restore").expect("table");
        let table: Table = client.table_named(test_table.name());
        let bytes = backup_of(n).await;
        // Parallel transactions must each carry their own operations.
        let report = restore(&bytes[..], &table, RestoreOptions::new().concurrency(4))
            .await
            .expect("restore");
        assert!(report.is_complete());
        let stored = test_table.entities().expect("entities");
        assert_eq!(stored.len(), n);
        let mut seen: Vec<i32> = stored.iter().map(|e| e.get_or("I", -1)).collect();
        seen.sort_unstable();
        assert_eq!(
            seen,
            (0..n as i32).collect::<Vec<_>>(),
            "each entity exactly once"
        );
    }
}

#[tokio::test(flavor = "current_thread")]
async fn backup_then_restore_is_a_faithful_copy() {
    let (emulator, client) = setup().await;
    let source = emulator.unique_table("Src").expect("table");
    source
        .seed((0..250).map(|i| {
            let mut e = DynamicEntity::new(format!("p{}", i % 4), format!("{i:04}"));
            e.set("Name", format!("n{i}"));
            e
        }))
        .expect("seed");
    let mut file = Vec::new();
    let from: Table = client.table_named(source.name());
    backup_table(&from, Query::new(), &mut file, NoProgress)
        .await
        .expect("backup");
    let target = emulator.unique_table("Dst").expect("table");
    let to: Table = client.table_named(target.name());
    let report = restore(&file[..], &to, RestoreOptions::new())
        .await
        .expect("restore");
    assert!(report.is_complete());
    let strip = |mut v: Vec<DynamicEntity>| {
        for e in &mut v {
            e.set_timestamp(None);
            e.set_etag(None);
        }
        v
    };
    assert_eq!(
        strip(target.entities().expect("dst")),
        strip(source.entities().expect("src"))
    );
}

// --- Keys ---------------------------------------------------------------------------------

#[tokio::test(flavor = "current_thread")]
async fn keys_are_encoded_the_same_way_on_insert_and_lookup() {
    let (emulator, client) = setup().await;
    let test_table = emulator.unique_table("Keys").expect("table");
    let table: Table = client.table_named(test_table.name());
    for key in ["a b", "it's", "100%", "<tag>&amp;", "ü😀", "a+b=c", "'';--"] {
        let mut e = DynamicEntity::new(key, key);
        table.insert(&mut e).await.expect("insert");
        let found = table.get(key, key).await.expect("get");
        assert!(found.is_some(), "lookup of {key:?} missed");
        table
            .delete_by_key(key, key, &ETag::any())
            .await
            .expect("delete");
    }
    // The stored keys are the keys given, not an encoding of them (which could hold `#`).
    let mut e = DynamicEntity::new("<b>", "&");
    table.insert(&mut e).await.expect("insert");
    let stored = test_table.entities().expect("entities");
    assert_eq!(stored[0].partition_key(), "<b>");
    assert_eq!(stored[0].row_key(), "&");
}

// --- Table-wide property changes ----------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn property_changes_retry_on_412_and_report_progress() {
    let (emulator, client) = setup().await;
    let test_table = emulator.unique_table("Migrate").expect("table");
    test_table
        .seed((0..50).map(|i| {
            let mut e = DynamicEntity::new("p", format!("{i:03}"));
            e.set("Old", i);
            e.set("Drop", "x");
            e
        }))
        .expect("seed");
    let table: Table = client.table_named(test_table.name());

    // The first time the migration touches an entity, another writer changes it (through
    // the service), so the migration's conditional write gets 412 and must re-read.
    let interfered = Arc::new(AtomicBool::new(false));
    let hook = {
        let other: Table = client.table_named(test_table.name());
        let interfered = Arc::clone(&interfered);
        move |entity: &mut DynamicEntity| {
            if interfered.swap(true, Ordering::SeqCst) {
                return;
            }
            let mut changed = DynamicEntity::new(entity.partition_key(), entity.row_key());
            changed.set("Old", 1000);
            let other = other.clone();
            // The hook is synchronous: hand this worker's tasks over while the write runs.
            tokio::task::block_in_place(|| {
                tokio::runtime::Handle::current()
                    .block_on(other.upsert_merge(&mut changed))
                    .expect("concurrent write")
            });
        }
    };
    let progress = Arc::new(AtomicU64::new(0));
    let seen = Arc::clone(&progress);
    let outcome = Migration::new()
        .rename("Old", "New")
        .remove(["Drop"])
        .map(hook)
        .run(
            &table,
            Query::new(),
            MigrateOptions::new()
                .progress(move |p: &Progress| seen.store(p.items(), Ordering::SeqCst)),
        )
        .await
        .expect("migration");
    assert!(outcome.error.is_none(), "{:?}", outcome.error);
    assert_eq!(outcome.report.changed, 50);
    assert!(outcome.report.conflicts_retried >= 1, "the 412 was retried");
    assert_eq!(progress.load(Ordering::SeqCst), 50, "progress reported");
    let stored = test_table.entities().expect("entities");
    assert!(stored
        .iter()
        .all(|e| e.contains("New") && !e.contains("Old") && !e.contains("Drop")));
    // The concurrent writer's value survived: the migration re-read instead of overwriting.
    assert!(stored.iter().any(|e| e.get::<i32>("New") == Some(1000)));
}

// --- Missing features ---------------------------------------------------------------------

#[test]
fn entity_size_is_calculated() {
    let mut e = DynamicEntity::new("p", "r");
    let small = limits::entity_size(&e);
    e.set("Blob", vec![0u8; 1000]);
    assert!(limits::entity_size(&e) >= small + 1000);
}

#[test]
fn table_names_are_validated() {
    assert!(limits::validate_table_name("Gamers").is_ok());
    for bad in ["ab", "1abc", "tables", "a-b", ""] {
        assert!(matches!(
            limits::validate_table_name(bad),
            Err(InvalidInput::TableName { .. })
        ));
    }
}

#[tokio::test(flavor = "current_thread")]
async fn transient_failures_are_retried_by_the_transport() {
    let (emulator, _) = setup().await;
    let test_table = emulator.unique_table("Retry").expect("table");
    emulator.set_faults(Some(
        Faults::seeded(1)
            .rate(Fault::ServerBusy, 0.5)
            .only(&[Operation::Insert]),
    ));
    let client = emulator
        .client_builder()
        .retry_policy(
            RetryPolicy::default()
                .max_attempts(20)
                .base_delay(Duration::from_millis(1)),
        )
        .build()
        .expect("client");
    let table: Table = client.table_named(test_table.name());
    for i in 0..20 {
        table
            .insert(&mut DynamicEntity::new("p", format!("{i}")))
            .await
            .expect("retried until it succeeds");
    }
    assert!(
        emulator.requests().count(Operation::Insert) > 20,
        "faults happened"
    );
    assert_eq!(test_table.entities().expect("entities").len(), 20);
}

#[tokio::test(flavor = "current_thread")]
async fn requests_are_logged_through_tracing() {
    let traces = crate::support::traces::captured();
    let (emulator, client) = setup().await;
    let test_table = emulator.unique_table("Logged").expect("table");
    let table: Table = client.table_named(test_table.name());
    let _ = table
        .query_all()
        .pages()
        .try_collect::<Vec<_>>()
        .await
        .expect("query");
    let text = traces.text();
    assert!(text.contains(test_table.name()), "{text}");
}
