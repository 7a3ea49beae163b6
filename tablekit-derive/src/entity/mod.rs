//! `#[derive(TableEntity)]`: attributes are parsed (`attr`) into a normalised IR (`ast`),
//! checked (`check`), then expanded (`expand`); after a designed error, the fallback expansion
//! keeps the rest of the user's code free of cascading errors.

use proc_macro2::TokenStream;
use syn::DeriveInput;

use crate::internals::ctxt::Ctxt;
use crate::internals::fallback;

pub(crate) mod ast;
pub(crate) mod attr;
pub(crate) mod check;
mod expand;
mod flatten;
mod role;
#[cfg(test)]
mod rules_agree;

pub(crate) fn derive(input: &DeriveInput) -> TokenStream {
    let cx = Ctxt::new();
    let container = ast::Container::from_ast(&cx, input);
    check::check(&cx, &container);
    fallback::expand(cx.check(), |mode| expand::expand(&container, mode))
}
