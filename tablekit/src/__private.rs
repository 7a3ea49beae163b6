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

pub use crate::column::{Column, Storage};
pub use crate::convert::{FromValue, IntoValue, ValueError};
pub use crate::entity::DynamicEntity;
pub use crate::error::Error;
pub use crate::etag::ETag;
pub use crate::filter::Filter;
pub use crate::keys;
pub use crate::limits::{self, InvalidInput, KeyKind};
pub use crate::model::{TableEntity, TableModel};
pub use crate::record::{
    decode_records, encode_records, Record, RecordError, RecordField, RecordReader, RecordWriter,
};
pub use crate::split;
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
        return entity.try_get(name);
    }
    for o in old {
        if entity.contains(o) {
            return entity.try_get(o);
        }
    }
    entity.try_get(name)
}

/// Reads a JSON-encoded String property.
pub fn get_json<T: serde::de::DeserializeOwned>(
    entity: &DynamicEntity,
    name: &str,
) -> Result<Option<T>, Error> {
    match entity.try_get::<String>(name)? {
        Some(text) => serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| Error::property(name, ValueError::Invalid(format!("invalid JSON: {e}")))),
        None => Ok(None),
    }
}

/// Writes a value as a JSON String property, refusing one over the string limit.
pub fn set_json<T: serde::Serialize>(
    entity: &mut DynamicEntity,
    name: &str,
    value: &T,
) -> Result<(), Error> {
    let text = serde_json::to_string(value).map_err(|e| {
        Error::property(
            name,
            ValueError::Invalid(format!("cannot encode JSON: {e}")),
        )
    })?;
    let value = Value::String(text);
    limits::validate_value(name, &value)?;
    entity.set(name, value);
    Ok(())
}

/// Reads records stored (split) under `name`.
pub fn get_records<R: Record>(entity: &DynamicEntity, name: &str) -> Result<Vec<R>, Error> {
    match split::read_split(entity, name)? {
        Some(bytes) => Ok(decode_records(&bytes)?),
        None => Ok(Vec::new()),
    }
}

/// Writes records split across at most `max_properties` properties.
pub fn set_records<R: Record>(
    entity: &mut DynamicEntity,
    name: &str,
    records: &[R],
    max_properties: usize,
) -> Result<(), Error> {
    let bytes = encode_records(records);
    split::write_split(entity, name, &bytes, max_properties)
}

/// Reads bytes stored split under `name`.
pub fn get_split(entity: &DynamicEntity, name: &str) -> Result<Vec<u8>, Error> {
    Ok(split::read_split(entity, name)?.unwrap_or_default())
}

/// The error for a `key_only` field whose key does not decode.
pub fn key_part_error(kind: KeyKind, field: &str, key: &str) -> Error {
    Error::InvalidInput(InvalidInput::Other(format!(
        "{kind} `{key}` does not hold a readable `{field}` part"
    )))
}

/// Validates both composed keys.
pub fn validate_keys(entity: &DynamicEntity) -> Result<(), Error> {
    keys::validate(KeyKind::PartitionKey, entity.partition_key())?;
    keys::validate(KeyKind::RowKey, entity.row_key())?;
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
