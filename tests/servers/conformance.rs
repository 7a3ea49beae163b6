//! The conformance suite: every client operation, on every server.
//!
//! Each case creates its own uniquely named table(s), so cases run in parallel, and deletes
//! them at the end. Where Azurite is more lenient than Azure (e.g. mixed partitions in a
//! batch), the case asserts what the client itself guarantees: refusal before sending.

use chrono::{TimeZone, Utc};
use futures::TryStreamExt;
use tablekit::client::{ContinuationToken, Credential, Page, Table, TableServiceClient};
use tablekit::{DynamicEntity, ETag, Error, InvalidInput, Query, TableEntity, TableModel, Value};
use uuid::Uuid;

use crate::support::models::{Gamer, GamerEntity};
use crate::support::servers::{fresh_table, unique_name};

fn entity(pk: &str, rk: &str) -> DynamicEntity {
    DynamicEntity::new(pk, rk)
}

pub async fn tables_create_exist_list_delete(client: &TableServiceClient) {
    let prefix = unique_name("lst");
    let names: Vec<String> = (0..3).map(|i| format!("{prefix}n{i}")).collect();
    for name in &names {
        client.create_table(name).await.unwrap();
    }
    assert!(client.table_exists(&names[0]).await.unwrap());
    let err = client.create_table(&names[0]).await.unwrap_err();
    assert!(err.is_conflict(), "{err}");
    assert_eq!(err.code(), Some("TableAlreadyExists"));

    let mut listed = client.list_table_names(Some(&prefix)).await.unwrap();
    listed.sort();
    assert_eq!(listed, names);
    let all = client.list_table_names(None).await.unwrap();
    assert!(names.iter().all(|n| all.contains(n)));

    client.delete_table(&names[1]).await.unwrap();
    assert!(!client.table_exists(&names[1]).await.unwrap());
    let err = client.delete_table(&names[1]).await.unwrap_err();
    assert!(err.is_not_found(), "{err}");
    let left = client.list_table_names(Some(&prefix)).await.unwrap();
    assert_eq!(left.len(), 2);
    for name in [&names[0], &names[2]] {
        client.delete_table(name).await.unwrap();
    }
}

pub async fn create_and_delete_if_exists_report_what_they_did(client: &TableServiceClient) {
    let table: Table = client.table_named(&unique_name("ifx"));
    assert!(!table.exists().await.unwrap());
    assert!(table.create_if_not_exists().await.unwrap());
    assert!(!table.create_if_not_exists().await.unwrap());
    assert!(table.exists().await.unwrap());
    assert!(table.delete_table_if_exists().await.unwrap());
    assert!(!table.delete_table_if_exists().await.unwrap());
}

pub async fn invalid_input_is_refused_before_sending(client: &TableServiceClient) {
    // None of these reaches the service: the table does not even exist.
    let bad_name: Table = client.table_named("1bad");
    let err = bad_name.create().await.unwrap_err();
    assert!(
        matches!(err, Error::InvalidInput(InvalidInput::TableName { .. })),
        "{err}"
    );

    let table: Table = client.table_named(&unique_name("inv"));
    let mut slash = entity("a/b", "r");
    let err = table.insert(&mut slash).await.unwrap_err();
    assert!(
        matches!(err, Error::InvalidInput(InvalidInput::KeyCharacter { .. })),
        "{err}"
    );

    let mut big = entity("p", "r");
    big.set("Blob", vec![0u8; 64 * 1024 + 1]);
    let err = table.upsert_replace(&mut big).await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::InvalidInput(InvalidInput::BinaryTooLarge { .. })
        ),
        "{err}"
    );

    let mut no_etag = entity("p", "r");
    let err = table.replace(&mut no_etag).await.unwrap_err();
    assert!(err.is_invalid_input(), "{err}");
    assert!(err.to_string().contains("ETag"), "{err}");

    // A page size the service cannot answer is refused while the query is built.
    let err = Query::<DynamicEntity>::new().top(0).unwrap_err();
    assert_eq!(err, InvalidInput::TopOutOfRange { top: 0 });
    assert!(Error::from(err).is_invalid_input());
    let err = "not-a-token".parse::<ContinuationToken>().unwrap_err();
    assert!(err.is_invalid_input(), "{err}");

    let unnamed = client.table_named::<DynamicEntity>("");
    let err = unnamed.exists().await.unwrap_err();
    assert!(
        matches!(err, Error::InvalidInput(InvalidInput::TableName { .. })),
        "{err}"
    );
    assert!(!table.exists().await.unwrap(), "nothing was created");
}

