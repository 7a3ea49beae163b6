//! The backup file format.
