//! Property tests of the codec: any entity survives encode -> decode unchanged (NaN and the
//! infinities included), and no input, random or a damaged valid page, makes a decoder panic.

use chrono::{DateTime, Utc};
use proptest::prelude::*;
use tablekit::codec::DecodeError;
use tablekit::value::{from_ticks, MAX_TICKS};
use tablekit::{codec, DynamicEntity, Value};

/// Ticks of 1601-01-01T00:00:00Z, the service's smallest DateTime.
const MIN_TICKS: i64 = 504_911_232_000_000_000;

fn datetime() -> impl Strategy<Value = DateTime<Utc>> {
    (MIN_TICKS..=MAX_TICKS).prop_map(|t| from_ticks(t).expect("in chrono's range"))
}

fn double() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<f64>(),
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(0.0),
        Just(-0.0),
        Just(2.0),
        (-1000i32..1000).prop_map(f64::from),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(Value::Int32),
        any::<i64>().prop_map(Value::Int64),
        double().prop_map(Value::Double),
        datetime().prop_map(Value::DateTime),
        any::<u128>().prop_map(|n| Value::Guid(uuid::Uuid::from_u128(n))),
        any::<String>().prop_map(|s: String| Value::String(s.into())),
        "[\"\\\\/\u{0}-\u{1f}\u{7f}-\u{9f}a-z\u{1F600}]{0,12}"
            .prop_map(|s: String| Value::String(s.into())),
        proptest::collection::vec(any::<u8>(), 0..64).prop_map(Value::Binary),
    ]
}

fn entity() -> impl Strategy<Value = DynamicEntity> {
    let names = proptest::collection::btree_set("[A-Za-z_][A-Za-z0-9_]{0,20}", 0..16);
    (any::<String>(), any::<String>(), names)
        .prop_flat_map(|(pk, rk, names)| {
            let values = proptest::collection::vec(value(), names.len());
            (Just(pk), Just(rk), Just(names), values)
        })
        .prop_map(|(pk, rk, names, values)| {
            let mut e = DynamicEntity::new(pk, rk);
            for (name, value) in names.into_iter().zip(values) {
                e.set(name, value);
            }
            e
        })
}

/// A page in the service's minimalmetadata shape (annotations before values) made from
/// encoded entities.
fn page_of(entities: &[DynamicEntity]) -> Vec<u8> {
    let mut out = br#"{"odata.metadata":"http://h/a/$metadata#T","value":["#.to_vec();
    for (i, e) in entities.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        codec::encode_entity_into(e, &mut out);
    }
    out.extend_from_slice(b"]}");
    out
}

/// The entity as SDK request bodies write it: each `X@odata.type` after its `X`.
fn annotations_after(e: &DynamicEntity) -> String {
    let json = |v: &dyn erased::Json| v.text();
    let mut out = format!(
        "{{\"PartitionKey\":{},\"RowKey\":{}",
        json(&e.partition_key()),
        json(&e.row_key())
    );
    for (name, value) in e.properties() {
        // The codec's own encoding of this one property gives its JSON value and annotation.
        let mut single = DynamicEntity::new("", "");
        single.set(name, value.clone());
        let map: serde_json::Map<String, serde_json::Value> =
            serde_json::from_slice(&codec::encode_entity(&single)).expect("valid JSON");
        out.push_str(&format!(",{}:{}", json(&name), map[name]));
        if let Some(edm) = map.get(&format!("{name}@odata.type")) {
            out.push_str(&format!(",{}:{edm}", json(&format!("{name}@odata.type"))));
        }
    }
    out.push('}');
    out
}

mod erased {
    /// Anything serde can write as JSON text.
    pub(crate) trait Json {
        fn text(&self) -> String;
    }
    impl<T: serde::Serialize> Json for T {
        fn text(&self) -> String {
            serde_json::to_string(self).expect("serializable")
        }
    }
}

/// A decode error names what it was decoding and what was wrong.
fn says_what_failed(err: &DecodeError) -> bool {
    !err.what.is_empty() && !err.message.is_empty()
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 512,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn any_entity_round_trips(e in entity()) {
        let body = codec::encode_entity(&e);
        let back = codec::decode_entity(&body).map_err(|err| TestCaseError::fail(err.to_string()))?;
        prop_assert_eq!(&back, &e);
        // Doubles keep their exact bits (including the sign of zero), not just equality.
        for ((_, a), (_, b)) in e.properties().zip(back.properties()) {
            if let (Value::Double(a), Value::Double(b)) = (a, b) {
                prop_assert!(a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()));
            }
        }
    }

    #[test]
    fn any_page_round_trips(entities in proptest::collection::vec(entity(), 0..6)) {
        let back = codec::decode_page(&page_of(&entities))
            .map_err(|err| TestCaseError::fail(err.to_string()))?;
        prop_assert_eq!(back, entities);
    }

    #[test]
    fn annotations_after_values_read_the_same(e in entity()) {
        let body = annotations_after(&e);
        let back = codec::decode_entity(body.as_bytes())
            .map_err(|err| TestCaseError::fail(format!("{err}: {body}")))?;
        prop_assert_eq!(back, e);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let _ = codec::decode_entity(&bytes);
        let _ = codec::decode_page(&bytes);
        let _ = codec::decode_table_names(&bytes);
        let _ = codec::decode_table_name(&bytes);
    }

    #[test]
    fn json_shaped_noise_never_panics(text in r#"[{}\[\]":,@.a-zA-Z0-9 \\-]{0,200}"#) {
        for body in [text.clone(), format!("{{\"value\":[{text}]}}"), format!("{{{text}}}")] {
            if let Err(err) = codec::decode_page(body.as_bytes()) {
                prop_assert!(says_what_failed(&err), "{}", err);
            }
            if let Err(err) = codec::decode_entity(body.as_bytes()) {
                prop_assert!(says_what_failed(&err), "{}", err);
            }
        }
    }

    #[test]
    fn damaged_pages_never_panic(
        entities in proptest::collection::vec(entity(), 1..4),
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..3), 1..8),
    ) {
        let mut page = page_of(&entities);
        for (at, byte, action) in edits {
            if page.is_empty() {
                break;
            }
            let i = at.index(page.len());
            match action {
                0 => page[i] = byte,
                1 => page.insert(i, byte),
                _ => { page.remove(i); }
            }
        }
        // Some damage still leaves valid JSON; any failure must say what failed.
        if let Err(err) = codec::decode_page(&page) {
            prop_assert!(says_what_failed(&err), "{}", err);
        }
    }

    #[test]
    fn truncated_pages_are_errors(entities in proptest::collection::vec(entity(), 1..4), cut in any::<prop::sample::Index>()) {
        let page = page_of(&entities);
        let cut = cut.index(page.len());
        let result = codec::decode_page(&page[..cut]);
        prop_assert!(result.as_ref().is_err_and(says_what_failed), "{:?}", result);
    }
}