fn every_type_entity() -> DynamicEntity {
    let mut e = entity("types", "all");
    e.set("Flag", true);
    e.set("Off", false);
    e.set("I32", i32::MIN);
    e.set("I64", i64::MAX);
    e.set("I64Neg", -(1i64 << 40));
    e.set("Whole", 2.0f64);
    e.set("Frac", -1.5e-300f64);
    e.set("Inf", f64::INFINITY);
    e.set("NegInf", f64::NEG_INFINITY);
    let at = Utc.with_ymd_and_hms(2024, 2, 29, 23, 59, 59).unwrap()
        + chrono::Duration::nanoseconds(123_456_700);
    e.set("When", at);
    e.set("Early", Utc.with_ymd_and_hms(1601, 1, 1, 0, 0, 0).unwrap());
    e.set(
        "Id",
        Uuid::parse_str("c9da6455-213d-42c9-9a79-3e9149a57833").unwrap(),
    );
    e.set("Text", "ünïcødé ☃ 'quoted' \"double\" \\ \n tab\t");
    e.set("Empty", "");
    e.set("Bytes", vec![0u8, 1, 2, 254, 255]);
    e.set("Large", vec![7u8; 64 * 1024]);
    e
}

pub async fn every_edm_type_round_trips(client: &TableServiceClient) {
    let table = fresh_table(client, "edm").await;
    let mut sent = every_type_entity();
    sent.set("NaN", f64::NAN);
    table.insert(&mut sent).await.unwrap();
    let got = table.get("types", "all").await.unwrap().expect("stored");
    for (name, value) in sent.properties() {
        let back = got
            .value(name)
            .unwrap_or_else(|| panic!("`{name}` missing"));
        match (value, back) {
            (Value::Double(a), Value::Double(b)) if a.is_nan() => assert!(b.is_nan()),
            _ => assert_eq!(back, value, "`{name}`"),
        }
    }
    assert_eq!(got.len(), sent.len());
    assert!(got.timestamp().is_some());
    assert!(got.etag().is_some());
    table.delete_table().await.unwrap();
}

pub async fn entities_near_the_size_limit_round_trip_whole(client: &TableServiceClient) {
    let table = fresh_table(client, "big").await;
    let mut e = entity("p", "big");
    for i in 0..14u8 {
        e.set(format!("Chunk{i:02}"), vec![i; 64 * 1024]);
    }
    e.set("Text", "é".repeat(32_767));
    assert!(e.size() < 1024 * 1024);
    table.insert(&mut e).await.unwrap();
    let got = table.get("p", "big").await.unwrap().unwrap();
    for (name, value) in e.properties() {
        assert_eq!(got.value(name), Some(value), "`{name}` came back whole");
    }
    let mut over = got.clone();
    over.set("Chunk14", vec![0u8; 64 * 1024]);
    let err = table.replace(&mut over).await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::InvalidInput(InvalidInput::EntityTooLarge { .. })
        ),
        "{err}"
    );
    table.delete_table().await.unwrap();
}

pub async fn insert_records_the_etag_and_conflicts_on_existing_keys(client: &TableServiceClient) {
    let table = fresh_table(client, "ins").await;
    let mut e = entity("p", "r");
    e.set("N", 1);
    table.insert(&mut e).await.unwrap();
    let etag = e.etag().cloned().expect("insert records the ETag");
    let stored = table.get("p", "r").await.unwrap().unwrap();
    assert_eq!(stored.etag(), Some(&etag));

    let mut again = entity("p", "r");
    let err = table.insert(&mut again).await.unwrap_err();
    assert!(err.is_conflict(), "{err}");
    assert_eq!(err.code(), Some("EntityAlreadyExists"));
    assert!(err.service_error().unwrap().request_id().is_some());
    assert!(again.etag().is_none());

    let missing: Table = client.table_named(&unique_name("nosuch"));
    let err = missing.insert(&mut entity("p", "r")).await.unwrap_err();
    assert!(err.is_not_found(), "{err}");
    table.delete_table().await.unwrap();
}

pub async fn point_get_of_a_missing_entity_is_none(client: &TableServiceClient) {
    let table = fresh_table(client, "get").await;
    assert!(table.get("p", "nobody").await.unwrap().is_none());
    assert!(table.get("", "").await.unwrap().is_none());
    let missing: Table = client.table_named(&unique_name("nosuch"));
    let err = missing.get("p", "r").await.unwrap_err();
    assert!(
        err.is_not_found(),
        "a missing table is an error, not None: {err}"
    );
    table.delete_table().await.unwrap();
}

