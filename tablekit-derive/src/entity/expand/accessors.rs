//! What the getters, `try_` getters and setters of the wrapper's fields have in common.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::super::ast::Field;
use super::Gen;

/// The docs of a field's getter, `try_` getter and setter.
pub(super) struct Docs {
    pub(super) get: String,
    pub(super) try_get: String,
    pub(super) set: String,
}

/// A getter, `try_` getter and a setter returning a `Result`, with their `bodies` in that
/// order: for values whose setter can fail (records, split, JSON, flattened structs).
pub(super) fn fallible_accessors(
    g: &Gen<'_, '_>,
    f: &Field<'_>,
    param: TokenStream,
    bodies: [TokenStream; 3],
    docs: &Docs,
    set_note: &str,
) -> TokenStream {
    let (p, ident, ty) = (g.p, f.ident, f.ty);
    let (try_get, set) = (
        format_ident!("try_{}", ident),
        format_ident!("set_{}", ident),
    );
    let [get_body, try_body, set_body] = bodies;
    let Docs {
        get: get_doc,
        try_get: try_doc,
        set: set_doc,
    } = docs;
    quote! {
        #[doc = #get_doc]
        #[inline]
        pub fn #ident(&self) -> #ty {
            #get_body
        }
        #[doc = #try_doc]
        #[inline]
        pub fn #try_get(&self) -> #p::Result<#ty, #p::Error> {
            #try_body
        }
        #[doc = #set_doc]
        #[doc = #set_note]
        #[inline]
        pub fn #set(&mut self, #param) -> #p::Result<(), #p::Error> {
            #set_body
        }
    }
}
