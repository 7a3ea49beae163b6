// Derive macros for tablekit: `#[derive(TableEntity)]`, `#[derive(TableValue)]` and
// `#[derive(Record)]`. The crate documentation is the README, so its examples are tested.
#![doc = include_str!("../README.md")]

use proc_macro::TokenStream;
use syn::{parse_macro_input, DeriveInput};

mod entity;
mod record;
mod table_value;

/// Generates a typed wrapper over a dynamic entity, typed columns and key functions; see
/// [the crate documentation](crate) for the attributes.
#[proc_macro_derive(TableEntity, attributes(tablekit))]
pub fn derive_table_entity(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    entity::derive(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Stores a fieldless enum as an `Int32` (or as its name), in entities and in records; see
/// [the crate documentation](crate).
#[proc_macro_derive(TableValue, attributes(tablekit))]
pub fn derive_table_value(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    table_value::derive(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Implements tablekit's versioned binary `Record`; see [the crate documentation](crate).
#[proc_macro_derive(Record, attributes(record))]
pub fn derive_record(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    record::derive(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
