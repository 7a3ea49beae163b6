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
//! The codec stands on the entity layer and below everything that sends: it knows entities
//! and values, not filters, queries or the client.
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

// The writing primitives of `datetime`, `encode` and `escape` are public only through the
// hidden `wire` module, for the emulator that answers with the same bytes.
pub(crate) mod datetime;
mod decode;
pub(crate) mod encode;
pub(crate) mod escape;
mod json;
mod property;
mod tables;

pub use datetime::{format_datetime, parse_datetime};
pub use decode::{decode_entity, decode_page, DecodeError};
pub use encode::{encode_entity, encode_entity_into};
pub use tables::{decode_table_name, decode_table_names};