pub async fn upserts_merge_or_replace(client: &TableServiceClient) {
    let table = fresh_table(client, "ups").await;
    let mut e = entity("p", "r");
    e.set("A", 1);
    e.set("B", "b");
    table.upsert_merge(&mut e).await.unwrap(); // inserts
    assert!(e.etag().is_some());

    let mut patch = entity("p", "r");
    patch.set("C", 3i64);
    table.upsert_merge(&mut patch).await.unwrap();
    let got = table.get("p", "r").await.unwrap().unwrap();
    assert_eq!(got.get::<i32>("A"), Some(1));
    assert_eq!(got.get::<i64>("C"), Some(3));
    assert_eq!(got.etag(), patch.etag());

    let mut whole = entity("p", "r");
    whole.set("D", 4.5);
    table.upsert_replace(&mut whole).await.unwrap();
    let got = table.get("p", "r").await.unwrap().unwrap();
    assert_eq!(got.len(), 1, "replace drops the other properties");
    assert_eq!(got.get::<f64>("D"), Some(4.5));
    table.delete_table().await.unwrap();
}

pub async fn conditional_writes_fail_on_a_stale_etag(client: &TableServiceClient) {
    let table = fresh_table(client, "etag").await;
    let mut first = entity("p", "r");
    first.set("N", 1);
    table.insert(&mut first).await.unwrap();
    let mut second = table.get("p", "r").await.unwrap().unwrap();

    first.set("N", 2);
    table.replace(&mut first).await.unwrap();
    assert_ne!(first.etag(), second.etag(), "the new ETag is recorded");

    second.set("N", 3);
    let err = table.merge(&mut second).await.unwrap_err();
    assert!(err.is_precondition_failed(), "{err}");
    assert_eq!(err.code(), Some("UpdateConditionNotSatisfied"));
    let err = table.replace(&mut second).await.unwrap_err();
    assert!(err.is_precondition_failed(), "{err}");
    assert_eq!(
        table.get("p", "r").await.unwrap().unwrap().get::<i32>("N"),
        Some(2)
    );

    // With the current ETag the write succeeds; with `*` it is unconditional.
    first.set("M", true);
    table.merge(&mut first).await.unwrap();
    second.set_etag(Some(ETag::any()));
    table.replace(&mut second).await.unwrap();
    let got = table.get("p", "r").await.unwrap().unwrap();
    assert_eq!(got.get::<i32>("N"), Some(3));
    assert!(!got.contains("M"));

    let mut ghost = entity("p", "ghost");
    ghost.set_etag(Some(ETag::any()));
    let err = table.merge(&mut ghost).await.unwrap_err();
    assert!(err.is_not_found(), "{err}");
    table.delete_table().await.unwrap();
}

pub async fn delete_honours_the_etag(client: &TableServiceClient) {
    let table = fresh_table(client, "del").await;
    let mut e = entity("p", "r");
    table.insert(&mut e).await.unwrap();
    let mut stale = e.clone();
    table.upsert_merge(&mut e).await.unwrap();
    let err = table.delete(&mut stale).await.unwrap_err();
    assert!(err.is_precondition_failed(), "{err}");
    table.delete(&mut e).await.unwrap();
    assert!(e.etag().is_none());
    assert!(table.get("p", "r").await.unwrap().is_none());
    let err = table
        .delete_by_key("p", "r", &ETag::any())
        .await
        .unwrap_err();
    assert!(err.is_not_found(), "{err}");
    table.delete_table().await.unwrap();
}

/// Keys that break naive URL building: spaces, quotes, `%`, `+`, `&`, `=`, non-ASCII.
pub const AWKWARD_KEYS: [&str; 8] = [
    "a b",
    "it's",
    "''",
    "100%",
    "a+b&c=d",
    "ünïcødé ☃ 🦀",
    "(x,y)*!$;@[]",
    "",
];

