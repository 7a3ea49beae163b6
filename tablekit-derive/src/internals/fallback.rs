//! What a derive generates when its input has a designed error: the errors, and beside them
//! the same items the derive would generate, with every function body replaced. The user's
//! code that goes on to use the generated API (constructors, getters, columns, key functions,
//! trait impls) then type-checks, so one mistake gives its one message and no cascade of
//! "no function `new`" or unmet trait bounds. Only what the designed error is about is
//! reported; the stand-in bodies impose no trait bounds, so nothing else can fail in them.

use proc_macro2::TokenStream;
use quote::quote;

use super::hygiene::Private;

/// Whether generated function bodies are real or stand-ins after a designed error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// The input is valid: everything is generated.
    Complete,
    /// The input has errors: the same signatures, bodies that are never compiled to run (the
    /// crate does not build), and none of the hidden items that check field types.
    Fallback,
}

impl Mode {
    /// `body` in complete mode; in fallback mode a body of any type that needs nothing.
    pub(crate) fn body(self, p: &Private, body: TokenStream) -> TokenStream {
        match self {
            Mode::Complete => body,
            Mode::Fallback => quote!(#p::unreachable!()),
        }
    }

    /// `items` in complete mode only: the hidden items that check types and hold the code.
    pub(crate) fn complete_only(self, items: TokenStream) -> TokenStream {
        match self {
            Mode::Complete => items,
            Mode::Fallback => TokenStream::new(),
        }
    }

    /// The lints to allow on generated items: stand-in bodies leave parameters unused.
    pub(crate) fn allow(self) -> TokenStream {
        match self {
            Mode::Complete => TokenStream::new(),
            Mode::Fallback => quote!(#[allow(unused_variables, unreachable_code)]),
        }
    }
}

/// The derive's output: its code when `errors` is `Ok`, else the errors then `fallback`.
pub(crate) fn expand(
    errors: syn::Result<()>,
    generate: impl FnOnce(Mode) -> TokenStream,
) -> TokenStream {
    match errors {
        Ok(()) => generate(Mode::Complete),
        Err(errors) => {
            let errors = errors.into_compile_error();
            let fallback = generate(Mode::Fallback);
            quote! {
                #errors
                #fallback
            }
        }
    }
}
