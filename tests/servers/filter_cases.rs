//! Filters on every server: parameterised hand-written filters of every value type, and the
//! generated `*_key_between` time ranges of each time format, with entities at both edges of a
//! range and one tick either side of them.
//!
//! Each case creates its own uniquely named table, so cases run in parallel.

use std::collections::BTreeSet;
use std::ops::{Bound, RangeBounds};

use chrono::{Datelike, Duration, TimeZone};
use tablekit::client::Table;
use tablekit::filter::Params;
use tablekit::prelude::*;

use crate::support::models::{Blog, BlogEntity};
use crate::support::servers::unique_name;

/// A fresh table no other case uses.
async fn fresh_table<M: TableModel>(client: &TableServiceClient, prefix: &str) -> Table<M> {
    let table: Table<M> = client.table_named(&unique_name(prefix));
    table.create().await.expect("create the case's table");
    table
}

/// The RowKeys a query finds, sorted.
async fn rows(table: &Table, query: Query<DynamicEntity>) -> Vec<String> {
    let found = table
        .query(query)
        .collect_all()
        .await
        .expect("the query runs");
    let mut rows: Vec<String> = found.iter().map(|e| e.row_key().to_owned()).collect();
    rows.sort();
    rows
}

fn when(day: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2024, 5, day, 12, 0, 0).unwrap() + Duration::nanoseconds(1_234_500)
}

/// Four gamers holding a value of every type; one's name has a quote and an `@`.
async fn gamers(client: &TableServiceClient) -> Table {
    let table: Table = fresh_table(client, "params").await;
    let names = ["O'Brien @home", "Ann", "it''s", "x@y"];
    for (i, name) in names.into_iter().enumerate() {
        let n = i as u32 + 1;
        let mut e = DynamicEntity::new(if n % 2 == 0 { "eu" } else { "us" }, format!("g{n}"));
        e.set("Name", name);
        e.set("Score", 10 * n as i32);
        e.set("Total", (1i64 << 40) * i64::from(n));
        e.set("Ratio", f64::from(n) / 4.0);
        e.set("Active", n % 2 == 1);
        e.set("When", when(n));
        e.set("Id", Uuid::from_u128(u128::from(n)));
        e.set("Blob", vec![0u8, n as u8, 0xfe]);
        table.insert(&mut e).await.expect("insert a gamer");
    }
    table
}

pub async fn parameterised_filters_find_exactly_their_entities(client: &TableServiceClient) {
    let table = gamers(client).await;
    let cases: Vec<(&str, Params, Vec<&str>)> = vec![
        (
            "Name eq @name",
            Params::new().bind("name", "O'Brien @home"),
            vec!["g1"],
        ),
        (
            "Name eq @name",
            Params::new().bind("name", "it''s"),
            vec!["g3"],
        ),
        (
            "Name eq @a or Name eq @b or Name eq 'x@y'",
            Params::new().bind("a", "Ann").bind("b", "it''s"),
            vec!["g2", "g3", "g4"],
        ),
        (
            "PartitionKey eq @pk and Score ge @lo and Score lt @hi",
            Params::new().bind("pk", "us").bind("lo", 10).bind("hi", 30),
            vec!["g1"],
        ),
        (
            "Total gt @t",
            Params::new().bind("t", 2i64 << 40),
            vec!["g3", "g4"],
        ),
        (
            "Ratio le @r",
            Params::new().bind("r", 0.5),
            vec!["g1", "g2"],
        ),
        (
            "Active eq @on",
            Params::new().bind("on", false),
            vec!["g2", "g4"],
        ),
        (
            "When ge @t",
            Params::new().bind("t", when(3)),
            vec!["g3", "g4"],
        ),
        (
            "When lt @t",
            Params::new().bind("t", when(3)),
            vec!["g1", "g2"],
        ),
        (
            "Id eq @id",
            Params::new().bind("id", Uuid::from_u128(2)),
            vec!["g2"],
        ),
        (
            "Blob eq @b",
            Params::new().bind("b", vec![0u8, 4, 0xfe]),
            vec!["g4"],
        ),
        (
            "(PartitionKey eq @pk or RowKey eq @pk) and Name ne @pk",
            Params::new().bind("pk", "eu"),
            vec!["g2", "g4"],
        ),
    ];
    for (text, params, expected) in cases {
        let query = Query::new().filter_raw_with(text, params).unwrap();
        assert_eq!(rows(&table, query).await, expected, "{text}");
    }
    table.delete_table().await.unwrap();
}

