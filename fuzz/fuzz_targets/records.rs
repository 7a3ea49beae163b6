//! Arbitrary bytes into the record decoder: a value or a typed error, never a panic or a hang;
//! whatever decodes re-encodes to the same bytes.
#![no_main]

use chrono::{DateTime, Utc};
use libfuzzer_sys::fuzz_target;
use tablekit::record::{decode_records, encode_records};
use tablekit::Record;
use uuid::Uuid;

#[derive(Debug, PartialEq, Record)]
#[record(version = 1)]
struct Inner {
    a: i32,
    when: DateTime<Utc>,
    #[record(since = 1)]
    flag: bool,
}

#[derive(Debug, PartialEq, Record)]
#[record(version = 2)]
struct Outer {
    name: String,
    data: Vec<u8>,
    id: Option<Uuid>,
    inner: Vec<Inner>,
    #[record(since = 2)]
    score: f64,
    nested: Vec<Vec<String>>,
}

fuzz_target!(|bytes: &[u8]| {
    if let Ok(records) = decode_records::<Outer>(bytes) {
        // Old versions decode to the current one, so compare by re-decoding what we encode.
        let again = encode_records(&records).expect("decoded records encode");
        let back = decode_records::<Outer>(&again).expect("re-encoded data decodes");
        assert_eq!(encode_records(&back).expect("decoded records encode"), again);
    }
});
