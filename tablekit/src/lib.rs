#![doc = include_str!("../README.md")]

// The layers, bottom to top, are folders; each imports only from those below it (the layer
// test of `tests/docs/layers.rs` holds it), and the crate docs' "Layout" section maps them.
pub mod client;
pub mod codec;
pub mod filter;
mod model;
pub mod patterns;
mod protocol;
mod query;
mod values;

#[cfg(fuzzing)]
#[doc(hidden)]
pub mod fuzzing;

pub use model::{family, index, plan, record, serde_bridge, split, spread};
pub use protocol::{auth, cosmos, limits, sas};
pub use query::{column, keys, select};
pub use values::value;

pub use client::error::{Error, Result};
pub use filter::Filter;
pub use model::auxiliary::AuxiliaryRow;
pub use model::record::{Record, RecordError};
pub use model::table_model::{Discriminator, NamedTable, TableEntity, TableModel, WrongKind};
pub use protocol::limits::{InvalidInput, KeyKind};
pub use query::builder::Query;
pub use query::column::{Column, RangeKind};
pub use query::select::Select;
pub use smol_str::SmolStr;
pub use tablekit_derive::{Record, TableEntity, TableFields, TableValue};
pub use values::convert::{FromValue, IntoValue, ValueError};
pub use values::entity::{DynamicEntity, PropertyError};
pub use values::etag::ETag;
pub use values::value::{EdmType, Value};

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
