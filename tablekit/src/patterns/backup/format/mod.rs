//! The file format: a header line, one line per entity, and a trailer, each line framed with
//! its CRC-32; written by the writer and read back by the streaming reader.

// The header, the writer and the reader; the framing and the trailer they share are here.
mod header;
mod reader;
mod writer;

pub use header::BackupHeader;
pub use reader::BackupReader;
pub use writer::{BackupSummary, BackupWriter};

use std::io;

use serde::{Deserialize, Serialize};

use crate::client::error::Error;

/// The format name in every header.
///
/// ```
/// assert_eq!(tablekit::patterns::backup::FORMAT_NAME, "tablekit-backup");
/// assert_eq!(tablekit::patterns::backup::FORMAT_VERSION, 1);
/// ```
pub const FORMAT_NAME: &str = "tablekit-backup";
/// The format version this code writes and reads.
///
/// ```
/// use tablekit::patterns::backup::{BackupHeader, BackupReader, BackupWriter, FORMAT_VERSION};
/// # futures::executor::block_on(async {
/// assert_eq!(BackupHeader::default().version, FORMAT_VERSION);
/// let mut newer = BackupHeader::for_table("Logs");
/// newer.version = FORMAT_VERSION + 1;
/// let mut file = Vec::new();
/// BackupWriter::new(&mut file, &newer).await?.finish().await?;
/// let err = BackupReader::open(&file[..]).await.unwrap_err();
/// assert!(err.to_string().contains("version 2 is not supported"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # }).unwrap();
/// ```
pub const FORMAT_VERSION: u32 = 1;
/// The longest line a reader accepts, in bytes (newline included).
///
/// ```
/// use tablekit::patterns::backup::{BackupReader, MAX_LINE_BYTES};
/// # futures::executor::block_on(async {
/// // Garbage without a newline is refused after 16 MiB, not read into memory to its end.
/// let garbage = vec![b'x'; MAX_LINE_BYTES + 1];
/// let err = BackupReader::open(&garbage[..]).await.unwrap_err();
/// assert!(err.is_corrupt() && err.to_string().contains("longer than 16 MiB"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # }).unwrap();
/// ```
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// Why a backup could not be written or read. Every reading error names the byte offset and
/// the 1-based line where the problem starts.
///
/// ```
/// use tablekit::patterns::backup::BackupReader;
/// # futures::executor::block_on(async {
/// let err = BackupReader::open(&b"hello\n"[..]).await.unwrap_err();
/// assert!(err.is_corrupt());
/// assert_eq!(err.offset(), Some(0));
/// assert!(err.to_string().contains("line 1"));
/// # });
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BackupError {
    /// Reading or writing the underlying file failed.
    #[error("backup i/o error at byte {offset}: {source}")]
    Io {
        /// Where in the file.
        offset: u64,
        /// The error.
        #[source]
        source: io::Error,
    },
    /// The file ends before its trailer: it was cut short.
    #[error("backup truncated at byte {offset} (line {line}): {what}")]
    Truncated {
        /// The file's length as read.
        offset: u64,
        /// The line that is missing or incomplete.
        line: u64,
        /// What was expected.
        what: &'static str,
    },
    /// A line is damaged: bad checksum, bad JSON, wrong counts, or data after the trailer.
    #[error("backup corrupt at byte {offset} (line {line}): {reason}")]
    Corrupt {
        /// Where the damaged line starts.
        offset: u64,
        /// The damaged line.
        line: u64,
        /// What is wrong.
        reason: String,
    },
    /// A backup written by a newer format version.
    #[error("backup format version {found} is not supported (this build reads version 1)")]
    UnsupportedVersion {
        /// The version in the header.
        found: u32,
    },
    /// An entity that cannot be written to a backup.
    #[error("cannot write entity ({partition_key:?}, {row_key:?}) to a backup: {reason}")]
    Unwritable {
        /// Its PartitionKey.
        partition_key: String,
        /// Its RowKey.
        row_key: String,
        /// Why.
        reason: String,
    },
}

