//! Items the derive macros' generated code refers to. Not a public API: generated code names
//! everything through this module so a user's own `Option` or `Result` cannot shadow it.

pub use core::convert::{From, Into, TryFrom};
pub use core::default::Default;
pub use core::marker::{PhantomData, Send, Sync};
pub use core::option::Option::{self, None, Some};
pub use core::result::Result::{self, Err, Ok};
pub use std::string::{String, ToString};
pub use std::vec::Vec;

pub use chrono::{DateTime, Utc};
pub use serde;
pub use serde_json;
pub use smol_str::SmolStr;

pub use crate::client::error::Error;
pub use crate::column::{Column, Storage};
pub use crate::convert::{FromValue, IntoValue, ValueError};
pub use crate::entity::{DynamicEntity, PropertyError};
pub use crate::etag::ETag;
pub use crate::filter::Filter;
pub use crate::keys;
pub use crate::limits::{self, InvalidInput, KeyKind};
pub use crate::model::{Discriminator, TableEntity, TableModel};
pub use crate::record::{
    decode_records, encode_records, Record, RecordError, RecordField, RecordReader, RecordWriter,
};

/// The split writer generated setters return, answering the crate's [`Error`].
pub mod split {
    use super::{DynamicEntity, Error};

    /// [`write_split`](crate::split::write_split), its error converted.
    pub fn write_split(
        entity: &mut DynamicEntity,
        name: &str,
        bytes: &[u8],
        max_properties: usize,
    ) -> Result<(), Error> {
        Ok(crate::split::write_split(
            entity,
            name,
            bytes,
            max_properties,
        )?)
    }
}
pub use crate::value::Value;

/// Asserts at compile time that a field type has a default (spanned on the field).
pub const fn assert_default<T: Default>() {}

/// Asserts at compile time that a field type can be stored and read (spanned on the field).
pub const fn assert_value<T: IntoValue + FromValue>() {}

/// A starts-with filter on a key column: the generated `*_key_prefix` functions use it.
pub fn key_prefix<M>(column: Column<M, String>, prefix: &str) -> Filter<M> {
    column.starts_with(prefix)
}

/// Reads a property, trying the old name when the new one is absent (`rename_from`).
pub fn get_renamed<T: FromValue>(
    entity: &DynamicEntity,
    name: &str,
    old: &[&str],
) -> Result<Option<T>, Error> {
    if entity.contains(name) {
        return Ok(entity.try_get(name)?);
    }
    for o in old {
        if entity.contains(o) {
            return Ok(entity.try_get(o)?);
        }
    }
    Ok(entity.try_get(name)?)
}

/// A `String` field's stored text, borrowed: the new name's, else the first old name's.
pub fn get_str<'e>(entity: &'e DynamicEntity, name: &str, old: &[&str]) -> Option<&'e str> {
    let value = entity
        .value(name)
        .or_else(|| old.iter().find_map(|o| entity.value(o)))?;
    match value {
        Value::String(text) => Some(text),
        _ => None,
    }
}

/// Before a setter replaces `name`: a stored value this code cannot read as `T` is noted, so
/// a write refuses to destroy it unless allowed.
pub fn guard_value<T: FromValue>(entity: &mut DynamicEntity, name: &str, old: &[&str]) {
    let read = get_renamed::<T>(entity, name, old).map(drop);
    note_unreadable(entity, name, read);
}

/// [`guard_value`] for a records field.
pub fn guard_records<R: Record>(entity: &mut DynamicEntity, name: &str) {
    let read = get_records::<R>(entity, name).map(drop);
    note_unreadable(entity, name, read);
}

/// [`guard_value`] for a split field.
pub fn guard_split(entity: &mut DynamicEntity, name: &str) {
    let read = crate::split::read_split(entity, name)
        .map(drop)
        .map_err(Error::from);
    note_unreadable(entity, name, read);
}

/// [`guard_value`] for a JSON field.
pub fn guard_json<T: serde::de::DeserializeOwned>(entity: &mut DynamicEntity, name: &str) {
    let read = get_json::<T>(entity, name).map(drop);
    note_unreadable(entity, name, read);
}

