//! The eight EDM property types of the Table service and the [`Value`] that holds one of them.
//!
//! There is no null: the service drops null properties, so an absent property is modelled by
//! its absence (an `Option` field that is `None` stores nothing). DateTimes keep the service's
//! 100 ns precision and doubles round-trip exactly, so reading and writing back changes
//! nothing.
//!
//! # `SmolStr` in the API
//!
//! [`Value::String`] holds a [`SmolStr`], a type of the 0.x crate `smol_str`, re-exported as
//! `tablekit::SmolStr`. That is a choice, made for these reasons:
//! - It is what makes reading pages cheap: text up to 23 bytes (most keys, names and short
//!   values) is stored inline and longer text is shared, so decoding allocates for few strings
//!   and cloning an entity copies no text. A type of tablekit's own would wrap it and repeat
//!   its conversions and comparisons for no gain.
//! - Code rarely names it: `"text".into()` and `String::into()` make one, it reads as a
//!   `&str`, and [`DynamicEntity::get`](crate::DynamicEntity::get) reads a property as a
//!   `String` without it.
//! - The re-export pins the version: code that does name it uses `tablekit::SmolStr` and
//!   needs no `smol_str` dependency of its own, so two versions cannot meet in one program.
//!
//! The price: a `smol_str` release that breaks its API makes a breaking tablekit release too,
//! and the changelog says so.
//!
//! ```
//! use tablekit::{SmolStr, Value};
//! let v = Value::String(SmolStr::new_static("Drako"));
//! let Value::String(text) = &v else { unreachable!() };
//! assert_eq!(text, "Drako");
//! assert_eq!(Value::String("Drako".into()), v);
//! ```

use std::cmp::Ordering;
use std::fmt;

use chrono::{DateTime, NaiveDate, NaiveTime, Utc};
use smol_str::SmolStr;
use uuid::Uuid;

/// One property value: the eight EDM types the Table service stores.
///
/// There is no `Null`: the service never stores one, so an absent property is simply absent
/// (see [`DynamicEntity::set`](crate::DynamicEntity::set) with an `Option`).
///
/// Equality is "the same stored value": a NaN equals a NaN (so an entity holding one equals
/// itself and survives a round trip), and otherwise doubles compare as numbers.
///
/// ```
/// use tablekit::Value;
/// assert_eq!(Value::Double(f64::NAN), Value::Double(f64::NAN));
/// assert_ne!(Value::Int32(1), Value::Int64(1));
/// ```
#[derive(Clone, Debug)]
// A word-sized tag puts every payload on a word boundary (the size stays 32 bytes): values
// then move as whole words, where an odd-placed Guid or DateTime made the compiler move them
// in pieces that the processor cannot forward to the whole-word reads that follow.
#[repr(u64)]
pub enum Value {
    /// `Edm.Boolean`.
    Bool(bool),
    /// `Edm.Int32`.
    Int32(i32),
    /// `Edm.Int64`: sent as a JSON string with an annotation.
    Int64(i64),
    /// `Edm.Double`: NaN and the infinities are allowed.
    Double(f64),
    /// `Edm.DateTime`: UTC, kept to the service's 100 ns precision.
    DateTime(DateTime<Utc>),
    /// `Edm.Guid`.
    Guid(Uuid),
    /// `Edm.String`: at most 32,767 UTF-16 code units. Up to 23 bytes are kept inline and
    /// longer text is shared, so decoding allocates for few strings and cloning copies none;
    /// `"text".into()` or `String::into()` makes one, and it reads as a `&str`.
    String(SmolStr),
    /// `Edm.Binary`: at most 64 KiB.
    Binary(Vec<u8>),
}

impl PartialEq for Value {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int32(a), Value::Int32(b)) => a == b,
            (Value::Int64(a), Value::Int64(b)) => a == b,
            (Value::Double(a), Value::Double(b)) => a == b || (a.is_nan() && b.is_nan()),
            (Value::DateTime(a), Value::DateTime(b)) => a == b,
            (Value::Guid(a), Value::Guid(b)) => a == b,
            (Value::String(a), Value::String(b)) => a == b,
            (Value::Binary(a), Value::Binary(b)) => a == b,
            _ => false,
        }
    }
}

