//! Values and the dynamic entity: typed reads are tolerant where nothing is lost, report a
//! mismatch otherwise, and never panic; "nothing" is never stored.

use chrono::{DateTime, TimeZone, Utc};
use tablekit::value::{from_ticks, to_ticks, truncate_to_tick, utf16_len, MAX_TICKS};
use tablekit::{
    DynamicEntity, ETag, EdmType, FromValue, IntoValue, PropertyError, TableEntity, Value,
    ValueError,
};
use uuid::Uuid;

fn every_value() -> Vec<Value> {
    vec![
        Value::Bool(true),
        Value::Int32(-5),
        Value::Int64(1 << 40),
        Value::Double(f64::NAN),
        Value::DateTime(Utc.with_ymd_and_hms(2024, 1, 2, 3, 4, 5).unwrap()),
        Value::Guid(Uuid::from_u128(7)),
        Value::String("s".into()),
        Value::Binary(vec![1, 2]),
    ]
}

#[test]
fn int32_widens_to_i64_and_f64() {
    let mut e = DynamicEntity::new("p", "r");
    e.set("N", 7);
    assert_eq!(e.value("N"), Some(&Value::Int32(7)));
    assert_eq!(e.get::<i64>("N"), Some(7));
    assert_eq!(e.get::<f64>("N"), Some(7.0));
    assert_eq!(e.get::<u32>("N"), Some(7));
}

#[test]
fn int64_narrows_to_i32_only_in_range() {
    let mut e = DynamicEntity::new("p", "r");
    e.set("Small", 42i64);
    e.set("Big", i64::from(i32::MAX) + 1);
    assert_eq!(e.get::<i32>("Small"), Some(42));
    assert_eq!(e.get::<i32>("Big"), None);
    assert_eq!(e.get_or::<i32>("Big", -1), -1);
    let err = e.try_get::<i32>("Big").unwrap_err();
    assert!(matches!(
        &err,
        PropertyError { property, source: ValueError::OutOfRange { target: "i32", .. }, .. }
            if property == "Big"
    ));
    assert!(err.to_string().contains("`Big`"), "{err}");
}

#[test]
fn a_value_of_another_type_is_a_reported_mismatch_never_a_panic() {
    let mut e = DynamicEntity::new("p", "r");
    for (i, value) in every_value().into_iter().enumerate() {
        e.set(format!("V{i}"), value);
    }
    for i in 0..8 {
        let name = format!("V{i}");
        // Every read of every type answers, and exactly one type family reads each value.
        let reads = [
            e.try_get::<bool>(&name).is_ok(),
            e.try_get::<i64>(&name).is_ok(),
            e.try_get::<String>(&name).is_ok(),
            e.try_get::<Vec<u8>>(&name).is_ok(),
            e.try_get::<DateTime<Utc>>(&name).is_ok(),
            e.try_get::<Uuid>(&name).is_ok(),
        ];
        let _ = (
            e.get::<f64>(&name),
            e.get::<i32>(&name),
            e.get::<u64>(&name),
        );
        let expected = usize::from(i != 3); // the Double reads only as f64
        assert_eq!(reads.iter().filter(|r| **r).count(), expected, "{name}");
    }
    assert_eq!(
        e.try_get::<String>("V0").unwrap_err().to_string(),
        "property `V0`: expected Edm.String, found Edm.Boolean"
    );
}

#[test]
fn missing_properties_read_as_none_or_the_default() {
    let e = DynamicEntity::new("p", "r");
    assert_eq!(e.get::<i32>("Lives"), None);
    assert_eq!(e.get_or("Lives", 3), 3);
    assert_eq!(e.try_get::<String>("Lives").unwrap(), None);
    // `Option<T>` reads an absent property as `Some(None)`: present, with no value.
    assert_eq!(e.try_get::<Option<i32>>("Lives").unwrap(), Some(None));
}

#[test]
fn setting_nothing_removes_the_property() {
    let mut e = DynamicEntity::new("p", "r");
    e.set("A", 1);
    e.set("B", "x");
    e.set("C", 3.5);
    e.set("B", None::<&str>);
    assert_eq!(
        e.properties().map(|(n, _)| n).collect::<Vec<_>>(),
        ["A", "C"]
    );
    e.set("A", Some(2));
    assert_eq!(e.get::<i32>("A"), Some(2));
    assert_eq!(e.remove("C"), Some(Value::Double(3.5)));
    assert_eq!(e.remove("C"), None);
    assert_eq!(e.len(), 1);
}

#[test]
fn set_keeps_insertion_order_and_replaces_in_place() {
    let mut e = DynamicEntity::new("p", "r");
    for name in ["Z", "A", "M"] {
        e.set(name, name);
    }
    e.set("A", 1);
    let order: Vec<(&str, EdmType)> = e.properties().map(|(n, v)| (n, v.edm_type())).collect();
    assert_eq!(
        order,
        [
            ("Z", EdmType::String),
            ("A", EdmType::Int32),
            ("M", EdmType::String)
        ]
    );
}

