//! The record reader: a derived, versioned record with every field kind, read from any
//! bytes; also the raw reader primitives.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tablekit::prelude::*;
use tablekit::record::{decode_records, encode_records, RecordReader};

#[derive(Debug, Clone, PartialEq, Record)]
#[record(version = 2)]
struct Sample {
    id: u32,
    name: String,
    when: DateTime<Utc>,
    guid: Uuid,
    ratio: f64,
    flag: bool,
    blob: Vec<u8>,
    #[record(since = 1)]
    count: i64,
    #[record(since = 2)]
    nick: Option<String>,
}

fuzz_target!(|data: &[u8]| {
    if let Ok(records) = decode_records::<Sample>(data) {
        let again = decode_records::<Sample>(&encode_records(&records).expect("decoded records encode"));
        assert!(again.is_ok(), "records we read do not read back after writing");
    }
    let mut reader = RecordReader::new(data);
    while reader.read_string().is_ok() {}
});