/// The type of a [`Value`], named as in the `@odata.type` annotation.
///
/// ```
/// use tablekit::EdmType;
/// assert_eq!(EdmType::Guid.odata_name(), "Edm.Guid");
/// assert_eq!(EdmType::from_odata_name("Edm.Binary"), Some(EdmType::Binary));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EdmType {
    /// `Edm.Boolean`.
    Boolean,
    /// `Edm.Int32`.
    Int32,
    /// `Edm.Int64`.
    Int64,
    /// `Edm.Double`.
    Double,
    /// `Edm.DateTime`.
    DateTime,
    /// `Edm.Guid`.
    Guid,
    /// `Edm.String`.
    String,
    /// `Edm.Binary`.
    Binary,
}

impl EdmType {
    /// The annotation text, e.g. `Edm.Int64`.
    pub fn odata_name(self) -> &'static str {
        match self {
            EdmType::Boolean => "Edm.Boolean",
            EdmType::Int32 => "Edm.Int32",
            EdmType::Int64 => "Edm.Int64",
            EdmType::Double => "Edm.Double",
            EdmType::DateTime => "Edm.DateTime",
            EdmType::Guid => "Edm.Guid",
            EdmType::String => "Edm.String",
            EdmType::Binary => "Edm.Binary",
        }
    }

    /// Parses an annotation such as `Edm.DateTime`; `None` for anything else.
    pub fn from_odata_name(name: &str) -> Option<EdmType> {
        Some(match name {
            "Edm.Boolean" => EdmType::Boolean,
            "Edm.Int32" => EdmType::Int32,
            "Edm.Int64" => EdmType::Int64,
            "Edm.Double" => EdmType::Double,
            "Edm.DateTime" => EdmType::DateTime,
            "Edm.Guid" => EdmType::Guid,
            "Edm.String" => EdmType::String,
            "Edm.Binary" => EdmType::Binary,
            _ => return None,
        })
    }
}

impl fmt::Display for EdmType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.odata_name())
    }
}

impl Value {
    /// The EDM type of this value.
    pub fn edm_type(&self) -> EdmType {
        match self {
            Value::Bool(_) => EdmType::Boolean,
            Value::Int32(_) => EdmType::Int32,
            Value::Int64(_) => EdmType::Int64,
            Value::Double(_) => EdmType::Double,
            Value::DateTime(_) => EdmType::DateTime,
            Value::Guid(_) => EdmType::Guid,
            Value::String(_) => EdmType::String,
            Value::Binary(_) => EdmType::Binary,
        }
    }

    /// The bytes this value counts for in the service's entity size formula
    /// (strings `4 + 2 x UTF-16 units`, binary `4 + bytes`).
    ///
    /// ```
    /// use tablekit::Value;
    /// assert_eq!(Value::String("ab".into()).stored_size(), 8);
    /// assert_eq!(Value::Int64(1).stored_size(), 8);
    /// ```
    pub fn stored_size(&self) -> usize {
        match self {
            Value::Bool(_) => 1,
            Value::Int32(_) => 4,
            Value::Int64(_) | Value::Double(_) | Value::DateTime(_) => 8,
            Value::Guid(_) => 16,
            Value::String(s) => 4 + 2 * utf16_len(s),
            Value::Binary(b) => 4 + b.len(),
        }
    }
}

/// Ordinal comparison by UTF-16 code units: the service's (and .NET's) string order, which
/// differs from Rust's byte order for characters above U+FFFF.
///
/// ```
/// use std::cmp::Ordering;
/// use tablekit::value::utf16_cmp;
/// // U+10000 is the surrogate pair D800 DC00 in UTF-16, so it sorts before U+FFFD.
/// assert_eq!(utf16_cmp("\u{10000}", "\u{FFFD}"), Ordering::Less);
/// assert_eq!("\u{10000}".cmp("\u{FFFD}"), Ordering::Greater);
/// assert_eq!(utf16_cmp("apple", "apples"), Ordering::Less);
/// ```
#[inline]
pub fn utf16_cmp(a: &str, b: &str) -> Ordering {
    let (x, y) = (a.as_bytes(), b.as_bytes());
    let at = first_difference(x, y);
    let (Some(&p), Some(&q)) = (x.get(at), y.get(at)) else {
        return x.len().cmp(&y.len());
    };
    // UTF-8 byte order is code point order. UTF-16 differs only where a character above
    // U+FFFF (lead byte F0 to F4, a surrogate pair starting 0xD800 to 0xDBFF) meets one in
    // U+E000 to U+FFFF (lead byte EE or EF): there the supplementary character sorts first.
    // A difference in a continuation byte means equal lead bytes, so byte order holds.
    let upper_bmp = |b: u8| b == 0xEE || b == 0xEF;
    if p >= 0xF0 && upper_bmp(q) {
        Ordering::Less
    } else if q >= 0xF0 && upper_bmp(p) {
        Ordering::Greater
    } else {
        p.cmp(&q)
    }
}

