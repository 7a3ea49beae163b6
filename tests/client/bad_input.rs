//! The bad-input catalogue: one table of cases, each feeding tablekit input the service (or a
//! file reader) must refuse. Every case must end in its documented typed error, must not
//! panic, and must not send a request: the emulator's request counter is read before and
//! after each case.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;

use chrono::TimeZone;
use futures::FutureExt;
use tablekit::client::{ConnectionString, Credential, Table, TableServiceClient};
use tablekit::patterns::backup::{BackupError, BackupHeader, BackupReader, BackupWriter};
use tablekit::patterns::bulk::{BatchPlanner, BulkWriter};
use tablekit::patterns::conflict_retry::ConflictRetry;
use tablekit::record::decode_records;
use tablekit::split::{self, SplitError};
use tablekit::{codec, DynamicEntity, ETag, Error, InvalidInput, Record, RecordError, Value};
use tablekit_testing::{Emulator, DEV_KEY};

/// What every case gets: a client for the emulator and a table that exists.
#[derive(Clone)]
struct Ctx {
    client: TableServiceClient,
    table: String,
}

impl Ctx {
    fn table(&self) -> Table {
        self.client.table_named(&self.table)
    }
}

type CaseFuture = Pin<Box<dyn Future<Output = Result<(), Error>> + Send>>;

struct Case {
    name: &'static str,
    run: fn(Ctx) -> CaseFuture,
    expect: fn(&Error) -> bool,
    expected: &'static str,
}

/// `case!("name", Pattern [if guard], |ctx| expression returning Result<_, impl Into<Error>>)`.
macro_rules! case {
    ($name:literal, $pat:pat $(if $guard:expr)?, |$ctx:ident| $body:expr) => {
        Case {
            name: $name,
            run: |$ctx: Ctx| {
                Box::pin(async move {
                    #[allow(unused_variables)]
                    let $ctx = $ctx;
                    let result = $body;
                    result.map(|_| ()).map_err(Error::from)
                })
            },
            expect: |e| matches!(e, $pat $(if $guard)?),
            expected: stringify!($pat $(if $guard)?),
        }
    };
}

#[derive(Debug, PartialEq, Record)]
#[record(version = 1)]
struct Level {
    id: u32,
    name: String,
    done: bool,
}

fn entity() -> DynamicEntity {
    let mut e = DynamicEntity::new("p", "r");
    e.set("Score", 1);
    e
}

fn keyed(pk: &str, rk: &str) -> DynamicEntity {
    DynamicEntity::new(pk, rk)
}

fn with_property(name: &str, value: impl tablekit::IntoValue) -> DynamicEntity {
    let mut e = entity();
    e.set(name, value);
    e
}

/// One megabyte and more by the service's formula, every value within its own limit.
fn oversized_entity() -> DynamicEntity {
    let mut e = entity();
    for i in 0..17 {
        e.set(format!("Chunk{i}"), vec![7u8; 64 * 1024]);
    }
    e
}

/// A backup of two entities, complete with its trailer.
async fn backup_bytes() -> Vec<u8> {
    let mut out = Vec::new();
    let mut writer = BackupWriter::new(&mut out, &BackupHeader::for_table("Logs"))
        .await
        .expect("header");
    for row in ["a", "b"] {
        let mut e = keyed("p", row);
        e.set("Text", "x".repeat(100));
        writer.write_entity(&e).await.expect("entity");
    }
    writer.finish().await.expect("trailer");
    out
}

async fn read_backup(bytes: Vec<u8>) -> Result<u64, BackupError> {
    let mut reader = BackupReader::open(&bytes[..]).await?;
    while reader.next_entity().await?.is_some() {}
    Ok(reader.entities_read())
}

const GOOD_KEY: &str = DEV_KEY;

