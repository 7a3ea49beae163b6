//! Generates the `Record` impl from a checked [`RecordInput`]; parses nothing.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::attr::{RecordFieldInput, RecordInput};

pub(super) fn expand(record: &RecordInput<'_>) -> TokenStream {
    let ident = &record.input.ident;
    let version = record.version;
    let (impl_generics, ty_generics, where_clause) = record.input.generics.split_for_impl();
    let bounds = field_bounds(record);
    let where_clause = match where_clause {
        Some(w) => quote!(#w #(#bounds,)*),
        None if bounds.is_empty() => quote!(),
        None => quote!(where #(#bounds,)*),
    };
    let writes = record.fields.iter().filter_map(write_field);
    let reads = record
        .fields
        .iter()
        .enumerate()
        .map(|(i, f)| read_field(i, f));
    let names = (0..record.fields.len()).map(local);
    let members = record.fields.iter().map(|f| &f.member);
    quote! {
        const _: () = {
            extern crate tablekit as _tablekit;
            use _tablekit::__private::record as _r;

            #[automatically_derived]
            impl #impl_generics _r::Record for #ident #ty_generics #where_clause {
                const VERSION: u16 = #version;

                fn write(&self, __writer: &mut _r::RecordWriter) {
                    #(#writes)*
                }

                fn read(
                    __reader: &mut _r::RecordReader<'_>,
                    __version: u16,
                ) -> _r::Result<Self, _r::RecordError> {
                    let _ = __version;
                    #(#reads)*
                    _r::Ok(Self { #(#members: #names,)* })
                }
            }
        };
    }
}

/// `FieldType: RecordField` for generic structs (harmless for concrete types).
fn field_bounds(record: &RecordInput<'_>) -> Vec<TokenStream> {
    if record.input.generics.params.is_empty() {
        return Vec::new();
    }
    record
        .fields
        .iter()
        .map(|f| {
            let ty = &f.field.ty;
            quote!(#ty: _r::RecordField)
        })
        .collect()
}

fn local(index: usize) -> syn::Ident {
    quote::format_ident!("__field{}", index)
}

/// Writes the field unless it was removed (`until`).
fn write_field(field: &RecordFieldInput<'_>) -> Option<TokenStream> {
    if field.until.is_some() {
        return None;
    }
    let member = &field.member;
    let ty = &field.field.ty;
    Some(quote_spanned! {ty.span()=>
        <#ty as _r::RecordField>::write_field(&self.#member, __writer);
    })
}

/// Reads the field when the data's version has it, else takes its default.
fn read_field(index: usize, field: &RecordFieldInput<'_>) -> TokenStream {
    let name = local(index);
    let ty = &field.field.ty;
    let read = quote_spanned! {ty.span()=>
        <#ty as _r::RecordField>::read_field(__reader)?
    };
    let default = match &field.default {
        Some(expr) => quote_spanned!(expr.span()=> #expr),
        None => quote_spanned!(ty.span()=> <#ty as _r::Default>::default()),
    };
    let since = field.since;
    let present = match (since, field.until) {
        (0, None) => return quote!(let #name: #ty = #read;),
        (0, Some(until)) => quote!(__version < #until),
        (since, None) => quote!(__version >= #since),
        (since, Some(until)) => quote!((#since..#until).contains(&__version)),
    };
    quote! {
        let #name: #ty = if #present { #read } else { #default };
    }
}