pub async fn a_spliced_value_changes_the_filter_where_a_parameter_does_not(
    client: &TableServiceClient,
) {
    let table = gamers(client).await;
    // User input that closes the string and adds a condition.
    let input = "x' or PartitionKey ne '";
    let spliced = Query::new().filter_raw(format!("Name eq '{input}'"));
    assert_eq!(
        rows(&table, spliced).await.len(),
        4,
        "the injected condition holds for all"
    );
    let bound = Query::new()
        .filter_raw_with("Name eq @name", [("name", input)])
        .unwrap();
    assert!(
        rows(&table, bound).await.is_empty(),
        "no gamer has that name"
    );
    table.delete_table().await.unwrap();
}

#[derive(Debug, Clone, PartialEq, TableEntity)]
pub struct Reading {
    #[tablekit(partition_key)]
    pub sensor: String,
    #[tablekit(row_key(ticks))]
    pub at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, TableEntity)]
pub struct Visit {
    #[tablekit(partition_key(order = 0))]
    pub site: String,
    #[tablekit(partition_key(order = 1, format = "yyyyMMdd"))]
    pub at: DateTime<Utc>,
    #[tablekit(row_key)]
    pub id: u32,
}

const TICK: Duration = Duration::nanoseconds(100);

type TimeRange = (Bound<DateTime<Utc>>, Bound<DateTime<Utc>>);

/// The edges of the ranges the cases query: a month end to a month start.
fn edges() -> (DateTime<Utc>, DateTime<Utc>) {
    (
        Utc.with_ymd_and_hms(2024, 1, 31, 23, 0, 0).unwrap(),
        Utc.with_ymd_and_hms(2024, 3, 1, 0, 0, 0).unwrap(),
    )
}

/// Both edges, one tick either side of each, a time between and times well outside.
fn times() -> Vec<DateTime<Utc>> {
    let (a, b) = edges();
    vec![
        Utc.with_ymd_and_hms(2023, 12, 31, 23, 59, 59).unwrap(),
        a - Duration::days(1),
        a - TICK,
        a,
        a + TICK,
        Utc.with_ymd_and_hms(2024, 2, 14, 8, 30, 0).unwrap(),
        b - TICK,
        b,
        b + TICK,
        b + Duration::hours(23),
        Utc.with_ymd_and_hms(2024, 4, 1, 0, 0, 0).unwrap(),
    ]
}

fn ranges() -> Vec<TimeRange> {
    use Bound::{Excluded, Included, Unbounded};
    let (a, b) = edges();
    vec![
        (Included(a), Excluded(b)),
        (Included(a), Included(b)),
        (Excluded(a), Excluded(b)),
        (Unbounded, Included(b)),
        (Excluded(a), Unbounded),
    ]
}

/// Whether `[first, next)` holds a tick of `range`: the first one, if any, is the bucket's
/// start or the range's start (these edges are whole ticks).
fn overlaps(first: DateTime<Utc>, next: DateTime<Utc>, range: &TimeRange) -> bool {
    let mut candidates = vec![first];
    if let Bound::Included(s) | Bound::Excluded(s) = range.start_bound() {
        candidates.extend([*s, *s + TICK]);
    }
    candidates
        .into_iter()
        .any(|t| first <= t && t < next && range.contains(&t))
}

fn month_of(t: DateTime<Utc>) -> (DateTime<Utc>, DateTime<Utc>) {
    let first = Utc
        .with_ymd_and_hms(t.year(), t.month(), 1, 0, 0, 0)
        .unwrap();
    let next = if t.month() == 12 {
        Utc.with_ymd_and_hms(t.year() + 1, 1, 1, 0, 0, 0).unwrap()
    } else {
        Utc.with_ymd_and_hms(t.year(), t.month() + 1, 1, 0, 0, 0)
            .unwrap()
    };
    (first, next)
}

fn day_of(t: DateTime<Utc>) -> (DateTime<Utc>, DateTime<Utc>) {
    let first = Utc
        .with_ymd_and_hms(t.year(), t.month(), t.day(), 0, 0, 0)
        .unwrap();
    (first, first + Duration::days(1))
}

/// The times of `times()` that `keep` selects.
fn expected(keep: impl Fn(DateTime<Utc>) -> bool) -> BTreeSet<DateTime<Utc>> {
    times().into_iter().filter(|t| keep(*t)).collect()
}

/// Blogs at every time, in the channel and in one sorting right after it.
async fn blogs(client: &TableServiceClient) -> Table<Blog> {
    let table: Table<Blog> = fresh_table(client, "blogs").await;
    for channel in ["rust", "rusty"] {
        for t in times() {
            table
                .insert(&mut BlogEntity::new(channel, t))
                .await
                .unwrap();
        }
    }
    table
}

