//! The rules a model must follow, one small function each, read from the IR. Checks only:
//! errors go to the `Ctxt`, nothing is changed. The service's own rules (table and property
//! names, key characters) are `tablekit_rules`', the very functions the runtime calls.

use std::collections::HashMap;

use proc_macro2::Span;
use tablekit_rules::{
    check_key, check_property_name, check_table_name, find_forbidden_key_char, KeyError, PartInput,
    MAX_KEY_UNITS,
};

use super::ast::{Container, Field, Key, KeyPart, PartSource, Storage};
use super::attr::StorageAttr;
use crate::internals::ctxt::Ctxt;
use crate::internals::ty::{self, TypeKind};

/// Runs every check of a supported input.
pub(crate) fn check(cx: &Ctxt, c: &Container<'_>) {
    if !c.supported {
        return;
    }
    table_name(cx, c);
    kind(cx, c);
    separator(cx, c);
    partition_key_present(cx, c);
    for (i, f) in c.fields.iter().enumerate() {
        field_type(cx, f);
        storage_type(cx, f);
        skip_alone(cx, f);
        key_only(cx, c, i, f);
        key_field_type(cx, f);
        format_needs_key(cx, f);
        column_names(cx, f);
        super::flatten::check(cx, f);
    }
    stored_names(cx, c);
    indexes(cx, c);
    indexes_with_rows(cx, c);
    for key in &c.keys {
        orders(cx, key);
        for part in &key.parts {
            part_format(cx, c, part);
            constant_part(cx, part);
        }
    }
}

/// Indexes and values spread over rows do not mix: each write path keeps its own rows in
/// step, not the other's.
fn indexes_with_rows(cx: &Ctxt, c: &Container<'_>) {
    let Some(index) = c
        .indexes()
        .into_iter()
        .find_map(|ix| ix.field.attrs.index.as_ref())
    else {
        return;
    };
    if c.fields.iter().any(|f| f.spread_rows.is_some()) {
        cx.error_at(
            index.span,
            "a model with an `index` cannot also spread a value over rows (`rows = n`): keep the large value in a model of its own",
        );
    }
}

/// The checks of each field alone and of their stored names: all a `#[derive(TableFields)]`
/// struct, which has no keys, needs.
pub(crate) fn fields(cx: &Ctxt, c: &Container<'_>) {
    for f in &c.fields {
        field_type(cx, f);
        storage_type(cx, f);
        skip_alone(cx, f);
        super::flatten::check(cx, f);
    }
    stored_names(cx, c);
}

/// `table = "..."` follows the service's table name rule.
fn table_name(cx: &Ctxt, c: &Container<'_>) {
    let Some(table) = &c.attrs.table else { return };
    let name = table.value();
    if let Err(rule) = check_table_name(&name) {
        cx.error_spanned_by(table, format!("invalid table name `{name}`: {rule}"));
    }
}

/// `kind` holds a value; `kind_property` goes with a `kind` (its name is checked with the
/// stored names); `kind_prefix` is a non-empty key text, instead of a `kind`.
fn kind(cx: &Ctxt, c: &Container<'_>) {
    if let Some(prefix) = &c.attrs.kind_prefix {
        let text = prefix.value();
        if c.attrs.kind.is_some() || c.attrs.kind_property.is_some() {
            cx.error_spanned_by(
                prefix,
                "`kind_prefix` tells the kind by the RowKey: it goes without `kind` and `kind_property`",
            );
        } else if text.is_empty() {
            cx.error_spanned_by(
                prefix,
                "`kind_prefix` needs a value, e.g. `kind_prefix = \"R_\"`",
            );
        } else if let Some((_, ch)) = find_forbidden_key_char(&text) {
            cx.error_spanned_by(
                prefix,
                format!("`kind_prefix` contains {ch:?}, which keys cannot hold"),
            );
        }
        return;
    }
    if let Some(kind) = &c.attrs.kind {
        if kind.value().is_empty() {
            cx.error_spanned_by(kind, "`kind` needs a value, e.g. `kind = \"Order\"`");
        }
    } else if let Some(property) = &c.attrs.kind_property {
        cx.error_spanned_by(
            property,
            "`kind_property` names where `kind` is stored: add `kind = \"...\"` to the struct",
        );
    }
}

