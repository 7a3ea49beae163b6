//! Items the derive macros' generated code refers to, and nothing else. Not a public API:
//! generated code names everything through this module (or the path a
//! `#[tablekit(crate = "..")]` gives), so a user's own `Option` or `Result` cannot shadow it.
//!
//! Each stored field of a `#[derive(TableEntity)]` model gets a hidden marker type
//! implementing one of the `*Field` traits below, whose associated type is the field's type.
//! The trait's bounds are checked once, where the derive writes that impl (spanned on the
//! field), and every generated accessor goes through the trait: a field type without the value
//! traits is one error per missing trait at the field, not one per generated use.

pub use core::convert::{From, Into, TryFrom};
pub use core::default::Default;
pub use core::mem::drop;
pub use core::ops::RangeBounds;
pub use core::option::Option::{self, None, Some};
pub use core::result::Result::{self, Err, Ok};
pub use core::unreachable;
pub use std::format;
pub use std::string::String;
pub use std::vec::Vec;

pub use chrono::{DateTime, Utc};
pub use smol_str::SmolStr;

pub use crate::client::error::Error;
pub use crate::client::Table;
pub use crate::filter::Filter;
pub use crate::insight::{FieldInfo, FieldStorage, ModelFields};
pub use crate::model::family::{
    check_same_table, check_variant_pair, discriminator_of, kind_or_empty, only, Family, NoTable,
    TableOf, Variant,
};
pub use crate::model::index::{Index, IndexValue};
pub use crate::model::plan::StoragePlan;
pub use crate::model::record::dispatch::{Dispatch, ViaRecordField, ViaValue};
pub use crate::model::record::{Record, RecordError, RecordField, RecordReader, RecordWriter};
pub use crate::model::spread::SpreadField;
pub use crate::model::table_model::{
    Discriminator, NamedTable, TableEntity, TableModel, WrongKind,
};
pub use crate::protocol::limits::KeyKind;
pub use crate::query::column::{Column, Storage};
pub use crate::query::keys;
pub use crate::values::convert::{FromValue, IntoValue, ValueError};
pub use crate::values::entity::{DynamicEntity, PropertyError};
pub use crate::values::etag::ETag;
pub use crate::values::value::Value;

mod flatten;

pub use crate::query::select::Select;
pub use core::clone::Clone;
pub use core::marker::{Copy, PhantomData};
pub use flatten::{
    check_flattened, get_flatten, get_flatten_option, init_flatten, init_flatten_default,
    init_flatten_option, present_flatten, present_property, present_split, remove_flatten,
    remove_property, remove_split, set_flatten, set_flatten_option, set_nested_json,
    set_nested_property, set_nested_records, set_nested_split, try_get_flatten,
    try_get_flatten_option, Flatten, FlattenColumns, FlattenField, Join, Names, Node, Prefix,
    Segment,
};

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::model::split;
use crate::protocol::limits::{self, InvalidInput};

/// An indexed field (`#[tablekit(index)]`): its bound is checked once, at the field.
pub trait IndexedField {
    /// The field's type.
    type Value: IndexValue;
}

/// A field stored in one property.
pub trait PropertyField {
    /// The field's type.
    type Value: IntoValue + FromValue;
    /// The stored name.
    const NAME: &'static str;
    /// The `rename_from` names, read when the stored name is absent.
    const OLD_NAMES: &'static [&'static str];
    /// What the field reads as when its property is absent or unreadable.
    fn default() -> Self::Value;
}

/// A `#[tablekit(json)]` field.
pub trait JsonField {
    /// The field's type.
    type Value: Serialize + DeserializeOwned;
    /// The stored name.
    const NAME: &'static str;
    /// What the field reads as when its property is absent or unreadable.
    fn default() -> Self::Value;
}

/// A `#[tablekit(records(max_properties = n))]` field: a `Vec<Self::Record>`.
pub trait RecordsField {
    /// The element type.
    type Record: Record;
    /// The stored name.
    const NAME: &'static str;
    /// How many properties the records may span.
    const MAX_PROPERTIES: usize;
}

/// A `#[tablekit(split(max_properties = n))]` field: a `Vec<u8>`.
pub trait SplitField {
    /// The stored name.
    const NAME: &'static str;
    /// How many properties the bytes may span.
    const MAX_PROPERTIES: usize;
}

/// How many properties a `#[tablekit(json)]` field may span when its text outgrows one string
/// property (16 x 64 KiB covers the whole 1 MiB entity).
const JSON_MAX_PROPERTIES: usize = 16;

/// The storage of a JSON field's column.
pub const JSON_STORAGE: Storage = Storage::Split(JSON_MAX_PROPERTIES);