async fn blog_times(table: &Table<Blog>, filter: Filter<Blog>) -> BTreeSet<DateTime<Utc>> {
    let found = table
        .query(Query::new().filter(filter))
        .collect_all()
        .await
        .unwrap();
    assert!(
        found.iter().all(|b| b.channel() == "rust"),
        "one channel only"
    );
    found.iter().map(BlogEntity::posted).collect()
}

pub async fn inverted_ticks_row_ranges_are_exact_at_every_edge(client: &TableServiceClient) {
    let table = blogs(client).await;
    let rust = "rust".to_owned();
    for range in ranges() {
        // The partition range narrows the scan to the months; the row range is exact.
        let filter = Blog::partition_key_between(&rust, range).and(Blog::row_key_between(range));
        let found = blog_times(&table, filter.clone()).await;
        assert_eq!(
            found,
            expected(|t| range.contains(&t)),
            "{range:?}: {filter}"
        );
    }
    table.delete_table().await.unwrap();
}

pub async fn inverted_year_month_partition_ranges_hold_every_overlapping_month(
    client: &TableServiceClient,
) {
    let table = blogs(client).await;
    let rust = "rust".to_owned();
    for range in ranges() {
        let filter = Blog::partition_key_between(&rust, range);
        let found = blog_times(&table, filter.clone()).await;
        let months = expected(|t| {
            let (first, next) = month_of(t);
            overlaps(first, next, &range)
        });
        assert_eq!(found, months, "{range:?}: {filter}");
    }
    table.delete_table().await.unwrap();
}

pub async fn ticks_row_ranges_are_exact_at_every_edge(client: &TableServiceClient) {
    let table: Table<Reading> = fresh_table(client, "readings").await;
    for sensor in ["s1", "s2"] {
        for t in times() {
            table
                .insert(&mut ReadingEntity::new(sensor, t))
                .await
                .unwrap();
        }
    }
    for range in ranges() {
        let filter = Reading::SENSOR
            .eq("s1")
            .and(Reading::row_key_between(range));
        let found = table
            .query(Query::new().filter(filter.clone()))
            .collect_all()
            .await
            .unwrap();
        let found: BTreeSet<DateTime<Utc>> = found.iter().map(ReadingEntity::at).collect();
        assert_eq!(
            found,
            expected(|t| range.contains(&t)),
            "{range:?}: {filter}"
        );
    }
    table.delete_table().await.unwrap();
}

pub async fn date_pattern_partition_ranges_hold_every_overlapping_day(client: &TableServiceClient) {
    let table: Table<Visit> = fresh_table(client, "visits").await;
    for (site, offset) in [("shop", 0), ("shopping", 100)] {
        for (i, t) in times().into_iter().enumerate() {
            table
                .insert(&mut VisitEntity::new(site, t, offset + i as u32))
                .await
                .unwrap();
        }
    }
    let shop = "shop".to_owned();
    for range in ranges() {
        let filter = Visit::partition_key_between(&shop, range);
        let found = table
            .query(Query::new().filter(filter.clone()))
            .collect_all()
            .await
            .unwrap();
        assert!(found.iter().all(|v| v.site() == "shop"), "one site only");
        let found: BTreeSet<DateTime<Utc>> = found.iter().map(VisitEntity::at).collect();
        let days = expected(|t| {
            let (first, next) = day_of(t);
            overlaps(first, next, &range)
        });
        assert_eq!(found, days, "{range:?}: {filter}");
    }
    table.delete_table().await.unwrap();
}

pub async fn an_empty_time_range_finds_nothing(client: &TableServiceClient) {
    let table = blogs(client).await;
    let (a, b) = edges();
    let rust = "rust".to_owned();
    for filter in [
        Blog::row_key_between(a..a),
        Blog::row_key_between(b..a),
        Blog::partition_key_between(&rust, b..=a),
    ] {
        assert!(blog_times(&table, filter).await.is_empty());
    }
    table.delete_table().await.unwrap();
}

on_servers!(
    parameterised_filters_find_exactly_their_entities,
    a_spliced_value_changes_the_filter_where_a_parameter_does_not,
    inverted_ticks_row_ranges_are_exact_at_every_edge,
    ticks_row_ranges_are_exact_at_every_edge,
    inverted_year_month_partition_ranges_hold_every_overlapping_month,
    date_pattern_partition_ranges_hold_every_overlapping_day,
    an_empty_time_range_finds_nothing,
);
