//! migrate.
