//! The `Record` impl, generated from the IR.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::ast::{Field, Record};
use crate::internals::fallback::Mode;

pub(crate) fn expand(record: &Record<'_>, mode: Mode) -> TokenStream {
    let p = &record.private;
    let ident = &record.input.ident;
    let version = record.version;
    let generics = bounded_generics(record);
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let writes = record.fields.iter().filter_map(write_field);
    let reads = record
        .fields
        .iter()
        .enumerate()
        .map(|(i, f)| read_field(i, f));
    let names = (0..record.fields.len()).map(local);
    let members = record.fields.iter().map(|f| &f.member);
    let write_body = mode.body(p, quote!(#(#writes)*));
    let read_body = mode.body(
        p,
        quote! {
            let _ = __version;
            #(#reads)*
            _r::Ok(Self { #(#members: #names,)* })
        },
    );
    let allow = mode.allow();
    quote! {
        #allow
        const _: () = {
            use #p as _r;
            use _r::{ViaRecordField as _, ViaValue as _};

            #[automatically_derived]
            impl #impl_generics _r::Record for #ident #ty_generics #where_clause {
                const VERSION: u16 = #version;

                #[inline]
                fn write(&self, __writer: &mut _r::RecordWriter) {
                    #write_body
                }

                #[inline]
                fn read(
                    __reader: &mut _r::RecordReader<'_>,
                    __version: u16,
                ) -> _r::Result<Self, _r::RecordError> {
                    #read_body
                }
            }
        };
    }
}

/// The struct's generics plus `FieldType: RecordField` for each field of a generic struct.
fn bounded_generics(record: &Record<'_>) -> syn::Generics {
    let p = &record.private;
    let mut generics = record.input.generics.clone();
    if generics.params.is_empty() {
        return generics;
    }
    let where_clause = generics.make_where_clause();
    for field in &record.fields {
        let ty = &field.field.ty;
        where_clause
            .predicates
            .push(syn::parse_quote!(#ty: #p::RecordField));
    }
    generics
}

fn local(index: usize) -> syn::Ident {
    quote::format_ident!("__field{}", index)
}

/// Writes the field unless it was removed (`until`).
fn write_field(field: &Field<'_>) -> Option<TokenStream> {
    if field.until.is_some() {
        return None;
    }
    let member = &field.member;
    let ty = &field.field.ty;
    Some(quote_spanned! {ty.span()=>
        (&_r::Dispatch::<#ty>::new()).record_write(&self.#member, __writer);
    })
}

/// Reads the field when the data's version has it, else takes its default.
fn read_field(index: usize, field: &Field<'_>) -> TokenStream {
    let name = local(index);
    let ty = &field.field.ty;
    let read = quote_spanned! {ty.span()=>
        (&_r::Dispatch::<#ty>::new()).record_read(__reader)?
    };
    let default = match &field.default {
        Some(expr) => quote_spanned!(expr.span()=> #expr),
        None => quote_spanned!(ty.span()=> <#ty as _r::Default>::default()),
    };
    let present = match (field.since, field.until) {
        (0, None) => return quote!(let #name: #ty = #read;),
        (0, Some(until)) => quote!(__version < #until),
        (since, None) => quote!(__version >= #since),
        (since, Some(until)) => quote!((#since..#until).contains(&__version)),
    };
    quote! {
        let #name: #ty = if #present { #read } else { #default };
    }
}
