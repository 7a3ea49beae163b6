//! Expansion of this derive.

use proc_macro2::TokenStream;
use syn::DeriveInput;

pub(crate) fn derive(input: &DeriveInput) -> syn::Result<TokenStream> {
    Err(syn::Error::new_spanned(
        &input.ident,
        "this derive is not available yet",
    ))
}