/// Where two byte strings first differ (the shorter one's length when one is a prefix).
/// This runs for every step of every key lookup: eight bytes are compared at once, in plain
/// loops (iterator adapters are slow in the debug builds tests run in).
#[inline]
fn first_difference(x: &[u8], y: &[u8]) -> usize {
    let common = x.len().min(y.len());
    let mut at = 0;
    while at + 8 <= common {
        let word = |s: &[u8]| u64::from_le_bytes(s[at..at + 8].try_into().unwrap_or_default());
        let diff = word(x) ^ word(y);
        if diff != 0 {
            // Little-endian: the lowest set bit lies in the first differing byte.
            return at + (diff.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    while at < common && x[at] == y[at] {
        at += 1;
    }
    at
}

/// The length of `s` in UTF-16 code units, the unit every service string limit is measured in.
///
/// ```
/// assert_eq!(tablekit::value::utf16_len("a\u{1F600}"), 3);
/// assert_eq!(tablekit::value::utf16_len("plain"), 5);
/// ```
pub fn utf16_len(s: &str) -> usize {
    // ASCII, by far the most common text, is one unit a byte; the check reads a word at a
    // time, several times faster than counting bytes widened to `usize`.
    if s.is_ascii() {
        return s.len();
    }
    // Every character but a continuation byte starts one unit, and a 4-byte character (lead
    // byte 0xF0 or above) needs a second: counted over bytes, which vectorizes.
    s.bytes()
        .map(|b| usize::from(b & 0xC0 != 0x80) + usize::from(b >= 0xF0))
        .sum()
}

/// .NET ticks (100 ns units) between 0001-01-01 and the Unix epoch.
const UNIX_EPOCH_TICKS: i64 = 621_355_968_000_000_000;

/// The smallest DateTime the service stores: 1601-01-01T00:00:00Z.
pub const fn min_datetime() -> DateTime<Utc> {
    match NaiveDate::from_ymd_opt(1601, 1, 1) {
        Some(day) => day.and_time(NaiveTime::MIN).and_utc(),
        None => DateTime::<Utc>::MIN_UTC, // Not reached: the date is valid.
    }
}

/// The largest DateTime the service stores: the last tick of 9999-12-31.
pub const fn max_datetime() -> DateTime<Utc> {
    let day = NaiveDate::from_ymd_opt(9999, 12, 31);
    let time = NaiveTime::from_hms_nano_opt(23, 59, 59, 999_999_900);
    match (day, time) {
        (Some(day), Some(time)) => day.and_time(time).and_utc(),
        _ => DateTime::<Utc>::MAX_UTC, // Not reached: both are valid.
    }
}

/// The ticks of .NET's `DateTime.MaxValue` (9999-12-31T23:59:59.9999999).
pub const MAX_TICKS: i64 = 3_155_378_975_999_999_999;

/// .NET ticks (100 ns since 0001-01-01 UTC) of a time, the unit of `inverted_ticks` keys.
///
/// ```
/// use chrono::{TimeZone, Utc};
/// let t = Utc.with_ymd_and_hms(1970, 1, 1, 0, 0, 0).unwrap();
/// assert_eq!(tablekit::value::to_ticks(&t), 621_355_968_000_000_000);
/// ```
#[inline]
pub fn to_ticks(time: &DateTime<Utc>) -> i64 {
    let secs = time.timestamp();
    // A leap second stays in its second, as `truncate_to_tick` keeps it.
    let sub = i64::from((time.timestamp_subsec_nanos() / 100).min(9_999_999));
    secs.saturating_mul(10_000_000)
        .saturating_add(sub)
        .saturating_add(UNIX_EPOCH_TICKS)
}

/// The time at `ticks` (.NET ticks), or `None` outside .NET's range (`0..=`[`MAX_TICKS`]:
/// 0001-01-01 to 9999-12-31): such ticks can only come from damaged data.
///
/// ```
/// use tablekit::value::{from_ticks, MAX_TICKS};
/// let t = from_ticks(621_355_968_000_000_001).unwrap();
/// assert_eq!(t.timestamp_subsec_nanos(), 100);
/// assert!(from_ticks(-1).is_none() && from_ticks(MAX_TICKS + 1).is_none());
/// ```
#[inline]
pub fn from_ticks(ticks: i64) -> Option<DateTime<Utc>> {
    TicksDecoder::default().decode(ticks)
}

/// .NET ticks in one day.
const TICKS_PER_DAY: i64 = 86_400 * TICKS_PER_SECOND;
const TICKS_PER_SECOND: i64 = 10_000_000;

/// Turns ticks into times, remembering the calendar date of the last day it saw.
///
/// Finding the date of a day number is most of the cost of decoding a time, and the times
/// of one collection (a player's completed levels, a day of log lines) mostly share a few
/// days, so a reader of many times keeps one of these.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TicksDecoder {
    /// Days since 0001-01-01 of `date`; `i64::MIN` before the first decode.
    day: i64,
    date: NaiveDate,
}

impl Default for TicksDecoder {
    fn default() -> Self {
        TicksDecoder {
            day: i64::MIN,
            date: NaiveDate::MIN,
        }
    }
}

impl TicksDecoder {
    /// The time at `ticks`, or `None` outside `0..=MAX_TICKS`.
    #[inline]
    pub(crate) fn decode(&mut self, ticks: i64) -> Option<DateTime<Utc>> {
        if !(0..=MAX_TICKS).contains(&ticks) {
            return None;
        }
        let day = ticks / TICKS_PER_DAY;
        let in_day = ticks % TICKS_PER_DAY;
        if day != self.day {
            // Day 0 is 0001-01-01, which chrono numbers 1; day < 3.7 million fits an i32.
            self.date = NaiveDate::from_num_days_from_ce_opt(i32::try_from(day + 1).ok()?)?;
            self.day = day;
        }
        // Both fit a u32: seconds < 86,400 and nanoseconds < 10^9.
        let seconds = (in_day / TICKS_PER_SECOND) as u32;
        let nanos = (in_day % TICKS_PER_SECOND * 100) as u32;
        let time = NaiveTime::from_num_seconds_from_midnight_opt(seconds, nanos)?;
        Some(self.date.and_time(time).and_utc())
    }
}

/// Drops precision below the service's 100 ns tick, so a value reads back exactly as written:
/// the one precision rule of stored values, filter literals, key parts and index keys. A
/// leap second stays in its second as `.9999999`, the last tick .NET can hold (as the wire
/// text writes it).
///
/// ```
/// use chrono::DateTime;
/// let t = DateTime::from_timestamp(0, 123_456_789).unwrap();
/// assert_eq!(tablekit::value::truncate_to_tick(t).timestamp_subsec_nanos(), 123_456_700);
/// let leap = DateTime::from_timestamp(59, 1_500_000_000).unwrap();
/// assert_eq!(tablekit::value::truncate_to_tick(leap).timestamp_subsec_nanos(), 999_999_900);
/// ```
pub fn truncate_to_tick(time: DateTime<Utc>) -> DateTime<Utc> {
    let nanos = time.timestamp_subsec_nanos().min(999_999_999);
    DateTime::from_timestamp(time.timestamp(), nanos - nanos % 100).unwrap_or(time)
}

/// The longest text a [`SmolStr`] holds inline. smol_str names it `INLINE_CAP` only in the
/// releases that need a newer Rust than the crate's minimum; a test checks the two agree.
const SMOL_STR_INLINE_CAP: usize = 23;

/// A [`SmolStr`] of `text`, built in place when it fits inline (most keys, names and short
/// values do): `SmolStr::new` is an out-of-line call whose result the caller then reads back
/// in whole words just after it was written in pieces, a stall on every property.
#[inline(always)]
pub(crate) fn smol_str(text: &str) -> SmolStr {
    if text.len() <= SMOL_STR_INLINE_CAP {
        SmolStr::new_inline(text)
    } else {
        SmolStr::new(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_inline_capacity_is_smol_strs() {
        assert_eq!(SMOL_STR_INLINE_CAP, SmolStr::INLINE_CAP);
    }

    #[test]
    fn values_take_four_words_and_an_absent_one_no_more() {
        // Every entity holds one per property: the word-sized tag must not make them larger.
        assert_eq!(std::mem::size_of::<Value>(), 32);
        assert_eq!(std::mem::size_of::<Option<Value>>(), 32);
        assert_eq!(std::mem::size_of::<(SmolStr, Value)>(), 56);
    }

    #[test]
    fn built_in_place_strings_keep_every_byte_at_each_side_of_the_inline_limit() {
        // Byte lengths 0-30 and 400, each from ASCII and from multi-byte text (cut at the
        // last whole character), so that 22, 23 and 24 bytes are all met.
        for len in (0..=30).chain([400]) {
            for pattern in ["ab", "aé𝄞 "] {
                let mut text = String::new();
                for c in pattern.chars().cycle() {
                    if text.len() + c.len_utf8() > len {
                        break;
                    }
                    text.push(c);
                }
                let built = smol_str(&text);
                assert_eq!(built, text);
                assert_eq!(built.is_heap_allocated(), text.len() > SmolStr::INLINE_CAP);
            }
        }
    }

    #[test]
    fn ticks_round_trip_at_the_range_ends() {
        for t in [min_datetime(), max_datetime()] {
            assert_eq!(from_ticks(to_ticks(&t)), Some(t));
        }
        assert_eq!(to_ticks(&max_datetime()), MAX_TICKS);
    }

    /// The plain conversion, through chrono's Unix timestamps: what the decoder must equal.
    fn reference_from_ticks(ticks: i64) -> Option<DateTime<Utc>> {
        if !(0..=MAX_TICKS).contains(&ticks) {
            return None;
        }
        let since_epoch = ticks - UNIX_EPOCH_TICKS;
        let secs = since_epoch.div_euclid(TICKS_PER_SECOND);
        let nanos = (since_epoch.rem_euclid(TICKS_PER_SECOND) * 100) as u32;
        DateTime::from_timestamp(secs, nanos)
    }

    proptest::proptest! {
        #[test]
        fn from_ticks_matches_the_reference(ticks in proptest::num::i64::ANY) {
            proptest::prop_assert_eq!(from_ticks(ticks), reference_from_ticks(ticks));
        }

        /// One decoder over a run of times (the cache hit, the day changing, errors in
        /// between) gives what a fresh conversion gives.
        #[test]
        fn a_reused_decoder_matches_the_reference(
            start in -2 * MAX_TICKS..2 * MAX_TICKS,
            steps in proptest::collection::vec(-3 * TICKS_PER_DAY..3 * TICKS_PER_DAY, 1..40),
        ) {
            let mut decoder = TicksDecoder::default();
            let mut ticks = start;
            for step in steps {
                ticks = ticks.saturating_add(step);
                proptest::prop_assert_eq!(decoder.decode(ticks), reference_from_ticks(ticks));
            }
        }
    }

    #[test]
    fn the_decoder_handles_day_boundaries_and_the_range_ends() {
        let mut decoder = TicksDecoder::default();
        for ticks in [
            0,
            TICKS_PER_DAY - 1,
            TICKS_PER_DAY,
            -1,
            MAX_TICKS,
            UNIX_EPOCH_TICKS,
            i64::MIN,
            i64::MAX,
        ] {
            assert_eq!(
                decoder.decode(ticks),
                reference_from_ticks(ticks),
                "{ticks}"
            );
        }
    }

    proptest::proptest! {
        #[test]
        fn utf16_len_counts_utf16_units(s in proptest::string::string_regex(".{0,40}").unwrap()) {
            proptest::prop_assert_eq!(utf16_len(&s), s.encode_utf16().count());
        }
    }

    #[test]
    fn edm_names_round_trip() {
        for t in [
            EdmType::Boolean,
            EdmType::Int32,
            EdmType::Int64,
            EdmType::Double,
            EdmType::DateTime,
            EdmType::Guid,
            EdmType::String,
            EdmType::Binary,
        ] {
            assert_eq!(EdmType::from_odata_name(t.odata_name()), Some(t));
        }
        assert_eq!(EdmType::from_odata_name("Edm.Single"), None);
    }
}