pub async fn keys_with_special_characters_round_trip(client: &TableServiceClient) {
    let table = fresh_table(client, "keys").await;
    for key in AWKWARD_KEYS {
        let mut e = entity(key, key);
        e.set("Key", key);
        table
            .insert(&mut e)
            .await
            .unwrap_or_else(|err| panic!("insert {key:?}: {err}"));
        let got = table
            .get(key, key)
            .await
            .unwrap()
            .unwrap_or_else(|| panic!("get {key:?}"));
        assert_eq!(got.partition_key(), key);
        assert_eq!(got.row_key(), key);
        e.set("Seen", true);
        table
            .merge(&mut e)
            .await
            .unwrap_or_else(|err| panic!("merge {key:?}: {err}"));
        let filter = format!("PartitionKey eq '{}'", key.replace('\'', "''"));
        let found = table
            .query(Query::new().filter_raw(filter))
            .collect_all()
            .await
            .unwrap();
        assert_eq!(found.len(), 1, "filter on {key:?}");
        assert_eq!(found[0].get::<bool>("Seen"), Some(true));
    }
    let all = table.query_all().count().await.unwrap();
    assert_eq!(all, AWKWARD_KEYS.len());
    for key in AWKWARD_KEYS {
        let mut e = table.get(key, key).await.unwrap().unwrap();
        table
            .delete(&mut e)
            .await
            .unwrap_or_else(|err| panic!("delete {key:?}: {err}"));
    }
    assert_eq!(table.query_all().count().await.unwrap(), 0);
    table.delete_table().await.unwrap();
}

/// A hand-written typed entity, as `#[derive(TableEntity)]` would generate.
#[derive(Clone, Debug)]
pub struct PlayerEntity(DynamicEntity);

impl PlayerEntity {
    pub fn new(region: &str, name: &str) -> Self {
        PlayerEntity(DynamicEntity::new(region, name))
    }
    pub fn score(&self) -> i32 {
        self.0.get_or("Score", 0)
    }
    pub fn set_score(&mut self, score: i32) {
        self.0.set("Score", score);
    }
}

impl TableEntity for PlayerEntity {
    fn wrap(dynamic: DynamicEntity) -> Self {
        PlayerEntity(dynamic)
    }
    fn into_dynamic(self) -> DynamicEntity {
        self.0
    }
    fn as_dynamic(&self) -> &DynamicEntity {
        &self.0
    }
    fn as_dynamic_mut(&mut self) -> &mut DynamicEntity {
        &mut self.0
    }
}

/// The model of [`PlayerEntity`] (no table name: tables are per case).
pub struct Player;

impl TableModel for Player {
    type Entity = PlayerEntity;
}

pub async fn typed_tables_read_and_write_their_entity_type(client: &TableServiceClient) {
    let table = client.table_named::<Player>(&unique_name("typed"));
    table.create().await.unwrap();
    let mut p = PlayerEntity::new("eu", "dragon");
    p.set_score(10);
    p.0.set("Unknown", "kept"); // a property the type does not declare
    table.insert(&mut p).await.unwrap();

    let mut read: PlayerEntity = table.get("eu", "dragon").await.unwrap().unwrap();
    assert_eq!(read.score(), 10);
    read.set_score(read.score() + 5);
    table.replace(&mut read).await.unwrap();
    let again = table.get("eu", "dragon").await.unwrap().unwrap();
    assert_eq!(again.score(), 15);
    assert_eq!(again.0.get::<String>("Unknown").as_deref(), Some("kept"));

    let all: Vec<PlayerEntity> = table.query_all().collect_all().await.unwrap();
    assert_eq!(all.len(), 1);
    let mut batch = table.batch();
    batch
        .upsert_merge(&PlayerEntity::new("eu", "knight"))
        .unwrap();
    batch.submit().await.unwrap();
    assert_eq!(table.query_all().count().await.unwrap(), 2);
    table.delete_table().await.unwrap();
}

pub async fn derived_entities_query_with_typed_filters(client: &TableServiceClient) {
    assert_eq!(client.table::<Gamer>().name(), "Gamers");
    // Cases run in parallel: a per-case table instead of the model's own.
    let table = client.table_named::<Gamer>(&unique_name("gamers"));
    table.create().await.unwrap();
    for (tag, score) in [
        ("Dragon", 10),
        ("Knight", 25),
        ("Wizard", 40),
        ("Troll", 55),
    ] {
        let mut gamer = GamerEntity::new(tag);
        gamer.set_score(score);
        table.insert(&mut gamer).await.unwrap();
        assert!(gamer.as_dynamic().etag().is_some());
    }
    let q = Query::<Gamer>::new()
        .filter(Gamer::SCORE.ge(20).and(Gamer::SCORE.le(40)))
        .select((Gamer::TAG, Gamer::SCORE));
    let mut found: Vec<(String, i32)> = table
        .query(q)
        .collect_all()
        .await
        .unwrap()
        .iter()
        .map(|g| (g.tag(), g.score()))
        .collect();
    found.sort();
    assert_eq!(
        found,
        [("Knight".to_owned(), 25), ("Wizard".to_owned(), 40)]
    );

    let mut dragon = table.get("dragon", "").await.unwrap().unwrap();
    dragon.set_score(dragon.score() + 1);
    table.merge(&mut dragon).await.unwrap();
    assert_eq!(table.get("dragon", "").await.unwrap().unwrap().score(), 11);
    table.delete_table().await.unwrap();
}

