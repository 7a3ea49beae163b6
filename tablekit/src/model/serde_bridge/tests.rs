use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, TimeZone, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::*;
use crate::values::convert::ValueError;
use crate::values::etag::ETag;
use crate::values::value::{EdmType, Value};

/// Bytes as serde's bytes type, as `serde_bytes` writes and reads them.
#[derive(Debug, PartialEq)]
struct Bytes(Vec<u8>);

impl Serialize for Bytes {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.0)
    }
}

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Bytes;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E: serde::de::Error>(self, b: &[u8]) -> Result<Bytes, E> {
                Ok(Bytes(b.to_vec()))
            }
        }
        d.deserialize_byte_buf(V)
    }
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
enum Level {
    Bronze,
    Gold,
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Meters(f64);

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Everything {
    #[serde(rename = "PartitionKey")]
    pk: String,
    #[serde(rename = "RowKey")]
    rk: String,
    flag: bool,
    tiny: i8,
    small: i16,
    int: i32,
    byte: u8,
    short: u16,
    word: u32,
    big_word: u32,
    long: i64,
    unsigned: u64,
    huge: u64,
    single: f32,
    double: f64,
    letter: char,
    text: String,
    bytes: Bytes,
    nothing: Option<i32>,
    some: Option<i32>,
    unit: Option<()>,
    distance: Meters,
    level: Level,
    #[serde(with = "datetime")]
    at: DateTime<Utc>,
    #[serde(with = "guid")]
    id: Uuid,
    #[serde(with = "datetime::option", default)]
    maybe_at: Option<DateTime<Utc>>,
    #[serde(with = "guid::option", default)]
    maybe_id: Option<Uuid>,
}

fn everything() -> Everything {
    Everything {
        pk: "p".into(),
        rk: "r".into(),
        flag: true,
        tiny: -8,
        small: i16::MIN,
        int: i32::MAX,
        byte: 200,
        short: u16::MAX,
        word: 7,
        big_word: u32::MAX,
        long: i64::MIN,
        unsigned: 5,
        huge: u64::MAX,
        single: 0.1,
        double: -2.5e300,
        letter: 'é',
        text: "hello".into(),
        bytes: Bytes(vec![0, 1, 255]),
        nothing: None,
        some: Some(3),
        unit: None,
        distance: Meters(1.5),
        level: Level::Gold,
        at: Utc.with_ymd_and_hms(2026, 11, 25, 23, 10, 0).unwrap()
            + chrono::TimeDelta::nanoseconds(1_234_500),
        id: Uuid::from_u128(0xfeed),
        maybe_at: Some(DateTime::UNIX_EPOCH),
        maybe_id: None,
    }
}

#[test]
fn every_mapping_stores_its_edm_type_and_round_trips() {
    let value = everything();
    let entity = to_entity(&value).unwrap();
    assert_eq!((entity.partition_key(), entity.row_key()), ("p", "r"));
    let expected = [
        ("flag", Value::Bool(true)),
        ("tiny", Value::Int32(-8)),
        ("small", Value::Int32(i32::from(i16::MIN))),
        ("int", Value::Int32(i32::MAX)),
        ("byte", Value::Int32(200)),
        ("short", Value::Int32(i32::from(u16::MAX))),
        ("word", Value::Int64(7)),
        ("big_word", Value::Int64(i64::from(u32::MAX))),
        ("long", Value::Int64(i64::MIN)),
        ("unsigned", Value::Int64(5)),
        ("huge", Value::Int64(-1)), // the bit pattern of u64::MAX
        ("single", Value::Double(f64::from(0.1f32))),
        ("double", Value::Double(-2.5e300)),
        ("letter", Value::String("é".into())),
        ("text", Value::String("hello".into())),
        ("bytes", Value::Binary(vec![0, 1, 255])),
        ("some", Value::Int32(3)),
        ("distance", Value::Double(1.5)),
        ("level", Value::String("Gold".into())),
        ("at", Value::DateTime(value.at)),
        ("id", Value::Guid(value.id)),
        ("maybe_at", Value::DateTime(DateTime::UNIX_EPOCH)),
    ];
    let stored: Vec<(&str, &Value)> = entity.properties().collect();
    let expected: Vec<(&str, &Value)> = expected.iter().map(|(n, v)| (*n, v)).collect();
    assert_eq!(stored, expected); // `None`s and units are absent; no key is a property
    assert_eq!(from_entity::<Everything>(&entity).unwrap(), value);
}

#[test]
fn datetimes_keep_ticks_and_drop_finer_digits() {
    #[derive(Serialize)]
    struct At {
        #[serde(rename = "PartitionKey")]
        pk: &'static str,
        #[serde(rename = "RowKey")]
        rk: &'static str,
        #[serde(with = "datetime")]
        at: DateTime<Utc>,
    }
    let at = DateTime::UNIX_EPOCH + chrono::TimeDelta::nanoseconds(123_456_789);
    let entity = to_entity(&At {
        pk: "p",
        rk: "r",
        at,
    })
    .unwrap();
    let kept = DateTime::UNIX_EPOCH + chrono::TimeDelta::nanoseconds(123_456_700);
    assert_eq!(entity.value("at"), Some(&Value::DateTime(kept)));
}

#[test]
fn text_that_looks_like_a_date_or_guid_stays_text() {
    let mut map = BTreeMap::new();
    map.insert("PartitionKey", "p".to_owned());
    map.insert("RowKey", "r".to_owned());
    map.insert("When", "2026-11-25T23:10:00Z".to_owned());
    map.insert("Id", Uuid::from_u128(1).to_string());
    let entity = to_entity(&map).unwrap();
    assert_eq!(
        entity.value("When").map(Value::edm_type),
        Some(EdmType::String)
    );
    assert_eq!(
        entity.value("Id").map(Value::edm_type),
        Some(EdmType::String)
    );
    // and reads back from the entity as a map of everything, keys included
    let back: BTreeMap<String, String> = from_entity(&entity).unwrap();
    assert_eq!(back.len(), 4);
    assert_eq!(back["PartitionKey"], "p");
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct System {
    #[serde(rename = "PartitionKey")]
    pk: String,
    #[serde(rename = "RowKey")]
    rk: String,
    #[serde(rename = "Timestamp", with = "datetime::option", default)]
    timestamp: Option<DateTime<Utc>>,
    #[serde(rename = "odata.etag", default)]
    etag: Option<String>,
    score: i32,
}

#[test]
fn timestamp_and_etag_are_system_fields_both_ways() {
    let at = Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap();
    let mut stored = crate::DynamicEntity::new("p", "r");
    stored.set("score", 1);
    stored.set_timestamp(Some(at));
    stored.set_etag(Some(ETag::new("W/\"x\"")));
    let read: System = from_entity(&stored).unwrap();
    assert_eq!(read.timestamp, Some(at));
    assert_eq!(read.etag.as_deref(), Some("W/\"x\""));

    let written = to_entity(&read).unwrap();
    assert_eq!(written, stored); // neither is written as a property
    assert_eq!(written.len(), 1);
}

#[test]
fn a_timestamp_as_text_is_read_and_written() {
    #[derive(Debug, Serialize, Deserialize)]
    struct Text {
        #[serde(rename = "PartitionKey")]
        pk: String,
        #[serde(rename = "RowKey")]
        rk: String,
        #[serde(rename = "Timestamp")]
        timestamp: String,
    }
    let at = Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap();
    let mut stored = crate::DynamicEntity::new("p", "r");
    stored.set_timestamp(Some(at));
    let read: Text = from_entity(&stored).unwrap();
    assert_eq!(read.timestamp, "2026-01-02T03:04:05Z");
    assert_eq!(to_entity(&read).unwrap().timestamp(), Some(at));
    let bad = Text {
        timestamp: "yesterday".into(),
        ..read
    };
    assert!(
        matches!(to_entity(&bad), Err(SerdeError::Unparsable { ref field, .. }) if field == "Timestamp")
    );
}

#[test]
fn nested_values_are_refused_naming_the_field() {
    #[derive(Serialize)]
    struct Inner {
        a: i32,
    }
    #[derive(Serialize)]
    enum Shape {
        Circle(f64),
        Square { side: f64 },
        Pair(i32, i32),
    }
    #[derive(Serialize)]
    struct Outer<T> {
        #[serde(rename = "PartitionKey")]
        pk: &'static str,
        #[serde(rename = "RowKey")]
        rk: &'static str,
        field: T,
    }
    fn kind<T: Serialize>(field: T) -> &'static str {
        match to_entity(&Outer {
            pk: "p",
            rk: "r",
            field,
        }) {
            Err(SerdeError::Nested { field, kind }) if field == "field" => kind,
            other => panic!("not refused: {other:?}"),
        }
    }
    assert_eq!(kind(Inner { a: 1 }), "a struct");
    assert_eq!(kind(vec![1u8, 2]), "a sequence");
    assert_eq!(kind((1, 2)), "a tuple");
    assert_eq!(kind(HashMap::from([("a", 1)])), "a map");
    assert_eq!(kind(Shape::Circle(1.0)), "an enum variant with data");
    assert_eq!(
        kind(Shape::Square { side: 1.0 }),
        "an enum variant with data"
    );
    assert_eq!(kind(Shape::Pair(1, 2)), "an enum variant with data");
    assert_eq!(kind(Some(vec![1])), "a sequence");
    let message = to_entity(&Outer {
        pk: "p",
        rk: "r",
        field: [1],
    })
    .unwrap_err()
    .to_string();
    assert!(
        message.contains("`json` storage of `#[derive(TableEntity)]`"),
        "{message}"
    );
}

#[test]
fn flatten_spreads_a_struct_over_the_entity() {
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Address {
        city: String,
    }
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Person {
        #[serde(rename = "PartitionKey")]
        pk: String,
        #[serde(rename = "RowKey")]
        rk: String,
        #[serde(flatten)]
        address: Address,
    }
    let person = Person {
        pk: "p".into(),
        rk: "r".into(),
        address: Address {
            city: "Oslo".into(),
        },
    };
    let entity = to_entity(&person).unwrap();
    assert_eq!(entity.value("city"), Some(&Value::String("Oslo".into())));
    assert_eq!(from_entity::<Person>(&entity).unwrap(), person);
}

#[test]
fn values_that_are_not_entities_are_refused() {
    assert_eq!(
        to_entity(&1),
        Err(SerdeError::NotAnEntity {
            found: "an integer"
        })
    );
    assert_eq!(
        to_entity(&vec![1]),
        Err(SerdeError::NotAnEntity {
            found: "a sequence"
        })
    );
    assert_eq!(
        to_entity(&Level::Gold),
        Err(SerdeError::NotAnEntity {
            found: "an enum variant"
        })
    );
    let numbered = BTreeMap::from([(1, 2)]);
    assert_eq!(
        to_entity(&numbered),
        Err(SerdeError::FieldName { found: "Edm.Int32" })
    );
}

#[test]
fn keys_must_be_present_and_text() {
    #[derive(Serialize)]
    struct NoRow {
        #[serde(rename = "PartitionKey")]
        pk: &'static str,
    }
    assert_eq!(
        to_entity(&NoRow { pk: "p" }),
        Err(SerdeError::MissingKey { key: "RowKey" })
    );
    #[derive(Serialize)]
    struct NumberKey {
        #[serde(rename = "PartitionKey")]
        pk: i32,
        #[serde(rename = "RowKey")]
        rk: Option<&'static str>,
    }
    let err = to_entity(&NumberKey { pk: 1, rk: None }).unwrap_err();
    assert!(
        matches!(err, SerdeError::SystemField { field: "PartitionKey", found: ref f, .. } if f == "Edm.Int32")
    );
    assert_eq!(
        err.to_string(),
        "`PartitionKey` must be a string, found Edm.Int32"
    );
    let err = to_entity(&NumberKey { pk: 1, rk: None }.rk).unwrap_err();
    assert_eq!(err, SerdeError::NotAnEntity { found: "`None`" });
}

#[derive(Debug, PartialEq, Deserialize)]
struct Tolerant {
    wide: i64,
    narrow: i32,
    #[serde(default)]
    missing: u8,
    absent: Option<String>,
    ratio: f64,
}

fn stored(entries: &[(&str, Value)]) -> crate::DynamicEntity {
    let mut e = crate::DynamicEntity::new("p", "r");
    for (name, value) in entries {
        e.set(*name, value.clone());
    }
    e
}

#[test]
fn reads_are_tolerant_where_nothing_is_lost() {
    let e = stored(&[
        ("wide", Value::Int32(5)),
        ("narrow", Value::Int64(-7)),
        ("ratio", Value::Int32(2)),
        ("other", Value::Bool(true)),
    ]);
    assert_eq!(
        from_entity::<Tolerant>(&e).unwrap(),
        Tolerant {
            wide: 5,
            narrow: -7,
            missing: 0,
            absent: None,
            ratio: 2.0
        }
    );
}

fn property_error(e: &crate::DynamicEntity) -> (String, ValueError) {
    match from_entity::<Tolerant>(e) {
        Err(SerdeError::Property(PropertyError {
            property, source, ..
        })) => (property, source),
        other => panic!("not a property error: {other:?}"),
    }
}

#[test]
fn unreadable_properties_are_typed_errors_naming_the_property() {
    let base = [("wide", Value::Int32(5)), ("ratio", Value::Double(1.0))];
    let mut e = stored(&base);
    e.set("narrow", Value::Int64(1 << 40));
    let (name, source) = property_error(&e);
    assert_eq!(name, "narrow");
    assert!(matches!(
        source,
        ValueError::OutOfRange { target: "i32", .. }
    ));

    e.set("narrow", Value::String("7".into()));
    let (name, source) = property_error(&e);
    assert_eq!(name, "narrow");
    assert!(matches!(
        source,
        ValueError::TypeMismatch {
            found: EdmType::String,
            ..
        }
    ));

    e.set("narrow", 1);
    e.set("missing", Value::Int32(300));
    let (name, source) = property_error(&e);
    assert_eq!(
        (name.as_str(), &source),
        (
            "missing",
            &ValueError::OutOfRange {
                value: "300".into(),
                target: "u8"
            }
        )
    );

    e.set("missing", 1);
    e.set("absent", Value::Binary(vec![1]));
    assert_eq!(property_error(&e).0, "absent");

    let e = stored(&[("wide", Value::Int32(5))]);
    assert_eq!(
        from_entity::<Tolerant>(&e),
        Err(SerdeError::MissingField { field: "narrow" })
    );
}

#[test]
fn errors_of_a_field_type_name_the_property() {
    #[derive(Debug, Deserialize)]
    struct Times {
        #[serde(with = "datetime")]
        _at: DateTime<Utc>,
    }
    let err = from_entity::<Times>(&stored(&[("_at", Value::String("soon".into()))])).unwrap_err();
    assert!(
        matches!(err, SerdeError::Property(PropertyError { ref property, source: ValueError::Invalid(_), .. }) if property == "_at"),
        "{err:?}"
    );
    let err = from_entity::<Times>(&stored(&[("_at", Value::Int32(1))])).unwrap_err();
    assert!(
        matches!(
            err,
            SerdeError::Property(PropertyError {
                source: ValueError::TypeMismatch {
                    expected: "Edm.DateTime",
                    ..
                },
                ..
            })
        ),
        "{err:?}"
    );
    let err = from_entity::<Everything>(&stored(&[("level", Value::String("Platinum".into()))]))
        .unwrap_err();
    assert!(
        matches!(err, SerdeError::Property(PropertyError { ref property, .. }) if property == "level"),
        "{err:?}"
    );
}

#[test]
fn deny_unknown_fields_refuses_other_properties_but_not_system_fields() {
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Strict {
        #[serde(rename = "RowKey")]
        _rk: String,
        _score: i32,
    }
    let mut e = stored(&[("_score", Value::Int32(1))]);
    e.set_timestamp(Some(DateTime::UNIX_EPOCH));
    e.set_etag(Some(ETag::new("W/\"1\"")));
    from_entity::<Strict>(&e).unwrap(); // PartitionKey, Timestamp and the ETag are not offered
    e.set("extra", 1);
    assert_eq!(
        from_entity::<Strict>(&e).unwrap_err(),
        SerdeError::UnknownField {
            field: "extra".into()
        }
    );
}

#[test]
fn stored_dates_and_guids_read_into_text_fields_and_text_into_helpers() {
    #[derive(Debug, PartialEq, Deserialize)]
    struct Text {
        at: String,
        id: String,
        #[serde(with = "guid")]
        parsed: Uuid,
    }
    let id = Uuid::from_u128(9);
    let e = stored(&[
        ("at", Value::DateTime(DateTime::UNIX_EPOCH)),
        ("id", Value::Guid(id)),
        ("parsed", Value::String(id.to_string().into())),
    ]);
    let read: Text = from_entity(&e).unwrap();
    assert_eq!(
        read,
        Text {
            at: "1970-01-01T00:00:00Z".into(),
            id: id.to_string(),
            parsed: id
        }
    );
}

#[test]
fn untyped_fields_read_every_stored_type() {
    let e = stored(&[
        ("b", Value::Bool(true)),
        ("i", Value::Int32(1)),
        ("l", Value::Int64(2)),
        ("d", Value::Double(0.5)),
        ("s", Value::String("x".into())),
        ("t", Value::DateTime(DateTime::UNIX_EPOCH)),
        ("g", Value::Guid(Uuid::nil())),
    ]);
    let read: BTreeMap<String, serde_json::Value> = from_entity(&e).unwrap();
    assert_eq!(read["b"], true);
    assert_eq!(read["l"], 2);
    assert_eq!(read["t"], "1970-01-01T00:00:00Z");
    assert_eq!(read.len(), 9); // with the keys
                               // JSON has no bytes: the visitor's refusal names the property
    let e = stored(&[("bin", Value::Binary(vec![7]))]);
    let err = from_entity::<BTreeMap<String, serde_json::Value>>(&e).unwrap_err();
    assert!(
        matches!(err, SerdeError::Property(PropertyError { ref property, .. }) if property == "bin")
    );
}

#[test]
fn a_partial_entity_refuses_fields_it_did_not_fetch() {
    let mut e = stored(&[("wide", Value::Int32(1))]);
    e.set_selection(std::sync::Arc::new(crate::values::entity::Selection::new(
        ["wide"],
    )));
    let (name, source) = property_error(&e);
    assert_eq!((name.as_str(), source), ("narrow", ValueError::NotSelected));
}

#[test]
fn stored_data_never_panics_a_read() {
    // Every stored type into every field type: errors, never panics.
    let values = [
        Value::Bool(false),
        Value::Int32(i32::MIN),
        Value::Int64(i64::MAX),
        Value::Double(f64::NAN),
        Value::Double(f64::INFINITY),
        Value::String("".into()),
        Value::DateTime(DateTime::<Utc>::MAX_UTC),
        Value::Guid(Uuid::max()),
        Value::Binary(vec![]),
    ];
    let names = [
        "flag", "tiny", "small", "int", "byte", "short", "word", "big_word", "long", "unsigned",
        "huge", "single", "double", "letter", "text", "bytes", "some", "unit", "distance", "level",
        "at", "id", "maybe_at", "maybe_id",
    ];
    for name in names {
        for value in &values {
            let mut e = to_entity(&everything()).unwrap();
            e.set(name, value.clone());
            let _ = from_entity::<Everything>(&e);
        }
    }
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Flat {
    #[serde(rename = "PartitionKey")]
    pk: String,
    #[serde(rename = "RowKey")]
    rk: String,
    flag: bool,
    tiny: i8,
    byte: u8,
    short: u16,
    int: i32,
    word: u32,
    long: i64,
    huge: u64,
    double: f64,
    single: f32,
    letter: char,
    text: String,
    bytes: Bytes,
    maybe: Option<i64>,
    level: Level,
    #[serde(with = "datetime")]
    at: DateTime<Utc>,
    #[serde(with = "guid::option", default)]
    id: Option<Uuid>,
}

fn any_float() -> impl proptest::strategy::Strategy<Value = f64> {
    use proptest::num::f64::{INFINITE, NEGATIVE, NORMAL, POSITIVE, SUBNORMAL, ZERO};
    POSITIVE | NEGATIVE | NORMAL | SUBNORMAL | ZERO | INFINITE
}

proptest::proptest! {
    /// Any flat struct survives the bridge and the wire format: to an entity, to the service's
    /// JSON, back to an entity, back to an equal struct.
    #[test]
    fn flat_structs_round_trip_through_the_wire_format(
        (pk, rk, text) in (".*", ".*", ".*"),
        (flag, tiny, byte, short, int) in proptest::prelude::any::<(bool, i8, u8, u16, i32)>(),
        (word, long, huge, letter) in proptest::prelude::any::<(u32, i64, u64, char)>(),
        double in any_float(),
        single in proptest::num::f32::NORMAL,
        bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..40),
        maybe in proptest::prelude::any::<Option<i64>>(),
        gold in proptest::prelude::any::<bool>(),
        ticks in 0..=crate::values::value::MAX_TICKS,
        id in proptest::prelude::any::<Option<u128>>(),
    ) {
        let flat = Flat {
            pk, rk, flag, tiny, byte, short, int, word, long, huge, double, single, letter, text,
            bytes: Bytes(bytes),
            maybe,
            level: if gold { Level::Gold } else { Level::Bronze },
            at: crate::values::value::from_ticks(ticks).unwrap(),
            id: id.map(Uuid::from_u128),
        };
        let entity = to_entity(&flat).unwrap();
        let wire = crate::codec::encode_entity(&entity);
        let decoded = crate::codec::decode_entity(&wire).unwrap();
        proptest::prop_assert_eq!(&decoded, &entity);
        proptest::prop_assert_eq!(from_entity::<Flat>(&decoded).unwrap(), flat);
    }
}

#[test]
fn set_model_writes_onto_the_entity_read() {
    use crate::model::table_model::TableEntity;
    let mut stored = crate::DynamicEntity::new("p", "r");
    stored.set("wide", Value::Int32(1));
    stored.set("absent", "gone soon");
    stored.set("other", 1.5);
    stored.set_etag(Some(ETag::new("W/\"1\"")));
    let mut entity = Serde::<Tolerant>::wrap(stored);
    // `narrow` is not stored: the model does not read, but can still be written
    assert_eq!(
        entity.model(),
        Err(SerdeError::MissingField { field: "narrow" })
    );

    #[derive(Serialize)]
    struct Write {
        #[serde(rename = "PartitionKey")]
        pk: &'static str,
        #[serde(rename = "RowKey")]
        rk: &'static str,
        wide: i64,
        narrow: i32,
        absent: Option<String>,
        ratio: u8,
    }
    let write = Write {
        pk: "p",
        rk: "r",
        wide: 1 << 40,
        narrow: 2,
        absent: None,
        ratio: 1,
    };
    let mut typed = Serde::<Write>::wrap(entity.clone().into_dynamic());
    typed.set_model(&write).unwrap();
    let e = typed.as_dynamic();
    assert_eq!(e.value("wide"), Some(&Value::Int64(1 << 40)));
    assert!(!e.contains("absent"), "`None` removes");
    assert_eq!(e.get::<f64>("other"), Some(1.5), "unnamed properties stay");
    assert_eq!(e.etag(), Some(&ETag::new("W/\"1\"")), "the ETag read stays");
    assert_eq!(
        e.unreadable_overwrites().count(),
        0,
        "Int32 to Int64 is readable"
    );

    entity.as_dynamic_mut().set("ratio", "high");
    let mut typed = Serde::<Write>::wrap(entity.into_dynamic());
    typed.set_model(&write).unwrap();
    let pending: Vec<_> = typed.as_dynamic().unreadable_overwrites().collect();
    assert_eq!(
        pending,
        [("ratio", "stored Edm.String, the model writes Edm.Int32")]
    );
}

#[test]
fn readable_pairs_follow_the_read_tolerances() {
    use super::ser::readable_as;
    use EdmType::*;
    assert!(readable_as(Int32, Int64) && readable_as(Int64, Int32) && readable_as(Int32, Double));
    assert!(readable_as(DateTime, String) && readable_as(String, Guid));
    assert!(
        !readable_as(Int64, Double) && !readable_as(String, Int32) && !readable_as(Binary, String)
    );
}
