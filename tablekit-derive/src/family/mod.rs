//! `#[derive(TableEntity)]` on an enum: an entity family, several models read and written as
//! one type. Attributes are parsed into a normalised IR (`ast`), checked (`check`), then
//! expanded (`expand`); after a designed error, the fallback expansion keeps the rest of the
//! user's code free of cascading errors.
//!
//! What the derive cannot see (a variant's model, its kind and its kind property live in
//! another item) is checked by the generated code: trait bounds for the model, const
//! assertions for the kinds.

use proc_macro2::TokenStream;
use syn::DeriveInput;

use crate::internals::ctxt::Ctxt;
use crate::internals::fallback;

mod ast;
mod check;
mod expand;

pub(crate) fn derive(input: &DeriveInput) -> TokenStream {
    let cx = Ctxt::new();
    let family = ast::Family::from_ast(&cx, input);
    check::check(&cx, &family);
    fallback::expand(cx.check(), |mode| expand::expand(&family, mode))
}
