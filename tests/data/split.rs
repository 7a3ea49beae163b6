//! Values split across properties: bit-exact round trips, the header deciding what is read
//! after a shrink, and the split defects of the C# library that accompanies "Jeffrey Richter's
//! Guide to Working with Azure Storage Tables via C# and other .NET Languages", one test each.

use proptest::prelude::*;
use rand::{RngExt, SeedableRng};
use tablekit::limits::{self, InvalidInput};
use tablekit::split::{self, SplitError, HEADER_LEN};
use tablekit::{DynamicEntity, Value};

const KIB: usize = 1024;

/// Incompressible, position-dependent bytes: a reused buffer or a misplaced chunk shows.
fn random_bytes(len: usize, seed: u64) -> Vec<u8> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    (0..len).map(|_| rng.random()).collect()
}

fn entity() -> DynamicEntity {
    DynamicEntity::new("p", "r")
}

/// The stored bytes of a property.
fn binary<'e>(e: &'e DynamicEntity, name: &str) -> &'e [u8] {
    match e.value(name) {
        Some(Value::Binary(b)) => b,
        other => panic!("{name} is {other:?}"),
    }
}

/// Defect: the C# library's Set reused one 64 KiB buffer, so values of 128 KiB and more came back
/// corrupted. Every size around the chunk boundaries round-trips bit-exactly.
#[test]
fn values_of_128_kib_and_more_round_trip_bit_exactly() {
    let first = 64 * KIB - HEADER_LEN;
    for (seed, len) in [
        128 * KIB,
        128 * KIB + 1,
        192 * KIB,
        first,
        first + 1,
        first + 64 * KIB,
        first + 64 * KIB + 1,
        split::max_bytes(16),
    ]
    .into_iter()
    .enumerate()
    {
        let value = random_bytes(len, seed as u64);
        let mut e = entity();
        split::write_split(&mut e, "Blob", &value, 16).unwrap();
        assert_eq!(
            split::read_split(&e, "Blob").unwrap().as_deref(),
            Some(&value[..])
        );
        // Every property respects the service's 64 KiB value limit.
        for (name, v) in e.properties() {
            limits::validate_value(name, v).unwrap();
        }
        // Chunks hold distinct parts of the value, in order.
        if len > 128 * KIB {
            assert_eq!(binary(&e, "Blob__1"), &value[first..first + 64 * KIB]);
            let second = first + 64 * KIB;
            let end = len.min(second + 64 * KIB);
            assert_eq!(binary(&e, "Blob__2"), &value[second..end]);
        }
    }
}

/// Defect: data beyond parts x 64 KiB was silently cut off. Here it is a typed error naming
/// the sizes, and the entity is left as it was.
#[test]
fn a_value_over_the_budget_is_a_typed_error_and_changes_nothing() {
    let mut e = entity();
    split::write_split(&mut e, "Blob", b"before", 4).unwrap();
    let before = e.clone();
    let too_big = vec![1u8; split::max_bytes(4) + 1];
    let err = split::write_split(&mut e, "Blob", &too_big, 4).unwrap_err();
    match &err {
        SplitError::TooLarge {
            property,
            bytes,
            max_bytes,
            max_properties,
        } => {
            assert_eq!(property, "Blob");
            assert_eq!(*bytes, too_big.len());
            assert_eq!(*max_bytes, 4 * 64 * KIB - HEADER_LEN);
            assert_eq!(*max_properties, 4);
        }
        other => panic!("{other:?}"),
    }
    assert!(err.to_string().contains("262134"), "{err}");
    assert_eq!(e, before);
    // Exactly the maximum fits.
    split::write_split(&mut e, "Blob", &too_big[1..], 4).unwrap();
    assert_eq!(e.len(), 4);
}