/// The separator holds no character forbidden in keys.
fn separator(cx: &Ctxt, c: &Container<'_>) {
    let Some(separator) = &c.attrs.key_separator else {
        return;
    };
    if let Some((_, ch)) = find_forbidden_key_char(&separator.value()) {
        cx.error_spanned_by(
            separator,
            format!("`key_separator` contains {ch:?}, which keys cannot hold"),
        );
    }
}

/// An index is on a plain stored field that is no key part, its name makes a method name
/// (`by_<name>`), and no two indexes share one.
fn indexes(cx: &Ctxt, c: &Container<'_>) {
    let mut seen: HashMap<String, Span> = HashMap::new();
    for ix in c.indexes() {
        let Some(attr) = &ix.field.attrs.index else {
            continue;
        };
        if c.is_key_field(ix.position) || ix.field.attrs.key_only.is_some() {
            cx.error_at(
                attr.span,
                "an `index` cannot be on a key field: the entity's own key already finds it",
            );
        } else if ix.field.storage != Storage::Property {
            cx.error_at(
                attr.span,
                "an `index` needs a field stored as one property: not `skip`, `records`, `split` or `json`",
            );
        }
        let valid = ix
            .name
            .chars()
            .next()
            .is_some_and(|ch| ch.is_ascii_alphabetic())
            && ix
                .name
                .chars()
                .all(|ch| ch.is_ascii_alphanumeric() || ch == '_');
        if !valid {
            cx.error_at(
                ix.span,
                format!(
                    "invalid index name `{}`: it starts with a letter and holds only letters, digits and `_`",
                    ix.name
                ),
            );
        }
        inter_partition(cx, &ix);
        if seen.insert(ix.name.clone(), ix.span).is_some() {
            cx.error_at(
                ix.span,
                format!(
                    "two indexes are named `{}`: give one `index(name = \"...\")`",
                    ix.name
                ),
            );
        }
    }
}

/// An inter-partition index names a valid partition and table, and is not unique: only the
/// entity's own transaction can refuse a duplicate.
fn inter_partition(cx: &Ctxt, ix: &super::ast::IndexSpec<'_, '_>) {
    if let Some(partition) = ix.partition {
        if check_key(&partition.value()).is_err() || partition.value().is_empty() {
            cx.error_spanned_by(
                partition,
                "an index `partition` is a non-empty valid PartitionKey",
            );
        }
    }
    if let Some(table) = ix.table {
        if let Err(rule) = check_table_name(&table.value()) {
            cx.error_spanned_by(
                table,
                format!("invalid table name `{}`: {rule}", table.value()),
            );
        }
    }
    if ix.unique && (ix.partition.is_some() || ix.table.is_some()) {
        cx.error_at(
            ix.span,
            "a `unique` index lives in the entity's partition: only the entity's own transaction can refuse a duplicate, so it takes no `partition` or `table`",
        );
    }
}

/// Every entity needs a PartitionKey (a RowKey alone defaults to "").
fn partition_key_present(cx: &Ctxt, c: &Container<'_>) {
    if c.keys[0].parts.is_empty() {
        cx.error_spanned_by(
            c.ident,
            "missing partition key: mark a field `#[tablekit(partition_key)]` or add `#[tablekit(partition_key(constant = \"...\"))]` to the struct",
        );
    }
}

/// The field's type can be a property, or its storage attribute says how to store it.
fn field_type(cx: &Ctxt, f: &Field<'_>) {
    if f.storage != Storage::Property || f.kind.is_property() {
        return;
    }
    cx.error_spanned_by(
        f.ty,
        format!(
            "unsupported field type `{}`: a property holds bool, an integer (i8 to i64, u8 to u64, isize, usize), f32, f64, String, Vec<u8>, a chrono date, time or duration, Uuid, Option<T>, a `#[derive(TableValue)]` enum or a type implementing `IntoValue` and `FromValue`; store other data with `#[tablekit(json)]` or `#[tablekit(records(max_properties = N))]`",
            ty::display(f.ty)
        ),
    );
}

