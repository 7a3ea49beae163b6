//! The query layer: the typed parts of what a table is asked. [`Column`](crate::Column)s of a
//! model and the filters they build, [`keys`](crate::keys) that encode dates and numbers into
//! ordered key text, [`Select`](crate::Select) for `$select`, and [`Query`](crate::Query) that
//! puts them together. It stands on the model layer; the client runs what it builds.
//!
//! ```
//! use tablekit::{Column, DynamicEntity, Query};
//! let age: Column<DynamicEntity, i32> = Column::dynamic("Age");
//! let adults = Query::<DynamicEntity>::new().filter(age.ge(18));
//! # let _ = adults;
//! ```

pub(crate) mod builder;
pub mod column;
pub mod keys;
pub mod plan;
pub mod select;
