//! The generated `*_key_between` functions: for a key whose last part is a time, the exact key
//! range of a range of times (`ticks`, `inverted_ticks`) or of every bucket it overlaps (a date
//! pattern, `inverted_year_month`), inside the leading parts' prefix, for every kind of range.
//! Each filter is checked on entities built at times one tick either side of its edges, by the
//! emulator's own filter engine (which answers its HTTP queries).

// Test fixtures: documenting them adds nothing.
#![allow(missing_docs)]

use std::ops::{Bound, RangeBounds};

use chrono::{Datelike, Duration, TimeZone, Timelike, Utc};
use tablekit::prelude::*;

use crate::support::models::{Blog, BlogEntity};

#[derive(Debug, Clone, PartialEq, TableEntity)]
pub struct Reading {
    #[tablekit(partition_key)]
    pub sensor: String,
    #[tablekit(row_key(ticks))]
    pub at: DateTime<Utc>,
    pub value: f64,
}

#[derive(Debug, Clone, PartialEq, TableEntity)]
#[tablekit(key_separator = "|")]
pub struct Visit {
    #[tablekit(partition_key(order = 0))]
    pub site: String,
    #[tablekit(partition_key(order = 1))]
    pub page: u32,
    #[tablekit(partition_key(order = 2, format = "yyyy-MM-dd"))]
    pub at: DateTime<Utc>,
    #[tablekit(row_key)]
    pub id: Uuid,
}

/// A comment: the blog's time leads the RowKey, its own time ends it.
#[derive(Debug, Clone, PartialEq, TableEntity)]
#[tablekit(row_key(constant = "Comment", order = 1))]
pub struct Comment {
    #[tablekit(partition_key)]
    pub channel: String,
    #[tablekit(row_key(order = 0, inverted_ticks))]
    pub blog_posted: DateTime<Utc>,
    #[tablekit(row_key(order = 2, ticks), key_only)]
    pub written: DateTime<Utc>,
}

const TICK: Duration = Duration::nanoseconds(100);

fn at(y: i32, mo: u32, d: u32, h: u32, mi: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(y, mo, d, h, mi, 0).unwrap()
}

/// Whether the emulator's filter engine selects `entity`.
fn selects<M>(filter: &Filter<M>, entity: &DynamicEntity) -> bool {
    let text = filter.to_string();
    tablekit_testing::filter::ParsedFilter::parse(&text)
        .unwrap_or_else(|e| panic!("the emulator rejects {text:?}: {e}"))
        .matches(entity)
}

/// Times one tick either side of each end of `[a, b]`, and the ends.
fn around(a: DateTime<Utc>, b: DateTime<Utc>) -> Vec<DateTime<Utc>> {
    vec![a - TICK, a, a + TICK, b - TICK, b, b + TICK]
}

type TimeRange = (Bound<DateTime<Utc>>, Bound<DateTime<Utc>>);

/// Every kind of range over `[a, b]`.
fn ranges(a: DateTime<Utc>, b: DateTime<Utc>) -> Vec<TimeRange> {
    use Bound::{Excluded, Included, Unbounded};
    vec![
        (Included(a), Excluded(b)),
        (Included(a), Included(b)),
        (Excluded(a), Excluded(b)),
        (Excluded(a), Included(b)),
        (Included(a), Unbounded),
        (Unbounded, Excluded(b)),
        (Unbounded, Unbounded),
    ]
}

#[test]
fn inverted_ticks_row_keys_select_exactly_the_range_at_every_edge() {
    let (a, b) = (at(2008, 10, 5, 0, 0), at(2008, 10, 5, 12, 0));
    for range in ranges(a, b) {
        let f = Blog::row_key_between(range);
        for t in around(a, b) {
            let blog = BlogEntity::new("rust", t);
            assert_eq!(
                selects(&f, blog.as_dynamic()),
                range.contains(&t),
                "{t} in {range:?}: {f}"
            );
        }
    }
}

#[test]
fn ticks_row_keys_select_exactly_the_range_at_every_edge() {
    let (a, b) = (at(2020, 2, 29, 23, 59), at(2020, 3, 1, 0, 1));
    for range in ranges(a, b) {
        let f = Reading::row_key_between(range);
        for t in around(a, b) {
            let reading = ReadingEntity::new("s1", t);
            assert_eq!(
                selects(&f, reading.as_dynamic()),
                range.contains(&t),
                "{t} in {range:?}: {f}"
            );
        }
    }
}

#[test]
fn the_rendered_bounds_are_the_keys_of_the_ends() {
    let (a, b) = (at(2008, 10, 5, 0, 0), at(2008, 10, 6, 0, 0));
    // 2008-10-05 is tick 633587616000000000 and its last tick 633588479999999999: the upper
    // bound is the first text past every key starting with that one.
    assert_eq!(
        Reading::row_key_between(a..b).to_string(),
        "RowKey ge '0633587616000000000' and RowKey lt '063358847999999999:'"
    );
    // Newest first: the later end gives the lower key.
    assert_eq!(
        Blog::row_key_between(a..=a).to_string(),
        "RowKey ge '2521791359999999999' and RowKey lt '252179135999999999:'"
    );
    assert_eq!(
        Blog::partition_key_between("rust", a..b).to_string(),
        "PartitionKey ge 'rust_7991_03' and PartitionKey lt 'rust_7991_04'"
    );
}

