//! How generated code names what it uses: everything through `::tablekit::__private`, so a
//! user's own `Option`, `Result` or `String` cannot shadow it, and through a path the user can
//! override (`#[tablekit(crate = "..")]`, `#[record(crate = "..")]`) when tablekit is a renamed
//! dependency or reached through another crate's re-export.
//!
//! Unlike serde's `extern crate .. as _serde` alias, an absolute path keeps compiler messages
//! about user code free of generated paths (`_::_tablekit::Filter<Order>`), which matter more
//! here: the typed filter errors are part of the design.

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};

/// The path of the `__private` module generated code names everything by.
#[derive(Clone)]
pub(crate) struct Private(TokenStream);

impl Private {
    /// `#krate::__private`, `krate` being the `crate = ".."` override or `::tablekit`.
    pub(crate) fn new(krate: Option<&syn::Path>) -> Self {
        Private(match krate {
            Some(path) => quote!(#path::__private),
            None => quote!(::tablekit::__private),
        })
    }
}

impl ToTokens for Private {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        self.0.to_tokens(tokens);
    }
}
