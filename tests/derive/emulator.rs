//! Derived entities, composed keys and typed filters executed by the in-process emulator over
//! real HTTP: prefix bounds select exactly one expense, inverted ticks list newest first, and
//! every literal type a typed filter renders is accepted and matched by the service.

// Test fixtures mirror the user code of the READMEs and examples; documenting them adds
// nothing.
#![allow(missing_docs)]

use chrono::{TimeZone, Utc};
use tablekit::prelude::*;
use tablekit_testing::Emulator;

use crate::support::models::{Blog, BlogEntity, ExpenseItem, ExpenseItemEntity};

#[derive(Debug, Clone, PartialEq, TableEntity)]
pub struct Sample {
    #[tablekit(partition_key)]
    pub bucket: String,
    #[tablekit(row_key)]
    pub name: String,
    pub flag: bool,
    pub small: i32,
    pub big: i64,
    pub ratio: f64,
    pub when: DateTime<Utc>,
    pub id: Uuid,
    pub bytes: Vec<u8>,
}

#[tokio::test]
async fn row_key_prefix_selects_exactly_one_expense() {
    let emulator = Emulator::start().await.unwrap();
    let client = emulator.client();
    let table = client.table_named::<ExpenseItem>("Expenses");
    table.create().await.unwrap();
    // Ids chosen so that a neighbouring expense id starts with the same characters.
    let expenses = [
        Uuid::from_u128(1),
        Uuid::from_u128(2),
        Uuid::from_u128(0x10),
    ];
    for user in ["ann", "bob"] {
        for expense in expenses {
            for item in 0..3u128 {
                let mut e = ExpenseItemEntity::new(user, expense, Uuid::from_u128(100 + item));
                e.set_amount(1.5);
                table.insert(&mut e).await.unwrap();
            }
        }
    }
    let q = Query::<ExpenseItem>::new().filter(
        ExpenseItem::PARTITION_KEY
            .eq("ann")
            .and(ExpenseItem::row_key_prefix(&expenses[0])),
    );
    let found = table.query(q).collect_all().await.unwrap();
    assert_eq!(found.len(), 3);
    assert!(found
        .iter()
        .all(|e| e.user() == "ann" && e.expense_id() == expenses[0] && e.amount() == 1.5));
}

#[tokio::test]
async fn blog_posts_come_back_newest_first_within_a_month() {
    let emulator = Emulator::start().await.unwrap();
    let client = emulator.client();
    let table = client.table::<Blog>();
    table.create().await.unwrap();
    let base = Utc.with_ymd_and_hms(2008, 10, 1, 0, 0, 0).unwrap();
    for day in [3i64, 1, 20, 7] {
        let mut b = BlogEntity::new("rust", base + chrono::Duration::days(day));
        b.set_text(format!("day {day}"));
        table.insert(&mut b).await.unwrap();
    }
    let mut other = BlogEntity::new("rust", base + chrono::Duration::days(40));
    table.insert(&mut other).await.unwrap();
    let q =
        Query::<Blog>::new().filter(Blog::PARTITION_KEY.eq(Blog::partition_key_of("rust", &base)));
    let texts: Vec<String> = table
        .query(q)
        .collect_all()
        .await
        .unwrap()
        .iter()
        .map(BlogEntity::text)
        .collect();
    assert_eq!(texts, ["day 20", "day 7", "day 3", "day 1"]);
    let all = table
        .query(Query::<Blog>::new().filter(Blog::partition_key_prefix("rust")))
        .collect_all()
        .await
        .unwrap();
    assert_eq!(all.len(), 5);
}

#[tokio::test]
async fn every_typed_literal_is_matched_by_the_service() {
    let emulator = Emulator::start().await.unwrap();
    let client = emulator.client();
    let table = client.table_named::<Sample>("Samples");
    table.create().await.unwrap();
    let when = Utc.with_ymd_and_hms(2020, 5, 6, 7, 8, 9).unwrap()
        + chrono::Duration::nanoseconds(1_234_500);
    let model = |name: &str, n: i32| Sample {
        bucket: "b".into(),
        name: name.into(),
        flag: n % 2 == 0,
        small: n,
        big: i64::from(n) << 40,
        ratio: f64::from(n) / 4.0,
        when: when + chrono::Duration::seconds(i64::from(n)),
        id: Uuid::from_u128(n as u128),
        bytes: vec![n as u8, 0xff],
    };
    for (i, name) in ["it's", "a''b", "é\u{1F600}", "plain"].iter().enumerate() {
        let mut e = SampleEntity::from_model(model(name, i as i32)).unwrap();
        table.insert(&mut e).await.unwrap();
    }
    let m = model("x", 2);
    let cases: Vec<(Filter<Sample>, usize)> = vec![
        (Sample::ROW_KEY.eq("it's"), 1),
        (Sample::ROW_KEY.eq("a''b"), 1),
        (Sample::ROW_KEY.eq("é\u{1F600}"), 1),
        (Sample::FLAG.eq(true), 2),
        (Sample::SMALL.ge(1).and(Sample::SMALL.lt(3)), 2),
        (Sample::BIG.eq(m.big), 1),
        (Sample::RATIO.gt(0.25), 2),
        (Sample::RATIO.eq(0.5), 1),
        (Sample::WHEN.eq(m.when), 1),
        (Sample::WHEN.lt(m.when), 2),
        (Sample::ID.eq(m.id), 1),
        (Sample::BYTES.eq(m.bytes.clone()), 1),
        (Sample::ROW_KEY.starts_with("a'"), 1),
        (Sample::SMALL.eq(0).or(Sample::SMALL.eq(3)).not(), 2),
    ];
    for (filter, expected) in cases {
        let text = filter.to_string();
        let found = table
            .query(Query::<Sample>::new().filter(filter))
            .collect_all()
            .await
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(found.len(), expected, "{text}");
    }
}
