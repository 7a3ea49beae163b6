//! Parsing of attribute values, shared by the derives: each problem goes to the [`Ctxt`] and
//! parsing goes on, so one compile shows every mistake. Parsing never generates code.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::{Expr, Lit, LitStr};

use super::ctxt::Ctxt;
use super::symbol::Symbol;

/// A value with the span of the attribute that set it.
#[derive(Clone, Debug)]
pub(crate) struct Spanned<T> {
    pub(crate) value: T,
    pub(crate) span: Span,
}

/// An attribute that may be given at most once.
pub(crate) struct Attr<'c, T> {
    cx: &'c Ctxt,
    attr: Symbol,
    name: &'static str,
    value: Option<Spanned<T>>,
}

impl<'c, T> Attr<'c, T> {
    /// `attr` names the attribute (`tablekit`), `name` the key inside it.
    pub(crate) fn none(cx: &'c Ctxt, attr: Symbol, name: &'static str) -> Self {
        Attr {
            cx,
            attr,
            name,
            value: None,
        }
    }

    /// Sets the value; a second occurrence is an error at that occurrence.
    pub(crate) fn set(&mut self, span: Span, value: T) {
        if self.value.is_some() {
            self.cx.error_at(
                span,
                format!("duplicate {} attribute `{}`", self.attr, self.name),
            );
        } else {
            self.value = Some(Spanned { value, span });
        }
    }

    pub(crate) fn get(self) -> Option<Spanned<T>> {
        self.value
    }
}

/// Calls `f` for each key of each `#[attr(..)]` among `attrs`; syntax errors go to `cx`.
pub(crate) fn each_meta(
    cx: &Ctxt,
    attrs: &[syn::Attribute],
    attr: Symbol,
    mut f: impl FnMut(&ParseNestedMeta<'_>),
) {
    for a in attrs.iter().filter(|a| *a.path() == attr) {
        let result = a.parse_nested_meta(|meta| {
            f(&meta);
            Ok(())
        });
        if let Err(e) = result {
            cx.syn_error(e);
        }
    }
}

/// Calls `f` for each key inside `key(..)`; syntax errors go to `cx`.
pub(crate) fn each_nested(
    cx: &Ctxt,
    meta: &ParseNestedMeta<'_>,
    mut f: impl FnMut(&ParseNestedMeta<'_>),
) {
    let result = meta.parse_nested_meta(|m| {
        f(&m);
        Ok(())
    });
    if let Err(e) = result {
        cx.syn_error(e);
    }
}

/// The expression after `key =`.
fn value_expr(cx: &Ctxt, meta: &ParseNestedMeta<'_>) -> Option<Expr> {
    match meta.value().and_then(|v| v.parse::<Expr>()) {
        Ok(e) => Some(e),
        Err(e) => {
            cx.syn_error(e);
            None
        }
    }
}

/// A string literal value, or an error saying the key takes one.
pub(crate) fn lit_str(
    cx: &Ctxt,
    meta: &ParseNestedMeta<'_>,
    key: Symbol,
    example: &str,
) -> Option<LitStr> {
    match value_expr(cx, meta)? {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Str(s), ..
        }) => Some(s),
        other => {
            cx.error_spanned_by(
                other,
                format!("`{key}` takes a string literal, e.g. `{key} = \"{example}\"`"),
            );
            None
        }
    }
}

/// An integer literal value, or an error saying the key takes one.
pub(crate) fn lit_int<N>(
    cx: &Ctxt,
    meta: &ParseNestedMeta<'_>,
    key: Symbol,
    example: &str,
) -> Option<N>
where
    N: std::str::FromStr,
    N::Err: std::fmt::Display,
{
    match value_expr(cx, meta)? {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Int(i), ..
        }) => match i.base10_parse::<N>() {
            Ok(n) => Some(n),
            Err(e) => {
                cx.syn_error(e);
                None
            }
        },
        other => {
            cx.error_spanned_by(
                other,
                format!("`{key}` takes an integer literal, e.g. `{key} = {example}`"),
            );
            None
        }
    }
}

/// Any expression value (`default = Level::Dungeon`, `transform = lowercase`).
pub(crate) fn expr(cx: &Ctxt, meta: &ParseNestedMeta<'_>) -> Option<Expr> {
    value_expr(cx, meta)
}

/// `crate = "path"`: the path generated code reaches tablekit by, for crates that use it
/// through a re-export or a renamed dependency.
pub(crate) fn crate_path(cx: &Ctxt, meta: &ParseNestedMeta<'_>, key: Symbol) -> Option<syn::Path> {
    let s = lit_str(cx, meta, key, "::my_crate::tablekit")?;
    match s.parse::<syn::Path>() {
        Ok(path) => Some(path),
        Err(_) => {
            cx.error_spanned_by(
                &s,
                format!("`{key}` takes the path of the tablekit crate, e.g. `{key} = \"::my_crate::tablekit\"`"),
            );
            None
        }
    }
}

/// Skips whatever follows a key already reported, so parsing goes on after it.
pub(crate) fn skip_rest(meta: &ParseNestedMeta<'_>) {
    if meta.input.peek(syn::Token![=]) {
        let _ = meta.value().and_then(|v| v.parse::<Expr>());
    } else if meta.input.peek(syn::token::Paren) {
        let _ = meta.parse_nested_meta(|m| {
            skip_rest(&m);
            Ok(())
        });
    }
}

/// Reports an unknown key with the valid ones, and skips its value.
pub(crate) fn unknown(cx: &Ctxt, meta: &ParseNestedMeta<'_>, attr: Symbol, valid: &str) {
    let path = &meta.path;
    let name = quote::quote!(#path).to_string().replace(' ', "");
    cx.error_spanned_by(
        path,
        format!("unknown {attr} attribute `{name}`, expected one of {valid}"),
    );
    skip_rest(meta);
}