/// Notes `name` as replaced unread when `read` failed on its stored value. A property a select
/// did not fetch is no such value: writing it is what a merge of the field's new value means.
fn note_unreadable(entity: &mut DynamicEntity, name: &str, read: Result<(), Error>) {
    match read {
        Ok(()) => {}
        Err(Error::Property(PropertyError {
            source: ValueError::NotSelected,
            ..
        })) => {}
        Err(e) => entity.mark_unreadable_replaced(name, e),
    }
}

/// How many properties a `#[tablekit(json)]` field may span when its text outgrows one string
/// property (16 x 64 KiB covers the whole 1 MiB entity).
pub const JSON_MAX_PROPERTIES: usize = 16;

/// Reads a JSON field: one string property, or its text split across properties.
pub fn get_json<T: serde::de::DeserializeOwned>(
    entity: &DynamicEntity,
    name: &str,
) -> Result<Option<T>, Error> {
    Ok(crate::split::read_json(entity, name)?)
}

/// Writes a JSON field, split across properties when the text outgrows one; too large is a
/// typed error, never a cut.
pub fn set_json<T: serde::Serialize>(
    entity: &mut DynamicEntity,
    name: &str,
    value: &T,
) -> Result<(), Error> {
    Ok(crate::split::write_json(
        entity,
        name,
        value,
        JSON_MAX_PROPERTIES,
    )?)
}

/// Reads records stored (split) under `name`.
pub fn get_records<R: Record>(entity: &DynamicEntity, name: &str) -> Result<Vec<R>, Error> {
    Ok(crate::split::read_records(entity, name)?)
}

/// Writes records split across at most `max_properties` properties.
pub fn set_records<R: Record>(
    entity: &mut DynamicEntity,
    name: &str,
    records: &[R],
    max_properties: usize,
) -> Result<(), Error> {
    Ok(crate::split::write_records(
        entity,
        name,
        records,
        max_properties,
    )?)
}

/// Reads bytes stored split under `name`.
pub fn get_split(entity: &DynamicEntity, name: &str) -> Result<Vec<u8>, Error> {
    Ok(crate::split::read_split(entity, name)?.unwrap_or_default())
}

/// The error for a `key_only` field whose key does not decode.
pub fn key_part_error(kind: KeyKind, field: &str, key: &str) -> Error {
    Error::InvalidInput(InvalidInput::Other(format!(
        "{kind} `{key}` does not hold a readable `{field}` part"
    )))
}

/// Validates both composed keys.
pub fn validate_keys(entity: &DynamicEntity) -> Result<(), Error> {
    limits::validate_key(KeyKind::PartitionKey, entity.partition_key())?;
    limits::validate_key(KeyKind::RowKey, entity.row_key())?;
    Ok(())
}

/// What `#[derive(Record)]` expands to.
pub mod record {
    pub use crate::record::dispatch::{Dispatch, ViaRecordField, ViaValue};
    pub use crate::record::{Record, RecordError, RecordField, RecordReader, RecordWriter};
    pub use core::default::Default;
    pub use core::result::Result::{self, Ok};
}

/// Refuses a part of a composite key that holds the separator: the key could not be split
/// back, and a prefix query on an earlier part would match other entities.
pub fn check_key_part(
    kind: KeyKind,
    field: &str,
    part: &str,
    separator: &str,
) -> Result<(), Error> {
    if !separator.is_empty() && part.contains(separator) {
        return Err(Error::InvalidInput(InvalidInput::Other(format!(
            "the `{field}` part of the {kind} (`{part}`) holds the key separator `{separator}`"
        ))));
    }
    Ok(())
}

pub use core::ops::RangeBounds;

/// A date pattern the derive has checked sorts by time (the generated `*_key_between`).
pub const fn date_time_format(pattern: &'static str) -> keys::TimeFormat<'static> {
    keys::TimeFormat::date_unchecked(pattern)
}

/// The filter of keys `{prefix}{time part}` whose time lies in `range` (see
/// `keys::time_key_range`): the generated `*_key_between` functions use it. An empty range
/// matches nothing: no key sorts before the empty string.
pub fn key_time_range<M>(
    column: Column<M, String>,
    prefix: &str,
    format: keys::TimeFormat<'_>,
    range: impl RangeBounds<DateTime<Utc>>,
) -> Filter<M> {
    match keys::time_key_range(prefix, format, range) {
        Some((lower, Some(upper))) => column.ge(lower).and(column.lt(upper)),
        Some((lower, None)) => column.ge(lower),
        None => column.lt(""),
    }
}
