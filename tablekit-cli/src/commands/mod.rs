//! The commands, one module each.

pub(crate) mod backup;
pub(crate) mod copy;
pub(crate) mod entity;
pub(crate) mod explain;
pub(crate) mod insight;
pub(crate) mod migrate;
pub(crate) mod query;
pub(crate) mod stats;
pub(crate) mod tables;
pub(crate) mod transfer;
