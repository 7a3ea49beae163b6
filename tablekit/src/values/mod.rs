//! The values layer, the lowest: [`Value`](crate::Value) and its EDM types, the conversions
//! between Rust types and values, [`ETag`](crate::ETag), and
//! [`DynamicEntity`](crate::DynamicEntity), the property bag every other layer reads and writes.
//! It imports nothing else of the crate.
//!
//! ```
//! use tablekit::{DynamicEntity, Value};
//! let mut e = DynamicEntity::new("p", "r");
//! e.set("Score", 7i64);
//! assert_eq!(e.value("Score"), Some(&Value::Int64(7)));
//! ```

pub(crate) mod const_text;
pub(crate) mod convert;
pub(crate) mod entity;
pub(crate) mod etag;
pub mod value;