impl BackupError {
    /// Whether the file was cut short.
    ///
    /// ```
    /// use tablekit::DynamicEntity;
    /// use tablekit::patterns::backup::{BackupHeader, BackupReader, BackupWriter};
    /// # futures::executor::block_on(async {
    /// # let mut file = Vec::new();
    /// # let mut w = BackupWriter::new(&mut file, &BackupHeader::for_table("Logs")).await?;
    /// # w.write_entity(&DynamicEntity::new("p", "a")).await?;
    /// # w.write_entity(&DynamicEntity::new("p", "b")).await?;
    /// # w.finish().await?;
    /// // `file` holds a finished backup; cut off its last byte (the trailer's newline).
    /// let cut = &file[..file.len() - 1];
    /// let mut reader = BackupReader::open(cut).await?;
    /// reader.skip(2).await?;
    /// let err = reader.next_entity().await.unwrap_err();
    /// assert!(err.is_truncated() && !err.is_corrupt());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn is_truncated(&self) -> bool {
        matches!(self, BackupError::Truncated { .. })
    }

    /// Whether the file is damaged (or not a backup at all).
    ///
    /// ```
    /// use tablekit::DynamicEntity;
    /// use tablekit::patterns::backup::{BackupHeader, BackupReader, BackupWriter};
    /// # futures::executor::block_on(async {
    /// # let mut file = Vec::new();
    /// # let mut w = BackupWriter::new(&mut file, &BackupHeader::for_table("Logs")).await?;
    /// # w.write_entity(&DynamicEntity::new("p", "a")).await?;
    /// # w.write_entity(&DynamicEntity::new("p", "b")).await?;
    /// # w.finish().await?;
    /// // `file` holds a finished backup of rows "a" and "b"; change one byte of row "a".
    /// let damaged = String::from_utf8(file)?.replace(r#""RowKey":"a""#, r#""RowKey":"x""#);
    /// let mut reader = BackupReader::open(damaged.as_bytes()).await?;
    /// assert!(reader.next_entity().await.unwrap_err().is_corrupt()); // line checksum mismatch
    /// assert!(BackupReader::open(&b"not a backup\n"[..]).await.unwrap_err().is_corrupt());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn is_corrupt(&self) -> bool {
        matches!(self, BackupError::Corrupt { .. })
    }

    /// The byte offset the error is about, when it is about a place in the file.
    ///
    /// ```
    /// use tablekit::DynamicEntity;
    /// use tablekit::patterns::backup::{BackupHeader, BackupReader, BackupWriter};
    /// # futures::executor::block_on(async {
    /// # let mut file = Vec::new();
    /// # let mut w = BackupWriter::new(&mut file, &BackupHeader::for_table("Logs")).await?;
    /// # w.write_entity(&DynamicEntity::new("p", "a")).await?;
    /// # w.write_entity(&DynamicEntity::new("p", "b")).await?;
    /// # w.finish().await?;
    /// // `file` holds a finished backup of rows "a" and "b"; damage the line of row "b".
    /// let text = String::from_utf8(file)?;
    /// let line_b = text.find(r#""RowKey":"b""#).and_then(|i| text[..i].rfind('\n')).unwrap() + 1;
    /// let damaged = text.replace(r#""RowKey":"b""#, r#""RowKey":"x""#);
    /// let mut reader = BackupReader::open(damaged.as_bytes()).await?;
    /// reader.next_entity().await?;
    /// let err = reader.next_entity().await.unwrap_err();
    /// assert_eq!(err.offset(), Some(line_b as u64)); // where the damaged line starts
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn offset(&self) -> Option<u64> {
        match self {
            BackupError::Io { offset, .. }
            | BackupError::Truncated { offset, .. }
            | BackupError::Corrupt { offset, .. } => Some(*offset),
            _ => None,
        }
    }
}

