//! Exact `$filter` rendering: literals of every EDM type, operators by column type, grouping,
//! ranges, prefixes and the untyped escape hatch.

use chrono::{TimeZone, Utc};
use tablekit::prelude::*;
use tablekit::Filter;

const NAME: Column<DynamicEntity, String> = Column::dynamic("Name");
const AGE: Column<DynamicEntity, i32> = Column::dynamic("Age");
const TOTAL: Column<DynamicEntity, i64> = Column::dynamic("Total");
const RATIO: Column<DynamicEntity, f64> = Column::dynamic("Ratio");
const ACTIVE: Column<DynamicEntity, bool> = Column::dynamic("Active");
const WHEN: Column<DynamicEntity, DateTime<Utc>> = Column::dynamic("When");
const ID: Column<DynamicEntity, Uuid> = Column::dynamic("Id");
const BLOB: Column<DynamicEntity, Vec<u8>> = Column::dynamic("Blob");
const BIG: Column<DynamicEntity, u32> = Column::dynamic("Big");

#[test]
fn literals_of_every_type() {
    assert_eq!(AGE.eq(-5).to_string(), "Age eq -5");
    assert_eq!(TOTAL.eq(5).to_string(), "Total eq 5L");
    assert_eq!(
        TOTAL.eq(i64::MIN).to_string(),
        "Total eq -9223372036854775808L"
    );
    assert_eq!(RATIO.eq(2.0).to_string(), "Ratio eq 2.0");
    assert_eq!(RATIO.eq(0.1).to_string(), "Ratio eq 0.1");
    assert_eq!(RATIO.eq(-0.0).to_string(), "Ratio eq -0.0");
    assert_eq!(RATIO.eq(1e21).to_string(), "Ratio eq 1.0E+21");
    assert_eq!(RATIO.eq(1.5e-9).to_string(), "Ratio eq 1.5E-9");
    assert_eq!(RATIO.eq(f64::NAN).to_string(), "Ratio eq NaN");
    assert_eq!(ACTIVE.eq(false).to_string(), "Active eq false");
    let t = Utc.with_ymd_and_hms(2008, 10, 1, 12, 0, 0).unwrap()
        + chrono::Duration::nanoseconds(1_234_500);
    assert_eq!(
        WHEN.ge(t).to_string(),
        "When ge datetime'2008-10-01T12:00:00.0012345Z'"
    );
    assert_eq!(
        ID.eq(Uuid::from_u128(0xABCDEF)).to_string(),
        "Id eq guid'00000000-0000-0000-0000-000000abcdef'"
    );
    assert_eq!(BLOB.eq(vec![0, 1, 0xfe]).to_string(), "Blob eq X'0001fe'");
    assert_eq!(NAME.eq("").to_string(), "Name eq ''");
    assert_eq!(NAME.eq("'").to_string(), "Name eq ''''");
    assert_eq!(NAME.eq("a'b''c").to_string(), "Name eq 'a''b''''c'");
    assert_eq!(
        NAME.eq("é\u{1F600}\n").to_string(),
        "Name eq 'é\u{1F600}\n'"
    );
    // A `u32` is an Int64 whatever its value, so its literals always carry the `L`.
    assert_eq!(BIG.eq(7).to_string(), "Big eq 7L");
    assert_eq!(BIG.eq(u32::MAX).to_string(), "Big eq 4294967295L");
}

#[test]
fn strings_and_owned_strings_both_work_for_string_columns() {
    let owned = String::from("x");
    assert_eq!(
        NAME.eq(&owned).to_string(),
        NAME.eq(owned.clone()).to_string()
    );
    assert_eq!(NAME.eq("x"), NAME.eq(owned));
}

#[test]
fn every_comparison_operator() {
    assert_eq!(AGE.ne(1).to_string(), "Age ne 1");
    assert_eq!(AGE.gt(1).to_string(), "Age gt 1");
    assert_eq!(AGE.ge(1).to_string(), "Age ge 1");
    assert_eq!(AGE.lt(1).to_string(), "Age lt 1");
    assert_eq!(AGE.le(1).to_string(), "Age le 1");
}

