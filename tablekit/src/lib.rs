#![doc = include_str!("../README.md")]

pub mod auth;
pub mod client;
pub mod codec;
pub mod column;
mod convert;
mod entity;
mod error;
mod etag;
pub mod filter;
#[doc(hidden)]
pub mod fuzzing;
pub mod keys;
pub mod limits;
mod model;
pub mod patterns;
mod query;
pub mod record;
pub mod select;
pub mod split;
pub mod value;
mod writable;

pub use column::{Column, RangeKind};
pub use convert::{FromValue, IntoValue, ValueError};
pub use entity::DynamicEntity;
pub use error::{Error, Result};
pub use etag::ETag;
pub use filter::Filter;
pub use limits::{InvalidInput, KeyKind};
pub use model::{Discriminator, NamedTable, TableEntity, TableModel};
pub use query::Query;
pub use record::{Record, RecordError};
pub use select::Select;
pub use smol_str::SmolStr;
pub use tablekit_derive::{Record, TableEntity, TableValue};
pub use value::{EdmType, Value};

#[doc(hidden)]
pub mod __private;

/// Everything a typical user imports: `use tablekit::prelude::*;`.
pub mod prelude {
    pub use crate::client::{Table, TableServiceClient};
    pub use crate::{
        Column, DynamicEntity, ETag, Error, Filter, Query, RangeKind, Record, TableEntity,
        TableModel, TableValue, Value,
    };
    pub use chrono::{DateTime, Utc};
    pub use uuid::Uuid;
}
