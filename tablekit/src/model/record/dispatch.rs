//! How `#[derive(Record)]` stores a field: through its [`RecordField`] impl when it has one,
//! otherwise as a table [`Value`] when it converts to and from one (a `#[derive(TableValue)]`
//! enum, say), so an enum field of a record (a gamer's `CompletedLevel { level: Level, .. }`)
//! needs no extra code.
//!
//! The choice is made by method resolution ("autoref specialization"): the generated code
//! calls a method on `&Dispatch<T>`; the `RecordField` route is implemented for `Dispatch<T>`
//! and found first, the value route for `&Dispatch<T>` only after an extra autoref. Not a
//! public API: generated code reaches it through `__private`.

use std::marker::PhantomData;

use super::{RecordError, RecordField, RecordReader, RecordWriter};
use crate::values::convert::{FromValue, IntoValue};

/// Selects how a field of type `T` is stored.
pub struct Dispatch<T>(PhantomData<fn() -> T>);

impl<T> Dispatch<T> {
    /// The selector for `T`.
    pub const fn new() -> Self {
        Dispatch(PhantomData)
    }
}

impl<T> Default for Dispatch<T> {
    fn default() -> Self {
        Dispatch::new()
    }
}

/// The first choice: the type's own [`RecordField`] format.
pub trait ViaRecordField<T> {
    /// Writes the field.
    fn record_write(&self, value: &T, writer: &mut RecordWriter);
    /// Reads the field.
    fn record_read(&self, reader: &mut RecordReader<'_>) -> Result<T, RecordError>;
}

impl<T: RecordField> ViaRecordField<T> for Dispatch<T> {
    #[inline]
    fn record_write(&self, value: &T, writer: &mut RecordWriter) {
        value.write_field(writer);
    }

    #[inline]
    fn record_read(&self, reader: &mut RecordReader<'_>) -> Result<T, RecordError> {
        T::read_field(reader)
    }
}

/// The fallback: a table value, tagged with its type (see
/// [`RecordWriter::write_value`]); a value that converts to "nothing" is stored as tag 255.
pub trait ViaValue<T> {
    /// Writes the field.
    fn record_write(&self, value: &T, writer: &mut RecordWriter);
    /// Reads the field.
    fn record_read(&self, reader: &mut RecordReader<'_>) -> Result<T, RecordError>;
}

/// The tag of a value that converted to "nothing".
const ABSENT: u8 = 255;

impl<T: IntoValue + FromValue + Clone> ViaValue<T> for &Dispatch<T> {
    #[inline]
    fn record_write(&self, value: &T, writer: &mut RecordWriter) {
        match value.clone().into_value() {
            Some(value) => writer.write_value(&value),
            None => writer.write_u8(ABSENT),
        };
    }

    #[inline]
    fn record_read(&self, reader: &mut RecordReader<'_>) -> Result<T, RecordError> {
        if reader.peek_u8() == Some(ABSENT) {
            reader.read_u8()?;
            return T::from_missing()
                .ok_or_else(|| RecordError::invalid("a required value is absent"));
        }
        let value = reader.read_value()?;
        T::from_value(&value).map_err(|e| RecordError::invalid(e.to_string()))
    }
}
