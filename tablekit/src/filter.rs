//! filter.
