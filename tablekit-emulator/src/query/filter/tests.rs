use chrono::{TimeZone, Utc};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use tablekit::{DynamicEntity, Value};

use super::*;

fn entity() -> DynamicEntity {
    let mut e = DynamicEntity::new("a", "1");
    e.set("N", 5);
    e.set("Big", 5_000_000_000_000i64);
    e.set("D", 2.5);
    e.set("Flag", true);
    e.set("Name", "it's");
    e.set("B", vec![1u8, 2, 3]);
    e.set(
        "G",
        uuid::Uuid::parse_str("c9da6455-213d-42c9-9a79-3e9149a57833").unwrap(),
    );
    e.set("T", Utc.with_ymd_and_hms(2020, 1, 1, 0, 0, 0).unwrap());
    e.set_timestamp(Some(Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap()));
    e
}

fn matches(text: &str) -> bool {
    ParsedFilter::parse(text)
        .unwrap_or_else(|e| panic!("{text}: {e}"))
        .matches(&entity())
}

#[test]
fn the_captured_probe_filters_match_as_on_azure() {
    for text in [
        "'a' eq PartitionKey",
        "N eq 5",
        "G eq guid'c9da6455-213d-42c9-9a79-3e9149a57833'",
        "B eq X'010203'",
        "B eq binary'010203'",
        "T eq datetime'2020-01-01T00:00:00Z'",
        "T ge datetime'2020-01-01T00:00:00.0000000Z'",
        "Flag eq true",
        "Flag",
        "D eq 2.5",
        "not (Missing eq 1)",
        "PartitionKey eq 'a' or RowKey eq 'zz'",
        "(PartitionKey eq 'a') and (N lt 10)",
        "Timestamp ge datetime'2000-01-01T00:00:00Z'",
        "Big gt 4999999999999L",
        "Name eq 'it''s'",
        "N ne 6",
    ] {
        assert!(matches(text), "{text} should match");
    }
}

#[test]
fn type_mismatches_and_missing_properties_never_match() {
    for text in [
        "Missing eq 1",
        "Missing ne 1",
        "RowKey eq 1",
        "N eq 5L",
        "N gt 4.5",
        "Big gt 5",
        "D eq 2",
        "Flag eq 1",
        "Name",
        "T eq '2020-01-01T00:00:00Z'",
        "not Flag",
    ] {
        assert!(!matches(text), "{text} should not match");
    }
}

#[test]
fn strings_order_by_utf16_code_units() {
    // U+FF61 is one unit above the surrogates that encode U+1F600.
    assert_eq!(
        utf16_cmp("\u{FF61}", "\u{1F600}"),
        std::cmp::Ordering::Greater
    );
    assert!("\u{FF61}" < "\u{1F600}"); // Rust's byte order disagrees
    let mut e = DynamicEntity::new("\u{1F600}", "");
    e.set("X", 1);
    assert!(ParsedFilter::parse("PartitionKey lt '\u{FF61}'")
        .unwrap()
        .matches(&e));
}

#[test]
fn partition_key_is_found_in_the_top_level_and_chain() {
    let f = ParsedFilter::parse("N gt 1 and ('p' eq PartitionKey and RowKey ge 'a')").unwrap();
    assert_eq!(f.key_range().partition.single(), Some("p"));
    assert_eq!(
        ParsedFilter::parse("PartitionKey eq 'p' or N eq 1")
            .unwrap()
            .key_range()
            .partition
            .single(),
        None
    );
    assert_eq!(
        ParsedFilter::parse("not (PartitionKey eq 'p')")
            .unwrap()
            .key_range()
            .partition
            .single(),
        None
    );
}

fn int_entity(n: i32) -> DynamicEntity {
    let mut e = DynamicEntity::new("p", "r");
    e.set("N", n);
    e
}

fn op_holds(op: &str, a: i32, b: i32) -> bool {
    match op {
        "eq" => a == b,
        "ne" => a != b,
        "gt" => a > b,
        "ge" => a >= b,
        "lt" => a < b,
        _ => a <= b,
    }
}

