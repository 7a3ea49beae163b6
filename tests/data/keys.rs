//! Key part formats and prefix bounds, as properties over arbitrary inputs: the text order of
//! formatted parts is the intended value order, and the `[prefix, upper)` range holds exactly
//! the strings starting with the prefix under the service's UTF-16 ordinal order.

use chrono::DateTime;
use proptest::prelude::*;
use tablekit::keys;

fn utf16(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
}

/// Strings dense in the code points where UTF-8 and UTF-16 orders differ.
fn text() -> impl Strategy<Value = String> {
    let c = prop_oneof![
        Just('\u{D7FF}'),
        Just('\u{E000}'),
        Just('\u{FFFF}'),
        Just('\u{10000}'),
        Just('\u{10FFFF}'),
        Just('_'),
        Just('`'),
        proptest::char::range('a', 'c'),
        any::<char>(),
    ];
    proptest::collection::vec(c, 0..5).prop_map(|v| v.into_iter().collect())
}

fn in_range(s: &str, prefix: &str) -> bool {
    let (lo, hi) = keys::prefix_range(prefix);
    utf16(&lo) <= utf16(s) && hi.is_none_or(|hi| utf16(s) < utf16(&hi))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn the_prefix_range_holds_exactly_the_prefixed_strings(prefix in text(), tail in text(), other in text()) {
        let extended = format!("{prefix}{tail}");
        prop_assert!(in_range(&extended, &prefix), "{:?} {:?}", prefix, extended);
        prop_assert_eq!(in_range(&other, &prefix), other.starts_with(prefix.as_str()), "{:?} {:?}", prefix, other);
    }

    #[test]
    fn padded_numbers_sort_like_numbers(a in any::<u32>(), b in any::<u32>()) {
        let (ka, kb) = (keys::pad(a.into(), 10), keys::pad(b.into(), 10));
        prop_assert_eq!(ka.cmp(&kb), a.cmp(&b));
        prop_assert_eq!(keys::parse_pad(&ka), Some(u64::from(a)));
    }

    #[test]
    fn inverted_numbers_sort_in_reverse(a in any::<u64>(), b in any::<u64>()) {
        let (ka, kb) = (keys::inverted(a, u64::MAX), keys::inverted(b, u64::MAX));
        prop_assert_eq!(ka.len(), 20);
        prop_assert_eq!(ka.cmp(&kb), b.cmp(&a));
        prop_assert_eq!(keys::parse_inverted(&ka, u64::MAX), Some(a));
    }

    #[test]
    fn ticks_sort_oldest_first_and_inverted_ticks_newest_first(a in 0i64..253_402_300_799, b in 0i64..253_402_300_799, na in 0u32..10_000_000, nb in 0u32..10_000_000) {
        let ta = DateTime::from_timestamp(a, na * 100).unwrap_or_default();
        let tb = DateTime::from_timestamp(b, nb * 100).unwrap_or_default();
        prop_assert_eq!(keys::ticks(&ta).cmp(&keys::ticks(&tb)), ta.cmp(&tb));
        prop_assert_eq!(keys::inverted_ticks(&ta).cmp(&keys::inverted_ticks(&tb)), tb.cmp(&ta));
        prop_assert_eq!(keys::inverted_ticks(&ta).len(), 19);
        prop_assert_eq!(keys::parse_inverted_ticks(&keys::inverted_ticks(&ta)), Some(ta));
        prop_assert_eq!(keys::parse_ticks(&keys::ticks(&ta)), Some(ta));
    }
}

#[test]
fn the_whitepaper_partition_of_october_2008() {
    let t = chrono::TimeZone::with_ymd_and_hms(&chrono::Utc, 2008, 10, 31, 23, 0, 0).unwrap();
    assert_eq!(keys::inverted_year_month(&t), "7991_03");
    assert_eq!(keys::date_format(&t, "yyyyMMdd"), "20081031");
}

#[test]
fn composed_keys_split_back_only_when_unambiguous() {
    let key = keys::compose(&["a".into(), "b".into(), "c".into()], "_");
    assert_eq!(keys::part(&key, "_", 2, 3), Some("c"));
    assert_eq!(keys::part("a_b_c_d", "_", 2, 3), None);
}
