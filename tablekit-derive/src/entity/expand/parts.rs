//! The text of key parts. Each field part gets one hidden function (complete mode only), so
//! its format's requirements on the field's type are checked once, spanned on the field; key
//! functions, prefixes, time ranges and `try_new` all call it.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned as _;
use syn::Ident;
use tablekit_rules::KeyFormat;

use super::super::ast::{Field, KeyPart, PartSource};
use super::super::role::KeyRole;
use super::Gen;

/// The function writing part `index` of the key `role`.
fn part_fn(role: KeyRole, index: usize) -> Ident {
    format_ident!("__{}_{}", role.symbol().as_str(), index)
}

/// A key function's parameter for field `f`: `&str` for a `String`, else `&T`.
pub(super) fn param(f: &Field<'_>) -> TokenStream {
    let (ident, ty) = (f.ident, f.ty);
    if f.is_string() {
        quote!(#ident: &str)
    } else {
        quote!(#ident: &#ty)
    }
}

/// The part functions of both keys.
pub(super) fn items(g: &Gen<'_, '_>) -> TokenStream {
    let mut out = TokenStream::new();
    for key in &g.c.keys {
        for (index, part) in key.parts.iter().enumerate() {
            let Some(f) = part.field().and_then(|i| g.c.fields.get(i)) else {
                continue;
            };
            let name = part_fn(key.role, index);
            let param = if f.is_string() {
                quote!(value: &str)
            } else {
                let ty = f.ty;
                quote!(value: &#ty)
            };
            let p = g.p;
            let body = format_body(g, part, f);
            out.extend(quote! {
                #[inline]
                fn #name(#param) -> #p::String {
                    #body
                }
            });
        }
    }
    out
}

/// The text of `value` in the part's format, spanned on the field's type.
fn format_body(g: &Gen<'_, '_>, part: &KeyPart, f: &Field<'_>) -> TokenStream {
    let (p, ty) = (g.p, f.ty);
    let text = if f.is_string() {
        quote!(#p::String::from(value))
    } else {
        quote!(#p::keys::KeyPart::to_key_part(value))
    };
    let body = match &part.format {
        KeyFormat::Plain => text,
        KeyFormat::Lowercase => quote!(#text.to_lowercase()),
        KeyFormat::Uppercase => quote!(#text.to_uppercase()),
        KeyFormat::Function(path) => {
            // The path was parsed as one when the attribute was read.
            let path: syn::Path = syn::parse_str(path).expect("a parsed path");
            quote!(<#p::String as #p::From<#p::String>>::from(#path(value)))
        }
        KeyFormat::Ticks => quote!(#p::keys::ticks(value)),
        KeyFormat::InvertedTicks => quote!(#p::keys::inverted_ticks(value)),
        KeyFormat::Pad(n) => quote!(#p::keys::pad(<u64 as #p::From<#ty>>::from(*value), #n)),
        KeyFormat::Inverted => quote!(#p::keys::inverted(
            <u64 as #p::From<#ty>>::from(*value),
            <u64 as #p::From<#ty>>::from(<#ty>::MAX)
        )),
        KeyFormat::Date(pattern) => quote!(#p::keys::date_format(value, #pattern)),
        KeyFormat::InvertedYearMonth => quote!(#p::keys::inverted_year_month(value)),
    };
    quote_spanned!(ty.span()=> #body)
}

/// The text of part `index` of key `role`, the field's value given as `value` (a `&T`, or a
/// `&str` for a `String` field).
pub(super) fn part_text(
    g: &Gen<'_, '_>,
    role: KeyRole,
    index: usize,
    part: &KeyPart,
    value: TokenStream,
) -> TokenStream {
    let p = g.p;
    match &part.source {
        PartSource::Constant(text) => quote!(#p::String::from(#text)),
        PartSource::Field(_) => {
            let name = part_fn(role, index);
            quote!(#name(#value))
        }
    }
}

/// The key made of `parts` (the leading parts of the key `role`), each field read through
/// `value_of(field index)`.
pub(super) fn compose(
    g: &Gen<'_, '_>,
    role: KeyRole,
    parts: &[KeyPart],
    value_of: &dyn Fn(usize) -> TokenStream,
) -> TokenStream {
    let p = g.p;
    let texts: Vec<TokenStream> = parts
        .iter()
        .enumerate()
        .map(|(index, part)| {
            let value = part.field().map(value_of).unwrap_or_default();
            part_text(g, role, index, part, value)
        })
        .collect();
    match texts.as_slice() {
        [] => quote!(#p::String::new()),
        [one] => one.clone(),
        many => {
            let separator = &g.c.separator;
            quote!(#p::keys::compose(&[#(#many),*], #separator))
        }
    }
}

/// The text of a key's leading parts and the separator (empty when there are none): what
/// prefix filters and time ranges start from. The fields are the functions' parameters.
pub(super) fn leading_prefix(g: &Gen<'_, '_>, role: KeyRole, leading: &[KeyPart]) -> TokenStream {
    let p = g.p;
    if leading.is_empty() {
        return quote!(#p::String::new());
    }
    let body = compose(g, role, leading, &|i| {
        let ident = g.c.fields.get(i).map(|f| f.ident);
        quote!(#ident)
    });
    let separator = &g.c.separator;
    quote!({
        let mut prefix = #body;
        prefix.push_str(#separator);
        prefix
    })
}
