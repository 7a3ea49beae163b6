//! The models the tests share, each defined once.