/// Inserts `count` entities into partition `pk` with batches; `N` = index.
pub async fn fill_partition(table: &Table, pk: &str, count: usize) {
    for start in (0..count).step_by(100) {
        let mut batch = table.batch();
        for i in start..(start + 100).min(count) {
            let mut e = entity(pk, &format!("{i:05}"));
            e.set("N", i as i32);
            e.set("Even", i % 2 == 0);
            batch.insert(&e).unwrap();
        }
        batch.submit().await.unwrap();
    }
}

pub async fn queries_filter_select_and_top(client: &TableServiceClient) {
    let table = fresh_table(client, "qry").await;
    fill_partition(&table, "a", 50).await;
    fill_partition(&table, "b", 30).await;

    let q = Query::new().filter_raw("PartitionKey eq 'a' and N ge 10 and N lt 20");
    let found = table.query(q).collect_all().await.unwrap();
    assert_eq!(found.len(), 10);
    assert!(found.iter().all(|e| e.partition_key() == "a"));

    let q = Query::new().filter_raw("Even eq true").select_names(["N"]);
    let found = table.query(q).collect_all().await.unwrap();
    assert_eq!(found.len(), 25 + 15);
    assert!(found.iter().all(|e| e.contains("N") && !e.contains("Even")));

    let page = table
        .query(
            Query::new()
                .filter_raw("PartitionKey eq 'b'")
                .top(7)
                .unwrap(),
        )
        .first_page()
        .await
        .unwrap();
    assert_eq!(page.len(), 7);
    assert!(page.continuation().is_some());
    let total = table
        .query(
            Query::new()
                .filter_raw("PartitionKey eq 'b'")
                .top(7)
                .unwrap(),
        )
        .count()
        .await
        .unwrap();
    assert_eq!(total, 30);

    let none = table
        .query(Query::new().filter_raw("N gt 100000"))
        .collect_all()
        .await
        .unwrap();
    assert!(none.is_empty());
    table.delete_table().await.unwrap();
}

pub async fn paging_over_more_than_1000_entities_counts_exactly(client: &TableServiceClient) {
    let table = fresh_table(client, "page").await;
    fill_partition(&table, "p1", 700).await;
    fill_partition(&table, "p2", 534).await;
    let mut pages = table.query_all().pages();
    let mut sizes = Vec::new();
    let mut keys = std::collections::BTreeSet::new();
    while let Some(page) = pages.try_next().await.unwrap() {
        assert!(page.len() <= 1000);
        sizes.push(page.len());
        for e in page {
            assert!(keys.insert((e.partition_key().to_owned(), e.row_key().to_owned())));
        }
    }
    assert!(
        sizes.len() >= 2,
        "1234 entities need two pages at least: {sizes:?}"
    );
    assert_eq!(keys.len(), 1234);
    assert_eq!(
        table
            .query_all()
            .entities()
            .try_collect::<Vec<_>>()
            .await
            .unwrap()
            .len(),
        1234
    );
    let evens = table
        .query(Query::new().filter_raw("Even eq true"))
        .count()
        .await
        .unwrap();
    assert_eq!(evens, 350 + 267);
    table.delete_table().await.unwrap();
}