#[test]
fn unsigned_integers_are_range_checked() {
    let mut e = DynamicEntity::new("p", "r");
    e.set("U32", u32::MAX);
    e.set("U32Small", 5u32);
    e.set("U64", u64::MAX);
    assert_eq!(e.value("U32"), Some(&Value::Int64(i64::from(u32::MAX))));
    assert_eq!(e.value("U32Small"), Some(&Value::Int64(5))); // one EDM type per Rust type
    assert_eq!(e.get::<u32>("U32"), Some(u32::MAX));
    assert_eq!(e.get::<u64>("U64"), Some(u64::MAX));
    e.set("Neg", -1);
    assert!(e.try_get::<u32>("Neg").is_err());
    assert!(e.try_get::<u64>("Neg").is_err());
}

#[test]
fn every_mapped_rust_type_round_trips_through_a_value() {
    fn round_trip<T: IntoValue + FromValue + PartialEq + std::fmt::Debug + Clone>(v: T) {
        let value = v.clone().into_value().expect("a value");
        assert_eq!(T::from_value(&value), Ok(v));
    }
    round_trip(true);
    round_trip(i32::MIN);
    round_trip(i64::MAX);
    round_trip(u32::MAX);
    round_trip(u64::MAX);
    round_trip(2.0f64);
    round_trip(String::from("héllo"));
    round_trip(vec![0u8, 255]);
    round_trip(Uuid::from_u128(u128::MAX));
    round_trip(Utc.with_ymd_and_hms(1601, 1, 1, 0, 0, 0).unwrap());
    round_trip(Some(5));
    assert_eq!("x".into_value(), Some(Value::String("x".into())));
    assert_eq!(
        (&b"ab"[..]).into_value(),
        Some(Value::Binary(b"ab".to_vec()))
    );
}

#[test]
fn datetimes_keep_100ns_and_drop_less() {
    let t = DateTime::from_timestamp(1_700_000_000, 123_456_789).unwrap();
    let mut e = DynamicEntity::new("p", "r");
    e.set("T", t);
    let stored = e.get::<DateTime<Utc>>("T").unwrap();
    assert_eq!(stored.timestamp_subsec_nanos(), 123_456_700);
    assert_eq!(truncate_to_tick(t), stored);
    assert_eq!(from_ticks(to_ticks(&stored)), Some(stored));
    assert_eq!(from_ticks(MAX_TICKS).map(|t| to_ticks(&t)), Some(MAX_TICKS));
}

#[test]
fn nan_equals_nan_so_entities_equal_themselves() {
    let mut e = DynamicEntity::new("p", "r");
    e.set("D", f64::NAN);
    assert_eq!(e, e.clone());
    assert_ne!(Value::Double(f64::NAN), Value::Double(0.0));
    assert_eq!(Value::Double(0.0), Value::Double(-0.0));
}

#[test]
fn user_types_map_through_the_public_traits() {
    #[derive(Debug, PartialEq)]
    enum Level {
        Castle,
        Forest,
    }
    impl IntoValue for Level {
        fn into_value(self) -> Option<Value> {
            Some(Value::Int32(match self {
                Level::Castle => 1,
                Level::Forest => 2,
            }))
        }
    }
    impl FromValue for Level {
        fn from_value(value: &Value) -> Result<Self, ValueError> {
            match i32::from_value(value)? {
                1 => Ok(Level::Castle),
                2 => Ok(Level::Forest),
                n => Err(ValueError::Invalid(format!("no level {n}"))),
            }
        }
    }
    let mut e = DynamicEntity::new("p", "r");
    e.set("L", Level::Forest);
    assert_eq!(e.get::<Level>("L"), Some(Level::Forest));
    e.set("L", 9);
    assert_eq!(
        e.try_get::<Level>("L").unwrap_err().to_string(),
        "property `L`: no level 9"
    );
}

#[test]
fn system_properties_and_the_table_entity_trait() {
    let mut e = DynamicEntity::new("p", "r");
    let tag = ETag::new("W/\"x\"");
    e.set_etag(Some(tag.clone()));
    let now = truncate_to_tick(Utc::now());
    e.set_timestamp(Some(now));
    e.push_unchecked("Raw".into(), Value::Bool(false));
    assert_eq!((e.etag(), e.timestamp()), (Some(&tag), Some(now)));
    let wrapped = <DynamicEntity as TableEntity>::wrap(e.clone());
    assert_eq!(TableEntity::row_key(&wrapped), "r");
    assert_eq!(wrapped.into_dynamic(), e);
    assert!(ETag::any().is_any());
}

#[test]
fn sizes_count_utf16_units() {
    assert_eq!(utf16_len("a\u{1F600}é"), 4);
    let mut e = DynamicEntity::new("pk", "rk");
    e.set("S", "\u{1F600}");
    assert_eq!(e.size(), 4 + 2 * 4 + (8 + 2 + 4 + 2 * 2));
}
