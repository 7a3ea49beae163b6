//! The file format: writer and streaming reader.

use std::io;

use serde::{Deserialize, Serialize};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use crate::client::error::Error;
use crate::codec;
use crate::values::entity::DynamicEntity;

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

/// The first line of a backup: what it holds and where it came from.
///
/// ```
/// use tablekit::patterns::backup::BackupHeader;
/// let h = BackupHeader::for_table("Logs").with_filter("PartitionKey eq 'a'");
/// assert_eq!(h.version, 1);
/// assert_eq!(h.filter.as_deref(), Some("PartitionKey eq 'a'"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct BackupHeader {
    /// Always `tablekit-backup`.
    pub format: String,
    /// The format version.
    pub version: u32,
    /// The source table, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<String>,
    /// The query filter the backup was taken with, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<String>,
    /// When the backup was started (ISO 8601 UTC), if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created: Option<String>,
}

impl Default for BackupHeader {
    fn default() -> Self {
        BackupHeader {
            format: FORMAT_NAME.to_owned(),
            version: FORMAT_VERSION,
            table: None,
            filter: None,
            created: Some(codec::format_datetime(&chrono::Utc::now())),
        }
    }
}

impl BackupHeader {
    /// A header for a backup of `table`, created now.
    ///
    /// ```
    /// use tablekit::patterns::backup::{BackupHeader, FORMAT_NAME};
    /// let h = BackupHeader::for_table("Logs");
    /// assert_eq!((h.format.as_str(), h.table.as_deref()), (FORMAT_NAME, Some("Logs")));
    /// assert!(h.created.is_some_and(|t| t.ends_with('Z'))); // UTC
    /// assert_eq!(h.filter, None);
    /// ```
    pub fn for_table(table: impl Into<String>) -> Self {
        BackupHeader {
            table: Some(table.into()),
            ..BackupHeader::default()
        }
    }

    /// Records the filter the backup was taken with.
    ///
    /// ```
    /// use tablekit::patterns::backup::{BackupHeader, BackupReader, BackupWriter};
    /// # futures::executor::block_on(async {
    /// let header = BackupHeader::for_table("Logs").with_filter("PartitionKey eq 'web'");
    /// let mut file = Vec::new();
    /// BackupWriter::new(&mut file, &header).await?.finish().await?;
    /// let reader = BackupReader::open(&file[..]).await?;
    /// assert_eq!(reader.header().filter.as_deref(), Some("PartitionKey eq 'web'"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn with_filter(mut self, filter: impl Into<String>) -> Self {
        self.filter = Some(filter.into());
        self
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

/// What a finished backup holds.
///
/// ```
/// use tablekit::patterns::backup::{BackupHeader, BackupWriter};
/// # futures::executor::block_on(async {
/// let mut file = Vec::new();
/// let summary = BackupWriter::new(&mut file, &BackupHeader::default()).await?.finish().await?;
/// assert_eq!((summary.entities, summary.bytes), (0, file.len() as u64));
/// # Ok::<(), tablekit::patterns::backup::BackupError>(())
/// # }).unwrap();
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct BackupSummary {
    /// Entities written.
    pub entities: u64,
    /// Bytes written, trailer included.
    pub bytes: u64,
    /// The CRC-32 of the file before the trailer.
    pub crc32: u32,
}

/// Appends `CCCCCCCC JSON\n` for one line to `out`.
fn encode_line(json: &[u8], out: &mut Vec<u8>) {
    out.extend_from_slice(format!("{:08x} ", crc32fast::hash(json)).as_bytes());
    out.extend_from_slice(json);
    out.push(b'\n');
}

/// Writes a backup: the header, then entities, then [`finish`](Self::finish) writes the
/// trailer. A backup without its trailer reads as truncated, so an interrupted backup is never
/// mistaken for a complete one.
///
/// ```
/// use tablekit::DynamicEntity;
/// use tablekit::patterns::backup::{BackupHeader, BackupWriter};
/// # futures::executor::block_on(async {
/// let mut file = Vec::new();
/// let mut w = BackupWriter::new(&mut file, &BackupHeader::for_table("Logs")).await?;
/// w.write_entity(&DynamicEntity::new("p", "r")).await?;
/// assert_eq!(w.entities(), 1);
/// assert!(w.bytes() > 0);
/// w.finish().await?;
/// # Ok::<(), tablekit::patterns::backup::BackupError>(())
/// # }).unwrap();
/// ```
#[derive(Debug)]
pub struct BackupWriter<W> {
    inner: W,
    crc: crc32fast::Hasher,
    entities: u64,
    bytes: u64,
    line: Vec<u8>,
}

impl<W: AsyncWrite + Unpin> BackupWriter<W> {
    /// Starts a backup by writing its header.
    ///
    /// ```
    /// use tablekit::patterns::backup::{BackupHeader, BackupWriter};
    /// # futures::executor::block_on(async {
    /// let mut out = Vec::new();
    /// let w = BackupWriter::new(&mut out, &BackupHeader::for_table("Logs")).await?;
    /// w.finish().await?;
    /// assert!(String::from_utf8(out).unwrap().contains(r#""entities":0"#));
    /// # Ok::<(), tablekit::patterns::backup::BackupError>(())
    /// # }).unwrap();
    /// ```
    pub async fn new(inner: W, header: &BackupHeader) -> Result<Self, BackupError> {
        let mut writer = BackupWriter {
            inner,
            crc: crc32fast::Hasher::new(),
            entities: 0,
            bytes: 0,
            line: Vec::with_capacity(1024),
        };
        let json = serde_json::to_vec(header).map_err(|e| BackupError::Io {
            offset: 0,
            source: io::Error::other(e),
        })?;
        writer.write_line(&json, true).await?;
        Ok(writer)
    }

