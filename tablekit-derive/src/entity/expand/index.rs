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

/// `Employee::by_email(&table, partition_key, value)` per index: an `Option` for a unique
/// index, a `Vec` otherwise, and no partition parameter for an index kept in a partition of
/// its own (it finds entities of every partition).
pub(super) fn lookups(g: &Gen<'_, '_>) -> TokenStream {
    let mut seen = Vec::new();
    g.c.indexes()
        .iter()
        .filter_map(|ix| Some(lookup(g, ix, method(ix, &mut seen)?)))
        .collect()
}

/// The lookup `method` of one index.
fn lookup(g: &Gen<'_, '_>, ix: &IndexSpec<'_, '_>, method: syn::Ident) -> TokenStream {
    let (p, wrapper, name, field) = (g.p, &g.wrapper, &ix.name, ix.field.ident);
    // The field's own type, not the hidden marker's: a public method must not name a private
    // type, or callers outside the model's module could not call it.
    let ty = ix.field.ty;
    let across = ix.partition.is_some();
    let (finder, returns, what) = match ix.unique {
        true => (
            quote!(find_unique),
            quote!(#p::Option<#wrapper>),
            format!("The entity of the partition whose `{field}` is `value` (unique index `{name}`), if any: one read of the index row, one of the entity"),
        ),
        false if across => (
            quote!(find_indexed),
            quote!(#p::Vec<#wrapper>),
            format!("The entities of every partition whose `{field}` is `value` (index `{name}`, kept in its own partition and eventually consistent)"),
        ),
        false => (
            quote!(find_indexed),
            quote!(#p::Vec<#wrapper>),
            format!("The entities of the partition whose `{field}` is `value` (index `{name}`)"),
        ),
    };
    let doc = format!("{what}; each returned only if it still holds `value`.");
    let (param, partition_key) = match across {
        true => (TokenStream::new(), quote!("")),
        false => (quote!(partition_key: &str,), quote!(partition_key)),
    };
    let body = g.body(quote!(
        table.#finder(#name, #partition_key, <#ty as #p::IndexValue>::lookup_value(value)).await
    ));
    quote! {
        #[doc = #doc]
        pub async fn #method(
            table: &#p::Table<Self>,
            #param
            value: &<#ty as #p::IndexValue>::Lookup,
        ) -> #p::Result<#returns, #p::Error> {
            #body
        }
    }
}
