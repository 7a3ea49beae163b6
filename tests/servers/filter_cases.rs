//! Filters on every server: parameterised hand-written filters of every value type, the
//! generated `*_key_between` time ranges of each time format, with entities at both edges of a
//! range and one tick either side of them, Doubles compared as IEEE 754 says (NaN, the
//! infinities, signed zeros), and literals out of their type's range. Where Azurite answers
//! otherwise than Azure, a case runs on the emulator only and says why.
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

/// One entity per Double that IEEE 754 singles out, and two ordinary ones, RowKey naming it.
async fn doubles(client: &TableServiceClient) -> Table {
    let table: Table = fresh_table(client, "doubles").await;
    for (row, d) in [
        ("nan", f64::NAN),
        ("inf", f64::INFINITY),
        ("ninf", f64::NEG_INFINITY),
        ("nzero", -0.0),
        ("zero", 0.0),
        ("neg", -400.67004),
        ("pos", 1.5),
    ] {
        let mut e = DynamicEntity::new("p", row);
        e.set("D", d);
        table.insert(&mut e).await.expect("insert a double");
    }
    table
}

/// The rows of [`doubles`] each filter finds.
async fn assert_finds(table: &Table, cases: &[(&str, &[&str])]) {
    for (text, expected) in cases {
        let found = rows(table, Query::new().filter_raw(*text)).await;
        assert_eq!(found, *expected, "{text}");
    }
}

/// NaN is unordered (IEEE 754): `ne` holds with it and nothing else does, so `ne` is
/// `not (.. eq ..)`; `-0.0` equals `0.0`; the infinities order below and above every number.
/// Azurite 3.37 agrees (its `ne` is JavaScript's `!==`, its `lt` JavaScript's `<`): `D ne
/// -400.67004` finds the NaN. It reads no exponent, so the literals here have none.
pub async fn nan_and_signed_zeros_compare_as_ieee_754(client: &TableServiceClient) {
    let table = doubles(client).await;
    let all_but_neg: &[&str] = &["inf", "nan", "ninf", "nzero", "pos", "zero"];
    assert_finds(
        &table,
        &[
            ("D ne -400.67004", all_but_neg),
            ("not (D eq -400.67004)", all_but_neg),
            ("-400.67004 ne D", all_but_neg),
            ("D eq -400.67004", &["neg"]),
            ("D lt 0.0", &["neg", "ninf"]),
            ("D le 0.0", &["neg", "ninf", "nzero", "zero"]),
            ("D gt 0.0", &["inf", "pos"]),
            ("D ge -0.0", &["inf", "nzero", "pos", "zero"]),
            ("D eq 0.0", &["nzero", "zero"]),
            ("0.0 gt D", &["neg", "ninf"]),
            ("D gt 1000000.0", &["inf"]),
            // Only NaN is neither below nor at or above a number.
            ("not (D lt 1.5 or D ge 1.5)", &["nan"]),
            ("not (D le 1.5) and not (D gt 1.5)", &["nan"]),
        ],
    )
    .await;
    table.delete_table().await.unwrap();
}

/// The literals `NaN`, `INF` and `-INF` (what typed filters write for them) compare as IEEE
/// 754 says: `D ne NaN` holds for every Double, even a NaN, and `D eq NaN` for none.
/// Emulator only: Azurite 3.37 reads them as property names, which no entity has (`D ne NaN`
/// finds nothing there).
pub async fn nan_and_infinity_literals_compare_as_ieee_754(client: &TableServiceClient) {
    let table = doubles(client).await;
    let all: &[&str] = &["inf", "nan", "neg", "ninf", "nzero", "pos", "zero"];
    assert_finds(
        &table,
        &[
            ("D ne NaN", all),
            ("not (D eq NaN)", all),
            ("D eq NaN", &[]),
            ("D ge NaN or D lt NaN", &[]),
            ("D eq INF", &["inf"]),
            ("D lt INF", &["neg", "ninf", "nzero", "pos", "zero"]),
            ("D le -INF", &["ninf"]),
            ("-INF lt D", &["inf", "neg", "nzero", "pos", "zero"]),
        ],
    )
    .await;
    let ratio: Column<DynamicEntity, f64> = Column::dynamic("D");
    for (filter, expected) in [
        (ratio.ne(f64::NAN), all),
        (ratio.eq(f64::INFINITY), &["inf"]),
    ] {
        assert_eq!(rows(&table, Query::new().filter(filter)).await, expected);
    }
    table.delete_table().await.unwrap();
}

/// A number its type cannot hold is refused as Azure refuses it: 400 InvalidInput
/// "Unrecognized 'Edm.Int32' literal '5454161346626'" for an Int64 written without its `L`.
/// Emulator only: Azurite 3.37 answers each of these filters 200 (`L eq 5454161346626` and
/// `D lt 1e999` with no entity, `L gt -2147483649` with the entity).
pub async fn literals_out_of_their_types_range_are_refused(client: &TableServiceClient) {
    let table: Table = fresh_table(client, "literals").await;
    let mut e = DynamicEntity::new("p", "big");
    e.set("L", 5_454_161_346_626i64);
    e.set("D", 2.5);
    table.insert(&mut e).await.unwrap();
    let found = rows(&table, Query::new().filter_raw("L eq 5454161346626L")).await;
    assert_eq!(found, ["big"]);
    for (text, message) in [
        (
            "L eq 5454161346626",
            "Unrecognized 'Edm.Int32' literal '5454161346626'",
        ),
        (
            "L gt -2147483649",
            "Unrecognized 'Edm.Int32' literal '-2147483649'",
        ),
        (
            "L eq 9223372036854775808L",
            "Unrecognized 'Edm.Int64' literal '9223372036854775808L'",
        ),
        ("D lt 1e999", "Unrecognized 'Edm.Double' literal '1e999'"),
    ] {
        let err = table
            .query(Query::new().filter_raw(text))
            .collect_all()
            .await
            .expect_err(text);
        assert_eq!(err.status(), Some(400), "{text}: {err}");
        assert_eq!(err.code(), Some("InvalidInput"), "{text}: {err}");
        let said = err.service_error().map(|e| e.message()).unwrap_or_default();
        assert!(said.starts_with(message), "{text}: {said}");
    }
    // Written with placeholders, the same number is refused before anything is sent.
    let refused = Query::<DynamicEntity>::new()
        .filter_raw_with("L eq 5454161346626 and PartitionKey eq @pk", [("pk", "p")]);
    assert!(refused.is_err());
    table.delete_table().await.unwrap();
}

on_servers!({
        emulator_only: crate::support::servers::emulator().await,
    }
    nan_and_infinity_literals_compare_as_ieee_754,
    literals_out_of_their_types_range_are_refused,
);

on_servers!(
    nan_and_signed_zeros_compare_as_ieee_754,
    parameterised_filters_find_exactly_their_entities,
    a_spliced_value_changes_the_filter_where_a_parameter_does_not,
    inverted_ticks_row_ranges_are_exact_at_every_edge,
    ticks_row_ranges_are_exact_at_every_edge,
    inverted_year_month_partition_ranges_hold_every_overlapping_month,
    date_pattern_partition_ranges_hold_every_overlapping_day,
    an_empty_time_range_finds_nothing,
);
