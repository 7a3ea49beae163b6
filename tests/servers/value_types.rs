//! Every field type a Rust user writes without thinking round-trips through a typed table on
//! each server, reads what it stored with the documented EDM types, and filters with typed
//! columns: small and pointer-sized integers, `f32`, chrono instants with and without zones,
//! dates, durations, and (behind features) decimals and `time` instants.

#![allow(missing_docs)]

use std::str::FromStr;
use std::time::Duration;

use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime, TimeDelta};
use rust_decimal::Decimal;
use tablekit::client::TableServiceClient;
use tablekit::prelude::*;
use tablekit::{EdmType, Value};

#[derive(Debug, Clone, PartialEq, TableEntity)]
pub struct Reading {
    #[tablekit(partition_key)]
    pub sensor: String,
    #[tablekit(row_key, pad = 5)]
    pub sequence: u16,
    pub level: u8,
    pub offset: i8,
    pub delta: i16,
    pub count: usize,
    pub balance: isize,
    pub ratio: f32,
    pub local: DateTime<FixedOffset>,
    pub wall: NaiveDateTime,
    pub day: NaiveDate,
    pub uptime: Duration,
    pub drift: TimeDelta,
    pub price: Decimal,
    pub logged: Option<time::OffsetDateTime>, // no `Default`: optional
}

fn reading(sequence: u16) -> Reading {
    let local = DateTime::parse_from_rfc3339("2026-11-25T23:10:00.1234567+05:30").unwrap();
    Reading {
        sensor: "boiler".into(),
        sequence,
        level: 200 + sequence as u8,
        offset: -100,
        delta: i16::MIN,
        count: usize::MAX,
        balance: isize::MIN,
        ratio: 0.1,
        local,
        wall: local.naive_utc(),
        day: NaiveDate::from_ymd_opt(2026, 11, 25).unwrap() + TimeDelta::days(i64::from(sequence)),
        uptime: Duration::new(86_400 * 365 * 300, 7), // beyond ±292 years: stored as text
        drift: TimeDelta::nanoseconds(-1_500_000_123),
        price: Decimal::from_str("12.50").unwrap(),
        logged: Some(
            time::OffsetDateTime::from_unix_timestamp_nanos(1_764_112_200_123_456_700).unwrap(),
        ),
    }
}

pub async fn new_field_types_round_trip_and_filter(client: &TableServiceClient) {
    let table = client.table_named::<Reading>(&crate::support::servers::unique_name("Readings"));
    table.create().await.unwrap();
    for sequence in 0..3 {
        let mut entity = ReadingEntity::from_model(reading(sequence)).unwrap();
        table.insert(&mut entity).await.unwrap();
    }

    let back = table.get("boiler", "00001").await.unwrap().expect("stored");
    let expected = reading(1);
    assert_eq!(
        back.to_model(),
        Reading {
            // the offset is not stored: the same instant reads back at +00:00
            local: expected.local.with_timezone(&chrono::Utc).fixed_offset(),
            ..expected.clone()
        }
    );
    assert_eq!(back.local(), expected.local);

    let stored = back.as_dynamic();
    let edm = |name: &str| stored.value(name).map(Value::edm_type);
    assert_eq!(edm("Level"), Some(EdmType::Int32));
    assert_eq!(edm("Count"), Some(EdmType::Int64));
    assert_eq!(edm("Ratio"), Some(EdmType::Double));
    assert_eq!(edm("Day"), Some(EdmType::DateTime));
    assert_eq!(edm("Drift"), Some(EdmType::Int64));
    assert_eq!(edm("Uptime"), Some(EdmType::String));
    assert_eq!(stored.value("Price"), Some(&Value::String("12.50".into())));

    let found = table
        .query(
            Query::<Reading>::new().filter(
                Reading::LEVEL
                    .ge(201u8)
                    .and(Reading::DAY.lt(expected.day + TimeDelta::days(1))),
            ),
        )
        .collect_all()
        .await
        .unwrap();
    let sequences: Vec<u16> = found.iter().map(|r| r.sequence()).collect();
    assert_eq!(sequences, [1]);

    let by_exact = table
        .query(
            Query::<Reading>::new().filter(
                Reading::PRICE
                    .eq(Decimal::from_str("12.50").unwrap())
                    .and(Reading::DRIFT.eq(expected.drift)),
            ),
        )
        .collect_all()
        .await
        .unwrap();
    assert_eq!(by_exact.len(), 3);
    table.delete_table().await.unwrap();
}

#[derive(Debug, Clone, PartialEq, TableEntity)]
pub struct Counter {
    #[tablekit(partition_key)]
    pub name: String,
    #[tablekit(row_key)]
    pub id: String,
    pub hits: u32,
}

/// `u32` values either side of `i32::MAX`, all stored as `Int64`: ordering and equality
/// filters find exactly the right rows (with `Int32` below and `Int64` above, the emulator
/// missed rows and Azurite refused the query), and an `Int32` written before still reads.
pub async fn u32_filters_find_values_either_side_of_i32_max(client: &TableServiceClient) {
    let table = client.table_named::<Counter>(&crate::support::servers::unique_name("Counters"));
    table.create().await.unwrap();
    let values = [5, i32::MAX as u32, i32::MAX as u32 + 1, u32::MAX];
    for (i, hits) in values.into_iter().enumerate() {
        let mut counter = CounterEntity::from_model(Counter {
            name: "c".into(),
            id: format!("{i}"),
            hits,
        })
        .unwrap();
        table.insert(&mut counter).await.unwrap();
    }
    let stored = table.get("c", "0").await.unwrap().unwrap();
    assert_eq!(stored.as_dynamic().value("Hits"), Some(&Value::Int64(5)));

    let hits = |filter| {
        let table = table.clone();
        async move {
            let found = table.query(Query::new().filter(filter)).collect_all().await;
            let mut hits: Vec<u32> = found.unwrap().iter().map(CounterEntity::hits).collect();
            hits.sort_unstable();
            hits
        }
    };
    let big = i32::MAX as u32;
    assert_eq!(hits(Counter::HITS.gt(5)).await, &values[1..]);
    assert_eq!(hits(Counter::HITS.gt(big)).await, &values[2..]);
    assert_eq!(hits(Counter::HITS.lt(big + 1)).await, &values[..2]);
    assert_eq!(hits(Counter::HITS.le(big + 1)).await, &values[..3]);
    for value in values {
        assert_eq!(hits(Counter::HITS.eq(value)).await, [value]);
        let others: Vec<u32> = values.into_iter().filter(|v| *v != value).collect();
        assert_eq!(hits(Counter::HITS.ne(value)).await, others);
    }

    let mut old = DynamicEntity::new("c", "old");
    old.set("Hits", Value::Int32(7));
    let raw: tablekit::client::Table = client.table_named(table.name());
    raw.insert(&mut old).await.unwrap();
    let read = table.get("c", "old").await.unwrap().unwrap();
    assert_eq!(read.try_hits().unwrap(), 7);
    table.delete_table().await.unwrap();
}

on_servers!(
    new_field_types_round_trip_and_filter,
    u32_filters_find_values_either_side_of_i32_max,
);
