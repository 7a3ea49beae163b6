//! The rules of a `#[tablekit(flatten)]` field: it stores a nested struct's fields, each as
//! its own property, so it takes none of the attributes of a single stored value.

use super::ast::Field;
use crate::internals::ctxt::Ctxt;

/// A flattened field is not a key part, not a single value, and reads its nested fields'
/// defaults.
pub(crate) fn check(cx: &Ctxt, f: &Field<'_>) {
    let Some(flatten) = &f.attrs.flatten else {
        return;
    };
    let a = &f.attrs;
    let refused = [
        (!a.roles.is_empty() || a.key_only.is_some() || a.format.is_some(),
            "a `flatten` field cannot be part of a key: a key is one text, a flattened field several properties"),
        (a.storage.is_some(),
            "`flatten` stores each nested field as its own property: it cannot be combined with `json`, `records` or `split`"),
        (a.skip.is_some(), "a `skip` field is not stored: it cannot be `flatten` too"),
        (a.default.is_some(),
            "a `flatten` field reads each nested field's own default: put `default` on the nested struct's fields"),
        (!a.rename_from.is_empty(),
            "`rename_from` on a `flatten` field is not supported: put it on the nested struct's fields"),
        (a.rename.is_some() && flatten.value.is_some(),
            "`flatten(prefix = ..)` names the properties' prefix: drop `rename`"),
    ];
    for (_, message) in refused.iter().filter(|(refused, _)| *refused) {
        cx.error_at(flatten.span, *message);
    }
}
