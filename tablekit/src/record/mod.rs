//! Versioned binary records stored in byte-array properties.
//!
//! The bodies below are placeholders for the API contract; the real format is documented here
//! once implemented.

use crate::Error;

/// Why record bytes could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RecordError {
    /// Placeholder.
    #[error("record error: {0}")]
    Other(String),
}

/// Writes record fields.
#[derive(Debug, Default)]
pub struct RecordWriter {
    buf: Vec<u8>,
}

/// Reads record fields.
#[derive(Debug)]
pub struct RecordReader<'a> {
    bytes: &'a [u8],
}

/// A record with a format version, stored in a byte array.
pub trait Record: Sized {
    /// The version this code writes.
    const VERSION: u16;
    /// Writes the fields of [`Self::VERSION`].
    fn write(&self, writer: &mut RecordWriter);
    /// Reads the fields as written by `version`.
    fn read(reader: &mut RecordReader<'_>, version: u16) -> Result<Self, RecordError>;
}

/// Encodes records: a 2-byte version header, then the records.
pub fn encode_records<R: Record>(records: &[R]) -> Vec<u8> {
    let _ = records;
    unimplemented!("contract placeholder")
}

/// Decodes what [`encode_records`] wrote.
pub fn decode_records<R: Record>(bytes: &[u8]) -> Result<Vec<R>, RecordError> {
    let _ = bytes;
    unimplemented!("contract placeholder")
}

impl From<RecordError> for Error {
    fn from(e: RecordError) -> Self {
        Error::decode("records", e.to_string())
    }
}

impl RecordWriter {
    /// Placeholder.
    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }
}

impl RecordReader<'_> {
    /// Placeholder.
    pub fn remaining(&self) -> usize {
        self.bytes.len()
    }
}
