//! Any serde model as a [`DynamicEntity`], without `#[derive(TableEntity)]`: [`to_entity`]
//! and [`from_entity`].
//!
//! Models written for other Azure Table clients (the `azure_data_tables` crate, say) work as
//! they are: the struct's `PartitionKey` and `RowKey` fields (or fields serde renames so) become
//! the keys, and `Timestamp` and `odata.etag` fields receive the service's values when read.
//! Every other field is one property, its EDM type taken from the serde data model:
//!
//! | serde | stored as |
//! |---|---|
//! | `bool` | `Edm.Boolean` |
//! | `i8`, `i16`, `i32`, `u8`, `u16` | `Edm.Int32` |
//! | `u32` | `Edm.Int64` |
//! | `i64` | `Edm.Int64` |
//! | `u64` | `Edm.Int64` (above `i64::MAX`, its bit pattern: it reads back exactly) |
//! | `f32`, `f64` | `Edm.Double` |
//! | `str`, `char` | `Edm.String` |
//! | bytes (`serde_bytes`) | `Edm.Binary` |
//! | unit, `None` | nothing: the property is absent |
//! | newtype | its inner value |
//! | unit enum variant | `Edm.String` of the variant's name |
//!
//! A `Vec<u8>` is a sequence to serde: mark it `#[serde(with = "serde_bytes")]` to store it as
//! `Edm.Binary`. Text stays text: a `chrono::DateTime<Utc>` (with chrono's `serde` feature) or
//! `uuid::Uuid` field with serde's own implementation is stored as `Edm.String`, because
//! guessing types from text would change them. Opt in to `Edm.DateTime` and `Edm.Guid` per field with
//! `#[serde(with = "tablekit::serde_bridge::datetime")]` and
//! `#[serde(with = "tablekit::serde_bridge::guid")]` (each has an `option` variant).
//!
//! Nested structs, sequences, maps, tuples and enum variants with data are refused with a
//! [`SerdeError::Nested`] naming the field, never flattened or turned into text behind the
//! user's back: `#[serde(flatten)]` spreads a struct's fields over the entity, and the `json`
//! storage of `#[derive(TableEntity)]` keeps a nested value as JSON text.
//!
//! For a typed table without the derive, [`Serde<T>`](Serde) is the entity of a model `T`:
//! `client.table_named::<Serde<T>>(name)`.
//!
//! Reads are tolerant where nothing is lost, as the derive's are: an `Edm.Int32` reads into an
//! `i64`, an `Edm.Int64` into an `i32` when it fits (otherwise an out-of-range error naming
//! the property), an absent property reads as `None` or the field's `#[serde(default)]`, and
//! properties the struct does not name are ignored unless it says
//! `#[serde(deny_unknown_fields)]`. Stored data never makes a read panic.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use tablekit::serde_bridge::{self, from_entity, to_entity};
//! use tablekit::{EdmType, Value};
//!
//! #[derive(Debug, PartialEq, Serialize, Deserialize)]
//! #[serde(rename_all = "PascalCase")]
//! struct Gamer {
//!     partition_key: String,
//!     row_key: String,
//!     score: i64,
//!     nick: Option<String>,
//!     #[serde(with = "serde_bridge::datetime")]
//!     joined: chrono::DateTime<chrono::Utc>,
//! }
//!
//! let gamer = Gamer {
//!     partition_key: "eu".into(),
//!     row_key: "dragon".into(),
//!     score: 42,
//!     nick: None,
//!     joined: chrono::DateTime::UNIX_EPOCH,
//! };
//! let entity = to_entity(&gamer)?;
//! assert_eq!((entity.partition_key(), entity.row_key()), ("eu", "dragon"));
//! assert_eq!(entity.value("Score"), Some(&Value::Int64(42)));
//! assert_eq!(entity.value("Joined").map(Value::edm_type), Some(EdmType::DateTime));
//! assert!(!entity.contains("Nick")); // `None` stores nothing
//! assert_eq!(from_entity::<Gamer>(&entity)?, gamer);
//! # Ok::<(), tablekit::serde_bridge::SerdeError>(())
//! ```

use crate::values::entity::{DynamicEntity, PropertyError};

pub mod datetime;
mod de;
mod entity;
pub mod guid;
mod ser;

pub use entity::Serde;

/// The property name of the PartitionKey.
const PARTITION_KEY: &str = "PartitionKey";
/// The property name of the RowKey.
const ROW_KEY: &str = "RowKey";
/// The name the service's Timestamp is read into and written from.
const TIMESTAMP: &str = "Timestamp";
/// The name of the entity's ETag, as the JSON of the Table service calls it.
const ETAG: &str = "odata.etag";

