//! Writing a backup: [`BackupWriter`] frames each line with its CRC and ends the file with the
//! trailer that makes it complete, and returns the [`BackupSummary`].

use std::io;

use tokio::io::{AsyncWrite, AsyncWriteExt};

use super::{encode_line, BackupError, BackupHeader, Trailer, TrailerBody, MAX_LINE_BYTES};
use crate::codec;
use crate::values::entity::DynamicEntity;

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
