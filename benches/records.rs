//! Record encoding and split values against a `memcpy` of the same bytes in the same run.
//!
//! Targets: records at least 1 GB/s both ways, split/join at least 2 GB/s.
//! Run with `cargo bench --bench records`.

// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use std::hint::black_box;
use std::time::Duration;

use chrono::{DateTime, Utc};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tablekit::record::{
    decode_records, encode_records, RecordError, RecordField, RecordReader, RecordWriter,
};
use tablekit::{split, DynamicEntity, Record};

/// The level enum of the gamers in "Jeffrey Richter's Guide to Working with Azure Storage
/// Tables via C# and other .NET Languages", stored as an `i32`.
#[derive(Clone, Copy)]
enum Level {
    Dungeon,
    Castle,
}

impl RecordField for Level {
    fn write_field(&self, w: &mut RecordWriter) {
        w.write_i32(*self as i32);
    }

    fn read_field(r: &mut RecordReader<'_>) -> Result<Self, RecordError> {
        match r.read_i32()? {
            0 => Ok(Level::Dungeon),
            1 => Ok(Level::Castle),
            n => Err(RecordError::invalid(format!("unknown level {n}"))),
        }
    }
}

/// The guide's completed-level record: 12 bytes (an `i32` level and the completion ticks).
#[derive(Clone, Record)]
struct CompletedLevel {
    level: Level,
    completed: DateTime<Utc>,
}

const RECORDS: usize = 5_000;
const SPLIT_BYTES: usize = 1024 * 1024;
/// 1 MiB plus the header needs 17 properties.
const SPLIT_PROPERTIES: usize = 17;

/// `RECORDS` levels completed `spacing_secs` apart, at sub-second times.
fn levels(spacing_secs: i64) -> Vec<CompletedLevel> {
    (0..RECORDS)
        .map(|i| CompletedLevel {
            level: if i % 2 == 0 {
                Level::Dungeon
            } else {
                Level::Castle
            },
            completed: DateTime::from_timestamp(
                1_400_000_000 + i as i64 * spacing_secs,
                (i as u32 * 7_919 % 10_000_000) * 100,
            )
            .unwrap_or_default(),
        })
        .collect()
}

fn records(c: &mut Criterion) {
    // Each level on a different day: the worst case for decoding times.
    let spread = encode_records(&levels(86_400 + 437)).unwrap_or_default();
    // A level every 7 minutes or so: 5,000 levels over 25 days, as a keen player's would be.
    let levels = levels(437);
    let bytes = encode_records(&levels).unwrap_or_default();
    let mut group = c.benchmark_group("records");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("encode_5000", |b| {
        b.iter(|| encode_records(black_box(&levels)).unwrap_or_default())
    });
    group.bench_function("decode_5000", |b| {
        b.iter(|| decode_records::<CompletedLevel>(black_box(&bytes)))
    });
    group.bench_function("decode_5000_one_per_day", |b| {
        b.iter(|| decode_records::<CompletedLevel>(black_box(&spread)))
    });
    group.bench_function("memcpy", |b| b.iter(|| black_box(&bytes).to_vec()));
    group.finish();
}

fn split_join(c: &mut Criterion) {
    let value: Vec<u8> = (0..SPLIT_BYTES).map(|i| (i * 31 % 251) as u8).collect();
    let mut stored = DynamicEntity::new("p", "r");
    split::write_split(&mut stored, "Blob", &value, SPLIT_PROPERTIES).unwrap_or_default();
    let mut group = c.benchmark_group("split_1mib");
    group.throughput(Throughput::Bytes(SPLIT_BYTES as u64));
    // A fresh entity each time, dropped in the loop as the floor's buffers are.
    group.bench_function("split", |b| {
        b.iter(|| {
            let mut e = DynamicEntity::new("p", "r");
            split::write_split(&mut e, "Blob", black_box(&value), SPLIT_PROPERTIES).map(|()| e)
        })
    });
    // Rewriting a value the entity already holds: the chunks' buffers are reused.
    let mut rewritten = stored.clone();
    group.bench_function("split_over_previous", |b| {
        b.iter(|| split::write_split(&mut rewritten, "Blob", black_box(&value), SPLIT_PROPERTIES))
    });
    // The floor for a fresh entity: copying the same bytes into as many new 64 KiB buffers.
    group.bench_function("memcpy_into_chunks", |b| {
        b.iter(|| {
            black_box(&value)
                .chunks(64 * 1024)
                .map(<[u8]>::to_vec)
                .collect::<Vec<_>>()
        })
    });
    group.bench_function("join", |b| {
        b.iter(|| split::read_split(black_box(&stored), "Blob"))
    });
    group.bench_function("memcpy", |b| b.iter(|| black_box(&value).to_vec()));
    group.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
}

criterion_group! { name = benches; config = config(); targets = records, split_join }
criterion_main!(benches);
