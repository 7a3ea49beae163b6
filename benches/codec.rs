//! The codec against the baselines it must keep up with, all in one run on the same bytes:
//! a 1000-entity minimalmetadata page (12 properties per entity, Int64, DateTime, Guid and a
//! 400-character string among them) decoded into dynamic entities, next to
//! `serde_json::from_slice::<IgnoredAny>` (the cost of reading the JSON at all),
//! `serde_json::Value` (a generic tree) and a typed `#[derive(Deserialize)]` struct of the same
//! shape. Targets: no slower than the typed struct, within 2.5x of IgnoredAny.
//! Encoding the same 1000 entities is measured too.
//!
//! Run with `cargo bench --bench codec`.

use std::borrow::Cow;
use std::hint::black_box;

use chrono::{DateTime, Utc};
use criterion::{Criterion, Throughput};
use serde::{Deserialize, Deserializer};
use tablekit::codec;

const ENTITIES: usize = 1000;

/// One entity as the service sends it in minimalmetadata: annotations before their values,
/// doubles with a fraction and strings unannotated.
fn entity_json(i: usize, description: &str) -> String {
    format!(
        concat!(
            r#"{{"odata.etag":"W/\"datetime'2026-11-22T11%3A42%3A24.{i:07}Z'\"","#,
            r#""PartitionKey":"part-{p:03}","RowKey":"row-{i:06}","#,
            r#""Timestamp":"2026-11-22T11:42:24.{i:07}Z","#,
            r#""Name":"player {i}","Description":"{description}","Count":{i},"#,
            r#""Total@odata.type":"Edm.Int64","Total":"{total}","#,
            r#""Score":{score},"Active":{active},"#,
            r#""Created@odata.type":"Edm.DateTime","Created":"2024-01-02T03:04:05.{i:07}Z","#,
            r#""Id@odata.type":"Edm.Guid","Id":"c9da6455-213d-42c9-9a79-{i:012}","#,
            r#""Owner":"owner-{o}","Level":{level},"Ratio":{ratio},"Tag":"t{i}"}}"#,
        ),
        i = i,
        p = i / 100,
        description = description,
        total = 9_000_000_000_000_i64 + i as i64,
        score = i as f64 + 0.5,
        active = i % 2 == 0,
        o = i % 37,
        level = i % 10,
        ratio = 1.0 / (i as f64 + 3.0),
    )
}

fn page() -> Vec<u8> {
    let description: String = "The quick brown fox jumps over the lazy dog. "
        .chars()
        .cycle()
        .take(400)
        .collect();
    let entities: Vec<String> = (0..ENTITIES)
        .map(|i| entity_json(i, &description))
        .collect();
    format!(
        r#"{{"odata.metadata":"http://127.0.0.1:10002/devstoreaccount1/$metadata#Bench","value":[{}]}}"#,
        entities.join(",")
    )
    .into_bytes()
}

/// The same entity as a hand-written serde struct, the way a user of serde alone would read it.
#[allow(dead_code)] // Fields are read only by the deserializer.
#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Typed {
    #[serde(rename = "odata.etag")]
    etag: String,
    partition_key: String,
    row_key: String,
    #[serde(deserialize_with = "datetime")]
    timestamp: DateTime<Utc>,
    name: String,
    description: String,
    count: i32,
    #[serde(deserialize_with = "int64")]
    total: i64,
    score: f64,
    active: bool,
    #[serde(deserialize_with = "datetime")]
    created: DateTime<Utc>,
    id: uuid::Uuid,
    owner: String,
    level: i32,
    ratio: f64,
    tag: String,
}

#[derive(Deserialize)]
struct TypedPage {
    value: Vec<Typed>,
}

fn int64<'de, D: Deserializer<'de>>(d: D) -> Result<i64, D::Error> {
    let text = Cow::<str>::deserialize(d)?;
    text.parse().map_err(serde::de::Error::custom)
}

fn datetime<'de, D: Deserializer<'de>>(d: D) -> Result<DateTime<Utc>, D::Error> {
    let text = Cow::<str>::deserialize(d)?;
    codec::parse_datetime(&text).ok_or_else(|| serde::de::Error::custom("bad DateTime"))
}