    /// Appends one entity (its keys and properties).
    ///
    /// ```
    /// use tablekit::DynamicEntity;
    /// use tablekit::patterns::backup::{BackupHeader, BackupReader, BackupWriter};
    /// # futures::executor::block_on(async {
    /// let mut e = DynamicEntity::new("p", "r");
    /// e.set("Count", 1i64 << 40); // Int64: kept with its type annotation
    /// e.set("Ratio", 0.5);
    /// let mut file = Vec::new();
    /// let mut w = BackupWriter::new(&mut file, &BackupHeader::for_table("Logs")).await?;
    /// w.write_entity(&e).await?;
    /// w.finish().await?;
    /// let mut reader = BackupReader::open(&file[..]).await?;
    /// assert_eq!(reader.next_entity().await?, Some(e));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub async fn write_entity(&mut self, entity: &DynamicEntity) -> Result<(), BackupError> {
        let json = codec::encode_entity(entity);
        // The encoder escapes control characters, so a line never holds a raw newline; checked
        // anyway because a reader would split the line there.
        if json.contains(&b'\n') || json.len() + 10 > MAX_LINE_BYTES {
            return Err(BackupError::Unwritable {
                partition_key: entity.partition_key().to_owned(),
                row_key: entity.row_key().to_owned(),
                reason: "its JSON does not fit one backup line".to_owned(),
            });
        }
        self.write_line(&json, true).await?;
        self.entities += 1;
        Ok(())
    }

