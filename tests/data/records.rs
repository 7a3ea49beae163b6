//! `#[derive(Record)]` and hand-written records: round trips, versions, and the reader's
//! refusal of every malformed input (the defects of the `PropertySerializer` of the C# library
//! that accompanies "Jeffrey Richter's Guide to Working with Azure Storage Tables via C# and
//! other .NET Languages", one test each).

use chrono::{DateTime, TimeZone, Utc};
use proptest::prelude::*;
use tablekit::record::{
    decode_records, encode_records, RecordError, RecordField, RecordReader, RecordWriter,
};
use tablekit::Record;
use uuid::Uuid;

/// The guide's level enum, stored by discriminant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Level {
    #[default]
    Dungeon = 0,
    Castle = 1,
    Forest = 2,
}

impl RecordField for Level {
    fn write_field(&self, w: &mut RecordWriter) {
        w.write_i32(*self as i32);
    }

    fn read_field(r: &mut RecordReader<'_>) -> Result<Self, RecordError> {
        match r.read_i32()? {
            0 => Ok(Level::Dungeon),
            1 => Ok(Level::Castle),
            2 => Ok(Level::Forest),
            n => Err(RecordError::invalid(format!("unknown level {n}"))),
        }
    }
}

/// Version 0 of the guide's record, as the old code wrote it.
mod v0 {
    use super::*;

    #[derive(Debug, Clone, PartialEq, Record)]
    #[record(version = 0)]
    pub(crate) struct CompletedLevel {
        pub(crate) level: Level,
        pub(crate) completed: DateTime<Utc>,
    }
}

/// Version 1: stars were added.
mod v1 {
    use super::*;

    #[derive(Debug, Clone, PartialEq, Record)]
    #[record(version = 1)]
    pub(crate) struct CompletedLevel {
        pub(crate) level: Level,
        pub(crate) completed: DateTime<Utc>,
        #[record(since = 1)]
        pub(crate) stars: u8,
    }
}

/// Version 2: stars dropped again (kept for reading old data), a note added with a default.
mod v2 {
    use super::*;

    #[derive(Debug, Clone, PartialEq, Record)]
    #[record(version = 2)]
    pub(crate) struct CompletedLevel {
        pub(crate) level: Level,
        pub(crate) completed: DateTime<Utc>,
        #[record(since = 1, until = 2)]
        pub(crate) stars: u8,
        #[record(since = 2, default = String::from("none"))]
        pub(crate) note: String,
    }
}

fn at(secs: i64, nanos: u32) -> DateTime<Utc> {
    DateTime::from_timestamp(secs, nanos).unwrap()
}

#[test]
fn derived_record_writes_the_documented_bytes() {
    let level = v1::CompletedLevel {
        level: Level::Castle,
        completed: DateTime::UNIX_EPOCH,
        stars: 3,
    };
    let bytes = encode_records(&[level]).unwrap();
    assert_eq!(
        bytes,
        [1, 0, 1, 1, 0, 0, 0, 0, 0x80, 0xb5, 0xf7, 0xf5, 0x7f, 0x9f, 0x08, 3]
    );
}

#[test]
fn version_0_data_reads_with_version_1_code() {
    let old = vec![
        v0::CompletedLevel {
            level: Level::Castle,
            completed: at(1_400_000_000, 123_456_700),
        },
        v0::CompletedLevel {
            level: Level::Forest,
            completed: at(1_500_000_000, 0),
        },
    ];
    let bytes = encode_records(&old).unwrap();
    assert_eq!(
        bytes.len(),
        2 + 1 + 2 * 12,
        "12 bytes a record, as in the guide"
    );
    let new: Vec<v1::CompletedLevel> = decode_records(&bytes).unwrap();
    assert_eq!(new.len(), 2);
    for (old, new) in old.iter().zip(&new) {
        assert_eq!(new.level, old.level);
        assert_eq!(new.completed, old.completed);
        assert_eq!(new.stars, 0, "absent in version 0: the default");
    }
}

