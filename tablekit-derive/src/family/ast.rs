//! The derive's view of the enum: its table, and each variant with the model it holds or,
//! for the `other` variant, the type it should be `DynamicEntity`. Parsing records each
//! problem and goes on; `check` finds the rules between variants.

use proc_macro2::Span;
use syn::spanned::Spanned as _;
use syn::{Ident, LitStr, Type};

use crate::internals::attr::{self, Attr};
use crate::internals::ctxt::Ctxt;
use crate::internals::hygiene::Private;
use crate::internals::symbol::{self, Symbol, CRATE, OTHER, TABLE, TABLEKIT};

const CONTAINER_KEYS: &[Symbol] = &[TABLE, CRATE];
const VARIANT_KEYS: &[Symbol] = &[OTHER];

/// One variant holding one value.
pub(crate) struct Variant<'a> {
    pub(crate) ident: &'a Ident,
    /// The model (or, for `other`, what should be `DynamicEntity`).
    pub(crate) ty: &'a Type,
    /// `#[tablekit(other)]`: the variant keeping rows of any other kind.
    pub(crate) other: Option<Span>,
}

/// The enum.
pub(crate) struct Family<'a> {
    pub(crate) ident: &'a Ident,
    pub(crate) vis: &'a syn::Visibility,
    /// The path generated code names everything by.
    pub(crate) private: Private,
    pub(crate) table: Option<LitStr>,
    /// The variants of a supported shape, in declaration order.
    pub(crate) variants: Vec<Variant<'a>>,
}

impl<'a> Family<'a> {
    /// Builds the IR, recording parse errors; variants of another shape are left out.
    pub(crate) fn from_ast(cx: &Ctxt, input: &'a syn::DeriveInput) -> Self {
        let (table, krate) = container(cx, input);
        let variants = match &input.data {
            syn::Data::Enum(data) => variants(cx, data),
            _ => Vec::new(),
        };
        if !input.generics.params.is_empty() {
            cx.error_spanned_by(
                &input.generics,
                "`#[derive(TableEntity)]` does not support generic enums",
            );
        }
        Family {
            ident: &input.ident,
            vis: &input.vis,
            private: Private::new(krate.as_ref()),
            table,
            variants,
        }
    }

    /// The variants holding models.
    pub(crate) fn models(&self) -> impl Iterator<Item = &Variant<'a>> {
        self.variants.iter().filter(|v| v.other.is_none())
    }

    /// The first `other` variant.
    pub(crate) fn other(&self) -> Option<&Variant<'a>> {
        self.variants.iter().find(|v| v.other.is_some())
    }
}

/// `table = ".."` and `crate = ".."`; the struct-only attributes are errors naming why.
fn container(cx: &Ctxt, input: &syn::DeriveInput) -> (Option<LitStr>, Option<syn::Path>) {
    let mut table = Attr::none(cx, TABLEKIT, TABLE.as_str());
    let mut krate = Attr::none(cx, TABLEKIT, CRATE.as_str());
    attr::each_meta(cx, &input.attrs, TABLEKIT, |meta| {
        let span = meta.path.span();
        if meta.path == TABLE {
            if let Some(s) = attr::lit_str(cx, meta, TABLE, "Microblog") {
                table.set(span, s);
            }
        } else if meta.path == CRATE {
            if let Some(p) = attr::crate_path(cx, meta, CRATE) {
                krate.set(span, p);
            }
        } else {
            let valid = symbol::list(&[CONTAINER_KEYS]);
            attr::unknown(
                cx,
                meta,
                TABLEKIT,
                &format!("{valid} on an entity family (kinds and keys are its models')"),
            );
        }
    });
    (table.get().map(|t| t.value), krate.get().map(|k| k.value))
}

/// The one-value tuple variants; any other shape is an error at the variant.
fn variants<'a>(cx: &Ctxt, data: &'a syn::DataEnum) -> Vec<Variant<'a>> {
    let all_unit = data
        .variants
        .iter()
        .all(|v| matches!(v.fields, syn::Fields::Unit));
    if all_unit {
        cx.error_spanned_by(
            &data.variants,
            "`#[derive(TableEntity)]` on an enum makes an entity family: each variant holds one model, e.g. `Blog(Blog)`; for an enum stored in a property use `#[derive(TableValue)]`",
        );
        return Vec::new();
    }
    data.variants
        .iter()
        .filter_map(|v| variant(cx, v))
        .collect()
}

fn variant<'a>(cx: &Ctxt, v: &'a syn::Variant) -> Option<Variant<'a>> {
    let mut other = Attr::none(cx, TABLEKIT, OTHER.as_str());
    attr::each_meta(cx, &v.attrs, TABLEKIT, |meta| {
        if meta.path == OTHER {
            other.set(meta.path.span(), ());
        } else {
            attr::unknown(cx, meta, TABLEKIT, &symbol::list(&[VARIANT_KEYS]));
        }
    });
    let ident = &v.ident;
    let field = match &v.fields {
        syn::Fields::Unnamed(fields) if fields.unnamed.len() == 1 => fields.unnamed.first(),
        _ => None,
    };
    let Some(field) = field else {
        cx.error_spanned_by(
            v,
            format!("the variant `{ident}` of an entity family holds one model: `{ident}({ident})`, not fields or several values"),
        );
        return None;
    };
    Some(Variant {
        ident,
        ty: &field.ty,
        other: other.get().map(|o| o.span),
    })
}
