//! `IntoValue`, `FromValue` and `RecordField` for the enum, in one stored form.

use proc_macro2::TokenStream;
use quote::quote;

use super::ast::Enum;
use crate::internals::fallback::Mode;

pub(crate) fn expand(value: &Enum<'_>, mode: Mode) -> TokenStream {
    let p = &value.private;
    let ident = &value.input.ident;
    let (impl_generics, ty_generics, where_clause) = value.input.generics.split_for_impl();
    let bodies = match value.as_name {
        true => by_name(value),
        false => by_discriminant(value),
    };
    let [into, from, record_write, record_read] = bodies.map(|body| mode.body(p, body));
    let allow = mode.allow();
    quote! {
        #[doc(hidden)]
        #[allow(clippy::all)]
        #allow
        const _: () = {
            #[automatically_derived]
            impl #impl_generics #p::IntoValue for #ident #ty_generics #where_clause {
                fn into_value(self) -> #p::Option<#p::Value> {
                    #into
                }
            }

            #[automatically_derived]
            impl #impl_generics #p::FromValue for #ident #ty_generics #where_clause {
                fn from_value(value: &#p::Value) -> #p::Result<Self, #p::ValueError> {
                    #from
                }
            }

            // The same enum as a field of a `#[derive(Record)]` struct, in the same form.
            #[automatically_derived]
            impl #impl_generics #p::RecordField for #ident #ty_generics #where_clause {
                fn write_field(&self, writer: &mut #p::RecordWriter) {
                    #record_write
                }
                fn read_field(reader: &mut #p::RecordReader<'_>) -> #p::Result<Self, #p::RecordError> {
                    #record_read
                }
            }
        };
    }
}

/// Stored as the variant's name: a string.
fn by_name(value: &Enum<'_>) -> [TokenStream; 4] {
    let p = &value.private;
    let ident = &value.input.ident;
    let type_name = ident.to_string();
    let idents: Vec<_> = value.variants.iter().map(|v| v.ident).collect();
    let names: Vec<_> = value.variants.iter().map(|v| &v.name).collect();
    [
        quote!(#p::Some(#p::Value::String(#p::SmolStr::new_static(match self { #(#ident::#idents => #names),* })))),
        quote! {
            let text = <#p::String as #p::FromValue>::from_value(value)?;
            match text.as_str() {
                #(#names => #p::Ok(#ident::#idents),)*
                other => #p::Err(#p::ValueError::Invalid(
                    #p::format!("`{}` is not a `{}` variant", other, #type_name),
                )),
            }
        },
        quote!(writer.write(&#p::String::from(match self { #(#ident::#idents => #names),* }));),
        quote! {
            let text: #p::String = reader.read()?;
            match text.as_str() {
                #(#names => #p::Ok(#ident::#idents),)*
                other => #p::Err(#p::RecordError::invalid(
                    #p::format!("`{}` is not a `{}` variant", other, #type_name),
                )),
            }
        },
    ]
}

/// Stored as the variant's discriminant: an `Int32`.
fn by_discriminant(value: &Enum<'_>) -> [TokenStream; 4] {
    let p = &value.private;
    let ident = &value.input.ident;
    let type_name = ident.to_string();
    let idents: Vec<_> = value.variants.iter().map(|v| v.ident).collect();
    [
        quote!(#p::Some(#p::Value::Int32(self as i32))),
        quote! {
            let n = <i32 as #p::FromValue>::from_value(value)?;
            #(if n == #ident::#idents as i32 { return #p::Ok(#ident::#idents); })*
            #p::Err(#p::ValueError::Invalid(
                #p::format!("{} is not a `{}` discriminant", n, #type_name),
            ))
        },
        quote!(writer.write(&match self { #(#ident::#idents => #ident::#idents as i32),* });),
        quote! {
            let n: i32 = reader.read()?;
            #(if n == #ident::#idents as i32 { return #p::Ok(#ident::#idents); })*
            #p::Err(#p::RecordError::invalid(
                #p::format!("{} is not a `{}` discriminant", n, #type_name),
            ))
        },
    ]
}
