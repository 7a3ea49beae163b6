//! period.
