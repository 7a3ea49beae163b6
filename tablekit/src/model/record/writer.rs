//! [`RecordWriter`]: appends fields in the record byte format.

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::field::RecordField;
use super::{varint, Record, RecordError};
use crate::values::value::{to_ticks, Value};

/// Appends record fields to a byte buffer. Every method returns `&mut Self`, so a hand-written
/// [`Record::write`] reads like `propertyBytes.Add(a).Add(b)` in "Jeffrey Richter's Guide to
/// Working with Azure Storage Tables via C# and other .NET Languages".
///
/// ```
/// use tablekit::record::RecordWriter;
/// let mut w = RecordWriter::new();
/// w.write_i32(1).write_str("é").write_bool(true);
/// // i32 LE, then the string's byte length (2, a varint) and its UTF-8 bytes, then the bool.
/// assert_eq!(w.finish()?, [1, 0, 0, 0, 2, 0xc3, 0xa9, 1]);
/// # Ok::<(), tablekit::RecordError>(())
/// ```
#[derive(Debug, Default)]
pub struct RecordWriter {
    buf: Vec<u8>,
    /// The first type in a counted sequence that wrote no bytes: [`finish`](Self::finish)
    /// reports it, since a reader could not read such data back.
    empty: Option<&'static str>,
}

macro_rules! write_le {
    ($($(#[$doc:meta])* $name:ident: $ty:ty;)*) => {$(
        $(#[$doc])*
        #[inline]
        pub fn $name(&mut self, value: $ty) -> &mut Self {
            self.buf.extend_from_slice(&value.to_le_bytes());
            self
        }
    )*};
}

impl RecordWriter {
    /// An empty writer.
    pub fn new() -> Self {
        RecordWriter::default()
    }

    /// An empty writer with room for `capacity` bytes.
    pub fn with_capacity(capacity: usize) -> Self {
        RecordWriter {
            buf: Vec::with_capacity(capacity),
            empty: None,
        }
    }

    /// The bytes written so far.
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf
    }

    /// The bytes written, or [`RecordError::EmptyValue`] when a record or element of a
    /// counted sequence wrote no bytes (its data could not be read back).
    pub fn finish(self) -> Result<Vec<u8>, RecordError> {
        match self.empty {
            Some(what) => Err(RecordError::EmptyValue { what }),
            None => Ok(self.buf),
        }
    }

    /// Writes each item of a counted sequence with `write`, noting an item that wrote nothing.
    #[inline]
    pub(crate) fn write_each<T>(&mut self, items: &[T], mut write: impl FnMut(&T, &mut Self)) {
        for item in items {
            let before = self.buf.len();
            write(item, self);
            if self.buf.len() == before && self.empty.is_none() {
                self.empty = Some(std::any::type_name::<T>());
            }
        }
    }

    write_le! {
        /// Writes one byte.
        write_u8: u8;
        /// Writes 2 bytes, little-endian.
        write_u16: u16;
        /// Writes 4 bytes, little-endian.
        write_u32: u32;
        /// Writes 8 bytes, little-endian.
        write_u64: u64;
        /// Writes one byte, two's complement.
        write_i8: i8;
        /// Writes 2 bytes, little-endian two's complement.
        write_i16: i16;
        /// Writes 4 bytes, little-endian two's complement.
        write_i32: i32;
        /// Writes 8 bytes, little-endian two's complement.
        write_i64: i64;
        /// Writes the 4 bytes of the IEEE 754 value, little-endian (NaN payloads kept).
        write_f32: f32;
        /// Writes the 8 bytes of the IEEE 754 value, little-endian (NaN payloads kept).
        write_f64: f64;
    }

    /// Writes `0` or `1`.
    #[inline]
    pub fn write_bool(&mut self, value: bool) -> &mut Self {
        self.write_u8(u8::from(value))
    }

    /// Writes the time as .NET ticks (100 ns since 0001-01-01 UTC) in an `i64`: the service's
    /// precision, so anything below 100 ns is dropped.
    ///
    /// ```
    /// use chrono::DateTime;
    /// let mut w = tablekit::record::RecordWriter::new();
    /// w.write_datetime(&DateTime::UNIX_EPOCH);
    /// assert_eq!(w.as_bytes(), 621_355_968_000_000_000i64.to_le_bytes());
    /// ```
    #[inline]
    pub fn write_datetime(&mut self, value: &DateTime<Utc>) -> &mut Self {
        self.write_i64(to_ticks(value))
    }

    /// Writes the 16 bytes of the UUID in RFC 4122 order (as `Uuid::as_bytes`).
    #[inline]
    pub fn write_uuid(&mut self, value: &Uuid) -> &mut Self {
        self.buf.extend_from_slice(value.as_bytes());
        self
    }

    /// Writes a length or count as a varint (LEB128): 1 byte up to 127, 2 up to 16,383.
    ///
    /// ```
    /// let mut w = tablekit::record::RecordWriter::new();
    /// assert_eq!(w.write_len(300).as_bytes(), [0xac, 0x02]);
    /// ```
    #[inline]
    pub fn write_len(&mut self, len: usize) -> &mut Self {
        varint::write(&mut self.buf, len as u64);
        self
    }

    /// Writes the string's UTF-8 byte length (a varint), then its bytes.
    #[inline]
    pub fn write_str(&mut self, value: &str) -> &mut Self {
        self.write_bytes(value.as_bytes())
    }

    /// Writes the byte length (a varint), then the bytes.
    #[inline]
    pub fn write_bytes(&mut self, value: &[u8]) -> &mut Self {
        self.write_len(value.len());
        self.buf.extend_from_slice(value);
        self
    }

    /// Writes `value` as its [`RecordField`] format.
    #[inline]
    pub fn write<T: RecordField>(&mut self, value: &T) -> &mut Self {
        value.write_field(self);
        self
    }

    /// Writes a tag byte (`0` for `None`, `1` for `Some`), then the value when present.
    #[inline]
    pub fn write_option<T: RecordField>(&mut self, value: &Option<T>) -> &mut Self {
        self.write(value)
    }

    /// Writes a nested record: its own 2-byte version, then its fields, so the nested type
    /// can evolve on its own.
    ///
    /// ```
    /// # use tablekit::record::{RecordReader, RecordWriter, RecordError};
    /// # struct Point(i8);
    /// # impl tablekit::Record for Point {
    /// #     const VERSION: u16 = 3;
    /// #     fn write(&self, w: &mut RecordWriter) { w.write_i8(self.0); }
    /// #     fn read(r: &mut RecordReader<'_>, _: u16) -> Result<Self, RecordError> { Ok(Point(r.read_i8()?)) }
    /// # }
    /// let mut w = RecordWriter::new();
    /// w.write_record(&Point(-1));
    /// assert_eq!(w.as_bytes(), [3, 0, 0xff]);
    /// ```
    #[inline]
    pub fn write_record<R: Record>(&mut self, record: &R) -> &mut Self {
        self.write_u16(R::VERSION);
        record.write(self);
        self
    }

    /// Writes records: the 2-byte version once, the count (a varint), then each record's
    /// fields. This is exactly what [`encode_records`](super::encode_records) produces.
    #[inline]
    pub fn write_records<R: Record>(&mut self, records: &[R]) -> &mut Self {
        self.write_u16(R::VERSION);
        self.write_len(records.len());
        self.write_each(records, R::write);
        self
    }

    /// Writes a table [`Value`]: a type byte (0 Bool, 1 Int32, 2 Int64, 3 Double, 4 DateTime,
    /// 5 Guid, 6 String, 7 Binary), then the value as above. `#[derive(Record)]` stores a
    /// field through it when its type has no [`RecordField`] impl but is a table value (a
    /// `#[derive(TableValue)]` enum, say).
    ///
    /// ```
    /// use tablekit::{record::RecordWriter, Value};
    /// let mut w = RecordWriter::new();
    /// w.write_value(&Value::Int32(1));
    /// assert_eq!(w.as_bytes(), [1, 1, 0, 0, 0]);
    /// ```
    pub fn write_value(&mut self, value: &Value) -> &mut Self {
        match value {
            Value::Bool(b) => self.write_u8(0).write_bool(*b),
            Value::Int32(n) => self.write_u8(1).write_i32(*n),
            Value::Int64(n) => self.write_u8(2).write_i64(*n),
            Value::Double(d) => self.write_u8(3).write_f64(*d),
            Value::DateTime(t) => self.write_u8(4).write_datetime(t),
            Value::Guid(g) => self.write_u8(5).write_uuid(g),
            Value::String(s) => self.write_u8(6).write_str(s),
            Value::Binary(b) => self.write_u8(7).write_bytes(b),
        }
    }
}
