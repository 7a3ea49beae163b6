//! The OData v3 JSON codec: entities to request bodies, response bodies to entities.
//!
//! Writes annotate every type JSON cannot carry unambiguously (`Edm.Int64` as a string,
//! `Edm.DateTime` with 7 fractional digits, `Edm.Guid`, `Edm.Binary` in standard base64, and
//! `Edm.Double` always, so `2.0` stays a Double and NaN/Infinity travel as strings). Reads accept
//! `nometadata`, `minimalmetadata` and `fullmetadata`, with annotations before or after their
//! value; nulls are dropped (a `$select` of a missing property answers null on Azure), and values
//! that come without annotations in `nometadata` stay strings. Reads go straight from the bytes
//! to entities and report a typed [`DecodeError`] naming the property; no input makes them
//! panic.
//!
//! The codec stands on the values layer and below everything that sends: it knows entities
//! and values, not filters, queries or the client.
//!
//! # What the client and the emulator both speak
//!
//! The writers below the entity encoders are public so that a server can answer with the bytes
//! the service writes through the very code the client encodes requests with: the emulator of
//! `tablekit-emulator` builds its responses from [`write_value`], [`write_json_str`],
//! [`write_json_str_body`] and [`DateTimeText`] with a [`Fraction`], so the two ends cannot
//! drift apart. Request bodies write DateTimes with seven fractional digits
//! ([`Fraction::Seven`]); the service answers with trailing zeros trimmed
//! ([`Fraction::Trimmed`]). The service's other shared rules are in [`limits`](crate::limits),
//! [`auth`](crate::auth) and [`sas`](crate::sas).
//!
//! ```
//! use tablekit::{codec, DynamicEntity};
//! let mut e = DynamicEntity::new("p", "r");
//! e.set("Big", 1i64 << 40);
//! let body = codec::encode_entity(&e);
//! let back = codec::decode_entity(&body)?;
//! assert_eq!(back.get::<i64>("Big"), Some(1 << 40));
//! # Ok::<(), tablekit::codec::DecodeError>(())
//! ```
//!
//! A property written the way the service answers it, as the emulator does:
//!
//! ```
//! use tablekit::codec::{write_json_str, write_value, Fraction};
//! use tablekit::Value;
//! let mut out = Vec::new();
//! write_json_str(&mut out, "N");
//! out.push(b':');
//! write_value(&mut out, &Value::Int64(5), Fraction::Trimmed);
//! assert_eq!(out, br#""N":"5""#);
//! ```

pub(crate) mod datetime;
mod decode;
pub(crate) mod encode;
pub(crate) mod escape;
mod json;
mod property;
mod tables;

pub use datetime::{format_datetime, parse_datetime, DateTimeText, Fraction};
pub use decode::{decode_entity, decode_page, DecodeError};
pub use encode::{encode_entity, encode_entity_into, write_value};
pub use escape::{write_json_str, write_json_str_body};
pub use json::string_special;
pub use tables::{decode_table_name, decode_table_names};
