//! [`Ctxt`]: collects every attribute error so the user sees them all at once.

use std::cell::RefCell;

use proc_macro2::TokenStream;
use quote::ToTokens;

/// The error collector threaded through parsing and checking.
pub(crate) struct Ctxt {
    errors: RefCell<Vec<syn::Error>>,
}

impl Ctxt {
    pub(crate) fn new() -> Self {
        Ctxt {
            errors: RefCell::new(Vec::new()),
        }
    }

    /// Records an error pointing at `tokens`.
    pub(crate) fn error_spanned_by<T: ToTokens>(&self, tokens: T, message: impl std::fmt::Display) {
        self.errors
            .borrow_mut()
            .push(syn::Error::new_spanned(tokens.into_token_stream(), message));
    }

    /// Records a syn error as it is.
    pub(crate) fn syn_error(&self, error: syn::Error) {
        self.errors.borrow_mut().push(error);
    }

    /// All errors combined into one, or `Ok` when there were none.
    pub(crate) fn check(self) -> syn::Result<()> {
        let mut errors = self.errors.into_inner().into_iter();
        let Some(mut first) = errors.next() else {
            return Ok(());
        };
        for e in errors {
            first.combine(e);
        }
        Err(first)
    }
}

/// `compile_error!`s for `error`, followed by `stub` so the rest of the user's code still
/// type-checks and one mistake gives one message.
pub(crate) fn with_stub(error: syn::Error, stub: TokenStream) -> TokenStream {
    let errors = error.into_compile_error();
    quote::quote! { #errors #stub }
}

impl Ctxt {
    /// Records an error at `span`.
    pub(crate) fn error_at(&self, span: proc_macro2::Span, message: impl std::fmt::Display) {
        self.syn_error(syn::Error::new(span, message));
    }
}
