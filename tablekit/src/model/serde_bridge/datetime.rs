//! `#[serde(with = "tablekit::serde_bridge::datetime")]`: a `chrono::DateTime<Utc>` field
//! stored as `Edm.DateTime` by [`to_entity`](super::to_entity) (other serializers see RFC 3339
//! text, as chrono's own implementation writes).
//!
//! Without it a `DateTime<Utc>` field is text, `Edm.String`: the bridge never guesses a type
//! from text. `Edm.DateTime` keeps 100 ns ticks, so finer digits are dropped when stored. A
//! read accepts an `Edm.DateTime` or RFC 3339 text; [`option`] does the same for an
//! `Option<DateTime<Utc>>` (absent when `None`; give the field `#[serde(default)]`).
//!
//! ```
//! use chrono::{DateTime, TimeZone, Utc};
//! use tablekit::serde_bridge::{self, from_entity, to_entity};
//! use tablekit::Value;
//!
//! #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
//! struct Visit {
//!     #[serde(rename = "PartitionKey")]
//!     site: String,
//!     #[serde(rename = "RowKey")]
//!     id: String,
//!     #[serde(with = "serde_bridge::datetime")]
//!     at: DateTime<Utc>,
//!     #[serde(with = "serde_bridge::datetime::option", default)]
//!     left: Option<DateTime<Utc>>,
//! }
//!
//! let at = Utc.with_ymd_and_hms(2026, 11, 25, 23, 10, 0).unwrap();
//! let visit = Visit { site: "web".into(), id: "1".into(), at, left: None };
//! let entity = to_entity(&visit)?;
//! assert_eq!(entity.value("at"), Some(&Value::DateTime(at)));
//! assert!(!entity.contains("left"));
//! assert_eq!(from_entity::<Visit>(&entity)?, visit);
//! # Ok::<(), tablekit::serde_bridge::SerdeError>(())
//! ```

use std::fmt;

use chrono::{DateTime, SecondsFormat, Utc};
use serde::de::{self, Deserializer, Visitor};
use serde::ser::Serializer;

/// The newtype name that tells the bridge's serializer "this text is an `Edm.DateTime`".
pub(super) const MARKER: &str = "$tablekit::serde_bridge::DateTime";
/// What the marked text must be.
pub(super) const EXPECTED: &str = "an RFC 3339 date and time";

/// Writes the time as RFC 3339 text, marked as an `Edm.DateTime`.
///
/// ```
/// let t = chrono::DateTime::UNIX_EPOCH;
/// let json = tablekit::serde_bridge::datetime::serialize(&t, serde_json::value::Serializer)?;
/// assert_eq!(json, "1970-01-01T00:00:00Z");
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn serialize<S: Serializer>(time: &DateTime<Utc>, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_newtype_struct(MARKER, &time.to_rfc3339_opts(SecondsFormat::AutoSi, true))
}

/// Reads a time from an `Edm.DateTime`, or from RFC 3339 text.
///
/// ```
/// let text = serde_json::json!("2026-11-25T23:10:00+01:00");
/// let t = tablekit::serde_bridge::datetime::deserialize(text)?;
/// assert_eq!(t.to_rfc3339(), "2026-11-25T22:10:00+00:00");
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<DateTime<Utc>, D::Error> {
    deserializer.deserialize_newtype_struct(MARKER, TimeVisitor)
}

/// Reads RFC 3339 text, directly or inside the marker newtype.
struct TimeVisitor;

impl<'de> Visitor<'de> for TimeVisitor {
    type Value = DateTime<Utc>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(EXPECTED)
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<DateTime<Utc>, E> {
        DateTime::parse_from_rfc3339(text)
            .map(|t| t.with_timezone(&Utc))
            .map_err(|e| E::custom(format_args!("`{text}` is not {EXPECTED}: {e}")))
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<DateTime<Utc>, D::Error> {
        d.deserialize_str(self)
    }
}

/// The same for an `Option<DateTime<Utc>>`: `None` stores nothing.
///
/// ```
/// #[derive(serde::Serialize, serde::Deserialize)]
/// struct Visit {
///     #[serde(with = "tablekit::serde_bridge::datetime::option", default)]
///     left: Option<chrono::DateTime<chrono::Utc>>,
/// }
/// let json = serde_json::to_string(&Visit { left: Some(chrono::DateTime::UNIX_EPOCH) })?;
/// assert_eq!(json, r#"{"left":"1970-01-01T00:00:00Z"}"#);
/// # Ok::<(), serde_json::Error>(())
/// ```
pub mod option {
    use chrono::{DateTime, Utc};
    use serde::de::Deserializer;
    use serde::ser::Serializer;

    /// Writes `Some` as [`datetime::serialize`](super::serialize) does, `None` as nothing.
    ///
    /// ```
    /// let json = tablekit::serde_bridge::datetime::option::serialize(&None, serde_json::value::Serializer)?;
    /// assert!(json.is_null());
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn serialize<S: Serializer>(
        time: &Option<DateTime<Utc>>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match time {
            Some(time) => serializer.serialize_some(&Marked(time)),
            None => serializer.serialize_none(),
        }
    }

    /// Reads `Some` as [`datetime::deserialize`](super::deserialize) does.
    ///
    /// ```
    /// let none = tablekit::serde_bridge::datetime::option::deserialize(serde_json::Value::Null)?;
    /// assert_eq!(none, None);
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<DateTime<Utc>>, D::Error> {
        let time: Option<Unmarked> = serde::Deserialize::deserialize(deserializer)?;
        Ok(time.map(|Unmarked(t)| t))
    }

    struct Marked<'a>(&'a DateTime<Utc>);

    impl serde::Serialize for Marked<'_> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            super::serialize(self.0, serializer)
        }
    }

    struct Unmarked(DateTime<Utc>);

    impl<'de> serde::Deserialize<'de> for Unmarked {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            super::deserialize(deserializer).map(Unmarked)
        }
    }
}
