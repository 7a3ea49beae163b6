//! The model layer: how a Rust type becomes stored rows. [`TableModel`](crate::TableModel) and
//! its kinds ([`family`](crate::family)), the [`StoragePlan`](crate::plan::StoragePlan) of a
//! model, secondary [`index`](crate::index) rows, values [`split`](crate::split) over several
//! properties or [`spread`](crate::spread) over several rows, binary [`record`](crate::record)s,
//! the [`AuxiliaryRow`](crate::AuxiliaryRow) marker, and models through serde
//! ([`serde_bridge`](crate::serde_bridge)). It stands on the values, the filter (a kind is a
//! filter) and the protocol's limits, and knows nothing of queries or the client.
//!
//! ```
//! use tablekit::plan::StoragePlan;
//! use tablekit::DynamicEntity;
//! // A property bag is stored as it is: one row, no index or spread rows.
//! let rows = StoragePlan::of::<DynamicEntity>().stored_rows(DynamicEntity::new("p", "r"))?;
//! assert_eq!(rows.len(), 1);
//! # Ok::<(), tablekit::Error>(())
//! ```

pub(crate) mod auxiliary;
pub mod family;
pub mod index;
pub mod plan;
pub mod record;
pub mod serde_bridge;
pub mod split;
pub mod spread;
pub(crate) mod table_model;
