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

on_servers!(new_field_types_round_trip_and_filter);
