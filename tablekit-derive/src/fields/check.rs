//! The rules of a `#[derive(TableFields)]` struct: an entity's field rules, and nothing that
//! belongs to the entity itself (its table, kind, keys).

use crate::entity::ast::Container;
use crate::entity::check;
use crate::internals::ctxt::Ctxt;

const NOT_HERE: &str = "belongs on the `#[derive(TableEntity)]` struct: a `TableFields` struct is stored inside an entity";

/// Runs every check of a supported input.
pub(crate) fn check(cx: &Ctxt, c: &Container<'_>) {
    if !c.supported {
        return;
    }
    let a = &c.attrs;
    let container = [
        ("table", a.table.as_ref()),
        ("kind", a.kind.as_ref()),
        ("kind_property", a.kind_property.as_ref()),
        ("key_separator", a.key_separator.as_ref()),
    ];
    for (name, lit) in container {
        if let Some(lit) = lit {
            cx.error_spanned_by(lit, format!("`{name}` {NOT_HERE}"));
        }
    }
    for constant in &a.constants {
        cx.error_spanned_by(&constant.value, format!("a constant key part {NOT_HERE}"));
    }
    for f in &c.fields {
        let fa = &f.attrs;
        if let Some(span) = (fa.roles.first().map(|r| r.span))
            .or(fa.key_only.as_ref().map(|k| k.span))
            .or(fa.format.as_ref().map(|k| k.span))
        {
            cx.error_at(span, format!("a key {NOT_HERE}"));
        }
        // The entity's writes keep its own index and continuation rows in step, not those of
        // a struct stored inside it.
        if let Some(index) = &fa.index {
            cx.error_at(index.span, format!("an `index` {NOT_HERE}"));
        }
        if f.spread_rows.is_some() {
            cx.error_spanned_by(
                f.ident,
                "`rows = n` belongs on a field of the `#[derive(TableEntity)]` struct: a `TableFields` struct is stored inside one entity",
            );
        }
    }
    check::fields(cx, c);
}