#[test]
fn grouping_follows_precedence() {
    let a = AGE.eq(1);
    let b = AGE.eq(2);
    let c = AGE.eq(3);
    assert_eq!(
        a.clone().or(b.clone()).and(c.clone()).to_string(),
        "(Age eq 1 or Age eq 2) and Age eq 3"
    );
    assert_eq!(
        a.clone().and(b.clone()).or(c.clone()).to_string(),
        "(Age eq 1 and Age eq 2) or Age eq 3"
    );
    assert_eq!(
        a.clone().and(b.clone().and(c.clone())).to_string(),
        "Age eq 1 and Age eq 2 and Age eq 3"
    );
    assert_eq!(
        a.clone().or(b.clone()).not().to_string(),
        "not (Age eq 1 or Age eq 2)"
    );
    assert_eq!(
        a.and(b.or(c.not())).to_string(),
        "Age eq 1 and (Age eq 2 or not (Age eq 3))"
    );
}

#[test]
fn the_four_range_kinds() {
    use tablekit::RangeKind::*;
    let cases = [
        (IncludeLowerExcludeUpper, "Age ge 1 and Age lt 9"),
        (IncludeLowerIncludeUpper, "Age ge 1 and Age le 9"),
        (ExcludeLowerExcludeUpper, "Age gt 1 and Age lt 9"),
        (ExcludeLowerIncludeUpper, "Age gt 1 and Age le 9"),
    ];
    for (kind, text) in cases {
        assert_eq!(AGE.between(1, 9, kind).to_string(), text);
    }
    assert_eq!(
        NAME.between("a", "b", RangeKind::default()).to_string(),
        "Name ge 'a' and Name lt 'b'"
    );
}

#[test]
fn starts_with_carries_and_an_empty_prefix_matches_all() {
    assert_eq!(
        NAME.starts_with("Jeff").to_string(),
        "Name ge 'Jeff' and Name lt 'Jefg'"
    );
    assert_eq!(
        NAME.starts_with("a\u{FFFF}").to_string(),
        "Name ge 'a\u{FFFF}' and Name lt 'b'"
    );
    assert_eq!(
        NAME.starts_with("\u{FFFF}").to_string(),
        "Name ge '\u{FFFF}'"
    );
    assert_eq!(
        NAME.starts_with("it's").to_string(),
        "Name ge 'it''s' and Name lt 'it''t'"
    );
    assert!(NAME.starts_with("").is_all());
    let q = Query::<DynamicEntity>::new().filter(NAME.starts_with("").and(AGE.eq(1)));
    assert_eq!(q.filter_string(), Some("Age eq 1"));
    assert_eq!(
        Query::<DynamicEntity>::new()
            .filter(NAME.starts_with(""))
            .filter_string(),
        None
    );
}

#[test]
fn all_is_the_identity_of_and_and_absorbs_or() {
    assert_eq!(Filter::all().and(AGE.eq(1)), AGE.eq(1));
    assert!(AGE.eq(1).or(Filter::all()).is_all());
}

#[test]
fn raw_filters_are_grouped_and_query_keeps_raw_text_api() {
    let f = AGE.eq(1).or(Filter::raw("A eq 1 and B eq 2"));
    assert_eq!(f.to_string(), "Age eq 1 or (A eq 1 and B eq 2)");
    let q = Query::<DynamicEntity>::new()
        .filter_raw("X eq 1")
        .top(5)
        .unwrap();
    assert_eq!(q.filter_string(), Some("X eq 1"));
    assert_eq!(q.top_value(), Some(5));
}

#[test]
fn select_lists_deduplicate_and_keep_order() {
    let q = Query::<DynamicEntity>::new().select((NAME, AGE, NAME));
    assert_eq!(
        q.select_list(),
        Some(&["Name".to_owned(), "Age".to_owned()][..])
    );
    let q = Query::<DynamicEntity>::new().select([NAME, NAME]);
    assert_eq!(q.select_list().map(<[String]>::len), Some(1));
}
