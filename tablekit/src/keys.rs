//! keys.
