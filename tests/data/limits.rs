//! Every service limit, tested on both sides of its boundary: the last accepted value and the
//! first refused one, with the typed error naming the problem.

use chrono::Duration;
use tablekit::limits::{self, *};
use tablekit::value::{max_datetime, min_datetime};
use tablekit::{DynamicEntity, Error, InvalidInput, KeyKind, Value};

const EMOJI: &str = "\u{1F600}"; // two UTF-16 units, four UTF-8 bytes

#[test]
fn table_name_length_is_3_to_63() {
    assert!(validate_table_name("abc").is_ok());
    assert!(validate_table_name(&format!("a{}", "b".repeat(62))).is_ok());
    for bad in [
        "ab".to_owned(),
        format!("a{}", "b".repeat(63)),
        String::new(),
    ] {
        let err = validate_table_name(&bad).unwrap_err();
        assert!(matches!(&err, InvalidInput::TableName { name, .. } if *name == bad));
    }
}

#[test]
fn table_name_characters() {
    assert!(validate_table_name("A1b2C3").is_ok());
    assert!(validate_table_name("1abc").is_err(), "starts with a digit");
    assert!(validate_table_name("ab-c").is_err());
    assert!(validate_table_name("ab_c").is_err());
    assert!(validate_table_name("abé").is_err(), "ASCII only");
    assert!(validate_table_name("tables").is_err());
    assert!(
        validate_table_name("Tables").is_err(),
        "reserved in any case"
    );
    assert!(validate_table_name("tables1").is_ok());
    let err = Error::from(validate_table_name("1abc").unwrap_err());
    assert!(err.is_invalid_input());
    assert!(err.to_string().contains("`1abc`"), "{err}");
}

#[test]
fn property_name_length_is_at_most_255() {
    assert!(validate_property_name(&"a".repeat(255)).is_ok());
    assert!(matches!(
        validate_property_name(&"a".repeat(256)),
        Err(InvalidInput::PropertyName { .. })
    ));
    // Counted in characters, not bytes.
    assert!(validate_property_name(&"é".repeat(255)).is_ok());
    assert!(validate_property_name("").is_err());
}

#[test]
fn property_name_characters() {
    for good in ["a", "_", "_x1", "Name_2", "Größe"] {
        assert!(validate_property_name(good).is_ok(), "{good}");
    }
    for bad in [
        "1a",
        "a-b",
        "a b",
        "a.b",
        "a@odata.type",
        "PartitionKey",
        "RowKey",
        "Timestamp",
    ] {
        let err = validate_property_name(bad).unwrap_err();
        assert!(err.to_string().contains(bad), "{err}");
    }
    assert!(validate_property_name("PartitionKey2").is_ok());
    assert!(
        validate_property_name("timestamp").is_ok(),
        "system names are case-sensitive"
    );
}

#[test]
fn key_length_is_at_most_512_utf16_units() {
    for kind in [KeyKind::PartitionKey, KeyKind::RowKey] {
        assert!(validate_key(kind, &"k".repeat(512)).is_ok());
        assert!(validate_key(kind, "").is_ok());
        assert_eq!(
            validate_key(kind, &"k".repeat(513)),
            Err(InvalidInput::KeyTooLong {
                key: kind,
                units: 513
            })
        );
        // A character outside the BMP counts twice.
        assert!(validate_key(kind, &format!("{}{EMOJI}", "k".repeat(510))).is_ok());
        assert_eq!(
            validate_key(kind, &format!("{}{EMOJI}", "k".repeat(511))),
            Err(InvalidInput::KeyTooLong {
                key: kind,
                units: 513
            })
        );
    }
}

#[test]
fn key_characters() {
    for c in ['/', '\\', '#', '?', '\u{0}', '\u{1f}', '\u{7f}', '\u{9f}'] {
        let key = format!("a{c}b");
        assert_eq!(
            validate_key(KeyKind::RowKey, &key),
            Err(InvalidInput::KeyCharacter {
                key: KeyKind::RowKey,
                value: key.clone(),
                character: c,
                position: 1
            }),
            "{c:?}"
        );
    }
    // Just outside each forbidden range, and characters that look risky but are allowed.
    for c in [
        '\u{20}', '\u{7e}', '\u{a0}', '\'', '%', '+', '&', '=', 'ü', '☃',
    ] {
        assert!(
            validate_key(KeyKind::PartitionKey, &format!("a{c}b")).is_ok(),
            "{c:?}"
        );
    }
}

#[test]
fn string_values_are_at_most_32767_utf16_units() {
    let ok = Value::String("s".repeat(MAX_STRING_UNITS).into());
    assert!(validate_value("S", &ok).is_ok());
    let long = Value::String("s".repeat(MAX_STRING_UNITS + 1).into());
    assert_eq!(
        validate_value("S", &long),
        Err(InvalidInput::StringTooLong {
            property: "S".into(),
            units: 32_768
        })
    );
    let pairs = Value::String(format!("{}{EMOJI}", "s".repeat(MAX_STRING_UNITS - 2)).into());
    assert!(validate_value("S", &pairs).is_ok());
    let pairs = Value::String(format!("{}{EMOJI}", "s".repeat(MAX_STRING_UNITS - 1)).into());
    assert!(validate_value("S", &pairs).is_err());
}

