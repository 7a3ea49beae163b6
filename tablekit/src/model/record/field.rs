//! [`RecordField`]: the types a record field can have, and their byte format.
//!
//! `#[derive(Record)]` writes and reads each field through this trait, so a field type needs
//! only an impl of it; nested records and `Vec`s of them get one for free.

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::{Record, RecordError, RecordReader, RecordWriter};

/// A type that can be a field of a [`Record`]: it knows its own byte format.
///
/// Implemented for the integers, `f32`, `f64`, `bool`, `String`, `DateTime<Utc>` (ticks),
/// `Uuid`, `Option<T>`, `Vec<T>` (`Vec<u8>` is length-prefixed bytes) and every
/// [`Record`] (nested, with its own version). Implement it for a type of your own, such as an
/// enum stored by discriminant:
///
/// ```
/// use tablekit::record::{RecordError, RecordField, RecordReader, RecordWriter};
///
/// #[derive(Debug, PartialEq)]
/// enum Level { Dungeon = 0, Castle = 1 }
///
/// impl RecordField for Level {
///     fn write_field(&self, w: &mut RecordWriter) {
///         w.write_i32(match self { Level::Dungeon => 0, Level::Castle => 1 });
///     }
///     fn read_field(r: &mut RecordReader<'_>) -> Result<Self, RecordError> {
///         match r.read_i32()? {
///             0 => Ok(Level::Dungeon),
///             1 => Ok(Level::Castle),
///             n => Err(RecordError::invalid(format!("unknown level {n}"))),
///         }
///     }
/// }
/// let mut w = RecordWriter::new();
/// w.write(&Level::Castle);
/// assert_eq!(RecordReader::new(w.as_bytes()).read::<Level>()?, Level::Castle);
/// # Ok::<(), RecordError>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a record field",
    note = "implement `tablekit::record::RecordField` for it, derive `Record` on it, or use one of: integers, f32, f64, bool, String, Vec<u8>, DateTime<Utc>, Uuid, Option<T>, Vec<T>"
)]
pub trait RecordField: Sized {
    /// Appends the value.
    ///
    /// ```
    /// use tablekit::record::{RecordField, RecordWriter};
    /// let mut w = RecordWriter::new();
    /// 300u16.write_field(&mut w); // little-endian
    /// "é".to_owned().write_field(&mut w); // byte length, then UTF-8
    /// assert_eq!(w.as_bytes(), [0x2c, 0x01, 2, 0xc3, 0xa9]);
    /// ```
    fn write_field(&self, writer: &mut RecordWriter);

    /// Reads a value written by [`write_field`](Self::write_field).
    fn read_field(reader: &mut RecordReader<'_>) -> Result<Self, RecordError>;

    /// Appends a slice of values: the count (a varint), then each value. Types override it
    /// for a denser form (bytes are copied at once, records share one version header).
    ///
    /// ```
    /// use tablekit::record::{RecordField, RecordWriter};
    /// let mut w = RecordWriter::new();
    /// u16::write_slice(&[1, 2], &mut w);
    /// assert_eq!(w.as_bytes(), [2, 1, 0, 2, 0]);
    /// ```
    #[inline]
    fn write_slice(items: &[Self], writer: &mut RecordWriter) {
        writer.write_len(items.len());
        writer.write_each(items, Self::write_field);
    }

    /// Reads what [`write_slice`](Self::write_slice) wrote.
    #[inline]
    fn read_vec(reader: &mut RecordReader<'_>) -> Result<Vec<Self>, RecordError> {
        // Every value takes at least one byte, so read_len's bound also bounds the count.
        let count = reader.read_len()?;
        let mut items = Vec::with_capacity(count);
        for _ in 0..count {
            items.push(Self::read_field(reader)?);
        }
        Ok(items)
    }
}

macro_rules! primitive_field {
    ($($ty:ty => $write:ident, $read:ident;)*) => {$(
        impl RecordField for $ty {
            #[inline]
            fn write_field(&self, writer: &mut RecordWriter) {
                writer.$write(*self);
            }
            #[inline]
            fn read_field(reader: &mut RecordReader<'_>) -> Result<Self, RecordError> {
                reader.$read()
            }
        }
    )*};
}

primitive_field! {
    u16 => write_u16, read_u16;
    u32 => write_u32, read_u32;
    u64 => write_u64, read_u64;
    i8 => write_i8, read_i8;
    i16 => write_i16, read_i16;
    i32 => write_i32, read_i32;
    i64 => write_i64, read_i64;
    f32 => write_f32, read_f32;
    f64 => write_f64, read_f64;
    bool => write_bool, read_bool;
}

/// A byte; a `Vec<u8>` is the byte length then the bytes, copied at once.
impl RecordField for u8 {
    #[inline]
    fn write_field(&self, writer: &mut RecordWriter) {
        writer.write_u8(*self);
    }

    #[inline]
    fn read_field(reader: &mut RecordReader<'_>) -> Result<Self, RecordError> {
        reader.read_u8()
    }

    #[inline]
    fn write_slice(items: &[Self], writer: &mut RecordWriter) {
        writer.write_bytes(items);
    }

    #[inline]
    fn read_vec(reader: &mut RecordReader<'_>) -> Result<Vec<Self>, RecordError> {
        reader.read_bytes().map(<[u8]>::to_vec)
    }
}

impl RecordField for String {
    #[inline]
    fn write_field(&self, writer: &mut RecordWriter) {
        writer.write_str(self);
    }

    #[inline]
    fn read_field(reader: &mut RecordReader<'_>) -> Result<Self, RecordError> {
        reader.read_string()
    }
}

impl RecordField for DateTime<Utc> {
    #[inline]
    fn write_field(&self, writer: &mut RecordWriter) {
        writer.write_datetime(self);
    }

    #[inline]
    fn read_field(reader: &mut RecordReader<'_>) -> Result<Self, RecordError> {
        reader.read_datetime()
    }
}

impl RecordField for Uuid {
    #[inline]
    fn write_field(&self, writer: &mut RecordWriter) {
        writer.write_uuid(self);
    }

    #[inline]
    fn read_field(reader: &mut RecordReader<'_>) -> Result<Self, RecordError> {
        reader.read_uuid()
    }
}

impl<T: RecordField> RecordField for Option<T> {
    #[inline]
    fn write_field(&self, writer: &mut RecordWriter) {
        match self {
            Some(value) => {
                writer.write_u8(1);
                value.write_field(writer);
            }
            None => {
                writer.write_u8(0);
            }
        }
    }

    #[inline]
    fn read_field(reader: &mut RecordReader<'_>) -> Result<Self, RecordError> {
        reader.read_option()
    }
}

impl<T: RecordField> RecordField for Vec<T> {
    #[inline]
    fn write_field(&self, writer: &mut RecordWriter) {
        T::write_slice(self, writer);
    }

    #[inline]
    fn read_field(reader: &mut RecordReader<'_>) -> Result<Self, RecordError> {
        T::read_vec(reader)
    }
}

/// A nested record carries its own version; a `Vec` of records carries one version for all.
impl<R: Record> RecordField for R {
    #[inline]
    fn write_field(&self, writer: &mut RecordWriter) {
        writer.write_record(self);
    }

    #[inline]
    fn read_field(reader: &mut RecordReader<'_>) -> Result<Self, RecordError> {
        reader.read_record()
    }

    #[inline]
    fn write_slice(items: &[Self], writer: &mut RecordWriter) {
        writer.write_records(items);
    }

    #[inline]
    fn read_vec(reader: &mut RecordReader<'_>) -> Result<Vec<Self>, RecordError> {
        reader.read_records()
    }
}
