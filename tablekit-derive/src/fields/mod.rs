//! `#[derive(TableFields)]`: a struct stored inside an entity by a `#[tablekit(flatten)]`
//! field, each of its fields a property named `{prefix}_{Field}`. The struct's fields are
//! parsed and checked as an entity's are (`entity::ast`, `entity::check`), so `rename`,
//! `default`, `json`, `records`, `split`, `skip` and nested `flatten` work the same inside it;
//! keys and table-level attributes belong to the entity and are refused here.

use proc_macro2::TokenStream;
use syn::DeriveInput;

use crate::entity::ast::Container;
use crate::internals::ctxt::Ctxt;
use crate::internals::fallback;

mod check;
mod expand;

pub(crate) fn derive(input: &DeriveInput) -> TokenStream {
    let cx = Ctxt::new();
    let container = Container::from_ast(&cx, input);
    check::check(&cx, &container);
    fallback::expand(cx.check(), |mode| expand::expand(&container, mode))
}