/// `records` needs a `Vec<T>`, `split` a `Vec<u8>`.
fn storage_type(cx: &Ctxt, f: &Field<'_>) {
    let Some(s) = &f.attrs.storage else { return };
    let (ok, needs) = match s.value {
        StorageAttr::Records { .. } => (
            f.kind == TypeKind::List && !f.optional,
            "`records` needs a field of type `Vec<R>` where `R: Record`",
        ),
        StorageAttr::Split { .. } => (
            f.kind == TypeKind::Bytes && !f.optional,
            "`split` needs a field of type `Vec<u8>`",
        ),
        StorageAttr::Json => (true, ""),
    };
    if !ok {
        cx.error_at(s.span, needs);
    }
}

/// A skipped field takes no other attribute.
fn skip_alone(cx: &Ctxt, f: &Field<'_>) {
    let Some(skip) = &f.attrs.skip else { return };
    let a = &f.attrs;
    if a.rename.is_some() || !a.roles.is_empty() || a.storage.is_some() || a.key_only.is_some() {
        cx.error_at(
            skip.span,
            "a `skip` field is not stored: it takes no other tablekit attribute except `default`",
        );
    }
}

/// `key_only` needs a key role with a format that can be read back.
fn key_only(cx: &Ctxt, c: &Container<'_>, i: usize, f: &Field<'_>) {
    let Some(k) = &f.attrs.key_only else { return };
    if f.attrs.roles.is_empty() {
        cx.error_at(
            k.span,
            "`key_only` needs the field to be part of `partition_key` or `row_key`",
        );
        return;
    }
    let parts: Vec<&KeyPart> = c
        .keys
        .iter()
        .flat_map(|key| &key.parts)
        .filter(|p| p.field() == Some(i))
        .collect();
    if let Some(first) = parts.first() {
        if !parts.iter().any(|p| p.format.is_reversible()) {
            cx.error_at(
                k.span,
                format!(
                    "`key_only` needs a key format that can be read back, but `{}` cannot: drop `key_only` to store the field as a property too",
                    first.format
                ),
            );
        }
    }
}

/// Key fields are plain values, present.
fn key_field_type(cx: &Ctxt, f: &Field<'_>) {
    if f.attrs.roles.is_empty() {
        return;
    }
    if f.optional {
        cx.error_spanned_by(
            f.ty,
            "a key field cannot be an `Option`: keys are always present",
        );
    } else if let Some(s) = &f.attrs.storage {
        cx.error_at(
            s.span,
            "a key field is a plain value: it cannot use `records`, `split` or `json`",
        );
    }
}

/// A key format beside no key role formats nothing.
fn format_needs_key(cx: &Ctxt, f: &Field<'_>) {
    let Some(format) = &f.attrs.format else {
        return;
    };
    if f.attrs.roles.is_empty() {
        cx.error_at(
            format.span,
            format!(
                "key format `{}` applies to key parts: add `partition_key` or `row_key` to the field",
                format.value
            ),
        );
    }
}

/// A field named `partition_key`/`row_key` would clash with the key columns.
fn column_names(cx: &Ctxt, f: &Field<'_>) {
    let name = f.ident.to_string();
    if name == "partition_key" || name == "row_key" {
        cx.error_spanned_by(
            f.ident,
            format!(
                "a field named `{name}` clashes with the generated key column; rename the field"
            ),
        );
    }
}