/// Why a value could not become an entity, or an entity could not become a value.
///
/// ```
/// use std::collections::BTreeMap;
/// use tablekit::serde_bridge::{to_entity, SerdeError};
///
/// #[derive(serde::Serialize)]
/// struct Order {
///     #[serde(rename = "PartitionKey")]
///     customer: String,
///     #[serde(rename = "RowKey")]
///     id: String,
///     lines: Vec<String>,
/// }
///
/// let order = Order { customer: "alice".into(), id: "o-1".into(), lines: vec!["tea".into()] };
/// let err = to_entity(&order).unwrap_err();
/// assert!(matches!(&err, SerdeError::Nested { field, .. } if field == "lines"));
/// assert!(err.to_string().starts_with("field `lines`: a sequence cannot be stored"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SerdeError {
    /// The value does not serialize as a struct or map of fields.
    #[error("an entity must serialize as a struct or map of fields, not {found}")]
    NotAnEntity {
        /// What it serializes as.
        found: &'static str,
    },
    /// A field holds a value that is not one property: a nested struct, sequence, map, tuple
    /// or enum variant with data.
    #[error(
        "field `{field}`: {kind} cannot be stored in one property; spread a struct over the \
         entity with `#[serde(flatten)]`, store the value as JSON text with the `json` storage \
         of `#[derive(TableEntity)]`, or use `serde_bytes` for bytes"
    )]
    Nested {
        /// The field's name.
        field: String,
        /// What the field holds (`a sequence`, `a map`, ...).
        kind: &'static str,
    },
    /// A map key that is not text: property names are strings.
    #[error("field names must be strings, found {found}")]
    FieldName {
        /// What the key serializes as.
        found: &'static str,
    },
    /// The value has no `PartitionKey` or no `RowKey` field.
    #[error("`{key}` is missing: an entity needs `PartitionKey` and `RowKey` fields")]
    MissingKey {
        /// `PartitionKey` or `RowKey`.
        key: &'static str,
    },
    /// A key, `Timestamp` or `odata.etag` field of the wrong type.
    #[error("`{field}` must be {expected}, found {found}")]
    SystemField {
        /// The field's name.
        field: &'static str,
        /// What it must be.
        expected: &'static str,
        /// What it is.
        found: String,
    },
    /// A text field marked as `Edm.DateTime` or `Edm.Guid` that is not one.
    #[error("field `{field}`: `{text}` is not {expected}")]
    Unparsable {
        /// The field's name.
        field: String,
        /// The text.
        text: String,
        /// What it should be (`an RFC 3339 date and time`, `a GUID`).
        expected: &'static str,
    },
    /// A stored property could not be read into its field: the property's name and why.
    #[error(transparent)]
    Property(#[from] PropertyError),
    /// A field the struct requires is not stored, and has no `#[serde(default)]`.
    #[error("property `{field}` is missing")]
    MissingField {
        /// The field's name.
        field: &'static str,
    },
    /// A stored property the struct does not name, which `#[serde(deny_unknown_fields)]`
    /// refuses.
    #[error("property `{field}` is not a field of the struct")]
    UnknownField {
        /// The property's name.
        field: String,
    },
    /// A message from a `Serialize` or `Deserialize` implementation.
    #[error("{0}")]
    Message(String),
}

/// The entity of a serde value: its `PartitionKey` and `RowKey` fields are the keys, an
/// `odata.etag` field its ETag, a `Timestamp` field its Timestamp, every other field with a
/// value a property (see the [module](self) for the types).
///
/// ```
/// use tablekit::serde_bridge::{to_entity, SerdeError};
/// use tablekit::Value;
///
/// #[derive(serde::Serialize)]
/// enum Level { Gold }
///
/// #[derive(serde::Serialize)]
/// #[serde(rename_all = "PascalCase")]
/// struct Gamer { partition_key: String, row_key: String, level: Level, lives: u32 }
///
/// let gamer = Gamer { partition_key: "eu".into(), row_key: "dragon".into(), level: Level::Gold, lives: 3_000_000_000 };
/// let entity = to_entity(&gamer)?;
/// assert_eq!(entity.value("Level"), Some(&Value::String("Gold".into())));
/// assert_eq!(entity.value("Lives"), Some(&Value::Int64(3_000_000_000))); // beyond Int32
///
/// #[derive(serde::Serialize)]
/// struct Keyless { score: i32 }
/// assert_eq!(to_entity(&Keyless { score: 1 }), Err(SerdeError::MissingKey { key: "PartitionKey" }));
/// # Ok::<(), SerdeError>(())
/// ```
pub fn to_entity<T: serde::Serialize + ?Sized>(value: &T) -> Result<DynamicEntity, SerdeError> {
    value.serialize(ser::EntitySerializer::new())
}

/// A serde value read from an entity: the keys, Timestamp and ETag go to fields named
/// `PartitionKey`, `RowKey`, `Timestamp` and `odata.etag` when the struct has them, each
/// property to the field of its name.
///
/// ```
/// use tablekit::serde_bridge::{from_entity, SerdeError};
/// use tablekit::{DynamicEntity, PropertyError, ValueError};
///
/// #[derive(Debug, serde::Deserialize)]
/// #[serde(rename_all = "PascalCase")]
/// struct Gamer { row_key: String, score: i32, #[serde(default)] lives: u8 }
///
/// let mut stored = DynamicEntity::new("eu", "dragon");
/// stored.set("Score", 42i64); // an Int64 that fits reads into an i32
/// stored.set("Unknown", true); // ignored
/// let gamer: Gamer = from_entity(&stored)?;
/// assert_eq!((gamer.row_key.as_str(), gamer.score, gamer.lives), ("dragon", 42, 0));
///
/// stored.set("Score", 1i64 << 40);
/// let err = from_entity::<Gamer>(&stored).unwrap_err();
/// assert!(matches!(err, SerdeError::Property(PropertyError { ref property, source: ValueError::OutOfRange { .. }, .. }) if property == "Score"));
/// # Ok::<(), SerdeError>(())
/// ```
pub fn from_entity<T: serde::de::DeserializeOwned>(
    entity: &DynamicEntity,
) -> Result<T, SerdeError> {
    T::deserialize(de::EntityDeserializer::new(entity))
}

impl serde::ser::Error for SerdeError {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        SerdeError::Message(msg.to_string())
    }
}

impl serde::de::Error for SerdeError {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        SerdeError::Message(msg.to_string())
    }

    fn missing_field(field: &'static str) -> Self {
        SerdeError::MissingField { field }
    }

    fn unknown_field(field: &str, _expected: &'static [&'static str]) -> Self {
        SerdeError::UnknownField {
            field: field.to_owned(),
        }
    }
}

#[cfg(test)]
mod tests;
