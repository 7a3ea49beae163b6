//! The codec's byte writers, for the emulator of `tablekit-testing`: it answers with the bytes
//! the service writes, through the very code the client encodes requests with, so the two
//! cannot drift apart. Not part of the API: hidden from the documentation, and free to change
//! in any release.
//!
//! ```
//! use tablekit::wire::{write_json_str, write_value, Fraction};
//! use tablekit::Value;
//! let mut out = Vec::new();
//! write_json_str(&mut out, "N");
//! out.push(b':');
//! write_value(&mut out, &Value::Int64(5), Fraction::Trimmed);
//! assert_eq!(out, br#""N":"5""#);
//! ```

pub use crate::codec::datetime::{DateTimeText, Fraction};
pub use crate::codec::encode::write_value;
pub use crate::codec::escape::{write_json_str, write_json_str_body};
