//! [`RecordError`]: every way record bytes can fail to read (each with its position), and the
//! one way records can fail to write.

/// Why record bytes could not be read. Reading never panics: each malformed input ends in one
/// of these, with the byte offset where the problem was found.
///
/// ```
/// use tablekit::record::{decode_records, RecordError, RecordReader, RecordWriter};
/// use tablekit::Record;
///
/// struct Score(u32);
/// impl Record for Score {
///     const VERSION: u16 = 0;
///     fn write(&self, w: &mut RecordWriter) { w.write_u32(self.0); }
///     fn read(r: &mut RecordReader<'_>, _version: u16) -> Result<Self, RecordError> {
///         Ok(Score(r.read_u32()?))
///     }
/// }
/// // Version 7 is newer than this code understands.
/// let err = decode_records::<Score>(&[7, 0, 0]).err().unwrap();
/// assert!(matches!(err, RecordError::UnknownVersion { found: 7, supported: 0, .. }));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RecordError {
    /// The data was written by a newer version of the record than this code knows.
    #[error("`{record}` data has version {found}, this code reads versions up to {supported}")]
    UnknownVersion {
        /// The record type being read.
        record: &'static str,
        /// The version found in the data.
        found: u16,
        /// The newest version this code reads (`Record::VERSION`).
        supported: u16,
    },
    /// The input ended in the middle of a value.
    #[error("truncated record data: {needed} bytes needed at offset {offset}, {remaining} left")]
    Truncated {
        /// Where the value starts.
        offset: usize,
        /// How many bytes the value needs.
        needed: usize,
        /// How many bytes were left.
        remaining: usize,
    },
    /// A length or count prefix points past the end of the input.
    #[error(
        "length {length} at offset {offset} is past the end of the data ({remaining} bytes left)"
    )]
    LengthPastEnd {
        /// Where the prefix starts.
        offset: usize,
        /// The length or count it holds.
        length: u64,
        /// How many bytes were left after it.
        remaining: usize,
    },
    /// A variable-length integer longer than 10 bytes or above `u64::MAX`.
    #[error("malformed length prefix at offset {offset}")]
    InvalidVarint {
        /// Where the prefix starts.
        offset: usize,
    },
    /// Bytes were left after the last record.
    #[error("{count} unexpected bytes after the records at offset {offset}")]
    TrailingBytes {
        /// Where the extra bytes start.
        offset: usize,
        /// How many there are.
        count: usize,
    },
    /// A string that is not UTF-8.
    #[error("string at offset {offset} is not valid UTF-8")]
    InvalidUtf8 {
        /// Where the string's bytes start.
        offset: usize,
    },
    /// A `bool` byte other than 0 or 1, or an `Option` tag other than 0 or 1.
    #[error("byte {value} at offset {offset} is not a valid {what}")]
    InvalidTag {
        /// What was read (`bool`, `Option tag`).
        what: &'static str,
        /// The byte found.
        value: u8,
        /// Where it is.
        offset: usize,
    },
    /// Ticks that are no representable date and time.
    #[error("{ticks} ticks at offset {offset} are outside the supported date range")]
    InvalidDateTime {
        /// The ticks read.
        ticks: i64,
        /// Where they are.
        offset: usize,
    },
    /// A value in a counted sequence (a record of a `Vec`, or a `Vec` element) wrote no
    /// bytes. A reader checks a count against the bytes left, at least one per value, so such
    /// data could not be read back: writing it is refused instead.
    #[error(
        "`{what}` wrote no bytes: each record or element of a sequence must write at least one byte"
    )]
    EmptyValue {
        /// The type that wrote nothing.
        what: &'static str,
    },
    /// A value a hand-written [`Record::read`](crate::Record::read) rejected (an unknown enum
    /// discriminant, say); see [`RecordError::invalid`].
    #[error("invalid record value: {message}")]
    Invalid {
        /// What was wrong.
        message: String,
    },
}

impl RecordError {
    /// An error for a value a hand-written reader does not accept.
    pub fn invalid(message: impl Into<String>) -> Self {
        RecordError::Invalid {
            message: message.into(),
        }
    }
}
