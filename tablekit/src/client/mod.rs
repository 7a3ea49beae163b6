//! The async client for the Table REST protocol.
