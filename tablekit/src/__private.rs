//! Items the derive macros' generated code refers to. Not a public API.
