#![doc = include_str!("../README.md")]

// Layers, bottom to top; each imports only from those below it, and owns its errors:
// values (`value`, `etag`, `convert`), entities (`entity`), the codec (`codec`), the rules
// and typed query parts (`params`, `limits`, `keys`, `filter`, `column`, `model`, `record`,
// `split`, `select`, `query`, `plan`), the client (`client`, whose `Error` the lower errors convert
// into), and the storage patterns (`patterns`). `auth` and `sas` are shared by the client and
// the emulator; `wire` and `__private` serve the emulator and the derive macros.
pub mod auth;
mod auxiliary;
pub mod client;
pub mod codec;
pub mod column;
mod const_text;
mod convert;
pub mod cosmos;
mod entity;
mod etag;
pub mod family;
pub mod filter;
#[cfg(fuzzing)]
#[doc(hidden)]
pub mod fuzzing;
pub mod index;
pub mod insight;
pub mod keys;
pub mod limits;
mod model;
mod number_literals;
mod params;
pub mod patterns;
pub mod plan;
mod query;
pub mod record;
pub mod sas;
pub mod select;
pub mod serde_bridge;
pub mod split;
pub mod spread;
pub mod value;
#[doc(hidden)]
pub mod wire;

pub use auxiliary::AuxiliaryRow;
pub use client::error::{Error, Result};
pub use column::{Column, RangeKind};
pub use convert::{FromValue, IntoValue, ValueError};
pub use entity::{DynamicEntity, PropertyError};
pub use etag::ETag;
pub use filter::Filter;
pub use limits::{InvalidInput, KeyKind};
pub use model::{Discriminator, NamedTable, TableEntity, TableModel, WrongKind};
pub use query::Query;
pub use record::{Record, RecordError};
pub use select::Select;
pub use smol_str::SmolStr;
pub use tablekit_derive::{Record, TableEntity, TableFields, TableValue};
pub use value::{EdmType, Value};

#[doc(hidden)]
pub mod __private;

/// Everything a typical user imports: `use tablekit::prelude::*;`.
///
/// ```
/// use tablekit::prelude::*;
///
/// #[derive(TableEntity)]
/// #[tablekit(table = "Gamers")]
/// struct Gamer {
///     #[tablekit(partition_key)]
///     region: String,
///     #[tablekit(row_key)]
///     tag: String,
///     joined: DateTime<Utc>,
/// }
///
/// let gamer = GamerEntity::new("eu", "dragon");
/// assert_eq!(gamer.joined(), DateTime::<Utc>::default());
/// let recent = Query::<Gamer>::new().filter(Gamer::JOINED.gt(DateTime::<Utc>::UNIX_EPOCH));
/// # let _ = recent;
/// ```
pub mod prelude {
    pub use crate::client::{Table, TableServiceClient};
    pub use crate::{
        Column, DynamicEntity, ETag, Error, Filter, Query, RangeKind, Record, TableEntity,
        TableFields, TableModel, TableValue, Value,
    };
    pub use chrono::{DateTime, Utc};
    pub use uuid::Uuid;
}
