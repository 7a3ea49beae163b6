#![doc = include_str!("../README.md")]

pub mod auth;
pub mod codec;
mod convert;
mod entity;
mod error;
mod etag;
pub mod limits;
mod model;
mod query;
pub mod value;

pub use convert::{FromValue, IntoValue, ValueError};
pub use entity::DynamicEntity;
pub use error::{Error, Result};
pub use etag::ETag;
pub use limits::{InvalidInput, KeyKind};
pub use model::{TableEntity, TableModel};
pub use query::Query;
pub use value::{EdmType, Value};

/// Everything a typical user imports: `use tablekit::prelude::*;`.
pub mod prelude {
    pub use crate::{DynamicEntity, ETag, Error, Query, TableEntity, TableModel, Value};
    pub use chrono::{DateTime, Utc};
    pub use uuid::Uuid;
}
