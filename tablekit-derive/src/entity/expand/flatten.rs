//! What a `#[tablekit(flatten)]` field generates on the model: its marker (tying the nested
//! type to its prefix, `Segment<Model, i>`), the model's list of stored names the prefixes
//! are picked from, the compile-time check of every full name, its columns, accessors and
//! conversions. The nested struct's own code is `#[derive(TableFields)]`'s.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned as _;

use super::super::ast::{Field, Storage};
use super::accessors::{fallible_accessors, Docs};
use super::Gen;
use crate::internals::names::marker;

/// Whether the model has a flattened field.
fn any(g: &Gen<'_, '_>) -> bool {
    g.c.fields.iter().any(|f| f.storage == Storage::Flatten)
}

/// The marker of flattened field `i`: its nested type (which must derive `TableFields`,
/// reported at the field) and its prefix.
pub(super) fn marker_items(g: &Gen<'_, '_>, i: usize, f: &Field<'_>) -> TokenStream {
    let (p, model, value) = (g.p, g.c.ident, f.value_ty);
    let marker = marker(i);
    let value = quote_spanned!(value.span()=> type Value = #value;);
    quote! {
        struct #marker;
        impl #p::FlattenField for #marker {
            #value
            type Prefix = #p::Segment<#model, #i>;
        }
    }
}

/// The model's stored names, which flattened fields' prefixes are picked from, and (complete
/// mode) the check of every flattened property's full name.
pub(super) fn items(g: &Gen<'_, '_>) -> TokenStream {
    if !any(g) {
        return TokenStream::new();
    }
    let (p, c) = (g.p, g.c);
    let model = c.ident;
    let names = c.fields.iter().map(|f| &f.name);
    let check = g.mode.complete_only(clash_check(g));
    quote! {
        #[automatically_derived]
        impl #p::Names for #model {
            const NAMES: &'static [&'static str] = &[#(#names),*];
        }
        #check
    }
}

/// Refuses at compile time a flattened property whose full name another stored property has,
/// or which is over the service's length limit: names only the two derives together know.
fn clash_check(g: &Gen<'_, '_>) -> TokenStream {
    let (p, c) = (g.p, g.c);
    let mut plain: Vec<TokenStream> = Vec::new();
    if let Some((property, _)) = &c.kind {
        plain.push(quote!((#property, "")));
    }
    let plain_fields =
        (c.fields.iter()).filter(|f| f.storage.is_stored() && f.storage != Storage::Flatten);
    for f in plain_fields {
        let field = f.ident.to_string();
        for name in std::iter::once(&f.name).chain(&f.old_names) {
            plain.push(quote!((#name, #field)));
        }
    }
    let flattened = (c.fields.iter().enumerate())
        .filter(|(_, f)| f.storage == Storage::Flatten)
        .map(|(i, f)| {
            let (name, marker, field) = (&f.name, marker(i), f.ident.to_string());
            quote!((#name, <#marker as #p::FlattenField>::NODES, #field))
        });
    quote! {
        const _: () = #p::check_flattened(&[#(#plain),*], &[#(#flattened),*]);
    }
}

/// The columns of flattened field `i` (`Customer::ADDRESS.city()`), which as a whole select
/// every property of the field.
pub(super) fn column(g: &Gen<'_, '_>, i: usize, f: &Field<'_>) -> TokenStream {
    let (p, model, value) = (g.p, g.c.ident, f.value_ty);
    let column = format_ident!(
        "{}",
        heck::ToShoutySnakeCase::to_shouty_snake_case(f.ident.to_string().trim_start_matches("r#"))
    );
    let doc = format!(
        "The columns of field `{}`, flattened into properties `{}_*`: one per nested field (`.{{field}}()`); as a whole, a select of all of them.",
        f.ident, f.name
    );
    let ty = quote!(<#value as #p::Flatten>::Columns<#model, #p::Segment<#model, #i>>);
    quote! {
        #[doc = #doc]
        pub const #column: #ty = <#ty as #p::FlattenColumns>::NEW;
    }
}

/// The getter, `try_` getter and setter of flattened field `i`.
pub(super) fn accessors(g: &Gen<'_, '_>, i: usize, f: &Field<'_>) -> TokenStream {
    let (p, ident, ty, name) = (g.p, f.ident, f.ty, &f.name);
    let marker = marker(i);
    let try_get = format_ident!("try_{}", ident);
    let (get_fn, try_fn, set_fn, absent) = match f.optional {
        false => (
            quote!(get_flatten),
            quote!(try_get_flatten),
            quote!(set_flatten),
            "each nested field its default when missing or unreadable",
        ),
        true => (
            quote!(get_flatten_option),
            quote!(try_get_flatten_option),
            quote!(set_flatten_option),
            "`None` when none of its properties is present, else each nested field its default when missing or unreadable",
        ),
    };
    let get_doc =
        format!("`{ident}` (stored as properties `{name}_*`): {absent} (`{try_get}` says why).");
    let try_doc = format!("`{ident}`, or why a nested field's stored value cannot be read.");
    let set_doc = match f.optional {
        false => format!("Sets `{ident}` (stored as properties `{name}_*`)."),
        true => {
            format!("Sets `{ident}` (stored as properties `{name}_*`); `None` removes them all.")
        }
    };
    let bodies = [
        quote!(#p::#get_fn::<#marker>(&self.0)),
        quote!(#p::#try_fn::<#marker>(&self.0)),
        quote!(#p::#set_fn::<#marker>(&mut self.0, value)),
    ]
    .map(|body| g.body(body));
    let docs = Docs {
        get: get_doc,
        try_get: try_doc,
        set: set_doc,
    };
    let note = "A nested value too large for its properties is an error, never cut.";
    fallible_accessors(g, f, quote!(value: #ty), bodies, &docs, note)
}

/// Stores flattened field `i` of `model` in an entity being built (`from_model`).
pub(super) fn store(g: &Gen<'_, '_>, i: usize, f: &Field<'_>) -> TokenStream {
    let (p, ident, marker) = (g.p, f.ident, marker(i));
    match f.optional {
        false => quote!(#p::init_flatten::<#marker>(&mut dynamic, model.#ident)?;),
        true => quote!(#p::init_flatten_option::<#marker>(&mut dynamic, model.#ident)?;),
    }
}

/// Stores the defaults of flattened field `i` in a new entity (`new`): `None` stores nothing.
pub(super) fn store_default(g: &Gen<'_, '_>, i: usize, f: &Field<'_>) -> TokenStream {
    let (p, marker) = (g.p, marker(i));
    match f.optional {
        false => quote!(#p::init_flatten_default::<#marker>(&mut dynamic);),
        true => TokenStream::new(),
    }
}