#[test]
fn binary_values_are_at_most_64_kib() {
    assert!(validate_value("B", &Value::Binary(vec![0; 65_536])).is_ok());
    assert_eq!(
        validate_value("B", &Value::Binary(vec![0; 65_537])),
        Err(InvalidInput::BinaryTooLarge {
            property: "B".into(),
            bytes: 65_537
        })
    );
}

#[test]
fn datetimes_are_within_1601_to_9999() {
    let tick = Duration::nanoseconds(100);
    assert!(validate_value("T", &Value::DateTime(min_datetime())).is_ok());
    assert!(validate_value("T", &Value::DateTime(max_datetime())).is_ok());
    for bad in [min_datetime() - tick, max_datetime() + tick] {
        assert_eq!(
            validate_value("T", &Value::DateTime(bad)),
            Err(InvalidInput::DateTimeOutOfRange {
                property: "T".into()
            })
        );
    }
}

fn with_properties(count: usize) -> DynamicEntity {
    let mut e = DynamicEntity::new("p", "r");
    for i in 0..count {
        e.set(format!("P{i}"), true);
    }
    e
}

#[test]
fn at_most_252_user_properties() {
    assert!(validate_entity(&with_properties(252)).is_ok());
    assert_eq!(
        validate_entity(&with_properties(253)),
        Err(InvalidInput::TooManyProperties { count: 253 })
    );
}

/// An entity whose size by the service's formula is exactly `size` (made of binary values
/// within their own limit).
fn entity_of_size(size: usize) -> DynamicEntity {
    let mut e = DynamicEntity::new("p", "r");
    let mut left = size - e.size();
    let mut i = 0;
    while left > 0 {
        let name = format!("B{i:02}");
        let overhead = property_size(&name, &Value::Binary(Vec::new()));
        let bytes = (left - overhead).min(MAX_BINARY_BYTES);
        e.set(name, vec![7u8; bytes]);
        left -= overhead + bytes;
        i += 1;
    }
    e
}

#[test]
fn entities_are_at_most_1_mib_by_the_service_formula() {
    let full = entity_of_size(MAX_ENTITY_BYTES);
    assert_eq!(full.size(), 1_048_576);
    assert!(validate_entity(&full).is_ok());
    let over = entity_of_size(MAX_ENTITY_BYTES + 1);
    assert_eq!(over.size(), 1_048_577);
    assert_eq!(
        validate_entity(&over),
        Err(InvalidInput::EntityTooLarge { bytes: 1_048_577 })
    );
}

#[test]
fn entity_size_follows_the_formula_for_every_type() {
    // 4 (Timestamp) + 2 x key lengths in UTF-16 units.
    let empty = DynamicEntity::new("pk", format!("r{EMOJI}"));
    assert_eq!(empty.size(), 4 + 2 * (2 + 3));
    let cases: [(Value, usize); 8] = [
        (Value::Bool(true), 1),
        (Value::Int32(1), 4),
        (Value::Int64(1), 8),
        (Value::Double(1.0), 8),
        (Value::DateTime(min_datetime()), 8),
        (Value::Guid(uuid::Uuid::nil()), 16),
        (Value::String(format!("ab{EMOJI}").into()), 4 + 2 * 4),
        (Value::Binary(vec![1, 2, 3]), 4 + 3),
    ];
    for (value, value_size) in cases {
        let mut e = DynamicEntity::new("pk", "");
        e.set("Na", value.clone());
        assert_eq!(e.size(), 4 + 2 * 2 + 8 + 2 * 2 + value_size, "{value:?}");
        assert_eq!(limits::entity_size(&e), e.size());
    }
}

#[test]
fn validate_entity_checks_keys_names_and_values() {
    let mut e = DynamicEntity::new("p", "r");
    e.set("Ok", 1);
    assert!(validate_entity(&e).is_ok());
    e.set("bad name", 1);
    assert!(matches!(
        validate_entity(&e),
        Err(InvalidInput::PropertyName { .. })
    ));
    let mut e = DynamicEntity::new("p", "r#1");
    e.set("Ok", 1);
    assert!(matches!(
        validate_entity(&e),
        Err(InvalidInput::KeyCharacter {
            key: KeyKind::RowKey,
            ..
        })
    ));
    let mut e = DynamicEntity::new("p", "r");
    e.set("Long", "x".repeat(40_000));
    let err = validate_entity(&e).unwrap_err();
    assert!(err.to_string().contains("`Long`"), "{err}");
}
