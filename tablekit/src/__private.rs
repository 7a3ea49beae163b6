//! Items the derive macros' generated code refers to. Not a public API.

/// What `#[derive(Record)]` expands to.
pub mod record {
    pub use crate::record::{Record, RecordError, RecordField, RecordReader, RecordWriter};
    pub use core::default::Default;
    pub use core::result::Result::{self, Ok};
}
