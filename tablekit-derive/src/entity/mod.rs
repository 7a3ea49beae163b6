//! `#[derive(TableEntity)]`: attributes are parsed (`attr`) into a borrowed IR (`ast`),
//! checked across fields (`check`), then expanded (`expand`). Errors are collected in a
//! `Ctxt` and reported together, with a stub impl so they do not cascade.

use proc_macro2::TokenStream;
use syn::DeriveInput;

mod ast;
mod attr;
mod check;
pub(crate) mod ctxt;
mod expand;

pub(crate) fn derive(input: &DeriveInput) -> syn::Result<TokenStream> {
    let cx = ctxt::Ctxt::new();
    let container = ast::container(&cx, input);
    let tokens = container.map(|mut c| {
        check::check(&cx, &mut c);
        expand::expand(&c)
    });
    match cx.check() {
        Ok(()) => Ok(tokens.unwrap_or_default()),
        Err(e) => Ok(ctxt::with_stub(e, expand::stub(input))),
    }
}