    /// Entities written so far.
    ///
    /// ```
    /// use tablekit::DynamicEntity;
    /// use tablekit::patterns::backup::{BackupHeader, BackupReader, BackupWriter};
    /// # futures::executor::block_on(async {
    /// let mut file = Vec::new();
    /// let mut w = BackupWriter::new(&mut file, &BackupHeader::default()).await?;
    /// for row in ["a", "b", "c"] {
    ///     w.write_entity(&DynamicEntity::new("p", row)).await?;
    /// }
    /// assert_eq!(w.entities(), 3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn entities(&self) -> u64 {
        self.entities
    }

    /// Bytes written so far.
    ///
    /// ```
    /// use tablekit::DynamicEntity;
    /// use tablekit::patterns::backup::{BackupHeader, BackupReader, BackupWriter};
    /// # futures::executor::block_on(async {
    /// let mut file = Vec::new();
    /// let mut w = BackupWriter::new(&mut file, &BackupHeader::default()).await?;
    /// let header_bytes = w.bytes();
    /// w.write_entity(&DynamicEntity::new("p", "r")).await?;
    /// assert!(w.bytes() > header_bytes);
    /// let summary = w.finish().await?;
    /// assert_eq!(summary.bytes, file.len() as u64); // the trailer included
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Writes the trailer, flushes, and reports what the backup holds.
    ///
    /// ```
    /// use tablekit::DynamicEntity;
    /// use tablekit::patterns::backup::{BackupHeader, BackupReader, BackupWriter};
    /// # futures::executor::block_on(async {
    /// let mut file = Vec::new();
    /// let mut w = BackupWriter::new(&mut file, &BackupHeader::default()).await?;
    /// w.write_entity(&DynamicEntity::new("p", "r")).await?;
    /// drop(w); // interrupted before `finish`: no trailer
    /// let mut reader = BackupReader::open(&file[..]).await?;
    /// reader.next_entity().await?;
    /// assert!(reader.next_entity().await.unwrap_err().is_truncated());
    ///
    /// let mut file = Vec::new();
    /// let mut w = BackupWriter::new(&mut file, &BackupHeader::default()).await?;
    /// w.write_entity(&DynamicEntity::new("p", "r")).await?;
    /// assert_eq!(w.finish().await?.entities, 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub async fn finish(mut self) -> Result<BackupSummary, BackupError> {
        let crc32 = self.crc.clone().finalize();
        let trailer = Trailer {
            end: TrailerBody {
                entities: self.entities,
                crc32: format!("{crc32:08x}"),
            },
        };
        let json = serde_json::to_vec(&trailer).map_err(|e| BackupError::Io {
            offset: self.bytes,
            source: io::Error::other(e),
        })?;
        self.write_line(&json, false).await?;
        let offset = self.bytes;
        self.inner
            .flush()
            .await
            .map_err(|source| BackupError::Io { offset, source })?;
        Ok(BackupSummary {
            entities: self.entities,
            bytes: self.bytes,
            crc32,
        })
    }

    async fn write_line(&mut self, json: &[u8], checksummed: bool) -> Result<(), BackupError> {
        self.line.clear();
        encode_line(json, &mut self.line);
        if checksummed {
            self.crc.update(&self.line);
        }
        let offset = self.bytes;
        self.inner
            .write_all(&self.line)
            .await
            .map_err(|source| BackupError::Io { offset, source })?;
        self.bytes += self.line.len() as u64;
        Ok(())
    }
}

/// Reads a backup as a stream of entities, checking every line's checksum as it goes and the
/// count and file checksum at the trailer. [`next_entity`](Self::next_entity) answers `None`
/// only after an intact trailer: a cut or damaged file always ends in an error.
///
/// ```
/// use tablekit::DynamicEntity;
/// use tablekit::patterns::backup::{BackupHeader, BackupReader, BackupWriter};
/// # futures::executor::block_on(async {
/// let mut file = Vec::new();
/// let mut w = BackupWriter::new(&mut file, &BackupHeader::default()).await?;
/// w.write_entity(&DynamicEntity::new("p", "r")).await?;
/// w.finish().await?;
/// let mut r = BackupReader::open(&file[..]).await?;
/// while let Some(entity) = r.next_entity().await? {
///     assert_eq!(entity.row_key(), "r");
/// }
/// assert_eq!((r.entities_read(), r.bytes_read()), (1, file.len() as u64));
/// # Ok::<(), tablekit::patterns::backup::BackupError>(())
/// # }).unwrap();
/// ```
#[derive(Debug)]
pub struct BackupReader<R> {
    inner: R,
    header: BackupHeader,
    crc: crc32fast::Hasher,
    offset: u64,
    line: u64,
    entities: u64,
    done: bool,
    buf: Vec<u8>,
}

/// One line of the file as read.
enum Line<'a> {
    /// The JSON text, after its checksum was verified.
    Json(&'a [u8]),
    /// End of file before any byte of the line.
    Eof,
}

