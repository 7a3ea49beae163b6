#![doc = include_str!("../README.md")]
//!
//! ## Layout
//!
//! The crate is layered, bottom to top; each layer is a folder of `src/` and imports only
//! from the layers below it (a test of the workspace holds this). The public modules keep their
//! short paths (`tablekit::keys`, not `tablekit::query::keys`) whichever folder holds them.
//!
//! | layer | folder | modules |
//! |---|---|---|
//! | values and entities | `values/` | [`value`], `convert`, `etag`, `entity` ([`Value`], [`DynamicEntity`], [`ETag`]) |
//! | the JSON codec | `codec/` | [`codec`] (also the writers the emulator answers with) |
//! | filters | `filter/` | [`filter`], its `@name` parameters and number literals |
//! | the protocol both ends speak | `protocol/` | [`limits`], [`cosmos`], [`auth`] (Shared Key), [`sas`] |
//! | models | `model/` | [`TableModel`], [`family`], [`plan`], [`index`], [`split`], [`spread`], [`record`], [`serde_bridge`], [`AuxiliaryRow`] |
//! | queries | `query/` | [`Query`], [`column`](mod@column), [`keys`], [`select`] |
//! | the client | `client/` | [`client`]: [`Table`](client::Table)'s methods are in `client/table.rs`, the work in the modules beside it |
//! | storage patterns | `patterns/` | [`patterns`], built on the client |
//! | insight | `insight/` | [`insight`]: models generated from a sample of a table, and drift checks |
//!
//! Every lower layer's error converts into the client's [`Error`] (see its docs). Two modules
//! stand outside the layers: `__private`, the support of the derive macros, and `fuzzing`, the
//! fuzz targets' entry points.
//!
//! ```
//! // `keys` lives in `query/`, and is still `tablekit::keys`.
//! assert_eq!(tablekit::keys::pad(7, 4), "0007");
//! ```

// On docs.rs (nightly, `--cfg docsrs`), items behind a feature say which one.
#![cfg_attr(docsrs, feature(doc_cfg))]

// The layers, bottom to top (see "Layout" above); `tests/docs/layers.rs` of the workspace
// fails when one imports from a layer above it.
pub mod client;
pub mod codec;
pub mod filter;
pub mod insight;
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
pub use query::plan as query_plan;
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