proptest! {
    #[test]
    fn parsing_arbitrary_text_never_panics(text in ".{0,200}") {
        let _ = ParsedFilter::parse(&text);
    }

    #[test]
    fn parsing_filter_like_text_never_panics(
        parts in proptest::collection::vec(
            prop_oneof![
                Just("("), Just(")"), Just(" and "), Just(" or "), Just("not "), Just(" eq "),
                Just(" lt "), Just("N"), Just("'x'"), Just("''"), Just("5"), Just("5L"),
                Just("-"), Just("1.5"), Just("X'01'"), Just("datetime'"), Just("true"), Just("'"),
            ],
            0..40,
        )
    ) {
        let text: String = parts.concat();
        if let Ok(f) = ParsedFilter::parse(&text) {
            let _ = f.matches(&int_entity(1));
        }
    }

    #[test]
    fn int32_comparisons_agree_with_rust(
        a in any::<i32>(),
        b in any::<i32>(),
        op in prop_oneof![Just("eq"), Just("ne"), Just("gt"), Just("ge"), Just("lt"), Just("le")],
    ) {
        let f = ParsedFilter::parse(&format!("N {op} {b}")).unwrap();
        prop_assert_eq!(f.matches(&int_entity(a)), op_holds(op, a, b));
        let negated = ParsedFilter::parse(&format!("not (N {op} {b})")).unwrap();
        prop_assert_eq!(negated.matches(&int_entity(a)), !op_holds(op, a, b));
    }

    #[test]
    fn boolean_connectives_follow_logic(a in any::<i32>(), x in any::<i32>(), y in any::<i32>()) {
        let e = int_entity(a);
        let left = format!("N lt {x}");
        let right = format!("N ge {y}");
        let l = a < x;
        let r = a >= y;
        prop_assert_eq!(ParsedFilter::parse(&format!("{left} and {right}")).unwrap().matches(&e), l && r);
        prop_assert_eq!(ParsedFilter::parse(&format!("{left} or {right}")).unwrap().matches(&e), l || r);
        prop_assert_eq!(
            ParsedFilter::parse(&format!("not ({left} or {right})")).unwrap().matches(&e),
            !l && !r
        );
    }

    #[test]
    fn quoted_strings_round_trip(s in "\\PC{0,40}") {
        let mut e = DynamicEntity::new("p", "r");
        e.set("S", s.as_str());
        let literal = s.replace('\'', "''");
        let text = format!("S eq '{literal}'");
        prop_assert!(ParsedFilter::parse(&text).unwrap().matches(&e));
    }

    #[test]
    fn utf16_order_matches_encoding_order(a in "\\PC{0,8}", b in "\\PC{0,8}") {
        prop_assert_eq!(utf16_cmp(&a, &b), a.encode_utf16().cmp(b.encode_utf16()));
    }

    #[test]
    fn utf16_order_holds_after_long_common_prefixes(
        prefix in "[a\u{E9}\u{FF61}\u{1F600}]{0,20}",
        a in "[a\u{E000}\u{FFFF}\u{10000}]{0,4}",
        b in "[a\u{E000}\u{FFFF}\u{10000}]{0,4}",
    ) {
        let (a, b) = (format!("{prefix}{a}"), format!("{prefix}{b}"));
        prop_assert_eq!(utf16_cmp(&a, &b), a.encode_utf16().cmp(b.encode_utf16()));
    }

    #[test]
    fn utf16_order_holds_where_it_differs_from_byte_order(
        a in "[a\u{E9}\u{D7FF}\u{E000}\u{FF61}\u{FFFF}\u{10000}\u{1F600}\u{10FFFF}]{0,6}",
        b in "[a\u{E9}\u{D7FF}\u{E000}\u{FF61}\u{FFFF}\u{10000}\u{1F600}\u{10FFFF}]{0,6}",
    ) {
        prop_assert_eq!(utf16_cmp(&a, &b), a.encode_utf16().cmp(b.encode_utf16()));
    }

    #[test]
    fn int64_and_double_literals_match_their_own_types(n in any::<i64>(), d in -1e12f64..1e12) {
        let mut e = DynamicEntity::new("p", "r");
        e.set("L", n);
        e.set("D", d);
        let int64 = format!("L eq {n}L");
        let double = format!("D eq {d:?}");
        prop_assert!(ParsedFilter::parse(&int64).unwrap().matches(&e));
        prop_assert!(ParsedFilter::parse(&double).unwrap().matches(&e));
        prop_assert!(matches!(e.value("L"), Some(Value::Int64(_))));
    }
}