/// Defect: the C# library wrote empty arrays into unused chunks instead of removing them. A
/// smaller value removes its unused chunks from the entity, so a Replace deletes them.
#[test]
fn a_smaller_value_removes_unused_chunks() {
    let mut e = entity();
    e.set("Score", 5);
    split::write_split(&mut e, "Blob", &random_bytes(300 * KIB, 1), 16).unwrap();
    assert_eq!(e.len(), 1 + 5);
    split::write_split(&mut e, "Blob", &random_bytes(100 * KIB, 2), 16).unwrap();
    let names: Vec<&str> = e.properties().map(|(n, _)| n).collect();
    assert_eq!(names, ["Score", "Blob", "Blob__1"]);
    assert!(split::stale_chunks(&e, "Blob").is_empty());
}

/// What the service holds after a Merge: the properties the merge sent replace the stored
/// ones, everything else stays.
fn merge(stored: &DynamicEntity, sent: &DynamicEntity) -> DynamicEntity {
    let mut merged = stored.clone();
    for (name, value) in sent.properties() {
        merged.set(name, value.clone());
    }
    merged
}

/// Defect: a smaller part count left stale chunks that were read back. Under Merge they stay
/// on the service, but the header decides and they are never read.
#[test]
fn stale_chunks_after_a_merge_are_never_read() {
    let big = random_bytes(400 * KIB, 3);
    let mut stored = entity();
    split::write_split(&mut stored, "Blob", &big, 16).unwrap();
    for small_len in [0, 10, 64 * KIB - HEADER_LEN, 100 * KIB, 399 * KIB] {
        let small = random_bytes(small_len, small_len as u64);
        let mut sent = entity();
        split::write_split(&mut sent, "Blob", &small, 16).unwrap();
        let merged = merge(&stored, &sent);
        assert_eq!(
            split::read_split(&merged, "Blob").unwrap().as_deref(),
            Some(&small[..])
        );
        let stale = split::stale_chunks(&merged, "Blob");
        assert_eq!(stale.len(), stored.len() - sent.len(), "{small_len}");

        // The documented clean-up: remove them locally, then Replace.
        let mut cleaned = merged.clone();
        assert_eq!(
            split::remove_stale_chunks(&mut cleaned, "Blob"),
            stale.len()
        );
        assert_eq!(cleaned, sent);
    }
}

