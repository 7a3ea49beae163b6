//! Serde models written through `tablekit::serde_bridge` and the client are stored with the
//! documented EDM types on each server, read back equal, carry their ETag into a conditional
//! replace, and, through a `Serde<T>` table, keep the properties they do not name.

#![allow(missing_docs)]

use chrono::{DateTime, TimeZone, Utc};
use serde::{Deserialize, Serialize};
use tablekit::client::TableServiceClient;
use tablekit::serde_bridge::{self, from_entity, to_entity, Serde};
use tablekit::{DynamicEntity, EdmType};
use uuid::Uuid;

/// Bytes as serde's bytes type, as `serde_bytes` writes and reads them.
#[derive(Debug, Clone, PartialEq)]
pub struct Bytes(Vec<u8>);

impl Serialize for Bytes {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.0)
    }
}

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl serde::de::Visitor<'_> for Visit {
            type Value = Bytes;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E: serde::de::Error>(self, b: &[u8]) -> Result<Bytes, E> {
                Ok(Bytes(b.to_vec()))
            }
        }
        d.deserialize_byte_buf(Visit)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Tier {
    Free,
    Pro,
}

/// A model as users of other Azure Table clients write them: PascalCase properties, the keys
/// as fields, and the service's Timestamp and ETag read into optional fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Account {
    pub partition_key: String,
    pub row_key: String,
    #[serde(with = "serde_bridge::datetime::option", default)]
    pub timestamp: Option<DateTime<Utc>>,
    #[serde(rename = "odata.etag", default)]
    pub etag: Option<String>,
    pub active: bool,
    pub level: u8,
    pub visits: u32,
    pub balance: i64,
    pub quota: u64,
    pub ratio: f64,
    pub initial: char,
    pub name: String,
    pub avatar: Bytes,
    pub nickname: Option<String>,
    pub tier: Tier,
    #[serde(with = "serde_bridge::datetime")]
    pub opened: DateTime<Utc>,
    #[serde(with = "serde_bridge::guid")]
    pub id: Uuid,
    pub id_text: Uuid,
}

fn account() -> Account {
    Account {
        partition_key: "eu".into(),
        row_key: "alice".into(),
        timestamp: None,
        etag: None,
        active: true,
        level: 250,
        visits: u32::MAX,
        balance: -(1 << 40),
        quota: u64::MAX,
        ratio: 0.1,
        initial: 'A',
        name: "Alice".into(),
        avatar: Bytes(vec![0, 1, 2, 255]),
        nickname: None,
        tier: Tier::Pro,
        opened: Utc.with_ymd_and_hms(2026, 11, 25, 23, 10, 0).unwrap()
            + chrono::TimeDelta::nanoseconds(1_234_500),
        id: Uuid::from_u128(0x0123_4567_89ab_cdef),
        id_text: Uuid::from_u128(42),
    }
}

pub async fn serde_model_round_trips_with_edm_types(client: &TableServiceClient) {
    let table =
        client.table_named::<DynamicEntity>(&crate::support::servers::unique_name("Accounts"));
    table.create().await.unwrap();
    let written = account();
    let mut entity = to_entity(&written).unwrap();
    table.insert(&mut entity).await.unwrap();

    let stored = table.get("eu", "alice").await.unwrap().expect("stored");
    let mut types: Vec<(&str, EdmType)> = stored
        .properties()
        .map(|(n, v)| (n, v.edm_type()))
        .collect();
    types.sort_unstable_by_key(|(name, _)| *name);
    assert_eq!(
        types,
        [
            ("Active", EdmType::Boolean),
            ("Avatar", EdmType::Binary),
            ("Balance", EdmType::Int64),
            ("Id", EdmType::Guid),
            ("IdText", EdmType::String),
            ("Initial", EdmType::String),
            ("Level", EdmType::Int32),
            ("Name", EdmType::String),
            ("Opened", EdmType::DateTime),
            ("Quota", EdmType::Int64),
            ("Ratio", EdmType::Double),
            ("Tier", EdmType::String),
            ("Visits", EdmType::Int64),
        ]
    );

    let read: Account = from_entity(&stored).unwrap();
    assert!(read.timestamp.is_some(), "the service's Timestamp is read");
    assert_eq!(read.etag.as_deref(), stored.etag().map(|e| e.as_str()));
    assert_eq!(
        read,
        Account {
            timestamp: read.timestamp,
            etag: read.etag.clone(),
            ..written
        }
    );
}

pub async fn serde_model_etag_guards_a_replace(client: &TableServiceClient) {
    let table =
        client.table_named::<DynamicEntity>(&crate::support::servers::unique_name("Accounts"));
    table.create().await.unwrap();
    table
        .insert(&mut to_entity(&account()).unwrap())
        .await
        .unwrap();

    let stored = table.get("eu", "alice").await.unwrap().expect("stored");
    let mut read: Account = from_entity(&stored).unwrap();
    read.nickname = Some("Ali".into());
    let mut current = to_entity(&read).unwrap();
    table.replace(&mut current).await.unwrap();

    read.nickname = Some("Stale".into());
    let mut stale = to_entity(&read).unwrap(); // still the first read's ETag
    let err = table.replace(&mut stale).await.unwrap_err();
    assert_eq!(err.code(), Some("UpdateConditionNotSatisfied"));

    let after: Account = from_entity(&table.get("eu", "alice").await.unwrap().unwrap()).unwrap();
    assert_eq!(after.nickname.as_deref(), Some("Ali"));
}

pub async fn serde_table_keeps_what_the_model_does_not_name(client: &TableServiceClient) {
    let name = crate::support::servers::unique_name("Accounts");
    let table = client.table_named::<Serde<Account>>(&name);
    table.create().await.unwrap();
    table
        .insert(&mut Serde::from_model(&account()).unwrap())
        .await
        .unwrap();
    // Another program adds a property the model does not know.
    let untyped = client.table_named::<DynamicEntity>(&name);
    let mut other = DynamicEntity::new("eu", "alice");
    other.set("Referrer", "bob");
    untyped.upsert_merge(&mut other).await.unwrap();

    let mut read = table.get("eu", "alice").await.unwrap().expect("stored");
    let mut model = read.model().unwrap();
    model.nickname = Some("Ali".into());
    read.set_model(&model).unwrap();
    table.replace(&mut read).await.unwrap();

    let stored = untyped.get("eu", "alice").await.unwrap().expect("stored");
    assert_eq!(stored.get::<String>("Referrer").as_deref(), Some("bob"));
    assert_eq!(stored.get::<String>("Nickname").as_deref(), Some("Ali"));

    // A model that would replace text it cannot read is refused before anything is sent.
    let mut other = DynamicEntity::new("eu", "alice");
    other.set("Level", "max");
    untyped.upsert_merge(&mut other).await.unwrap();
    let mut read = table.get("eu", "alice").await.unwrap().expect("stored");
    assert!(read.model().is_err(), "text does not read as u8");
    read.set_model(&account()).unwrap();
    let err = table.replace(&mut read).await.unwrap_err();
    assert!(err.is_invalid_input(), "{err}");
    let stored = untyped.get("eu", "alice").await.unwrap().expect("stored");
    assert_eq!(stored.get::<String>("Level").as_deref(), Some("max"));
}

on_servers!(
    serde_model_round_trips_with_edm_types,
    serde_model_etag_guards_a_replace,
    serde_table_keeps_what_the_model_does_not_name
);