#[test]
fn one_filter_reads_entities_of_different_layouts() {
    // The filter remembers where the last entity had `A`; the next ones have it elsewhere,
    // have another property there, or lack it.
    let with = |props: &[(&str, i32)]| {
        let mut e = DynamicEntity::new("p", "r");
        for (name, value) in props {
            e.set(*name, *value);
        }
        e
    };
    let filter = ParsedFilter::parse("A eq 1").unwrap();
    let entities = [
        with(&[("B", 2), ("A", 1)]),
        with(&[("A", 1), ("B", 1)]),
        with(&[("C", 1), ("B", 1)]),
        with(&[("B", 1)]),
        with(&[("B", 2), ("A", 2)]),
        with(&[("B", 2), ("A", 1)]),
    ];
    let found: Vec<bool> = entities.iter().map(|e| filter.matches(e)).collect();
    assert_eq!(found, [true, true, false, false, false, true]);
}

/// The Doubles IEEE 754 singles out, and ordinary ones among them.
const SPECIAL_DOUBLES: [f64; 8] = [
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    -0.0,
    0.0,
    -400.67004,
    1.5,
    f64::MAX,
];

const OPERATORS: [&str; 6] = ["eq", "ne", "lt", "le", "gt", "ge"];

/// A Double as filter text.
fn double_text(d: f64) -> String {
    match d {
        _ if d.is_nan() => "NaN".to_owned(),
        f64::INFINITY => "INF".to_owned(),
        f64::NEG_INFINITY => "-INF".to_owned(),
        _ => format!("{d:?}"),
    }
}

/// Whether `a op b` holds under IEEE 754, which Rust's operators follow.
fn ieee_754(op: &str, a: f64, b: f64) -> bool {
    match op {
        "eq" => a == b,
        "ne" => a != b,
        "lt" => a < b,
        "le" => a <= b,
        "gt" => a > b,
        _ => a >= b,
    }
}

/// The operator that reads the same with its operands swapped: `b gt D` is `D lt b`.
fn mirrored(op: &str) -> &str {
    match op {
        "lt" => "gt",
        "le" => "ge",
        "gt" => "lt",
        "ge" => "le",
        same => same,
    }
}

/// Every comparison of a Double property holding `a` with the literal `b`, with and without
/// `not` and from either side, on the entity and on its stored form (compared in place).
fn check_double_comparisons(a: f64, b: f64) -> Result<(), TestCaseError> {
    let mut entity = DynamicEntity::new("p", "r");
    entity.set("D", a);
    let stored = crate::storage::stored::Stored::new(entity.clone());
    let literal = double_text(b);
    for (form, subject) in [("entity", &entity as &dyn Subject), ("stored", &stored)] {
        let holds = |text: &str| ParsedFilter::parse(text).unwrap().matches(subject);
        let mut found = Vec::new();
        for op in OPERATORS {
            let text = format!("D {op} {literal}");
            let plain = holds(&text);
            prop_assert_eq!(
                plain,
                ieee_754(op, a, b),
                "{} on the {} with D = {:?}",
                text,
                form,
                a
            );
            prop_assert_eq!(holds(&format!("not ({text})")), !plain, "not ({})", text);
            let swapped = format!("{literal} {} D", mirrored(op));
            prop_assert_eq!(holds(&swapped), plain, "{} against {}", swapped, text);
            found.push(plain);
        }
        let [eq, ne, lt, le, gt, ge] = found[..] else {
            unreachable!("one answer per operator")
        };
        prop_assert_eq!(ne, holds(&format!("not (D eq {literal})")), "ne is not eq");
        prop_assert_eq!(le, lt || eq, "le is lt or eq");
        prop_assert_eq!(ge, gt || eq, "ge is gt or eq");
        // Ordered values are less, equal or greater; unordered ones (a NaN) none of them.
        let ordered = !a.is_nan() && !b.is_nan();
        prop_assert_eq!(
            usize::from(lt) + usize::from(eq) + usize::from(gt),
            usize::from(ordered)
        );
        // A property against itself: NaN is not even equal to itself.
        prop_assert_eq!(holds("D eq D"), !a.is_nan());
        prop_assert_eq!(holds("D ne D"), a.is_nan());
    }
    Ok(())
}

#[test]
fn every_pair_of_special_doubles_compares_as_ieee_754_says() {
    for a in SPECIAL_DOUBLES {
        for b in SPECIAL_DOUBLES {
            check_double_comparisons(a, b).unwrap();
        }
    }
}

fn double() -> impl Strategy<Value = f64> {
    prop_oneof![
        proptest::sample::select(SPECIAL_DOUBLES.to_vec()),
        any::<f64>(),
        (-3i32..3).prop_map(f64::from),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn double_comparisons_follow_ieee_754(a in double(), b in double()) {
        check_double_comparisons(a, b)?;
    }
}
