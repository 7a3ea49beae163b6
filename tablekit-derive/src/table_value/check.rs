//! Rules between the variants.

use std::collections::HashSet;

use super::ast::Enum;
use crate::internals::ctxt::Ctxt;

pub(crate) fn check(cx: &Ctxt, value: &Enum<'_>) {
    stored_names_are_unique(cx, value);
}

/// Two variants stored by the same name could not be told apart when read.
fn stored_names_are_unique(cx: &Ctxt, value: &Enum<'_>) {
    let mut seen = HashSet::new();
    for v in &value.variants {
        if !seen.insert(v.name.as_str()) {
            cx.error_at(v.span, format!("two variants are stored as `{}`", v.name));
        }
    }
}
