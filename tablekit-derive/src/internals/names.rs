//! The names of the hidden items generated for each field, which several parts of an
//! expansion (of entities and of their nested fields alike) refer to.

use quote::format_ident;
use syn::Ident;

/// The marker type of field `i`.
pub(crate) fn marker(i: usize) -> Ident {
    format_ident!("__Field{}", i)
}

/// The default function of field `i` (`skip` and `key_only` fields).
pub(crate) fn default_fn(i: usize) -> Ident {
    format_ident!("__default_{}", i)
}