#[test]
fn an_empty_range_selects_nothing() {
    let (a, b) = (at(2008, 10, 5, 0, 0), at(2008, 10, 6, 0, 0));
    assert_eq!(Reading::row_key_between(a..a).to_string(), "RowKey lt ''");
    assert_eq!(Reading::row_key_between(b..a).to_string(), "RowKey lt ''");
    let f = Blog::partition_key_between("rust", b..=a);
    for t in around(a, b) {
        assert!(!selects(&f, BlogEntity::new("rust", t).as_dynamic()));
    }
}

/// Whether the month of `t` overlaps `range` (at tick precision).
fn month_overlaps(t: DateTime<Utc>, range: &impl RangeBounds<DateTime<Utc>>) -> bool {
    let first = at(t.year(), t.month(), 1, 0, 0);
    let next = if t.month() == 12 {
        at(t.year() + 1, 1, 1, 0, 0)
    } else {
        at(t.year(), t.month() + 1, 1, 0, 0)
    };
    overlaps(first, next, range)
}

/// Whether `[first, next)` holds a tick of `range`: its first tick in it, if any, is the
/// bucket's start or the range's start (rounded up to a tick).
fn overlaps(
    first: DateTime<Utc>,
    next: DateTime<Utc>,
    range: &impl RangeBounds<DateTime<Utc>>,
) -> bool {
    let mut candidates = vec![first];
    if let Bound::Included(s) | Bound::Excluded(s) = range.start_bound() {
        candidates.extend([*s, *s + TICK]);
    }
    candidates
        .into_iter()
        .any(|t| first <= t && t < next && range.contains(&t))
}

#[test]
fn inverted_year_month_partitions_select_every_overlapping_month_of_one_channel() {
    let (a, b) = (at(2008, 12, 31, 23, 0), at(2009, 3, 1, 0, 0));
    let times = [
        at(2008, 11, 30, 23, 59),
        a - TICK,
        a,
        at(2009, 1, 15, 0, 0),
        b - TICK,
        b,
        b + TICK,
        at(2009, 4, 1, 0, 0),
    ];
    let rust = "rust".to_owned();
    for range in ranges(a, b) {
        let f = Blog::partition_key_between(&rust, range);
        for t in times {
            let expected = month_overlaps(t, &range);
            assert_eq!(
                selects(&f, BlogEntity::new("rust", t).as_dynamic()),
                expected,
                "{t} in {range:?}: {f}"
            );
            // Another channel, even one sorting right after, is never selected.
            assert!(
                !selects(&f, BlogEntity::new("rusty", t).as_dynamic()),
                "{f}"
            );
            assert!(!selects(&f, BlogEntity::new("go", t).as_dynamic()), "{f}");
        }
    }
}

#[test]
fn a_date_pattern_selects_every_overlapping_day_after_its_leading_parts() {
    let (a, b) = (at(2024, 2, 28, 18, 0), at(2024, 3, 1, 0, 0));
    let site = "shop".to_owned();
    for range in ranges(a, b) {
        let f = Visit::partition_key_between(&site, &7, range);
        for t in around(a, b)
            .into_iter()
            .chain([at(2024, 2, 27, 23, 59), at(2024, 3, 2, 0, 0)])
        {
            let day = at(t.year(), t.month(), t.day(), 0, 0);
            let expected = overlaps(day, day + Duration::days(1), &range);
            let visit = VisitEntity::new("shop", 7u32, t, Uuid::nil());
            assert_eq!(
                selects(&f, visit.as_dynamic()),
                expected,
                "{t} in {range:?}: {f}"
            );
            let other_page = VisitEntity::new("shop", 70u32, t, Uuid::nil());
            assert!(!selects(&f, other_page.as_dynamic()), "{f}");
        }
    }
    assert_eq!(
        Visit::partition_key_between(&site, &7, a..b).to_string(),
        "PartitionKey ge 'shop|7|2024-02-28' and PartitionKey lt 'shop|7|2024-02-2:'"
    );
}

#[test]
fn a_time_after_a_constant_part_takes_the_leading_fields() {
    let blog = at(2008, 10, 5, 12, 0);
    let (a, b) = (blog + Duration::minutes(5), blog + Duration::hours(1));
    let f = Comment::row_key_between(&blog, a..b);
    for t in around(a, b) {
        let comment = CommentEntity::new("rust", blog, t);
        assert_eq!(
            selects(&f, comment.as_dynamic()),
            (a..b).contains(&t),
            "{t}: {f}"
        );
        let other_blog = CommentEntity::new("rust", blog + TICK, t);
        assert!(!selects(&f, other_blog.as_dynamic()), "{f}");
    }
    assert_eq!(
        CommentEntity::new("rust", blog, a).written(),
        a,
        "read back from the key"
    );
    assert_eq!(a.nanosecond(), 0);
}