impl<R: AsyncBufRead + Unpin> BackupReader<R> {
    /// Opens a backup: reads and checks its header.
    ///
    /// ```
    /// use tablekit::patterns::backup::{BackupHeader, BackupReader, BackupWriter};
    /// # futures::executor::block_on(async {
    /// let mut file = Vec::new();
    /// BackupWriter::new(&mut file, &BackupHeader::for_table("Logs")).await?.finish().await?;
    /// assert!(BackupReader::open(&file[..]).await.is_ok());
    /// assert!(BackupReader::open(&b""[..]).await.unwrap_err().is_truncated());
    /// assert!(BackupReader::open(&b"{}\n"[..]).await.unwrap_err().is_corrupt());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub async fn open(inner: R) -> Result<Self, BackupError> {
        let mut reader = BackupReader {
            inner,
            header: BackupHeader::default(),
            crc: crc32fast::Hasher::new(),
            offset: 0,
            line: 0,
            entities: 0,
            done: false,
            buf: Vec::with_capacity(1024),
        };
        reader.header = reader.read_header().await?;
        Ok(reader)
    }

    /// The header.
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
    /// // `file` holds a backup of table "Logs".
    /// let reader = BackupReader::open(&file[..]).await?;
    /// assert_eq!(reader.header().table.as_deref(), Some("Logs"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn header(&self) -> &BackupHeader {
        &self.header
    }

    /// Entities read so far.
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
    /// // `file` holds a backup of two entities.
    /// let mut reader = BackupReader::open(&file[..]).await?;
    /// reader.next_entity().await?;
    /// assert_eq!(reader.entities_read(), 1);
    /// while reader.next_entity().await?.is_some() {}
    /// assert_eq!(reader.entities_read(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn entities_read(&self) -> u64 {
        self.entities
    }

    /// Bytes read so far.
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
    /// let header_line = file.iter().position(|&b| b == b'\n').unwrap() + 1;
    /// let mut reader = BackupReader::open(&file[..]).await?;
    /// assert_eq!(reader.bytes_read(), header_line as u64);
    /// while reader.next_entity().await?.is_some() {}
    /// assert_eq!(reader.bytes_read(), file.len() as u64);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn bytes_read(&self) -> u64 {
        self.offset
    }

    /// The next entity; `None` once the trailer was read and checked.
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
    /// // `file` holds a finished backup of rows "a" and "b".
    /// let mut reader = BackupReader::open(&file[..]).await?;
    /// let mut rows = Vec::new();
    /// while let Some(entity) = reader.next_entity().await? {
    ///     rows.push(entity.row_key().to_owned());
    /// }
    /// assert_eq!(rows, ["a", "b"]);
    /// assert_eq!(reader.next_entity().await?, None); // stays at the end
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub async fn next_entity(&mut self) -> Result<Option<DynamicEntity>, BackupError> {
        if self.done {
            return Ok(None);
        }
        let start = self.offset;
        let line = self.line + 1;
        let json = match self.read_line("an entity or the trailer").await? {
            Line::Json(json) => json.to_vec(),
            Line::Eof => {
                return Err(BackupError::Truncated {
                    offset: start,
                    line,
                    what: "the file ends before its trailer",
                })
            }
        };
        if json.starts_with(b"{\"end\":") {
            self.check_trailer(&json, start, line).await?;
            self.done = true;
            return Ok(None);
        }
        let entity = codec::decode_entity(&json).map_err(|e| corrupt(start, line, e))?;
        self.crc.update(&self.buf);
        self.entities += 1;
        Ok(Some(entity))
    }

    /// Skips `n` entities (still checking them): how a restore resumes after a checkpoint.
    ///
    /// ```
    /// use tablekit::DynamicEntity;
    /// use tablekit::patterns::backup::{BackupHeader, BackupReader, BackupWriter};
    /// # futures::executor::block_on(async {
    /// let mut file = Vec::new();
    /// let mut w = BackupWriter::new(&mut file, &BackupHeader::default()).await?;
    /// for r in ["a", "b", "c"] { w.write_entity(&DynamicEntity::new("p", r)).await?; }
    /// w.finish().await?;
    /// let mut reader = BackupReader::open(&file[..]).await?;
    /// reader.skip(2).await?;
    /// assert_eq!(reader.next_entity().await?.unwrap().row_key(), "c");
    /// # Ok::<(), tablekit::patterns::backup::BackupError>(())
    /// # }).unwrap();
    /// ```
    pub async fn skip(&mut self, n: u64) -> Result<(), BackupError> {
        for _ in 0..n {
            if self.next_entity().await?.is_none() {
                return Err(BackupError::Corrupt {
                    offset: self.offset,
                    line: self.line,
                    reason: format!("cannot skip {n} entities: the backup holds fewer"),
                });
            }
        }
        Ok(())
    }

    /// The entities as a stream (ends after the checked trailer, or with the first error).
    ///
    /// ```
    /// use futures::TryStreamExt;
    /// use tablekit::DynamicEntity;
    /// use tablekit::patterns::backup::{BackupHeader, BackupReader, BackupWriter};
    /// # futures::executor::block_on(async {
    /// let mut file = Vec::new();
    /// let mut w = BackupWriter::new(&mut file, &BackupHeader::default()).await?;
    /// w.write_entity(&DynamicEntity::new("p", "r")).await?;
    /// w.finish().await?;
    /// let all: Vec<DynamicEntity> = BackupReader::open(&file[..]).await?.into_stream().try_collect().await?;
    /// assert_eq!(all.len(), 1);
    /// # Ok::<(), tablekit::patterns::backup::BackupError>(())
    /// # }).unwrap();
    /// ```
    pub fn into_stream(
        self,
    ) -> impl futures::Stream<Item = Result<DynamicEntity, BackupError>> + Unpin {
        Box::pin(futures::stream::try_unfold(self, |mut reader| async move {
            Ok(reader.next_entity().await?.map(|e| (e, reader)))
        }))
    }

    async fn read_header(&mut self) -> Result<BackupHeader, BackupError> {
        let json = match self.read_line("the header").await? {
            Line::Json(json) => json.to_vec(),
            Line::Eof => {
                return Err(BackupError::Truncated {
                    offset: 0,
                    line: 1,
                    what: "the file is empty",
                })
            }
        };
        let header: BackupHeader = serde_json::from_slice(&json)
            .map_err(|e| corrupt(0, 1, format!("not a tablekit backup header: {e}")))?;
        if header.format != FORMAT_NAME {
            return Err(corrupt(0, 1, format!("format is `{}`", header.format)));
        }
        if header.version != FORMAT_VERSION {
            return Err(BackupError::UnsupportedVersion {
                found: header.version,
            });
        }
        self.crc.update(&self.buf);
        Ok(header)
    }

    async fn check_trailer(
        &mut self,
        json: &[u8],
        start: u64,
        line: u64,
    ) -> Result<(), BackupError> {
        let trailer: Trailer = serde_json::from_slice(json)
            .map_err(|e| corrupt(start, line, format!("bad trailer: {e}")))?;
        if trailer.end.entities != self.entities {
            return Err(corrupt(
                start,
                line,
                format!(
                    "the trailer counts {} entities, the file holds {}",
                    trailer.end.entities, self.entities
                ),
            ));
        }
        let actual = format!("{:08x}", self.crc.clone().finalize());
        if trailer.end.crc32 != actual {
            return Err(corrupt(
                start,
                line,
                format!(
                    "file checksum is {actual}, the trailer says {}",
                    trailer.end.crc32
                ),
            ));
        }
        // Anything after the trailer means the file is not what the writer wrote.
        let after = self.offset;
        let rest = self
            .inner
            .fill_buf()
            .await
            .map_err(|source| BackupError::Io {
                offset: after,
                source,
            })?;
        if !rest.is_empty() {
            return Err(corrupt(after, line + 1, "data after the trailer"));
        }
        Ok(())
    }

    /// Reads one line into `self.buf` and checks its checksum.
    async fn read_line(&mut self, what: &'static str) -> Result<Line<'_>, BackupError> {
        self.buf.clear();
        let start = self.offset;
        self.line += 1;
        let line = self.line;
        let mut limited = (&mut self.inner).take(MAX_LINE_BYTES as u64);
        let read = limited
            .read_until(b'\n', &mut self.buf)
            .await
            .map_err(|source| BackupError::Io {
                offset: start,
                source,
            })?;
        self.offset += read as u64;
        if read == 0 {
            return Ok(Line::Eof);
        }
        if self.buf.last() != Some(&b'\n') {
            if read >= MAX_LINE_BYTES {
                return Err(corrupt(start, line, "line longer than 16 MiB"));
            }
            return Err(BackupError::Truncated {
                offset: self.offset,
                line,
                what,
            });
        }
        let text = self.buf.get(..self.buf.len() - 1).unwrap_or_default();
        let (crc, json) = match (text.get(..8), text.get(8), text.get(9..)) {
            (Some(crc), Some(b' '), Some(json)) => (crc, json),
            _ => return Err(corrupt(start, line, "expected `CRC32 JSON`")),
        };
        let expected = std::str::from_utf8(crc)
            .ok()
            .and_then(|s| u32::from_str_radix(s, 16).ok())
            .ok_or_else(|| corrupt(start, line, "the line checksum is not hex"))?;
        if crc32fast::hash(json) != expected {
            return Err(corrupt(start, line, "line checksum mismatch"));
        }
        Ok(Line::Json(json))
    }
}

fn corrupt(offset: u64, line: u64, reason: impl ToString) -> BackupError {
    BackupError::Corrupt {
        offset,
        line,
        reason: reason.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
