//! Secondary indexes: `TableModel::INDEXES`, the hidden check that each indexed field's type
//! can be indexed, and the model's lookups (`Employee::by_email`).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned as _;

use super::super::ast::IndexSpec;
use super::Gen;

/// `const INDEXES` inside the `TableModel` impl; nothing for a model without indexes.
pub(super) fn indexes_const(g: &Gen<'_, '_>) -> TokenStream {
    let p = g.p;
    let indexes = g.c.indexes();
    if indexes.is_empty() {
        return TokenStream::new();
    }
    let entries = indexes.iter().map(|ix| {
        let (name, property) = (&ix.name, &ix.field.name);
        let mut index = match ix.unique {
            true => quote!(#p::Index::new(#name, #property).unique()),
            false => quote!(#p::Index::new(#name, #property)),
        };
        if let Some(partition) = ix.partition {
            index = quote!(#index.in_partition(#partition));
        }
        if let Some(table) = ix.table {
            index = quote!(#index.in_table(#table));
        }
        index
    });
    quote! {
        const INDEXES: &'static [#p::Index] = &[#(#entries),*];
    }
}

/// The hidden marker of the index on field `i`.
fn marker(i: usize) -> syn::Ident {
    format_ident!("__Index{}", i)
}

/// One hidden marker per indexed field whose `IndexedField` impl checks, at the field's
/// type, that the type can be indexed.
pub(super) fn type_checks(g: &Gen<'_, '_>) -> TokenStream {
    let p = g.p;
    g.c.indexes()
        .iter()
        .map(|ix| {
            let ty = ix.field.ty;
            let marker = marker(ix.position);
            quote_spanned! {ty.span()=>
                struct #marker;
                impl #p::IndexedField for #marker {
                    type Value = #ty;
                }
            }
        })
        .collect()
}

/// The lookup's method name, unless the index's name makes none or repeats an earlier one
/// (both reported by `check`).
fn method(ix: &IndexSpec<'_, '_>, seen: &mut Vec<String>) -> Option<syn::Ident> {
    let method = syn::parse_str::<syn::Ident>(&format!("by_{}", ix.name)).ok()?;
    if seen.contains(&ix.name) {
        return None;
    }
    seen.push(ix.name.clone());
    Some(method)
}

/// `Employee::by_email(&table, partition_key, value)` per index.
pub(super) fn lookups(g: &Gen<'_, '_>) -> TokenStream {
    let (p, wrapper) = (g.p, &g.wrapper);
    let mut seen = Vec::new();
    g.c.indexes()
        .iter()
        .filter_map(|ix| {
            let method = method(ix, &mut seen)?;
            let name = &ix.name;
            // The field's own type, not the hidden marker's: a public method must not name a
            // private type, or callers outside the model's module could not call it.
            let ty = ix.field.ty;
            Some(if ix.unique {
                let doc = format!(
                    "The entity of the partition whose `{}` is `value` (unique index `{name}`), if any: one read of the index row, one of the entity, returned only if it still holds `value`.",
                    ix.field.ident
                );
                let body = g.body(quote!(table.find_unique(#name, partition_key, <#ty as #p::IndexValue>::lookup_value(value)).await));
                quote! {
                    #[doc = #doc]
                    pub async fn #method(
                        table: &#p::Table<Self>,
                        partition_key: &str,
                        value: &<#ty as #p::IndexValue>::Lookup,
                    ) -> #p::Result<#p::Option<#wrapper>, #p::Error> {
                        #body
                    }
                }
            } else if ix.partition.is_some() {
                let doc = format!(
                    "The entities of every partition whose `{}` is `value` (index `{name}`, kept in its own partition and eventually consistent), each returned only if it still holds `value`.",
                    ix.field.ident
                );
                let body = g.body(quote!(table.find_indexed(#name, "", <#ty as #p::IndexValue>::lookup_value(value)).await));
                quote! {
                    #[doc = #doc]
                    pub async fn #method(
                        table: &#p::Table<Self>,
                        value: &<#ty as #p::IndexValue>::Lookup,
                    ) -> #p::Result<#p::Vec<#wrapper>, #p::Error> {
                        #body
                    }
                }
            } else {
                let doc = format!(
                    "The entities of the partition whose `{}` is `value` (index `{name}`), each returned only if it still holds `value`.",
                    ix.field.ident
                );
                let body = g.body(quote!(table.find_indexed(#name, partition_key, <#ty as #p::IndexValue>::lookup_value(value)).await));
                quote! {
                    #[doc = #doc]
                    pub async fn #method(
                        table: &#p::Table<Self>,
                        partition_key: &str,
                        value: &<#ty as #p::IndexValue>::Lookup,
                    ) -> #p::Result<#p::Vec<#wrapper>, #p::Error> {
                        #body
                    }
                }
            })
        })
        .collect()
}
