//! Backup, restore and copy: a table (or a query's result) as a checksummed file of JSON
//! lines, restored or copied with the bulk writer's batching.
//!
//! A backup must survive being copied around, cut short and bit-rotted, and still never restore
//! wrong data silently or hang on a truncated file (the C# library that accompanies "Jeffrey
//! Richter's Guide to Working with Azure Storage Tables via C# and other .NET Languages" looped
//! forever on one). So every line carries its own checksum, the last line carries the entity
//! count and a checksum of everything before it, and every error names the byte offset and
//! line.
//!
//! # Format, version 1
//!
//! UTF-8 text; every line is `CCCCCCCC JSON\n`: eight lowercase hex digits of the CRC-32
//! (IEEE) of the JSON text, one space, the JSON text (one line), a newline.
//!
//! 1. The header: `{"format":"tablekit-backup","version":1,"table":"Logs","created":"..."}`
//!    (`table` and `filter` name the source and may be absent; `created` is ISO 8601 UTC).
//! 2. One line per entity, exactly as the Table service's JSON with type annotations
//!    ([`codec::encode_entity`](crate::codec::encode_entity)): `PartitionKey` and `RowKey`
//!    first, then the properties, `Name@odata.type` before every value JSON cannot type by
//!    itself (Int64, Double, DateTime with 7 digits, Guid, Binary in base64). `Timestamp` and
//!    ETags are not kept: the service sets them again on restore.
//! 3. The trailer: `{"end":{"entities":N,"crc32":"CCCCCCCC"}}`, where `crc32` is the CRC-32 of
//!    every byte of the file before the trailer line.
//!
//! Nothing may follow the trailer. A reader rejects unknown versions, and a file whose trailer
//! is missing is truncated, never complete. A line is at most 16 MiB (an entity is at most
//! 1 MiB by the service's formula; its JSON can be a few times larger), so garbage without
//! newlines cannot exhaust memory.
//!
//! ```
//! use tablekit::DynamicEntity;
//! use tablekit::patterns::backup::{BackupHeader, BackupReader, BackupWriter};
//! # futures::executor::block_on(async {
//! let mut file = Vec::new();
//! let mut writer = BackupWriter::new(&mut file, &BackupHeader::for_table("Logs")).await?;
//! let mut e = DynamicEntity::new("p", "r");
//! e.set("Big", 1i64 << 40);
//! writer.write_entity(&e).await?;
//! let summary = writer.finish().await?;
//! assert_eq!(summary.entities, 1);
//!
//! let mut reader = BackupReader::open(&file[..]).await?;
//! assert_eq!(reader.header().table.as_deref(), Some("Logs"));
//! assert_eq!(reader.next_entity().await?, Some(e));
//! assert_eq!(reader.next_entity().await?, None); // trailer checked: complete and intact
//!
//! let cut = &file[..file.len() - 10];
//! let mut reader = BackupReader::open(cut).await?;
//! reader.next_entity().await?;
//! assert!(reader.next_entity().await.unwrap_err().is_truncated());
//! # Ok::<(), tablekit::patterns::backup::BackupError>(())
//! # }).unwrap();
//! ```

mod format;
mod ops;

pub use format::{
    BackupError, BackupHeader, BackupReader, BackupSummary, BackupWriter, FORMAT_NAME,
    FORMAT_VERSION, MAX_LINE_BYTES,
};
pub use ops::{backup_table, copy_table, restore, RestoreOptions, RestoreReport, WriteMode};