fn decode(c: &mut Criterion) {
    let bytes = page();
    // Sanity: every decoder reads the whole page.
    assert_eq!(codec::decode_page(&bytes).unwrap().len(), ENTITIES);
    assert_eq!(
        serde_json::from_slice::<TypedPage>(&bytes)
            .unwrap()
            .value
            .len(),
        ENTITIES
    );
    eprintln!("page: {} bytes, {ENTITIES} entities", bytes.len());

    let mut group = c.benchmark_group("decode_page_1000");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("tablekit_decode_page", |b| {
        b.iter(|| codec::decode_page(black_box(&bytes)).unwrap())
    });
    group.bench_function("serde_ignored_any", |b| {
        b.iter(|| serde_json::from_slice::<serde::de::IgnoredAny>(black_box(&bytes)).unwrap())
    });
    group.bench_function("serde_json_value", |b| {
        b.iter(|| serde_json::from_slice::<serde_json::Value>(black_box(&bytes)).unwrap())
    });
    group.bench_function("serde_typed_struct", |b| {
        b.iter(|| serde_json::from_slice::<TypedPage>(black_box(&bytes)).unwrap())
    });
    group.finish();
}

fn encode(c: &mut Criterion) {
    let entities = codec::decode_page(&page()).unwrap();
    let mut group = c.benchmark_group("encode_1000");
    group.bench_function("tablekit_encode_entity_into", |b| {
        let mut out = Vec::new();
        b.iter(|| {
            out.clear();
            for e in black_box(&entities) {
                codec::encode_entity_into(e, &mut out);
            }
            out.len()
        })
    });
    group.finish();
}

// The macro generates an undocumented `pub fn benches`.
#[allow(missing_docs)]
mod group {
    criterion::criterion_group!(benches, super::decode, super::encode);
}
/// `CODEC_BENCH_ONLY=<decoder> CODEC_BENCH_ITERS=<n>` runs one decoder n times and exits, for
/// counting CPU cycles with `perf stat -e cycles:u` when the machine is too busy for wall-clock
/// times to compare. Where hardware counters are unavailable, count instructions instead, which
/// repeat exactly: `valgrind --tool=callgrind` at 1 and 4 iterations, the difference divided by
/// 3 is one decode without building the page. Decoders: tablekit, ignored_any, value, typed.
fn fixed_run(which: &str) {
    let bytes = page();
    let iterations = env_number("CODEC_BENCH_ITERS", 100);
    for _ in 0..iterations {
        decode_with(which, &bytes);
    }
}

/// Decodes `bytes` once with the named decoder, dropping the result.
fn decode_with(which: &str, bytes: &[u8]) {
    match which {
        "tablekit" => drop(black_box(codec::decode_page(black_box(bytes)).unwrap())),
        "ignored_any" => drop(black_box(
            serde_json::from_slice::<serde::de::IgnoredAny>(black_box(bytes)).unwrap(),
        )),
        "value" => drop(black_box(
            serde_json::from_slice::<serde_json::Value>(black_box(bytes)).unwrap(),
        )),
        "typed" => drop(black_box(
            serde_json::from_slice::<TypedPage>(black_box(bytes)).unwrap(),
        )),
        other => panic!("unknown decoder {other}"),
    }
}

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

/// `CODEC_BENCH_ALTERNATE=<rounds>` times the decoders side by side: each round runs a short
/// burst of each in turn, so that all of them meet the same moment of a shared machine, and
/// the report compares each decoder with `IgnoredAny` round by round. Criterion measures one
/// decoder for seconds, then the next, and a machine whose speed drifts over seconds moves
/// its ratios more than the code does.
fn alternating_run(rounds: usize) {
    const DECODERS: [&str; 3] = ["tablekit", "typed", "ignored_any"];
    const BASELINE: usize = 2;
    const BURST: u32 = 10;
    let bytes = page();
    let mut times: Vec<[f64; 3]> = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let mut round = [0.0; 3];
        for (slot, which) in round.iter_mut().zip(DECODERS) {
            let start = std::time::Instant::now();
            for _ in 0..BURST {
                decode_with(which, &bytes);
            }
            *slot = start.elapsed().as_secs_f64() * 1e3 / f64::from(BURST);
        }
        times.push(round);
    }
    println!(
        "{rounds} rounds of {BURST} decodes each \
         (ms per decode; x = per-round ratio to {})",
        DECODERS[BASELINE]
    );
    for (column, which) in DECODERS.iter().enumerate() {
        let mut own: Vec<f64> = times.iter().map(|t| t[column]).collect();
        let mut ratios: Vec<f64> = times.iter().map(|t| t[column] / t[BASELINE]).collect();
        println!(
            "{which:<12} least {:.3}  median {:.3}  median x {:.2}",
            least(&own),
            median(&mut own),
            median(&mut ratios)
        );
    }
}

fn least(values: &[f64]) -> f64 {
    values.iter().copied().fold(f64::INFINITY, f64::min)
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn main() {
    if let Ok(which) = std::env::var("CODEC_BENCH_ONLY") {
        return fixed_run(&which);
    }
    if std::env::var("CODEC_BENCH_ALTERNATE").is_ok() {
        return alternating_run(env_number("CODEC_BENCH_ALTERNATE", 200).max(1));
    }
    group::benches();
    Criterion::default().configure_from_args().final_summary();
}
