//! Reading a backup back: [`BackupReader`] streams the entities, checking each line's CRC,
//! the header's version and the trailer's counts, and names the offset of any damage.

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt};

use super::{BackupError, BackupHeader, Trailer, FORMAT_NAME, FORMAT_VERSION, MAX_LINE_BYTES};
use crate::codec;
use crate::values::entity::DynamicEntity;

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
        // Exactly as written: eight lowercase hex digits. `from_str_radix` alone would also
        // take `A`-`F` and a leading `+`, so a changed byte there would go unnoticed.
        let lowercase_hex = |b: &u8| b.is_ascii_digit() || (b'a'..=b'f').contains(b);
        let expected = Some(crc)
            .filter(|crc| crc.iter().all(lowercase_hex))
            .and_then(|crc| std::str::from_utf8(crc).ok())
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
