//! Hidden items per field, generated in complete mode only. Each stored field gets a marker
//! type implementing the `__private` trait of its storage, with the field's type as the
//! associated type: the trait's bounds are checked there, once, spanned on the field, and
//! every accessor goes through the marker. Fields the model reads its default for without a
//! property (`skip`, `key_only`) get a default function instead.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned as _;

use super::super::ast::{Field, Storage};
use super::Gen;
use crate::internals::names::{default_fn, marker};
use crate::internals::ty;

/// The hidden items of every field.
pub(super) fn items(g: &Gen<'_, '_>) -> TokenStream {
    g.c.fields
        .iter()
        .enumerate()
        .map(|(i, f)| field_items(g, i, f))
        .collect()
}

fn field_items(g: &Gen<'_, '_>, i: usize, f: &Field<'_>) -> TokenStream {
    let p = g.p;
    let (ty, name) = (f.ty, &f.name);
    let marker = marker(i);
    let default = default_value(g, f);
    match f.storage {
        Storage::Property => {
            let old = &f.old_names;
            quote! {
                struct #marker;
                impl #p::PropertyField for #marker {
                    type Value = #ty;
                    const NAME: &'static str = #name;
                    const OLD_NAMES: &'static [&'static str] = &[#(#old),*];
                    #[inline]
                    fn default() -> #ty {
                        #default
                    }
                }
            }
        }
        Storage::Json => quote! {
            struct #marker;
            impl #p::JsonField for #marker {
                type Value = #ty;
                const NAME: &'static str = #name;
                #[inline]
                fn default() -> #ty {
                    #default
                }
            }
        },
        Storage::Records { max_properties } => {
            let element = ty::vec_inner(ty).unwrap_or(ty);
            quote! {
                struct #marker;
                impl #p::RecordsField for #marker {
                    type Record = #element;
                    const NAME: &'static str = #name;
                    const MAX_PROPERTIES: usize = #max_properties;
                }
            }
        }
        Storage::Split { max_properties } => quote! {
            struct #marker;
            impl #p::SplitField for #marker {
                const NAME: &'static str = #name;
                const MAX_PROPERTIES: usize = #max_properties;
            }
        },
        Storage::Flatten => super::flatten::marker_items(g, i, f),
        Storage::KeyOnly | Storage::Skipped => {
            let default_fn = default_fn(i);
            quote! {
                #[inline]
                fn #default_fn() -> #ty {
                    #default
                }
            }
        }
    }
}

/// What a field reads as when its value is absent: `default = expr`, or the type's
/// `Default`, spanned on the field's type so a missing `Default` is reported there.
fn default_value(g: &Gen<'_, '_>, f: &Field<'_>) -> TokenStream {
    let (p, ty) = (g.p, f.ty);
    match &f.default {
        Some(expr) => quote!(#expr),
        None => quote_spanned!(ty.span()=> <#ty as #p::Default>::default()),
    }
}
