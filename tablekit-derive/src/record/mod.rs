//! `#[derive(Record)]`: a versioned binary record from a struct's fields.
//!
//! A pipeline as in serde_derive: [`attr`] parses and checks the attributes into a borrowed IR,
//! [`expand`] only generates code from it.

mod attr;
mod expand;

use proc_macro2::TokenStream;
use syn::DeriveInput;

pub(crate) fn derive(input: &DeriveInput) -> syn::Result<TokenStream> {
    let record = attr::parse(input)?;
    Ok(expand::expand(&record))
}
