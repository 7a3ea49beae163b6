//! `#[derive(TableValue)]`: a fieldless enum stored in one property, as its `Int32`
//! discriminant (the default: compact, and renaming a variant keeps data readable) or as its
//! name (`#[tablekit(as_name)]`: readable in storage explorers). An unknown stored value is a
//! `ValueError`, so a getter reads the field's default and its `try_` form says why.

use proc_macro2::TokenStream;
use quote::quote;
use syn::spanned::Spanned as _;
use syn::{DeriveInput, LitStr};

use crate::entity::ctxt::{with_stub, Ctxt};

pub(crate) fn derive(input: &DeriveInput) -> syn::Result<TokenStream> {
    let cx = Ctxt::new();
    let as_name = container(&cx, input);
    let variants = variants(&cx, input);
    let tokens = expand(input, as_name, &variants);
    match cx.check() {
        Ok(()) => Ok(tokens),
        Err(e) => Ok(with_stub(e, TokenStream::new())),
    }
}

/// `#[tablekit(as_name)]` on the enum.
fn container(cx: &Ctxt, input: &DeriveInput) -> bool {
    let mut as_name = false;
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("tablekit")) {
        let result = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("as_name") {
                // #[tablekit(as_name)]
                if as_name {
                    cx.error_spanned_by(&meta.path, "duplicate tablekit attribute `as_name`");
                }
                as_name = true;
            } else {
                cx.error_spanned_by(
                    &meta.path,
                    "unknown tablekit attribute on a `TableValue` enum, expected `as_name`",
                );
            }
            Ok(())
        });
        if let Err(e) = result {
            cx.syn_error(e);
        }
    }
    as_name
}

/// The variants with their stored names (`#[tablekit(rename = "...")]`).
fn variants<'a>(cx: &Ctxt, input: &'a DeriveInput) -> Vec<(&'a syn::Ident, String)> {
    let syn::Data::Enum(data) = &input.data else {
        cx.error_spanned_by(
            &input.ident,
            "`#[derive(TableValue)]` needs an enum whose variants have no fields",
        );
        return Vec::new();
    };
    if !input.generics.params.is_empty() {
        cx.error_spanned_by(
            &input.generics,
            "`#[derive(TableValue)]` does not support generics",
        );
    }
    let mut out = Vec::new();
    for v in &data.variants {
        if !matches!(v.fields, syn::Fields::Unit) {
            cx.error_spanned_by(v, "`#[derive(TableValue)]` variants cannot have fields");
            continue;
        }
        let mut name = v.ident.to_string();
        for attr in v.attrs.iter().filter(|a| a.path().is_ident("tablekit")) {
            let result = attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("rename") {
                    // #[tablekit(rename = "Stored")]
                    let s: LitStr = meta.value()?.parse()?;
                    name = s.value();
                } else {
                    cx.error_spanned_by(
                        &meta.path,
                        "unknown tablekit attribute on a variant, expected `rename`",
                    );
                }
                Ok(())
            });
            if let Err(e) = result {
                cx.syn_error(e);
            }
        }
        if out.iter().any(|(_, n)| *n == name) {
            cx.error_at(v.span(), format!("two variants are stored as `{name}`"));
        }
        out.push((&v.ident, name));
    }
    out
}

fn expand(input: &DeriveInput, as_name: bool, variants: &[(&syn::Ident, String)]) -> TokenStream {
    let ident = &input.ident;
    let p = quote!(::tablekit::__private);
    let type_name = ident.to_string();
    let idents: Vec<_> = variants.iter().map(|(i, _)| *i).collect();
    let names: Vec<_> = variants.iter().map(|(_, n)| n).collect();
    let (record_write, record_read) = if as_name {
        (
            quote!(writer.write(&#p::String::from(match self { #(#ident::#idents => #names),* }));),
            quote! {
                let text: #p::String = reader.read()?;
                match text.as_str() {
                    #(#names => #p::Ok(#ident::#idents),)*
                    other => #p::Err(#p::RecordError::invalid(
                        ::std::format!("`{}` is not a `{}` variant", other, #type_name),
                    )),
                }
            },
        )
    } else {
        (
            quote!(writer.write(&match self { #(#ident::#idents => #ident::#idents as i32),* });),
            quote! {
                let n: i32 = reader.read()?;
                #(if n == #ident::#idents as i32 { return #p::Ok(#ident::#idents); })*
                #p::Err(#p::RecordError::invalid(
                    ::std::format!("{} is not a `{}` discriminant", n, #type_name),
                ))
            },
        )
    };
    let (into, from) = if as_name {
        (
            quote!(#p::Some(#p::Value::String(#p::SmolStr::new_static(match self { #(#ident::#idents => #names),* })))),
            quote! {
                let text = <#p::String as #p::FromValue>::from_value(value)?;
                match text.as_str() {
                    #(#names => #p::Ok(#ident::#idents),)*
                    other => #p::Err(#p::ValueError::Invalid(
                        ::std::format!("`{}` is not a `{}` variant", other, #type_name),
                    )),
                }
            },
        )
    } else {
        (
            quote!(#p::Some(#p::Value::Int32(self as i32))),
            quote! {
                let n = <i32 as #p::FromValue>::from_value(value)?;
                #(if n == #ident::#idents as i32 { return #p::Ok(#ident::#idents); })*
                #p::Err(#p::ValueError::Invalid(
                    ::std::format!("{} is not a `{}` discriminant", n, #type_name),
                ))
            },
        )
    };
    quote! {
        #[doc(hidden)]
        #[allow(clippy::all)]
        const _: () = {
            #[automatically_derived]
            impl #p::IntoValue for #ident {
                fn into_value(self) -> #p::Option<#p::Value> {
                    #into
                }
            }

            // The same enum as a field of a `#[derive(Record)]` struct, in the same form.
            #[automatically_derived]
            impl #p::RecordField for #ident {
                fn write_field(&self, writer: &mut #p::RecordWriter) {
                    #record_write
                }
                fn read_field(reader: &mut #p::RecordReader<'_>) -> #p::Result<Self, #p::RecordError> {
                    #record_read
                }
            }

            #[automatically_derived]
            impl #p::FromValue for #ident {
                fn from_value(value: &#p::Value) -> #p::Result<Self, #p::ValueError> {
                    #from
                }
            }
        };
    }
}