pub async fn take_ends_the_query_after_n_entities_whatever_the_page_size(
    client: &TableServiceClient,
) {
    let table = fresh_table(client, "take").await;
    fill_partition(&table, "p", 250).await;
    let n = |e: &DynamicEntity| e.get::<i32>("N").unwrap();
    let sizes = |pages: &[Page<DynamicEntity>]| pages.iter().map(Page::len).collect::<Vec<_>>();

    // Pages of 40, 100 entities in all: the last request asks for the 20 that are left.
    for read_ahead in [false, true] {
        let q = Query::new().top(40).unwrap().take(100);
        let pages: Vec<Page<DynamicEntity>> = table
            .query(q)
            .read_ahead(read_ahead)
            .pages()
            .try_collect()
            .await
            .unwrap();
        assert_eq!(sizes(&pages), [40, 40, 20], "read_ahead({read_ahead})");
        let seen: Vec<i32> = pages
            .iter()
            .flat_map(|p| p.entities().iter().map(n))
            .collect();
        assert_eq!(seen, (0..100).collect::<Vec<_>>());
        // The last page's continuation resumes right after the last entity taken.
        let token = pages[2].continuation().expect("more are stored").clone();
        let rest = table.query(Query::new()).resume_from(token);
        let rest: Vec<i32> = rest.collect_all().await.unwrap().iter().map(n).collect();
        assert_eq!(rest, (100..250).collect::<Vec<_>>());
    }

    // Without a page size, the request asks for no more than the total: one short page,
    // and the service says where the rest starts.
    let page = table
        .query(Query::new().take(5))
        .first_page()
        .await
        .unwrap();
    assert_eq!(
        page.entities().iter().map(n).collect::<Vec<_>>(),
        [0, 1, 2, 3, 4]
    );
    assert!(page.continuation().is_some());

    // Every consumer stops at the total; a total past the end takes what there is.
    let take = |total| table.query(Query::new().top(40).unwrap().take(total));
    assert_eq!(take(70).count().await.unwrap(), 70);
    assert_eq!(take(70).collect_all().await.unwrap().len(), 70);
    let entities: Vec<DynamicEntity> = take(45).entities().try_collect().await.unwrap();
    assert_eq!(entities.len(), 45);
    let mut chunks = take(90).chunks();
    assert_eq!(chunks.next_chunk(64).await.unwrap().len(), 64);
    assert_eq!(chunks.next_chunk(64).await.unwrap().len(), 26);
    assert!(chunks.next_chunk(64).await.unwrap().is_empty());
    assert_eq!(take(1000).count().await.unwrap(), 250);
    assert_eq!(take(0).count().await.unwrap(), 0);
    assert!(take(0).first_page().await.unwrap().is_empty());
    table.delete_table().await.unwrap();
}

pub async fn chunks_are_exact_across_pages(client: &TableServiceClient) {
    let table = fresh_table(client, "chunk").await;
    fill_partition(&table, "p", 250).await;
    // Pages of 40: chunks of 64 straddle page boundaries.
    let mut chunks = table.query(Query::new().top(40).unwrap()).chunks();
    let mut sizes = Vec::new();
    let mut seen = Vec::new();
    while chunks.has_more() {
        let chunk = chunks.next_chunk(64).await.unwrap();
        if chunk.is_empty() {
            break;
        }
        sizes.push(chunk.len());
        seen.extend(chunk.into_iter().map(|e| e.get::<i32>("N").unwrap()));
    }
    assert_eq!(sizes, [64, 64, 64, 58]);
    assert_eq!(seen, (0..250).collect::<Vec<_>>());
    assert!(chunks.next_chunk(10).await.unwrap().is_empty());
    assert!(!chunks.has_more());
    // Chunks that the entities fill exactly: the last page (no continuation) ends them, with
    // no empty chunk after.
    let mut chunks = table.query(Query::new().top(40).unwrap()).chunks();
    let mut sizes = Vec::new();
    while chunks.has_more() {
        sizes.push(chunks.next_chunk(50).await.unwrap().len());
    }
    assert_eq!(sizes, [50; 5]);
    table.delete_table().await.unwrap();
}

pub async fn read_ahead_reads_the_same_pages(client: &TableServiceClient) {
    let table = fresh_table(client, "ahead").await;
    fill_partition(&table, "p", 130).await;
    let pages = |read_ahead: bool| {
        let query = table
            .query(Query::new().top(40).unwrap())
            .read_ahead(read_ahead);
        async move {
            let pages: Vec<Page<DynamicEntity>> = query.pages().try_collect().await.unwrap();
            pages
                .iter()
                .map(|p| {
                    p.entities()
                        .iter()
                        .map(|e| e.row_key().to_owned())
                        .collect()
                })
                .collect::<Vec<Vec<String>>>()
        }
    };
    let ahead = pages(true).await;
    assert_eq!(ahead, pages(false).await);
    assert_eq!(
        ahead.iter().map(Vec::len).collect::<Vec<_>>(),
        [40, 40, 40, 10]
    );
    // The consumers that read everything read ahead by themselves.
    let query = || table.query(Query::new().top(40).unwrap());
    assert_eq!(query().count().await.unwrap(), 130);
    assert_eq!(query().collect_all().await.unwrap().len(), 130);
    table.delete_table().await.unwrap();
}

