//! [`RecordReader`]: reads fields back, checking every length against the bytes left.

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::field::RecordField;
use super::{varint, Record, RecordError};
use crate::values::value::{TicksDecoder, Value};

/// Reads record fields from a byte slice. Each read checks the bytes left first and returns a
/// [`RecordError`] with the offset instead of panicking; nothing is read past the end.
///
/// ```
/// use tablekit::record::RecordReader;
/// let mut r = RecordReader::new(&[1, 0, 0, 0, 2, 0xc3, 0xa9, 1]);
/// assert_eq!(r.read_i32()?, 1);
/// assert_eq!(r.read_str()?, "é");
/// assert!(r.read_bool()?);
/// r.finish()?;
/// # Ok::<(), tablekit::RecordError>(())
/// ```
#[derive(Debug, Clone)]
pub struct RecordReader<'a> {
    bytes: &'a [u8],
    /// The length of the whole input: the position is what is gone from it.
    len: usize,
    /// Times in one collection mostly share a few days: the decoder remembers the last.
    ticks: TicksDecoder,
}

macro_rules! read_le {
    ($($(#[$doc:meta])* $name:ident: $ty:ty;)*) => {$(
        $(#[$doc])*
        #[inline]
        pub fn $name(&mut self) -> Result<$ty, RecordError> {
            Ok(<$ty>::from_le_bytes(self.take_array()?))
        }
    )*};
}

impl<'a> RecordReader<'a> {
    /// A reader at the start of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        RecordReader {
            bytes,
            len: bytes.len(),
            ticks: TicksDecoder::default(),
        }
    }

    /// How many bytes are left.
    pub fn remaining(&self) -> usize {
        self.bytes.len()
    }

    /// How many bytes have been read: the offset errors report.
    #[inline]
    pub fn position(&self) -> usize {
        self.len - self.bytes.len()
    }

    /// Succeeds only when every byte has been read: leftovers mean the data is not what the
    /// reader thinks it is.
    pub fn finish(self) -> Result<(), RecordError> {
        if self.bytes.is_empty() {
            Ok(())
        } else {
            Err(RecordError::TrailingBytes {
                offset: self.position(),
                count: self.bytes.len(),
            })
        }
    }

    /// The next byte, without reading it.
    #[inline]
    pub(crate) fn peek_u8(&self) -> Option<u8> {
        self.bytes.first().copied()
    }

    /// The error for needing `needed` bytes where fewer remain.
    fn truncated(&self, needed: usize) -> RecordError {
        RecordError::Truncated {
            offset: self.position(),
            needed,
            remaining: self.bytes.len(),
        }
    }

    /// Takes the next `len` bytes.
    #[inline]
    fn take(&mut self, len: usize) -> Result<&'a [u8], RecordError> {
        if len > self.bytes.len() {
            return Err(self.truncated(len));
        }
        let (head, tail) = self.bytes.split_at(len);
        self.bytes = tail;
        Ok(head)
    }

    /// Takes the next `N` bytes as an array.
    #[inline]
    fn take_array<const N: usize>(&mut self) -> Result<[u8; N], RecordError> {
        let Some((head, tail)) = self.bytes.split_first_chunk::<N>() else {
            return Err(self.truncated(N));
        };
        self.bytes = tail;
        Ok(*head)
    }

    read_le! {
        /// Reads one byte.
        read_u8: u8;
        /// Reads 2 bytes, little-endian.
        read_u16: u16;
        /// Reads 4 bytes, little-endian.
        read_u32: u32;
        /// Reads 8 bytes, little-endian.
        read_u64: u64;
        /// Reads one byte, two's complement.
        read_i8: i8;
        /// Reads 2 bytes, little-endian two's complement.
        read_i16: i16;
        /// Reads 4 bytes, little-endian two's complement.
        read_i32: i32;
        /// Reads 8 bytes, little-endian two's complement.
        read_i64: i64;
        /// Reads a 4-byte IEEE 754 value, little-endian.
        read_f32: f32;
        /// Reads an 8-byte IEEE 754 value, little-endian.
        read_f64: f64;
    }

    /// Reads a `bool`: `0` or `1`, anything else is an error.
    #[inline]
    pub fn read_bool(&mut self) -> Result<bool, RecordError> {
        self.read_tag("bool")
    }

    /// Reads a 0/1 byte, naming `what` in the error for anything else.
    #[inline]
    fn read_tag(&mut self, what: &'static str) -> Result<bool, RecordError> {
        let offset = self.position();
        match self.read_u8()? {
            0 => Ok(false),
            1 => Ok(true),
            value => Err(RecordError::InvalidTag {
                what,
                value,
                offset,
            }),
        }
    }

    /// Reads a time written by [`write_datetime`](super::RecordWriter::write_datetime).
    #[inline]
    pub fn read_datetime(&mut self) -> Result<DateTime<Utc>, RecordError> {
        let offset = self.position();
        let ticks = self.read_i64()?;
        self.ticks
            .decode(ticks)
            .ok_or(RecordError::InvalidDateTime { ticks, offset })
    }

    /// Reads 16 bytes as a UUID.
    #[inline]
    pub fn read_uuid(&mut self) -> Result<Uuid, RecordError> {
        Ok(Uuid::from_bytes(self.take_array()?))
    }

    /// Reads a varint length or count and checks that at least that many bytes are left, so a
    /// corrupt prefix can never cause a huge allocation or a read past the end.
    ///
    /// ```
    /// use tablekit::record::RecordReader;
    /// assert_eq!(RecordReader::new(&[2, 0, 0]).read_len()?, 2);
    /// assert!(RecordReader::new(&[3, 0, 0]).read_len().is_err());
    /// # Ok::<(), tablekit::RecordError>(())
    /// ```
    #[inline]
    pub fn read_len(&mut self) -> Result<usize, RecordError> {
        let offset = self.position();
        let (length, used) =
            varint::read(self.bytes).ok_or(RecordError::InvalidVarint { offset })?;
        self.take(used)?;
        let remaining = self.bytes.len();
        match usize::try_from(length) {
            Ok(len) if len <= remaining => Ok(len),
            _ => Err(RecordError::LengthPastEnd {
                offset,
                length,
                remaining,
            }),
        }
    }

    /// Reads length-prefixed bytes without copying.
    #[inline]
    pub fn read_bytes(&mut self) -> Result<&'a [u8], RecordError> {
        let len = self.read_len()?;
        self.take(len)
    }

    /// Reads a length-prefixed UTF-8 string without copying.
    ///
    /// ```
    /// use tablekit::record::RecordReader;
    /// assert_eq!(RecordReader::new(&[2, b'h', b'i']).read_str()?, "hi");
    /// assert!(RecordReader::new(&[1, 0xff]).read_str().is_err());
    /// # Ok::<(), tablekit::RecordError>(())
    /// ```
    #[inline]
    pub fn read_str(&mut self) -> Result<&'a str, RecordError> {
        let len = self.read_len()?;
        let offset = self.position();
        std::str::from_utf8(self.take(len)?).map_err(|_| RecordError::InvalidUtf8 { offset })
    }

    /// Reads a length-prefixed UTF-8 string into a `String`.
    #[inline]
    pub fn read_string(&mut self) -> Result<String, RecordError> {
        self.read_str().map(str::to_owned)
    }

    /// Reads a value in its [`RecordField`] format.
    #[inline]
    pub fn read<T: RecordField>(&mut self) -> Result<T, RecordError> {
        T::read_field(self)
    }

    /// Reads what [`write_option`](super::RecordWriter::write_option) wrote.
    #[inline]
    pub fn read_option<T: RecordField>(&mut self) -> Result<Option<T>, RecordError> {
        if self.read_tag("Option tag")? {
            T::read_field(self).map(Some)
        } else {
            Ok(None)
        }
    }

    /// Reads the 2-byte version of `R` and refuses one newer than `R::VERSION`.
    #[inline]
    fn read_version<R: Record>(&mut self) -> Result<u16, RecordError> {
        let found = self.read_u16()?;
        if found > R::VERSION {
            return Err(RecordError::UnknownVersion {
                record: std::any::type_name::<R>(),
                found,
                supported: R::VERSION,
            });
        }
        Ok(found)
    }

    /// Reads a nested record written by [`write_record`](super::RecordWriter::write_record):
    /// its version, then its fields as that version wrote them.
    #[inline]
    pub fn read_record<R: Record>(&mut self) -> Result<R, RecordError> {
        let version = self.read_version::<R>()?;
        R::read(self, version)
    }

    /// Reads records written by [`write_records`](super::RecordWriter::write_records).
    ///
    /// The count is checked against the bytes left (every record takes at least one byte), so
    /// a corrupt count fails at once instead of allocating or looping; the loop runs exactly
    /// `count` times, whatever the record's `read` does.
    #[inline]
    pub fn read_records<R: Record>(&mut self) -> Result<Vec<R>, RecordError> {
        let version = self.read_version::<R>()?;
        let count = self.read_len()?;
        let mut records = Vec::with_capacity(count);
        for _ in 0..count {
            records.push(R::read(self, version)?);
        }
        Ok(records)
    }

    /// Reads what [`write_value`](super::RecordWriter::write_value) wrote.
    pub fn read_value(&mut self) -> Result<Value, RecordError> {
        let offset = self.position();
        Ok(match self.read_u8()? {
            0 => Value::Bool(self.read_bool()?),
            1 => Value::Int32(self.read_i32()?),
            2 => Value::Int64(self.read_i64()?),
            3 => Value::Double(self.read_f64()?),
            4 => Value::DateTime(self.read_datetime()?),
            5 => Value::Guid(self.read_uuid()?),
            6 => Value::String(self.read_string()?.into()),
            7 => Value::Binary(self.read_bytes()?.to_vec()),
            value => {
                return Err(RecordError::InvalidTag {
                    what: "value type",
                    value,
                    offset,
                })
            }
        })
    }
}
