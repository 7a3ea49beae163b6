//! select.