pub async fn continuation_tokens_resume_where_a_page_ended(client: &TableServiceClient) {
    let table = fresh_table(client, "cont").await;
    fill_partition(&table, "a", 45).await;
    fill_partition(&table, "b", 10).await;
    let q = Query::new().top(20).unwrap();
    let mut token: Option<String> = None;
    let mut seen = Vec::new();
    let mut pages = 0;
    loop {
        let mut query = table.query(q.clone());
        if let Some(text) = &token {
            query = query.resume_from(text.parse().unwrap());
        }
        let page = query.first_page().await.unwrap();
        pages += 1;
        seen.extend(
            page.entities()
                .iter()
                .map(|e| (e.partition_key().to_owned(), e.row_key().to_owned())),
        );
        // The token travels as one opaque string, as through a web page.
        token = page.continuation().map(ToString::to_string);
        if token.is_none() {
            break;
        }
    }
    assert_eq!(seen.len(), 55);
    let unique: std::collections::BTreeSet<_> = seen.iter().collect();
    assert_eq!(unique.len(), 55);
    assert!(pages >= 3);
    table.delete_table().await.unwrap();
}

pub async fn batch_applies_every_operation_kind(client: &TableServiceClient) {
    let table = fresh_table(client, "bok").await;
    let mut existing = Vec::new();
    for rk in ["merge", "replace", "delete"] {
        let mut e = entity("p", rk);
        e.set("Old", 1);
        table.insert(&mut e).await.unwrap();
        existing.push(e);
    }
    let mut batch = table.batch();
    let mut ins = entity("p", "insert");
    ins.set("Big", 1i64 << 40);
    batch.insert(&ins).unwrap();
    let mut um = entity("p", "upsert-merge");
    um.set("X", 1);
    batch.upsert_merge(&um).unwrap();
    let mut ur = entity("p", "upsert-replace");
    ur.set("X", 2);
    batch.upsert_replace(&ur).unwrap();
    existing[0].set("New", 2);
    batch.merge(&existing[0]).unwrap();
    existing[1].remove("Old");
    existing[1].set("New", 3);
    batch.replace(&existing[1]).unwrap();
    batch.delete(&existing[2]).unwrap();
    assert_eq!(batch.len(), 6);
    assert_eq!(batch.encoded_len(), batch.encode().len());

    let outcome = batch.submit().await.unwrap();
    assert_eq!(outcome.results().len(), 6);
    let etags = outcome.etags();
    assert!(etags[..5].iter().all(Option::is_some), "{etags:?}");
    assert!(etags[5].is_none());

    let got = table.get("p", "insert").await.unwrap().unwrap();
    assert_eq!(got.get::<i64>("Big"), Some(1 << 40));
    assert_eq!(got.etag(), etags[0]);
    assert!(table.get("p", "upsert-merge").await.unwrap().is_some());
    assert!(table.get("p", "upsert-replace").await.unwrap().is_some());
    let merged = table.get("p", "merge").await.unwrap().unwrap();
    assert_eq!(
        (merged.get::<i32>("Old"), merged.get::<i32>("New")),
        (Some(1), Some(2))
    );
    let replaced = table.get("p", "replace").await.unwrap().unwrap();
    assert_eq!(
        (replaced.get::<i32>("Old"), replaced.get::<i32>("New")),
        (None, Some(3))
    );
    assert!(table.get("p", "delete").await.unwrap().is_none());

    let mut written = [ins, um, ur];
    outcome.record_etags(written.iter_mut());
    assert_eq!(written[0].etag(), etags[0]);
    assert_eq!(written[2].etag(), etags[2]);
    table.delete_table().await.unwrap();
}

pub async fn failed_batch_applies_nothing_and_names_the_operation(client: &TableServiceClient) {
    let table = fresh_table(client, "bfail").await;
    let mut taken = entity("p", "taken");
    table.insert(&mut taken).await.unwrap();

    let mut batch = table.batch();
    batch.insert(&entity("p", "new0")).unwrap();
    batch.upsert_replace(&entity("p", "new1")).unwrap();
    batch.insert(&entity("p", "taken")).unwrap();
    batch.insert(&entity("p", "new3")).unwrap();
    let err = batch.submit().await.unwrap_err();
    match &err {
        Error::Batch { index, source } => {
            assert_eq!(*index, Some(2), "{err}");
            assert_eq!(source.code(), Some("EntityAlreadyExists"));
            assert_eq!(source.status(), 409);
        }
        other => panic!("expected a batch error, got {other}"),
    }
    assert!(err.is_conflict());
    for rk in ["new0", "new1", "new3"] {
        assert!(
            table.get("p", rk).await.unwrap().is_none(),
            "{rk} must not exist"
        );
    }

    // A failing conditional update in second place.
    let mut batch = table.batch();
    batch.insert(&entity("p", "g0")).unwrap();
    let mut ghost = entity("p", "ghost");
    ghost.set_etag(Some(ETag::any()));
    batch.merge(&ghost).unwrap();
    let err = batch.submit().await.unwrap_err();
    assert!(err.is_not_found(), "{err}");
    assert!(matches!(err, Error::Batch { index: Some(1), .. }), "{err}");
    assert!(table.get("p", "g0").await.unwrap().is_none());
    table.delete_table().await.unwrap();
}

