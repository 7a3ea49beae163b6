//! `#[derive(TableValue)]`: a fieldless enum stored in one property, as its `Int32`
//! discriminant (the default: compact, and renaming a variant keeps data readable) or as its
//! name (`#[tablekit(as_name)]`: readable in storage explorers). An unknown stored value is a
//! `ValueError`, so a getter reads the field's default and its `try_` form says why.
//!
//! The pipeline of the other derives: `ast` parses into an IR, `check` checks it, `expand`
//! generates, with the shared fallback after a designed error.

use proc_macro2::TokenStream;
use syn::DeriveInput;

use crate::internals::ctxt::Ctxt;
use crate::internals::fallback;

mod ast;
mod check;
mod expand;

pub(crate) fn derive(input: &DeriveInput) -> TokenStream {
    let cx = Ctxt::new();
    let value = ast::Enum::from_ast(&cx, input);
    check::check(&cx, &value);
    fallback::expand(cx.check(), |mode| expand::expand(&value, mode))
}