/// Reads a property, trying the old names when the stored one is absent (`rename_from`).
fn get_renamed<T: FromValue>(
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

/// A property field, or why its stored value cannot be read; absent reads as the default.
pub fn try_get_property<F: PropertyField>(entity: &DynamicEntity) -> Result<F::Value, Error> {
    Ok(get_renamed(entity, F::NAME, F::OLD_NAMES)?.unwrap_or_else(F::default))
}

/// A property field; its default when absent or unreadable.
pub fn get_property<F: PropertyField>(entity: &DynamicEntity) -> F::Value {
    try_get_property::<F>(entity).unwrap_or_else(|_| F::default())
}

/// A `String` property field's stored text, borrowed: the stored name's, else the first old
/// name's.
pub fn property_str<F: PropertyField>(entity: &DynamicEntity) -> Option<&str> {
    let value = entity
        .value(F::NAME)
        .or_else(|| F::OLD_NAMES.iter().find_map(|o| entity.value(o)))?;
    match value {
        Value::String(text) => Some(text),
        _ => None,
    }
}

/// A setter: a stored value this code cannot read is noted (writes then refuse to destroy it
/// unless allowed), the old names go, the new value is set.
pub fn set_property<F: PropertyField>(entity: &mut DynamicEntity, value: F::Value) {
    set_property_value::<F>(entity, value.into_value());
}

/// [`set_property`] of a value already converted (`None` removes the property).
fn set_property_value<F: PropertyField>(entity: &mut DynamicEntity, value: Option<Value>) {
    let read = get_renamed::<F::Value>(entity, F::NAME, F::OLD_NAMES).map(drop);
    note_unreadable(entity, F::NAME, read);
    for old in F::OLD_NAMES {
        entity.remove(old);
    }
    entity.set(F::NAME, value);
}

/// Sets a property field of an entity being built (`new`, `from_model`): nothing to guard.
pub fn init_property<F: PropertyField>(entity: &mut DynamicEntity, value: F::Value) {
    entity.set(F::NAME, value);
}

/// Sets a property field of an entity being built to its default.
pub fn init_property_default<F: PropertyField>(entity: &mut DynamicEntity) {
    entity.set(F::NAME, F::default());
}

/// A JSON field, or why it cannot be read; absent reads as the default.
pub fn try_get_json<F: JsonField>(entity: &DynamicEntity) -> Result<F::Value, Error> {
    Ok(split::read_json(entity, F::NAME)?.unwrap_or_else(F::default))
}

/// A JSON field; its default when absent or unreadable.
pub fn get_json<F: JsonField>(entity: &DynamicEntity) -> F::Value {
    try_get_json::<F>(entity).unwrap_or_else(|_| F::default())
}

/// A JSON field's setter; too large a value is an error, never cut.
pub fn set_json<F: JsonField>(entity: &mut DynamicEntity, value: &F::Value) -> Result<(), Error> {
    let read = split::read_json::<F::Value>(entity, F::NAME)
        .map(drop)
        .map_err(Error::from);
    note_unreadable(entity, F::NAME, read);
    init_json::<F>(entity, value)
}

/// Sets a JSON field of an entity being built.
pub fn init_json<F: JsonField>(entity: &mut DynamicEntity, value: &F::Value) -> Result<(), Error> {
    Ok(split::write_json(
        entity,
        F::NAME,
        value,
        JSON_MAX_PROPERTIES,
    )?)
}

/// A records field, or why it cannot be read; absent reads as no records.
pub fn try_get_records<F: RecordsField>(entity: &DynamicEntity) -> Result<Vec<F::Record>, Error> {
    Ok(split::read_records(entity, F::NAME)?)
}

/// A records field; none when absent or unreadable.
pub fn get_records<F: RecordsField>(entity: &DynamicEntity) -> Vec<F::Record> {
    try_get_records::<F>(entity).unwrap_or_default()
}

/// A records field's setter; too many records is an error, never a cut.
pub fn set_records<F: RecordsField>(
    entity: &mut DynamicEntity,
    records: &[F::Record],
) -> Result<(), Error> {
    let read = try_get_records::<F>(entity).map(drop);
    note_unreadable(entity, F::NAME, read);
    init_records::<F>(entity, records)
}

/// Sets a records field of an entity being built.
pub fn init_records<F: RecordsField>(
    entity: &mut DynamicEntity,
    records: &[F::Record],
) -> Result<(), Error> {
    Ok(split::write_records(
        entity,
        F::NAME,
        records,
        F::MAX_PROPERTIES,
    )?)
}

/// A split field, or why it cannot be read; absent reads as no bytes.
pub fn try_get_split<F: SplitField>(entity: &DynamicEntity) -> Result<Vec<u8>, Error> {
    Ok(split::read_split(entity, F::NAME)?.unwrap_or_default())
}

/// A split field; no bytes when absent or unreadable.
pub fn get_split<F: SplitField>(entity: &DynamicEntity) -> Vec<u8> {
    try_get_split::<F>(entity).unwrap_or_default()
}

/// A split field's setter; too many bytes is an error, never a cut.
pub fn set_split<F: SplitField>(entity: &mut DynamicEntity, bytes: &[u8]) -> Result<(), Error> {
    let read = split::read_split(entity, F::NAME)
        .map(drop)
        .map_err(Error::from);
    note_unreadable(entity, F::NAME, read);
    init_split::<F>(entity, bytes)
}

/// Sets a split field of an entity being built.
pub fn init_split<F: SplitField>(entity: &mut DynamicEntity, bytes: &[u8]) -> Result<(), Error> {
    Ok(split::write_split(
        entity,
        F::NAME,
        bytes,
        F::MAX_PROPERTIES,
    )?)
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

/// A starts-with filter on a key column: the generated `*_key_prefix` functions use it.
pub fn key_prefix<M>(column: Column<M, String>, prefix: &str) -> Filter<M> {
    column.starts_with(prefix)
}

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