/// Stored names are valid property names and unique (renamed and old names included).
fn stored_names(cx: &Ctxt, c: &Container<'_>) {
    let mut seen: HashMap<String, String> = HashMap::new();
    if let Some((property, _)) = &c.kind {
        let span = c
            .attrs
            .kind_property
            .as_ref()
            .or(c.attrs.kind.as_ref())
            .map_or_else(Span::call_site, syn::LitStr::span);
        if let Err(rule) = check_property_name(property) {
            cx.error_at(
                span,
                format!("invalid kind property name `{property}`: {rule}"),
            );
        }
        seen.insert(property.clone(), "the kind".to_owned());
    }
    for f in c.fields.iter().filter(|f| f.storage.is_stored()) {
        let mut names = vec![(f.name.clone(), f.name_span)];
        names.extend(
            f.attrs
                .rename_from
                .iter()
                .map(|r| (r.value.clone(), r.span)),
        );
        for (name, span) in names {
            if let Err(rule) = check_property_name(&name) {
                cx.error_at(
                    span,
                    format!("invalid stored property name `{name}`: {rule}"),
                );
            }
            match seen.get(&name) {
                Some(other) if other == "the kind" => cx.error_at(
                    span,
                    format!(
                        "field `{}` is stored as `{name}`, the property that holds the kind: rename the field or set `kind_property`",
                        f.ident
                    ),
                ),
                Some(other) => cx.error_at(
                    span,
                    format!(
                        "fields `{other}` and `{}` are both stored as `{name}`",
                        f.ident
                    ),
                ),
                None => {
                    seen.insert(name, f.ident.to_string());
                }
            }
        }
    }
}

/// Two parts of one key do not share an order, and a key of several parts orders each.
fn orders(cx: &Ctxt, key: &Key) {
    if key.parts.len() < 2 {
        return;
    }
    let mut seen = HashMap::new();
    for p in &key.parts {
        match p.order {
            None => cx.error_at(
                p.span,
                format!(
                    "a key with several parts needs `order = n` on each part, e.g. `{}(order = 0)`",
                    key.role.symbol()
                ),
            ),
            Some(o) => {
                if seen.insert(o, ()).is_some() {
                    cx.error_at(p.span, format!("two key parts have `order = {o}`"));
                }
            }
        }
    }
}

/// A format applies to the types it can write.
fn part_format(cx: &Ctxt, c: &Container<'_>, p: &KeyPart) {
    let Some(f) = p.field().and_then(|i| c.fields.get(i)) else {
        return;
    };
    let kind = f.kind;
    let (ok, needs) = match p.format.input() {
        PartInput::KeyText => (
            !matches!(kind, TypeKind::DateTime | TypeKind::F64),
            "a type with a plain key form",
        ),
        PartInput::Text => (kind == TypeKind::String, "`String`"),
        PartInput::Time => (kind == TypeKind::DateTime, "`DateTime<Utc>`"),
        PartInput::Unsigned => (
            kind.is_unsigned(),
            "an unsigned integer (`u8`, `u16`, `u32`, `u64`)",
        ),
        PartInput::Any => (true, ""),
    };
    if ok {
        return;
    }
    let ty = ty::display(f.ty);
    let message = match p.format.input() {
        PartInput::KeyText if kind == TypeKind::DateTime => format!(
            "a `{ty}` key part needs a format: `inverted_ticks`, `ticks` or `format = \"yyyyMMdd\"`"
        ),
        PartInput::KeyText => {
            format!("a `{ty}` cannot be a key part: its text does not sort like its value")
        }
        _ => format!(
            "key format `{}` needs {needs}, but field `{}` is `{ty}`",
            p.format, f.ident
        ),
    };
    cx.error_at(p.format_span, message);
}

/// A constant part is a valid key on its own: no character keys forbid, not too long.
fn constant_part(cx: &Ctxt, p: &KeyPart) {
    let PartSource::Constant(text) = &p.source else {
        return;
    };
    match check_key(text) {
        Ok(()) => {}
        Err(KeyError::Character { character, .. }) => cx.error_at(
            p.span,
            format!("constant key part contains {character:?}, which keys cannot hold"),
        ),
        Err(KeyError::TooLong { units }) => cx.error_at(
            p.span,
            format!("constant key part is {units} UTF-16 units long, but a key holds at most {MAX_KEY_UNITS}"),
        ),
    }
}