/// A backup error travels in [`Error::Pattern`](crate::Error::Pattern) (see
/// [`Error::pattern_error`](crate::Error::pattern_error)), so backup and client calls share `?`.
impl From<BackupError> for Error {
    fn from(error: BackupError) -> Self {
        Error::Pattern(Box::new(error))
    }
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Trailer {
    end: TrailerBody,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct TrailerBody {
    entities: u64,
    crc32: String,
}

/// Appends `CCCCCCCC JSON\n` for one line to `out`.
fn encode_line(json: &[u8], out: &mut Vec<u8>) {
    out.extend_from_slice(format!("{:08x} ", crc32fast::hash(json)).as_bytes());
    out.extend_from_slice(json);
    out.push(b'\n');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::entity::DynamicEntity;
    use crate::values::value::Value;
    use futures::executor::block_on;
    use proptest::prelude::*;

    fn write(entities: &[DynamicEntity]) -> Vec<u8> {
        block_on(async {
            let mut out = Vec::new();
            let mut w = BackupWriter::new(&mut out, &BackupHeader::for_table("Src"))
                .await
                .unwrap();
            for e in entities {
                w.write_entity(e).await.unwrap();
            }
            w.finish().await.unwrap();
            out
        })
    }

    fn read_all(bytes: &[u8]) -> Result<Vec<DynamicEntity>, BackupError> {
        block_on(async {
            let mut r = BackupReader::open(bytes).await?;
            let mut all = Vec::new();
            while let Some(e) = r.next_entity().await? {
                all.push(e);
            }
            Ok(all)
        })
    }

    fn value() -> impl Strategy<Value = Value> {
        prop_oneof![
            any::<bool>().prop_map(Value::Bool),
            any::<i32>().prop_map(Value::Int32),
            any::<i64>().prop_map(Value::Int64),
            any::<f64>()
                .prop_filter("NaN breaks equality", |d| !d.is_nan())
                .prop_map(Value::Double),
            (0i64..4_000_000_000, 0u32..10_000_000).prop_map(|(s, t)| Value::DateTime(
                chrono::DateTime::from_timestamp(s, t * 100).unwrap_or_default()
            )),
            any::<u128>().prop_map(|n| Value::Guid(uuid::Uuid::from_u128(n))),
            ".{0,40}".prop_map(|s: String| Value::String(s.into())),
            proptest::collection::vec(any::<u8>(), 0..64).prop_map(Value::Binary),
        ]
    }

    fn entity() -> impl Strategy<Value = DynamicEntity> {
        (
            "[^/#?\\\\\\x00-\\x1f]{0,12}",
            "[a-z0-9 ]{0,12}",
            proptest::collection::vec(("[A-Za-z_][A-Za-z0-9_]{0,8}", value()), 0..6),
        )
            .prop_map(|(pk, rk, props)| {
                let mut e = DynamicEntity::new(pk, rk);
                for (name, v) in props {
                    e.set(name, v);
                }
                e
            })
    }

    /// The codec's decoder does not keep property order (serde_json maps are sorted), so
    /// entities are compared with their properties sorted.
    fn sorted(e: &DynamicEntity) -> (String, String, Vec<(String, Value)>) {
        let mut props: Vec<_> = e
            .properties()
            .map(|(n, v)| (n.to_owned(), v.clone()))
            .collect();
        props.sort_by(|a, b| a.0.cmp(&b.0));
        (e.partition_key().to_owned(), e.row_key().to_owned(), props)
    }

    proptest! {
        #[test]
        fn round_trips(entities in proptest::collection::vec(entity(), 0..20)) {
            let file = write(&entities);
            let back: Vec<_> = read_all(&file).unwrap().iter().map(sorted).collect();
            prop_assert_eq!(back, entities.iter().map(sorted).collect::<Vec<_>>());
        }

        #[test]
        fn any_truncation_is_an_error(entities in proptest::collection::vec(entity(), 0..8), cut in any::<prop::sample::Index>()) {
            let file = write(&entities);
            let at = cut.index(file.len());
            let err = read_all(&file[..at]).unwrap_err();
            prop_assert!(err.is_truncated(), "{err}");
            prop_assert!(err.offset().unwrap() <= at as u64);
        }

        #[test]
        fn any_changed_byte_is_an_error(entities in proptest::collection::vec(entity(), 0..8), at in any::<prop::sample::Index>(), flip in 1u8..=255) {
            let mut file = write(&entities);
            let i = at.index(file.len());
            file[i] ^= flip;
            let err = read_all(&file).unwrap_err();
            prop_assert!(err.offset().unwrap() <= file.len() as u64, "{err}");
        }

        #[test]
        fn garbage_never_panics_or_hangs(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
            prop_assert!(read_all(&bytes).is_err());
        }
    }

    #[test]
    fn a_checksum_spelled_otherwise_is_an_error() {
        let mut e = DynamicEntity::new("p", "r");
        e.set("N", 1);
        let file = write(&[e]);
        // Each line starts with its checksum; find one holding a letter and one a leading 0
        // among the lines of files with other values.
        let lines: Vec<usize> = std::iter::once(0)
            .chain(
                file.iter()
                    .enumerate()
                    .filter(|(_, b)| **b == b'\n')
                    .map(|(i, _)| i + 1),
            )
            .filter(|&i| i + 8 < file.len())
            .collect();
        let mut tried = 0;
        for &start in &lines {
            for i in start..start + 8 {
                let respelled = match file[i] {
                    b'a'..=b'f' => file[i].to_ascii_uppercase(),
                    b'0' if i == start => b'+',
                    _ => continue,
                };
                let mut changed = file.clone();
                changed[i] = respelled;
                assert!(read_all(&changed).is_err(), "byte {i} respelled");
                tried += 1;
            }
        }
        assert!(tried > 0, "no checksum held a letter");
    }

    #[test]
    fn a_removed_entity_line_is_found_by_the_trailer() {
        let entities: Vec<_> = (0..3)
            .map(|i| DynamicEntity::new("p", format!("{i}")))
            .collect();
        let file = write(&entities);
        let text = String::from_utf8(file).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let without = format!("{}\n{}\n{}\n{}\n", lines[0], lines[1], lines[3], lines[4]);
        let err = read_all(without.as_bytes()).unwrap_err();
        assert!(err.to_string().contains("counts 3 entities"), "{err}");
        assert!(matches!(err, BackupError::Corrupt { line: 4, .. }));
    }

    #[test]
    fn a_newer_version_is_refused() {
        let json = br#"{"format":"tablekit-backup","version":2}"#;
        let mut file = Vec::new();
        encode_line(json, &mut file);
        let err = read_all(&file).unwrap_err();
        assert!(matches!(err, BackupError::UnsupportedVersion { found: 2 }));
    }

    #[test]
    fn data_after_the_trailer_is_corrupt() {
        let mut file = write(&[DynamicEntity::new("p", "r")]);
        let len = file.len() as u64;
        file.extend_from_slice(b"x");
        let err = read_all(&file).unwrap_err();
        assert_eq!(err.offset(), Some(len));
    }

    #[test]
    fn a_line_without_end_is_refused_without_reading_forever() {
        let mut file = write(&[]);
        let header_end = file.iter().position(|&b| b == b'\n').unwrap() + 1;
        file.truncate(header_end);
        file.extend(std::iter::repeat_n(b'a', MAX_LINE_BYTES + 5));
        let err = read_all(&file).unwrap_err();
        assert!(err.is_corrupt(), "{err}");
        assert_eq!(err.offset(), Some(header_end as u64));
    }
}