fn catalogue() -> Vec<Case> {
    use Error::InvalidInput as Inv;
    use InvalidInput as I;
    vec![
        // Table names.
        case!("table name too short", Inv(I::TableName { .. }), |c| {
            c.client.create_table("ab").await
        }),
        case!(
            "table name starting with a digit",
            Inv(I::TableName { .. }),
            |c| { c.client.create_table("1abc").await }
        ),
        case!(
            "table name reserved `tables`",
            Inv(I::TableName { .. }),
            |c| { c.client.create_table("Tables").await }
        ),
        case!("table name with a dash", Inv(I::TableName { .. }), |c| {
            c.client.create_table("has-dash").await
        }),
        case!(
            "table name of 64 characters",
            Inv(I::TableName { .. }),
            |c| { c.client.create_table(&"a".repeat(64)).await }
        ),
        case!("empty table name", Inv(I::TableName { .. }), |c| {
            c.client.create_table("").await
        }),
        case!(
            "insert into a badly named table",
            Inv(I::TableName { .. }),
            |c| {
                c.client
                    .table_named::<DynamicEntity>("bad name")
                    .insert(&mut entity())
                    .await
            }
        ),
        case!(
            "delete a badly named table",
            Inv(I::TableName { .. }),
            |c| { c.client.delete_table("x!").await }
        ),
        case!(
            "get from a badly named table",
            Inv(I::TableName { .. }),
            |c| {
                c.client
                    .table_named::<DynamicEntity>("ab")
                    .get("p", "r")
                    .await
            }
        ),
        case!("query a badly named table", Inv(I::TableName { .. }), |c| {
            c.client
                .table_named::<DynamicEntity>("ab")
                .query_all()
                .count()
                .await
        }),
        case!(
            "transaction on a badly named table",
            Inv(I::TableName { .. }),
            |c| {
                let mut batch = c.client.table_named::<DynamicEntity>("a_b").batch();
                batch.insert(&entity())?;
                batch.submit().await
            }
        ),
        // Keys.
        case!(
            "PartitionKey with `/`",
            Inv(I::KeyCharacter { character: '/', .. }),
            |c| { c.table().insert(&mut keyed("a/b", "r")).await }
        ),
        case!(
            "PartitionKey with `\\`",
            Inv(I::KeyCharacter {
                character: '\\',
                ..
            }),
            |c| { c.table().insert(&mut keyed("a\\b", "r")).await }
        ),
        case!(
            "PartitionKey with `#`",
            Inv(I::KeyCharacter { character: '#', .. }),
            |c| { c.table().insert(&mut keyed("a#b", "r")).await }
        ),
        case!(
            "PartitionKey with `?`",
            Inv(I::KeyCharacter { character: '?', .. }),
            |c| { c.table().insert(&mut keyed("a?b", "r")).await }
        ),
        case!(
            "RowKey with U+0000",
            Inv(I::KeyCharacter { position: 1, .. }),
            |c| { c.table().insert(&mut keyed("p", "a\u{0}")).await }
        ),
        case!(
            "RowKey with U+001F",
            Inv(I::KeyCharacter {
                character: '\u{1f}',
                ..
            }),
            |c| { c.table().insert(&mut keyed("p", "\u{1f}")).await }
        ),
        case!(
            "RowKey with U+007F",
            Inv(I::KeyCharacter {
                character: '\u{7f}',
                ..
            }),
            |c| { c.table().upsert_replace(&mut keyed("p", "\u{7f}")).await }
        ),
        case!(
            "RowKey with U+009F",
            Inv(I::KeyCharacter {
                character: '\u{9f}',
                ..
            }),
            |c| { c.table().upsert_merge(&mut keyed("p", "x\u{9f}")).await }
        ),
        case!(
            "PartitionKey of 513 characters",
            Inv(I::KeyTooLong { units: 513, .. }),
            |c| { c.table().insert(&mut keyed(&"k".repeat(513), "r")).await }
        ),
        case!(
            "RowKey of 257 astral characters (514 UTF-16 units)",
            Inv(I::KeyTooLong { units: 514, .. }),
            |c| c.table().insert(&mut keyed("p", &"😀".repeat(257))).await
        ),
        case!(
            "get with a forbidden key character",
            Inv(I::KeyCharacter { .. }),
            |c| { c.table().get("a/b", "r").await }
        ),
        case!(
            "delete by a key with `#`",
            Inv(I::KeyCharacter { .. }),
            |c| { c.table().delete_by_key("p", "r#1", &ETag::any()).await }
        ),
        case!("get with a key too long", Inv(I::KeyTooLong { .. }), |c| {
            c.table().get("p", &"r".repeat(600)).await
        }),
        // Property names.
        case!("empty property name", Inv(I::PropertyName { .. }), |c| {
            c.table().insert(&mut with_property("", 1)).await
        }),
        case!(
            "property name starting with a digit",
            Inv(I::PropertyName { .. }),
            |c| { c.table().insert(&mut with_property("1st", 1)).await }
        ),
        case!(
            "property name with a space",
            Inv(I::PropertyName { .. }),
            |c| { c.table().insert(&mut with_property("has space", 1)).await }
        ),
        case!(
            "property name with a dash",
            Inv(I::PropertyName { .. }),
            |c| { c.table().insert(&mut with_property("a-b", 1)).await }
        ),
        case!(
            "property name of 256 characters",
            Inv(I::PropertyName { .. }),
            |c| {
                c.table()
                    .insert(&mut with_property(&"n".repeat(256), 1))
                    .await
            }
        ),
        case!(
            "property named `PartitionKey`",
            Inv(I::PropertyName { .. }),
            |c| {
                c.table()
                    .insert(&mut with_property("PartitionKey", "x"))
                    .await
            }
        ),
        case!(
            "property name with an OData annotation",
            Inv(I::PropertyName { .. }),
            |c| {
                c.table()
                    .insert(&mut with_property("Age@odata.type", "Edm.Int64"))
                    .await
            }
        ),
        case!(
            "property named `Timestamp`",
            Inv(I::PropertyName { .. }),
            |c| {
                c.table()
                    .upsert_replace(&mut with_property("Timestamp", 1))
                    .await
            }
        ),
        // Sizes and counts.
        case!(
            "string of 32,768 characters",
            Inv(I::StringTooLong { units: 32768, .. }),
            |c| c
                .table()
                .insert(&mut with_property("Text", "s".repeat(32768)))
                .await
        ),
        case!(
            "string of 16,384 astral characters (32,768 UTF-16 units)",
            Inv(I::StringTooLong { units: 32768, .. }),
            |c| c
                .table()
                .insert(&mut with_property("Text", "😀".repeat(16384)))
                .await
        ),
        case!(
            "binary of 65,537 bytes",
            Inv(I::BinaryTooLarge { bytes: 65537, .. }),
            |c| c
                .table()
                .insert(&mut with_property("Blob", vec![0u8; 65537]))
                .await
        ),
        case!(
            "DateTime before 1601",
            Inv(I::DateTimeOutOfRange { .. }),
            |c| {
                let old = chrono::Utc.with_ymd_and_hms(1600, 12, 31, 0, 0, 0).unwrap();
                c.table().insert(&mut with_property("When", old)).await
            }
        ),
        case!(
            "253 properties",
            Inv(I::TooManyProperties { count: 253 }),
            |c| {
                let mut e = keyed("p", "r");
                for i in 0..253 {
                    e.set(format!("P{i}"), i);
                }
                c.table().insert(&mut e).await
            }
        ),
        case!(
            "entity over 1 MiB on insert",
            Inv(I::EntityTooLarge { .. }),
            |c| { c.table().insert(&mut oversized_entity()).await }
        ),
        case!(
            "entity over 1 MiB on upsert",
            Inv(I::EntityTooLarge { .. }),
            |c| { c.table().upsert_replace(&mut oversized_entity()).await }
        ),
        case!("merge without an ETag", Inv(I::Other(_)), |c| {
            c.table().merge(&mut entity()).await
        }),
        case!("replace without an ETag", Inv(I::Other(_)), |c| {
            c.table().replace(&mut entity()).await
        }),
        case!("delete without an ETag", Inv(I::Other(_)), |c| {
            c.table().delete(&mut entity()).await
        }),
        // Transactions.
        case!("empty transaction", Inv(I::EmptyBatch), |c| {
            c.table().batch().submit().await
        }),
        case!(
            "101 operations in a transaction",
            Inv(I::TooManyOperations { count: 101 }),
            |c| {
                let mut batch = c.table().batch();
                for i in 0..100 {
                    batch.insert(&keyed("p", &format!("{i:03}")))?;
                }
                batch.insert(&keyed("p", "100"))?;
                batch.submit().await
            }
        ),
        case!(
            "two partitions in a transaction",
            Inv(I::MixedPartitions { index: 1, .. }),
            |c| {
                let mut batch = c.table().batch();
                batch.insert(&keyed("a", "1"))?;
                batch.insert(&keyed("b", "1"))?;
                batch.submit().await
            }
        ),
        case!(
            "one entity twice in a transaction",
            Inv(I::DuplicateRow {
                first: 0,
                second: 1,
                ..
            }),
            |c| {
                let mut batch = c.table().batch();
                batch.insert(&keyed("p", "1"))?;
                batch.delete_by_key("p", "1", &ETag::any())?;
                batch.submit().await
            }
        ),
        case!(
            "transaction body over 4 MiB",
            Inv(I::BatchTooLarge { .. }),
            |c| {
                let mut batch = c.table().batch();
                for i in 0..100 {
                    let mut e = keyed("p", &format!("{i:03}"));
                    e.set("Blob", vec![1u8; 60 * 1024]);
                    batch.insert(&e)?;
                }
                batch.submit().await
            }
        ),
        case!(
            "transaction entity with a bad key",
            Inv(I::KeyCharacter { .. }),
            |c| {
                let mut batch = c.table().batch();
                batch.insert(&keyed("p", "a?b"))?;
                batch.submit().await
            }
        ),
        case!(
            "transaction entity with a bad property",
            Inv(I::PropertyName { .. }),
            |c| {
                let mut batch = c.table().batch();
                batch.upsert_merge(&with_property("no way", 1))?;
                batch.submit().await
            }
        ),
        case!("bulk concurrency of zero", Inv(I::Other(_)), |c| {
            BulkWriter::new(&c.client).concurrency(0)
        }),
        case!("bulk planner over 100 operations", Inv(_), |c| {
            BatchPlanner::new().max_operations(101)
        }),
        case!("conflict retry with no attempts", Inv(I::Other(_)), |c| {
            ConflictRetry::new().max_attempts(0)
        }),
        // Values split across properties.
        case!(
            "split value over max_properties x 64 KiB",
            Error::Split(SplitError::TooLarge { .. }),
            |c| split::write_split(&mut entity(), "Levels", &vec![0u8; 2 * 65536], 2)
        ),
        case!(
            "split over zero properties",
            Error::Split(SplitError::MaxProperties { .. }),
            |c| split::write_split(&mut entity(), "Levels", &[1, 2, 3], 0)
        ),
        case!(
            "split over 253 properties",
            Error::Split(SplitError::MaxProperties { .. }),
            |c| split::write_split(&mut entity(), "Levels", &[1, 2, 3], 253)
        ),
        case!(
            "split value read from a string property",
            Error::Split(SplitError::NotBinary { .. }),
            |c| split::read_split(&with_property("Levels", "text"), "Levels")
        ),
        case!(
            "split value with a corrupt header",
            Error::Split(SplitError::Header { .. }),
            |c| split::read_split(&with_property("Levels", vec![9u8, 9, 9]), "Levels")
        ),
        case!(
            "split value with a missing chunk",
            Error::Split(SplitError::MissingChunk { .. }),
            |c| {
                let mut e = entity();
                split::write_split(&mut e, "Levels", &vec![5u8; 150_000], 4)?;
                e.remove(&split::chunk_name("Levels", 1));
                split::read_split(&e, "Levels")
            }
        ),
        // Connection strings and credentials.
        case!("empty connection string", Error::Configuration(_), |c| {
            ConnectionString::parse("")
        }),
        case!(
            "connection string without `=`",
            Error::Configuration(_),
            |c| { ConnectionString::parse("garbage") }
        ),
        case!(
            "connection string without a key",
            Error::Configuration(_),
            |c| { ConnectionString::parse("DefaultEndpointsProtocol=https;AccountName=acct") }
        ),
        case!(
            "connection string with a key that is not base64",
            Error::Configuration(_),
            |c| {
                ConnectionString::parse(
                    "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=not*base64!",
                )
            }
        ),
        case!(
            "connection string without an account",
            Error::Configuration(_),
            |c| {
                ConnectionString::parse(&format!(
                    "DefaultEndpointsProtocol=https;AccountKey={GOOD_KEY}"
                ))
            }
        ),
        case!(
            "connection string with key and SAS",
            Error::Configuration(_),
            |c| {
                ConnectionString::parse(&format!(
                    "AccountName=acct;AccountKey={GOOD_KEY};SharedAccessSignature=sv=1&sig=abc"
                ))
            }
        ),
        case!(
            "connection string with a bad endpoint URL",
            Error::Configuration(_),
            |c| {
                ConnectionString::parse(&format!(
                    "AccountName=acct;AccountKey={GOOD_KEY};TableEndpoint=not a url"
                ))
            }
        ),
        case!(
            "client built without an endpoint",
            Error::Configuration(_),
            |c| { TableServiceClient::builder().build() }
        ),
        // SAS tokens.
        case!("empty SAS token", Error::Configuration(_), |c| {
            Credential::sas("")
        }),
        case!(
            "SAS token without a signature",
            Error::Configuration(_),
            |c| { Credential::sas("sv=2019-02-02&tn=Gamers&sp=r&se=2030-01-01") }
        ),
        case!(
            "connection string with a SAS lacking `sig`",
            Error::Configuration(_),
            |c| {
                ConnectionString::parse(
                "TableEndpoint=https://acct.table.core.windows.net;SharedAccessSignature=sv=2019&sp=r",
            )
            }
        ),
        case!(
            "shared key that is not base64",
            Error::Configuration(_),
            |c| { Credential::shared_key("%%%") }
        ),
        // Record bytes.
        case!(
            "records of an unknown version",
            Error::Record(RecordError::UnknownVersion { found: 9, .. }),
            |c| decode_records::<Level>(&[9, 0, 0])
        ),
        case!(
            "truncated records",
            Error::Record(RecordError::Truncated { .. }),
            |c| decode_records::<Level>(&[1, 0, 1, 1, 0])
        ),
        case!(
            "record string length past the end",
            Error::Record(RecordError::LengthPastEnd { .. }),
            |c| decode_records::<Level>(&[1, 0, 1, 1, 0, 0, 0, 50, b'a'])
        ),
        case!(
            "record string that is not UTF-8",
            Error::Record(RecordError::InvalidUtf8 { .. }),
            |c| decode_records::<Level>(&[1, 0, 1, 1, 0, 0, 0, 2, 0xff, 0xfe, 1])
        ),
        case!(
            "record bool byte neither 0 nor 1",
            Error::Record(RecordError::InvalidTag { .. }),
            |c| decode_records::<Level>(&[1, 0, 1, 1, 0, 0, 0, 0, 7])
        ),
        case!(
            "bytes after the last record",
            Error::Record(RecordError::TrailingBytes { .. }),
            |c| decode_records::<Level>(&[1, 0, 1, 1, 0, 0, 0, 0, 1, 42])
        ),
        case!(
            "record count that is not a valid varint",
            Error::Record(RecordError::InvalidVarint { .. }),
            |c| decode_records::<Level>(&[
                1, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff
            ])
        ),
        case!(
            "records without a version",
            Error::Record(RecordError::Truncated { .. }),
            |c| decode_records::<Level>(&[1])
        ),
        // Backups.
        case!(
            "backup cut in the middle of an entity",
            Error::Pattern(p) if matches!(p.downcast_ref(), Some(BackupError::Truncated { .. })),
            |c| {
                let mut bytes = backup_bytes().await;
                let header_end = bytes.iter().position(|b| *b == b'\n').unwrap_or(0);
                bytes.truncate(header_end + 40);
                read_backup(bytes).await
            }
        ),
        case!(
            "backup without its trailer",
            Error::Pattern(p) if matches!(p.downcast_ref(), Some(BackupError::Truncated { .. })),
            |c| {
                let mut bytes = backup_bytes().await;
                let last_line = bytes[..bytes.len() - 1]
                    .iter()
                    .rposition(|b| *b == b'\n')
                    .unwrap_or(0);
                bytes.truncate(last_line + 1);
                read_backup(bytes).await
            }
        ),
        case!(
            "empty backup",
            Error::Pattern(p) if matches!(p.downcast_ref(), Some(BackupError::Truncated { .. } | BackupError::Corrupt { .. })),
            |c| read_backup(Vec::new()).await
        ),
        case!(
            "backup with a flipped byte",
            Error::Pattern(p) if matches!(p.downcast_ref(), Some(BackupError::Corrupt { .. })),
            |c| {
                let mut bytes = backup_bytes().await;
                let at = bytes.len() / 2;
                bytes[at] = if bytes[at] == b'x' { b'y' } else { b'x' };
                read_backup(bytes).await
            }
        ),
        case!(
            "backup of a future format version",
            Error::Pattern(p) if matches!(p.downcast_ref(), Some(BackupError::UnsupportedVersion { .. })),
            |c| {
                let mut header = BackupHeader::for_table("Logs");
                header.version = 99;
                let mut bytes = Vec::new();
                BackupWriter::new(&mut bytes, &header)
                    .await?
                    .finish()
                    .await?;
                read_backup(bytes).await
            }
        ),
        case!(
            "file that is not a backup",
            Error::Pattern(p) if matches!(p.downcast_ref(), Some(BackupError::Corrupt { .. })),
            |c| read_backup(b"PK\x03\x04 a zip file\n".to_vec()).await
        ),
        // Malformed service responses.
        case!("page that is not JSON", Error::Decode(_), |c| {
            codec::decode_page(b"<html>502 Bad Gateway</html>")
        }),
        case!("page whose value is not an array", Error::Decode(_), |c| {
            codec::decode_page(br#"{"value":{"PartitionKey":"p"}}"#)
        }),
        case!("PartitionKey that is not a string", Error::Decode(_), |c| {
            codec::decode_entity(br#"{"PartitionKey":5,"RowKey":"r"}"#)
        }),
        case!("Int64 that is not a number", Error::Decode(_), |c| {
            codec::decode_entity(
                br#"{"PartitionKey":"p","RowKey":"r","N@odata.type":"Edm.Int64","N":"12x"}"#,
            )
        }),
        case!("Guid that is not a GUID", Error::Decode(_), |c| {
            codec::decode_entity(
                br#"{"PartitionKey":"p","RowKey":"r","G@odata.type":"Edm.Guid","G":"nope"}"#,
            )
        }),
        case!("Binary that is not base64", Error::Decode(_), |c| {
            codec::decode_entity(
                br#"{"PartitionKey":"p","RowKey":"r","B@odata.type":"Edm.Binary","B":"!!"}"#,
            )
        }),
        case!("DateTime that is not a date", Error::Decode(_), |c| {
            codec::decode_entity(
                br#"{"PartitionKey":"p","RowKey":"r","D@odata.type":"Edm.DateTime","D":"yesterday"}"#,
            )
        }),
        case!("property holding a nested object", Error::Decode(_), |c| {
            codec::decode_entity(br#"{"PartitionKey":"p","RowKey":"r","O":{"a":1}}"#)
        }),
        case!("unknown EDM type annotation", Error::Decode(_), |c| {
            codec::decode_entity(
                br#"{"PartitionKey":"p","RowKey":"r","X@odata.type":"Edm.Decimal","X":"1"}"#,
            )
        }),
        case!("truncated entity JSON", Error::Decode(_), |c| {
            codec::decode_entity(br#"{"PartitionKey":"p","RowKey":"#)
        }),
        case!("table list that is not JSON", Error::Decode(_), |c| {
            codec::decode_table_names(b"\xff\xfe")
        }),
        // Typed reads of stored data.
        case!(
            "string property read as a number",
            Error::Property(_),
            |c| { with_property("Score", "high").try_get::<i32>("Score") }
        ),
        case!("Int64 out of Int32 range", Error::Property(_), |c| {
            with_property("Big", i64::MAX).try_get::<i32>("Big")
        }),
        case!(
            "binary property read as a string",
            Error::Property(_),
            |c| {
                let mut e = entity();
                e.set("Data", Value::Binary(vec![1, 2]));
                e.try_get::<String>("Data")
            }
        ),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_bad_input_gets_its_typed_error_and_sends_nothing() {
    let emulator = Emulator::start().await.expect("emulator");
    let table = emulator.unique_table("BadInput").expect("table");
    let ctx = Ctx {
        client: emulator.client(),
        table: table.name().to_owned(),
    };
    let cases = catalogue();
    assert!(cases.len() >= 60, "only {} cases", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let before = emulator.requests();
        let outcome = AssertUnwindSafe((case.run)(ctx.clone()))
            .catch_unwind()
            .await;
        let sent = emulator.requests().total() - before.total();
        let verdict = match outcome {
            Err(_) => Some("panicked".to_owned()),
            Ok(Ok(())) => Some("succeeded".to_owned()),
            Ok(Err(e)) if !(case.expect)(&e) => Some(format!("wrong error: {e:?}")),
            Ok(Err(e)) if e.to_string().is_empty() => Some("empty message".to_owned()),
            Ok(Err(_)) if sent > 0 => Some(format!("{sent} requests sent")),
            Ok(Err(_)) => None,
        };
        if let Some(verdict) = verdict {
            failures.push(format!(
                "{}: expected {}, {verdict}",
                case.name, case.expected
            ));
        }
    }
    println!("{} bad-input cases", cases.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        table.entities().expect("entities").is_empty(),
        "nothing written"
    );
}