#[test]
fn removed_field_is_read_from_old_data_and_no_longer_written() {
    let v1 = v1::CompletedLevel {
        level: Level::Forest,
        completed: at(1_600_000_000, 0),
        stars: 5,
    };
    let from_v1: Vec<v2::CompletedLevel> = decode_records(&encode_records(&[v1]).unwrap()).unwrap();
    assert_eq!(from_v1[0].stars, 5);
    assert_eq!(
        from_v1[0].note, "none",
        "the declared default for older data"
    );

    let from_v0: Vec<v2::CompletedLevel> = decode_records(
        &encode_records(&[v0::CompletedLevel {
            level: Level::Dungeon,
            completed: at(0, 0),
        }])
        .unwrap(),
    )
    .unwrap();
    assert_eq!((from_v0[0].stars, from_v0[0].note.as_str()), (0, "none"));

    let current = v2::CompletedLevel {
        level: Level::Castle,
        completed: at(1, 0),
        stars: 9,
        note: "hi".into(),
    };
    let bytes = encode_records(std::slice::from_ref(&current)).unwrap();
    // version, count, level, ticks, note (length 2 + "hi"): no stars byte.
    assert_eq!(bytes.len(), 2 + 1 + 4 + 8 + 3);
    let back: Vec<v2::CompletedLevel> = decode_records(&bytes).unwrap();
    assert_eq!(back[0].stars, 0, "a removed field is not written");
    assert_eq!(back[0].note, "hi");
}

