//! `#[serde(with = "tablekit::serde_bridge::guid")]`: a `uuid::Uuid` field stored as
//! `Edm.Guid` by [`to_entity`](super::to_entity) (other serializers see hyphenated text, as
//! uuid's own implementation writes for text formats).
//!
//! Without it a `Uuid` field is text, `Edm.String`: the bridge never guesses a type from text.
//! A read accepts an `Edm.Guid` or GUID text; [`option`] does the same for an `Option<Uuid>`
//! (absent when `None`; give the field `#[serde(default)]`).
//!
//! ```
//! use tablekit::serde_bridge::{self, from_entity, to_entity};
//! use tablekit::Value;
//! use uuid::Uuid;
//!
//! #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
//! #[serde(rename_all = "PascalCase")]
//! struct Device {
//!     partition_key: String,
//!     row_key: String,
//!     #[serde(with = "serde_bridge::guid")]
//!     id: Uuid,
//!     as_text: Uuid,
//!     #[serde(with = "serde_bridge::guid::option", default)]
//!     parent: Option<Uuid>,
//! }
//!
//! let id = Uuid::from_u128(0x1234);
//! let device = Device { partition_key: "p".into(), row_key: "r".into(), id, as_text: id, parent: Some(id) };
//! let entity = to_entity(&device)?;
//! assert_eq!(entity.value("Id"), Some(&Value::Guid(id)));
//! assert_eq!(entity.value("Parent"), Some(&Value::Guid(id)));
//! assert_eq!(entity.value("AsText"), Some(&Value::String(id.to_string().into())));
//! assert_eq!(from_entity::<Device>(&entity)?, device);
//! # Ok::<(), tablekit::serde_bridge::SerdeError>(())
//! ```

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::ser::Serializer;
use uuid::Uuid;

/// The newtype name that tells the bridge's serializer "this text is an `Edm.Guid`".
pub(super) const MARKER: &str = "$tablekit::serde_bridge::Guid";
/// What the marked text must be.
pub(super) const EXPECTED: &str = "a GUID";

/// Writes the GUID as hyphenated text, marked as an `Edm.Guid`.
///
/// ```
/// let id = uuid::Uuid::from_u128(1);
/// let json = tablekit::serde_bridge::guid::serialize(&id, serde_json::value::Serializer)?;
/// assert_eq!(json, "00000000-0000-0000-0000-000000000001");
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn serialize<S: Serializer>(id: &Uuid, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_newtype_struct(MARKER, &id.hyphenated().to_string())
}

/// Reads a GUID from an `Edm.Guid`, or from GUID text.
///
/// ```
/// let text = serde_json::json!("00000000-0000-0000-0000-000000000001");
/// assert_eq!(tablekit::serde_bridge::guid::deserialize(text)?, uuid::Uuid::from_u128(1));
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Uuid, D::Error> {
    deserializer.deserialize_newtype_struct(MARKER, GuidVisitor)
}

/// Reads GUID text, directly or inside the marker newtype.
struct GuidVisitor;

impl<'de> Visitor<'de> for GuidVisitor {
    type Value = Uuid;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(EXPECTED)
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Uuid, E> {
        Uuid::parse_str(text)
            .map_err(|e| E::custom(format_args!("`{text}` is not {EXPECTED}: {e}")))
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Uuid, D::Error> {
        d.deserialize_str(self)
    }
}

/// The same for an `Option<Uuid>`: `None` stores nothing.
///
/// ```
/// #[derive(serde::Serialize, serde::Deserialize)]
/// struct Device {
///     #[serde(with = "tablekit::serde_bridge::guid::option", default)]
///     parent: Option<uuid::Uuid>,
/// }
/// let json = serde_json::to_string(&Device { parent: None })?;
/// assert_eq!(json, r#"{"parent":null}"#);
/// # Ok::<(), serde_json::Error>(())
/// ```
pub mod option {
    use serde::de::Deserializer;
    use serde::ser::Serializer;
    use uuid::Uuid;

    /// Writes `Some` as [`guid::serialize`](super::serialize) does, `None` as nothing.
    ///
    /// ```
    /// let json = tablekit::serde_bridge::guid::option::serialize(&None, serde_json::value::Serializer)?;
    /// assert!(json.is_null());
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn serialize<S: Serializer>(id: &Option<Uuid>, serializer: S) -> Result<S::Ok, S::Error> {
        match id {
            Some(id) => serializer.serialize_some(&Marked(id)),
            None => serializer.serialize_none(),
        }
    }

    /// Reads `Some` as [`guid::deserialize`](super::deserialize) does.
    ///
    /// ```
    /// let none = tablekit::serde_bridge::guid::option::deserialize(serde_json::Value::Null)?;
    /// assert_eq!(none, None);
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<Uuid>, D::Error> {
        let id: Option<Unmarked> = serde::Deserialize::deserialize(deserializer)?;
        Ok(id.map(|Unmarked(id)| id))
    }

    struct Marked<'a>(&'a Uuid);

    impl serde::Serialize for Marked<'_> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            super::serialize(self.0, serializer)
        }
    }

    struct Unmarked(Uuid);

    impl<'de> serde::Deserialize<'de> for Unmarked {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            super::deserialize(deserializer).map(Unmarked)
        }
    }
}
