//! The rules between an entity family's variants that the derive can see; errors go to the
//! `Ctxt`. The rest (a variant's type is a model with a kind, every model stores its kind in
//! the same property, no two models share a kind) is checked by the generated code.

use syn::{Type, TypePath};
use tablekit_rules::check_table_name;

use super::ast::Family;
use crate::internals::ctxt::Ctxt;
use crate::internals::ty;

pub(crate) fn check(cx: &Ctxt, f: &Family<'_>) {
    table_name(cx, f);
    some_model(cx, f);
    one_other(cx, f);
    distinct_models(cx, f);
}

/// `table = "..."` follows the service's table name rule.
fn table_name(cx: &Ctxt, f: &Family<'_>) {
    let Some(table) = &f.table else { return };
    let name = table.value();
    if let Err(rule) = check_table_name(&name) {
        cx.error_spanned_by(table, format!("invalid table name `{name}`: {rule}"));
    }
}

/// A family reads at least one model.
fn some_model(cx: &Ctxt, f: &Family<'_>) {
    if !f.variants.is_empty() && f.models().next().is_none() {
        cx.error_spanned_by(
            f.ident,
            "an entity family needs a variant holding a model, besides its `other` variant",
        );
    }
}

/// At most one `other` variant, and it holds the row as it is: a `DynamicEntity`.
fn one_other(cx: &Ctxt, f: &Family<'_>) {
    let mut others = f.variants.iter().filter(|v| v.other.is_some());
    if let Some(first) = others.next() {
        if !is_dynamic_entity(first.ty) {
            cx.error_spanned_by(
                first.ty,
                format!(
                    "the `other` variant holds rows of any other kind as they are: `{}(DynamicEntity)`, not `{}`",
                    first.ident,
                    ty::display(first.ty)
                ),
            );
        }
    }
    for extra in others {
        cx.error_spanned_by(
            extra.ident,
            "an entity family has one `other` variant: rows of an unlisted kind must have one place",
        );
    }
}

/// Each model is one variant: a row of its kind could not tell which of two to be.
fn distinct_models(cx: &Ctxt, f: &Family<'_>) {
    let models: Vec<_> = f.models().collect();
    for (i, v) in models.iter().enumerate() {
        let seen = models
            .iter()
            .take(i)
            .any(|w| ty::display(w.ty) == ty::display(v.ty));
        if seen {
            cx.error_spanned_by(
                v.ty,
                format!(
                    "two variants hold `{}`: each model of a family is one variant",
                    ty::display(v.ty)
                ),
            );
        }
    }
}

fn is_dynamic_entity(t: &Type) -> bool {
    match ty::ungroup(t) {
        Type::Path(TypePath { qself: None, path }) => path
            .segments
            .last()
            .is_some_and(|s| s.ident == "DynamicEntity" && s.arguments.is_none()),
        _ => false,
    }
}
