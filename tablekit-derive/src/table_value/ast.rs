//! The enum as the derive sees it: how it is stored and each variant's stored name.

use proc_macro2::Span;
use syn::spanned::Spanned as _;
use syn::DeriveInput;

use crate::internals::attr::{self, Attr};
use crate::internals::ctxt::Ctxt;
use crate::internals::hygiene::Private;
use crate::internals::symbol::{self, AS_NAME, CRATE, RENAME, TABLEKIT};

/// One variant.
pub(crate) struct Variant<'a> {
    pub(crate) ident: &'a syn::Ident,
    /// The stored name (`as_name`): the variant's name or its `rename`.
    pub(crate) name: String,
    pub(crate) span: Span,
}

/// The enum.
pub(crate) struct Enum<'a> {
    pub(crate) input: &'a DeriveInput,
    pub(crate) private: Private,
    /// `#[tablekit(as_name)]`: stored by name, not by discriminant.
    pub(crate) as_name: bool,
    /// The fieldless variants (none for input that is not an enum).
    pub(crate) variants: Vec<Variant<'a>>,
}

impl<'a> Enum<'a> {
    /// Builds the IR, recording parse errors and unsupported shapes.
    pub(crate) fn from_ast(cx: &Ctxt, input: &'a DeriveInput) -> Self {
        let mut as_name = Attr::none(cx, TABLEKIT, AS_NAME.as_str());
        let mut krate = Attr::none(cx, TABLEKIT, CRATE.as_str());
        attr::each_meta(cx, &input.attrs, TABLEKIT, |meta| {
            if meta.path == AS_NAME {
                // #[tablekit(as_name)]
                as_name.set(meta.path.span(), ());
            } else if meta.path == CRATE {
                // #[tablekit(crate = "::my_crate::tablekit")]
                if let Some(path) = attr::crate_path(cx, meta, CRATE) {
                    krate.set(meta.path.span(), path);
                }
            } else {
                attr::unknown(cx, meta, TABLEKIT, &symbol::list(&[&[AS_NAME, CRATE]]));
            }
        });
        let krate = krate.get().map(|k| k.value);
        Enum {
            input,
            private: Private::new(krate.as_ref()),
            as_name: as_name.get().is_some(),
            variants: variants(cx, input),
        }
    }
}

fn variants<'a>(cx: &Ctxt, input: &'a DeriveInput) -> Vec<Variant<'a>> {
    let syn::Data::Enum(data) = &input.data else {
        cx.error_spanned_by(
            &input.ident,
            "`#[derive(TableValue)]` needs an enum whose variants have no fields",
        );
        return Vec::new();
    };
    if !input.generics.params.is_empty() {
        cx.error_spanned_by(
            &input.generics,
            "`#[derive(TableValue)]` does not support generics",
        );
    }
    let mut out = Vec::new();
    for v in &data.variants {
        if !matches!(v.fields, syn::Fields::Unit) {
            cx.error_spanned_by(v, "`#[derive(TableValue)]` variants cannot have fields");
            continue;
        }
        let mut rename = Attr::none(cx, TABLEKIT, RENAME.as_str());
        attr::each_meta(cx, &v.attrs, TABLEKIT, |meta| {
            if meta.path == RENAME {
                // #[tablekit(rename = "Stored")]
                if let Some(s) = attr::lit_str(cx, meta, RENAME, "Stored") {
                    rename.set(s.span(), s.value());
                }
            } else {
                attr::unknown(cx, meta, TABLEKIT, &symbol::list(&[&[RENAME]]));
            }
        });
        out.push(Variant {
            ident: &v.ident,
            name: rename
                .get()
                .map_or_else(|| v.ident.to_string(), |r| r.value),
            span: v.span(),
        });
    }
    out
}