#[test]
fn corruption_is_detected() {
    let value = random_bytes(150 * KIB, 4);
    let mut good = entity();
    split::write_split(&mut good, "Blob", &value, 4).unwrap();

    // One flipped bit in a chunk: checksum.
    let mut e = good.clone();
    let mut chunk = binary(&e, "Blob__2").to_vec();
    chunk[100] ^= 1;
    e.set("Blob__2", chunk);
    assert!(matches!(
        split::read_split(&e, "Blob"),
        Err(SplitError::Checksum { .. })
    ));

    // A chunk the header counts is missing.
    let mut e = good.clone();
    e.remove("Blob__1");
    assert!(matches!(
        split::read_split(&e, "Blob"),
        Err(SplitError::MissingChunk { chunk, .. }) if chunk == "Blob__1"
    ));

    // A chunk of the wrong length.
    let mut e = good.clone();
    e.set("Blob__2", vec![0u8; 3]);
    assert!(matches!(
        split::read_split(&e, "Blob"),
        Err(SplitError::Length { .. })
    ));

    // Headers: too short, unknown format, zero chunks.
    for head in [
        vec![],
        vec![1, 1, 0],
        vec![2; HEADER_LEN],
        vec![1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    ] {
        let mut e = entity();
        e.set("Blob", head);
        assert!(matches!(
            split::read_split(&e, "Blob"),
            Err(SplitError::Header { .. })
        ));
    }

    // Not binary at all.
    let mut e = entity();
    e.set("Blob", "text");
    assert!(matches!(
        split::read_split(&e, "Blob"),
        Err(SplitError::NotBinary { .. })
    ));
}

#[test]
fn bad_budgets_and_names_are_refused_before_writing() {
    let mut e = entity();
    for max in [0, 253] {
        assert!(matches!(
            split::write_split(&mut e, "Blob", b"x", max),
            Err(SplitError::MaxProperties { .. })
        ));
    }
    assert!(matches!(
        split::write_split(&mut e, "Bad Name", b"x", 1),
        Err(SplitError::InvalidInput(InvalidInput::PropertyName { .. }))
    ));
    // The longest chunk name must be valid too: 252 characters + "__15" is too long.
    let long = "N".repeat(252);
    assert!(split::write_split(&mut e, &long, b"x", 1).is_ok());
    assert!(matches!(
        split::write_split(&mut e, &long, b"x", 16),
        Err(SplitError::InvalidInput(InvalidInput::PropertyName { .. }))
    ));
}

/// The entity size check counts every chunk: 16 full chunks cannot fit in a 1 MiB entity.
#[test]
fn entity_size_counts_every_chunk() {
    let mut e = entity();
    split::write_split(&mut e, "Blob", &vec![0; split::max_bytes(16)], 16).unwrap();
    assert!(e.size() > 16 * 64 * KIB);
    assert!(matches!(
        limits::validate_entity(&e),
        Err(InvalidInput::EntityTooLarge { .. })
    ));
    let mut e = entity();
    split::write_split(&mut e, "Blob", &vec![0; 15 * 64 * KIB], 16).unwrap();
    limits::validate_entity(&e).unwrap();
}

#[test]
fn remove_split_removes_every_chunk_and_nothing_else() {
    let mut e = entity();
    e.set("Blobby", 1);
    e.set("Blob_1", 2);
    e.set("Blob__01", 3);
    split::write_split(&mut e, "Blob", &random_bytes(200 * KIB, 5), 16).unwrap();
    e.set("Blob__40", vec![1u8]);
    split::remove_split(&mut e, "Blob");
    let names: Vec<&str> = e.properties().map(|(n, _)| n).collect();
    assert_eq!(names, ["Blobby", "Blob_1", "Blob__01"]);
}

#[test]
fn json_values_are_strings_when_small_and_split_when_large() {
    let mut e = entity();
    let small = vec!["a".to_string(); 3];
    split::write_json(&mut e, "Tags", &small, 8).unwrap();
    assert!(matches!(e.value("Tags"), Some(Value::String(_))));
    assert_eq!(
        split::read_json::<Vec<String>>(&e, "Tags").unwrap(),
        Some(small)
    );

    let large: Vec<String> = (0..20_000).map(|i| format!("tag{i}")).collect();
    split::write_json(&mut e, "Tags", &large, 8).unwrap();
    assert!(matches!(e.value("Tags"), Some(Value::Binary(_))));
    assert!(e.contains("Tags__1"));
    assert_eq!(
        split::read_json::<Vec<String>>(&e, "Tags").unwrap(),
        Some(large)
    );

    // Back to small: the chunks go.
    split::write_json(&mut e, "Tags", &["x"], 8).unwrap();
    assert_eq!(e.len(), 1);
    assert_eq!(
        split::read_json::<Vec<String>>(&e, "Tags").unwrap(),
        Some(vec!["x".into()])
    );
    assert_eq!(
        split::read_json::<Vec<String>>(&e, "Missing").unwrap(),
        None
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn any_value_round_trips(len in 0usize..300_000, seed in any::<u64>(), max in 5usize..8) {
        let value = random_bytes(len, seed);
        let mut e = entity();
        split::write_split(&mut e, "V", &value, max).unwrap();
        prop_assert_eq!(split::read_split(&e, "V").unwrap(), Some(value));
    }

    /// Whatever the stored properties hold, reading gives a value or a typed error.
    #[test]
    fn arbitrary_properties_never_panic(head in proptest::collection::vec(any::<u8>(), 0..64), chunk in proptest::collection::vec(any::<u8>(), 0..64)) {
        let mut e = entity();
        e.set("V", head);
        e.set("V__1", chunk);
        let _ = split::read_split(&e, "V");
        let _ = split::stale_chunks(&e, "V");
    }
}