pub async fn batch_rules_are_checked_before_sending(client: &TableServiceClient) {
    // The table does not exist: any request that went out would fail with 404, not these.
    let table: Table = client.table_named(&unique_name("brule"));
    let err = table.batch().submit().await.unwrap_err();
    assert!(
        matches!(err, Error::InvalidInput(InvalidInput::EmptyBatch)),
        "{err}"
    );

    let mut batch = table.batch();
    batch.insert(&entity("p", "1")).unwrap();
    let err = batch.insert(&entity("q", "2")).unwrap_err();
    assert!(
        matches!(
            err,
            Error::InvalidInput(InvalidInput::MixedPartitions { index: 1, .. })
        ),
        "{err}"
    );
    let err = batch.delete_by_key("p", "1", &ETag::any()).unwrap_err();
    assert!(
        matches!(
            err,
            Error::InvalidInput(InvalidInput::DuplicateRow {
                first: 0,
                second: 1,
                ..
            })
        ),
        "{err}"
    );
    assert_eq!(batch.len(), 1, "refused operations are not added");

    let mut full = table.batch();
    for i in 0..100 {
        full.insert(&entity("p", &i.to_string())).unwrap();
    }
    let err = full.insert(&entity("p", "100")).unwrap_err();
    assert!(
        matches!(
            err,
            Error::InvalidInput(InvalidInput::TooManyOperations { count: 101 })
        ),
        "{err}"
    );

    let mut heavy = table.batch();
    let mut added = 0;
    let err = loop {
        let mut e = entity("p", &added.to_string());
        for j in 0..5 {
            e.set(format!("S{j}"), "x".repeat(30_000));
        }
        match heavy.insert(&e) {
            Ok(()) => added += 1,
            Err(err) => break err,
        }
    };
    assert!(
        matches!(err, Error::InvalidInput(InvalidInput::BatchTooLarge { .. })),
        "{err}"
    );
    assert!(heavy.encoded_len() <= 4 * 1024 * 1024);
    assert_eq!(heavy.len(), added);
    assert!(!table.exists().await.unwrap());
}

pub async fn wrong_key_is_a_typed_authorization_error(client: &TableServiceClient) {
    let wrong = TableServiceClient::builder()
        .endpoint(client.endpoint().base_url().as_str())
        .account(client.endpoint().account())
        .credential(Credential::shared_key("d3Jvbmcga2V5").unwrap())
        .build()
        .unwrap();
    let err = wrong.list_table_names(None).await.unwrap_err();
    assert_eq!(err.status(), Some(403), "{err}");
    assert!(
        matches!(
            err.code(),
            Some("AuthorizationFailure" | "AuthenticationFailed")
        ),
        "{err}"
    );
    let text = format!("{err} {err:?} {wrong:?}");
    assert!(!text.contains("d3Jvbmcga2V5"), "{text}");
}

on_servers!(
    tables_create_exist_list_delete,
    create_and_delete_if_exists_report_what_they_did,
    invalid_input_is_refused_before_sending,
    every_edm_type_round_trips,
    entities_near_the_size_limit_round_trip_whole,
    insert_records_the_etag_and_conflicts_on_existing_keys,
    point_get_of_a_missing_entity_is_none,
    upserts_merge_or_replace,
    conditional_writes_fail_on_a_stale_etag,
    delete_honours_the_etag,
    keys_with_special_characters_round_trip,
    typed_tables_read_and_write_their_entity_type,
    derived_entities_query_with_typed_filters,
    queries_filter_select_and_top,
    take_ends_the_query_after_n_entities_whatever_the_page_size,
    paging_over_more_than_1000_entities_counts_exactly,
    chunks_are_exact_across_pages,
    read_ahead_reads_the_same_pages,
    continuation_tokens_resume_where_a_page_ended,
    batch_applies_every_operation_kind,
    failed_batch_applies_nothing_and_names_the_operation,
    batch_rules_are_checked_before_sending,
    wrong_key_is_a_typed_authorization_error,
);