#[test]
fn newer_data_is_refused_not_misread() {
    let bytes = encode_records(&[v1::CompletedLevel {
        level: Level::Castle,
        completed: at(0, 0),
        stars: 1,
    }])
    .unwrap();
    let err = decode_records::<v0::CompletedLevel>(&bytes).unwrap_err();
    assert!(
        matches!(
            err,
            RecordError::UnknownVersion {
                found: 1,
                supported: 0,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("CompletedLevel"), "{err}");
}

/// Every field type the format supports, nested records and vectors included.
#[derive(Debug, Clone, PartialEq, Record)]
#[record(version = 3)]
struct Everything {
    a: u8,
    b: u16,
    c: u32,
    d: u64,
    e: i8,
    f: i16,
    g: i32,
    h: i64,
    i: f32,
    j: f64,
    k: bool,
    when: DateTime<Utc>,
    id: Uuid,
    text: String,
    bytes: Vec<u8>,
    maybe: Option<String>,
    nothing: Option<u64>,
    inner: v1::CompletedLevel,
    levels: Vec<v1::CompletedLevel>,
    numbers: Vec<i32>,
    nested: Vec<Vec<String>>,
}

/// A tuple struct and a generic one derive too.
#[derive(Debug, Clone, PartialEq, Record)]
#[record(version = 1)]
struct Pair(u8, #[record(since = 1)] String);

#[derive(Debug, Clone, PartialEq, Record)]
struct Wrapper<T> {
    items: Vec<T>,
}

/// A generic struct with its own where clause.
#[derive(Debug, Clone, PartialEq, Record)]
struct Bounded<T>
where
    T: Clone,
{
    first: T,
    rest: Vec<T>,
}

fn everything() -> Everything {
    Everything {
        a: u8::MAX,
        b: u16::MAX,
        c: u32::MAX,
        d: u64::MAX,
        e: i8::MIN,
        f: i16::MIN,
        g: i32::MIN,
        h: i64::MIN,
        i: f32::MIN_POSITIVE,
        j: -0.0,
        k: true,
        when: Utc.with_ymd_and_hms(9999, 12, 31, 23, 59, 59).unwrap(),
        id: Uuid::from_u128(0x0011_2233_4455_6677_8899_aabb_ccdd_eeff),
        text: "naïve 🦀".into(),
        bytes: (0..=255).collect(),
        maybe: Some(String::new()),
        nothing: None,
        inner: v1::CompletedLevel {
            level: Level::Forest,
            completed: at(-62_135_596_800, 0), // 0001-01-01, tick 0
            stars: 2,
        },
        levels: vec![],
        numbers: vec![-1, 0, 1],
        nested: vec![vec!["a".into()], vec![]],
    }
}

#[test]
fn every_field_type_round_trips() {
    let records = vec![everything(), everything()];
    let back: Vec<Everything> = decode_records(&encode_records(&records).unwrap()).unwrap();
    assert_eq!(back, records);
    assert!(back[0].j.is_sign_negative(), "-0.0 keeps its sign bit");

    let pairs = vec![Pair(1, "x".into())];
    assert_eq!(
        decode_records::<Pair>(&encode_records(&pairs).unwrap()).unwrap(),
        pairs
    );
    // Version-0 tuple data (just the u8) reads with the new field defaulted.
    assert_eq!(
        decode_records::<Pair>(&[0, 0, 1, 7]).unwrap(),
        [Pair(7, String::new())]
    );

    let wrapped = vec![Wrapper {
        items: vec![1u16, 2],
    }];
    assert_eq!(
        decode_records::<Wrapper<u16>>(&encode_records(&wrapped).unwrap()).unwrap(),
        wrapped
    );
    let bounded = vec![Bounded {
        first: String::from("a"),
        rest: vec!["b".into()],
    }];
    let back: Vec<Bounded<String>> = decode_records(&encode_records(&bounded).unwrap()).unwrap();
    assert_eq!(back, bounded);
}

#[test]
fn datetimes_keep_ticks_and_drop_only_sub_tick_nanos() {
    let records = vec![v1::CompletedLevel {
        level: Level::Dungeon,
        completed: at(1_700_000_000, 999_999_999),
        stars: 0,
    }];
    let back: Vec<v1::CompletedLevel> = decode_records(&encode_records(&records).unwrap()).unwrap();
    assert_eq!(back[0].completed, at(1_700_000_000, 999_999_900));
}

// ---- Defects of the C# library's PropertySerializer, one test each ----

/// Defect: string length checked in characters but prefixed in bytes, so multi-byte text
/// over 255 bytes corrupted the stream.
#[test]
fn multibyte_strings_over_255_bytes_round_trip() {
    #[derive(Debug, PartialEq, Record)]
    struct Note {
        text: String,
        after: u32,
    }
    for text in ["é".repeat(200), "🦀".repeat(100), "a€𝄞".repeat(50)] {
        assert!(text.len() > 255 && text.chars().count() <= 255);
        let notes = vec![
            Note {
                text,
                after: 0xdead_beef,
            },
            Note {
                text: "z".into(),
                after: 1,
            },
        ];
        let back: Vec<Note> = decode_records(&encode_records(&notes).unwrap()).unwrap();
        assert_eq!(back, notes, "the field after the string reads intact");
    }
}

/// Defect: a 2-byte length prefix read as signed, so lengths 32,768 to 65,535 failed.
#[test]
fn string_lengths_around_the_16_bit_boundaries_round_trip() {
    #[derive(Debug, PartialEq, Record)]
    struct Text {
        text: String,
    }
    for len in [
        127, 128, 255, 256, 32_767, 32_768, 40_000, 65_535, 65_536, 70_000,
    ] {
        let records = vec![Text {
            text: "x".repeat(len),
        }];
        let back: Vec<Text> = decode_records(&encode_records(&records).unwrap()).unwrap();
        assert_eq!(back[0].text.len(), len);
    }
}

/// Defect: the C# library's ToProperty silently dropped records beyond a maximum. Here the
/// count is part of the data and every record comes back.
#[test]
fn no_record_is_ever_dropped() {
    let many: Vec<v1::CompletedLevel> = (0..20_000)
        .map(|i| v1::CompletedLevel {
            level: Level::Castle,
            completed: at(i64::from(i), 0),
            stars: (i % 256) as u8,
        })
        .collect();
    let back: Vec<v1::CompletedLevel> = decode_records(&encode_records(&many).unwrap()).unwrap();
    assert_eq!(back, many);
}

/// Defect: the reader never checked the version. Every version above the code's is refused.
#[test]
fn every_unknown_version_is_refused() {
    for version in [2u16, 3, 255, 256, u16::MAX] {
        let mut bytes = version.to_le_bytes().to_vec();
        bytes.push(0);
        let err = decode_records::<v1::CompletedLevel>(&bytes).unwrap_err();
        assert!(matches!(err, RecordError::UnknownVersion { found, .. } if found == version));
    }
}

/// A hand-written record whose reader forgets to read anything.
struct Forgetful;

impl Record for Forgetful {
    const VERSION: u16 = 0;
    fn write(&self, w: &mut RecordWriter) {
        w.write_u8(1);
    }
    fn read(_: &mut RecordReader<'_>, _: u16) -> Result<Self, RecordError> {
        Ok(Forgetful)
    }
}

/// A hand-written record that writes nothing, and a field type that writes nothing.
struct Silent;

impl Record for Silent {
    const VERSION: u16 = 0;
    fn write(&self, _: &mut RecordWriter) {}
    fn read(_: &mut RecordReader<'_>, _: u16) -> Result<Self, RecordError> {
        Ok(Silent)
    }
}

#[derive(Debug)]
struct Nothing;

impl RecordField for Nothing {
    fn write_field(&self, _: &mut RecordWriter) {}
    fn read_field(_: &mut RecordReader<'_>) -> Result<Self, RecordError> {
        Ok(Nothing)
    }
}

#[derive(Record)]
#[record(version = 0)]
struct HoldsNothing {
    id: u8,
    nothing: Vec<Nothing>,
}

/// A record or element that writes no bytes could never be read back (a reader bounds a
/// count by the bytes left), so writing it is the error, naming the type: at the top level,
/// nested in a field, and for an empty sequence nothing is refused.
#[test]
fn values_that_write_no_bytes_are_refused_when_written() {
    let err = encode_records(&[Silent, Silent]).unwrap_err();
    assert!(
        matches!(err, RecordError::EmptyValue { what } if what.ends_with("Silent")),
        "{err}"
    );
    assert!(err.to_string().contains("wrote no bytes"), "{err}");

    let nested = [HoldsNothing {
        id: 1,
        nothing: vec![Nothing],
    }];
    let err = encode_records(&nested).unwrap_err();
    assert!(
        matches!(err, RecordError::EmptyValue { what } if what.ends_with("Nothing")),
        "{err}"
    );

    // No values, nothing unreadable: both round-trip.
    assert_eq!(
        decode_records::<Silent>(&encode_records::<Silent>(&[]).unwrap())
            .unwrap()
            .len(),
        0
    );
    let empty = [HoldsNothing {
        id: 2,
        nothing: Vec::new(),
    }];
    let back = decode_records::<HoldsNothing>(&encode_records(&empty).unwrap()).unwrap();
    assert_eq!((back[0].id, back[0].nothing.len()), (2, 0));

    // Through a split property the error comes before the entity changes.
    let mut entity = tablekit::DynamicEntity::new("p", "r");
    let err = tablekit::split::write_records(&mut entity, "Silent", &[Silent], 4).unwrap_err();
    assert!(err.to_string().contains("wrote no bytes"), "{err}");
    assert_eq!(entity.len(), 0);
}

/// Defect: a read callback that consumed nothing looped forever (records were read until the
/// bytes ran out). The stored count bounds the loop and the leftovers are reported.
#[test]
fn a_reader_that_reads_nothing_ends_with_an_error() {
    let bytes = encode_records(&[Forgetful, Forgetful, Forgetful]).unwrap();
    let err = decode_records::<Forgetful>(&bytes).err().unwrap();
    assert_eq!(
        err,
        RecordError::TrailingBytes {
            offset: 3,
            count: 3
        }
    );
}

/// Defect: truncated input surfaced as random runtime exceptions. Every prefix of valid data
/// is a typed error, never a panic.
#[test]
fn every_truncation_is_a_typed_error() {
    let bytes = encode_records(&[everything()]).unwrap();
    for len in 0..bytes.len() {
        let err = decode_records::<Everything>(&bytes[..len]).unwrap_err();
        assert!(
            matches!(
                err,
                RecordError::Truncated { .. }
                    | RecordError::LengthPastEnd { .. }
                    | RecordError::InvalidVarint { .. }
            ),
            "prefix of {len} bytes: {err:?}"
        );
    }
}

#[test]
fn malformed_values_are_typed_errors() {
    #[derive(Debug, Record)]
    struct S {
        _s: String,
    }
    #[derive(Debug, Record)]
    struct B {
        _b: bool,
    }
    #[derive(Debug, Record)]
    struct O {
        _o: Option<u8>,
    }
    #[derive(Debug, Record)]
    struct T {
        _t: DateTime<Utc>,
    }
    assert!(matches!(
        decode_records::<S>(&[0, 0, 1, 2, 0xc3, 0x28]),
        Err(RecordError::InvalidUtf8 { offset: 4 })
    ));
    assert!(matches!(
        decode_records::<S>(&[0, 0, 1, 0xff, 0xff, 0xff, 0x0f]),
        Err(RecordError::LengthPastEnd {
            length: 0x01ff_ffff,
            ..
        })
    ));
    assert!(matches!(
        decode_records::<B>(&[0, 0, 1, 2]),
        Err(RecordError::InvalidTag {
            what: "bool",
            value: 2,
            offset: 3
        })
    ));
    assert!(matches!(
        decode_records::<O>(&[0, 0, 1, 9]),
        Err(RecordError::InvalidTag { value: 9, .. })
    ));
    let mut bytes = vec![0, 0, 1];
    bytes.extend_from_slice(&i64::MIN.to_le_bytes());
    assert!(matches!(
        decode_records::<T>(&bytes),
        Err(RecordError::InvalidDateTime {
            ticks: i64::MIN,
            offset: 3
        })
    ));
    // A record count far past the bytes left fails at once instead of allocating.
    assert!(matches!(
        decode_records::<B>(&[0, 0, 0xff, 0xff, 0xff, 0xff, 0x7f]),
        Err(RecordError::LengthPastEnd { .. })
    ));
    assert!(matches!(
        decode_records::<B>(&[
            0, 0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01
        ]),
        Err(RecordError::InvalidVarint { offset: 2 })
    ));
    assert!(matches!(
        decode_records::<B>(&[0]),
        Err(RecordError::Truncated {
            offset: 0,
            needed: 2,
            remaining: 1
        })
    ));
    let err = decode_records::<v1::CompletedLevel>(&[0, 0, 1, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
        .unwrap_err();
    assert_eq!(err, RecordError::invalid("unknown level 9"));
}

/// Errors convert into the crate's error type, kept typed.
#[test]
fn record_errors_convert_to_the_crate_error() {
    let err: tablekit::Error = decode_records::<Forgetful>(&[9, 9]).err().unwrap().into();
    assert!(matches!(
        err,
        tablekit::Error::Record(RecordError::UnknownVersion { .. })
    ));
}

fn level_strategy() -> impl Strategy<Value = Level> {
    prop_oneof![
        Just(Level::Dungeon),
        Just(Level::Castle),
        Just(Level::Forest)
    ]
}

fn time_strategy() -> impl Strategy<Value = DateTime<Utc>> {
    // 0001-01-01 to 9999-12-31, at tick precision.
    (-62_135_596_800i64..253_402_300_799, 0u32..10_000_000).prop_map(|(s, t)| at(s, t * 100))
}

#[derive(Debug, Clone, PartialEq, Record)]
#[record(version = 1)]
struct Mixed {
    name: String,
    data: Vec<u8>,
    score: Option<f64>,
    id: Uuid,
    levels: Vec<v1::CompletedLevel>,
}

fn mixed_strategy() -> impl Strategy<Value = Mixed> {
    let level =
        (level_strategy(), time_strategy(), any::<u8>()).prop_map(|(level, completed, stars)| {
            v1::CompletedLevel {
                level,
                completed,
                stars,
            }
        });
    (
        ".*",
        proptest::collection::vec(any::<u8>(), 0..300),
        proptest::option::of(any::<f64>().prop_filter("NaN != NaN", |f| !f.is_nan())),
        any::<u128>(),
        proptest::collection::vec(level, 0..5),
    )
        .prop_map(|(name, data, score, id, levels)| Mixed {
            name,
            data,
            score,
            id: Uuid::from_u128(id),
            levels,
        })
}

proptest! {
    #[test]
    fn records_round_trip(records in proptest::collection::vec(mixed_strategy(), 0..20)) {
        let bytes = encode_records(&records).unwrap();
        prop_assert_eq!(decode_records::<Mixed>(&bytes).unwrap(), records);
    }

    /// Arbitrary bytes never panic and never hang: a value or a typed error.
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let _ = decode_records::<Mixed>(&bytes);
        let _ = decode_records::<Everything>(&bytes);
    }

    /// Flipping any one byte of valid data gives a value or a typed error, never a panic.
    #[test]
    fn corrupted_bytes_never_panic(records in proptest::collection::vec(mixed_strategy(), 1..4), index in any::<prop::sample::Index>(), flip in 1u8..) {
        let mut bytes = encode_records(&records).unwrap();
        let i = index.index(bytes.len());
        bytes[i] ^= flip;
        let _ = decode_records::<Mixed>(&bytes);
    }
}

/// A `#[derive(TableValue)]` enum has no `RecordField` impl: the derive stores it as a
/// tagged table value, so a `CompletedLevel { level: Level, .. }` (the `gamers` example's) needs
/// no extra code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, tablekit::TableValue)]
#[repr(i32)]
enum Stage {
    #[default]
    Dungeon = 0,
    Castle = 1,
}

#[derive(Debug, Clone, PartialEq, Record)]
struct StageRecord {
    stage: Stage,
    maybe: Option<Stage>,
    count: u8,
}

#[test]
fn table_value_enums_are_record_fields() {
    let records = vec![
        StageRecord {
            stage: Stage::Castle,
            maybe: None,
            count: 1,
        },
        StageRecord {
            stage: Stage::Dungeon,
            maybe: Some(Stage::Castle),
            count: 2,
        },
    ];
    let bytes = encode_records(&records).unwrap();
    // The enum as its i32 discriminant (no type tag); `None` as the absent tag 0; the u8.
    assert_eq!(&bytes[3..9], [1, 0, 0, 0, 0, 1]);
    assert_eq!(decode_records::<StageRecord>(&bytes).unwrap(), records);
    // A discriminant the enum does not know is a typed error.
    let mut bad = bytes.clone();
    bad[4] = 9;
    assert!(matches!(
        decode_records::<StageRecord>(&bad),
        Err(RecordError::Invalid { .. })
    ));
}
