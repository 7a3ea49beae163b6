//! column.
