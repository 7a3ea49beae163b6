//! Rules across fields and attributes, one small function each. Errors go to the `Ctxt`.

use std::collections::HashMap;

use super::ast::{sort_parts, Container, Field, KeyPart, PartSource, TypeKind};
use super::attr::{tablekit_forbidden, FieldStorage, KeyFormat};
use super::ctxt::Ctxt;

/// Runs every check; sorts key parts by order on the way.
pub(crate) fn check(cx: &Ctxt, c: &mut Container<'_>) {
    table_name(cx, c);
    kind(cx, c);
    separator(cx, c);
    partition_key_present(cx, c);
    for f in &c.fields {
        field_type(cx, f);
        storage_type(cx, f);
        skip_alone(cx, f);
        key_only(cx, c, f);
        key_field_type(cx, f);
        format_needs_key(cx, f);
        constant_column_names(cx, f);
    }
    stored_names(cx, c);
    for parts in [&c.partition_key, &c.row_key] {
        orders(cx, parts);
        for p in parts {
            part_format(cx, c, p);
            constant_part(cx, p);
        }
    }
    sort_parts(&mut c.partition_key);
    sort_parts(&mut c.row_key);
}

/// `table = "..."` follows the service's table name rule.
fn table_name(cx: &Ctxt, c: &Container<'_>) {
    let Some(t) = &c.attrs.table else { return };
    let name = t.value();
    let ok = name.len() >= 3
        && name.len() <= 63
        && name.starts_with(|ch: char| ch.is_ascii_alphabetic())
        && name.chars().all(|ch| ch.is_ascii_alphanumeric())
        && !name.eq_ignore_ascii_case("tables");
    if !ok {
        cx.error_spanned_by(
            t,
            format!("invalid table name `{name}`: 3 to 63 letters and digits, starting with a letter, not `tables`"),
        );
    }
}

/// `kind` holds a value; `kind_property` goes with a `kind` (its name is checked with the
/// stored names).
fn kind(cx: &Ctxt, c: &Container<'_>) {
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
    if let Some(s) = &c.attrs.key_separator {
        if s.value().chars().any(tablekit_forbidden) {
            cx.error_spanned_by(
                s,
                "`key_separator` contains a character keys cannot hold (`/`, `\\`, `#`, `?` or a control character)",
            );
        }
    }
}

/// Every entity needs a PartitionKey (a RowKey alone defaults to "").
fn partition_key_present(cx: &Ctxt, c: &Container<'_>) {
    if c.partition_key.is_empty() {
        cx.error_spanned_by(
            c.ident,
            "missing partition key: mark a field `#[tablekit(partition_key)]` or add `#[tablekit(partition_key(constant = \"...\"))]` to the struct",
        );
    }
}

/// The field's type can be a property, or its storage attribute says how to store it.
fn field_type(cx: &Ctxt, f: &Field<'_>) {
    if f.is_skipped() || f.storage() != FieldStorage::Value {
        return;
    }
    let bad = matches!(f.kind, TypeKind::Unsupported | TypeKind::List);
    if bad && !f.is_key_only() {
        let ty = f.ty;
        cx.error_spanned_by(
            ty,
            format!(
                "unsupported field type `{}`: a property holds bool, i32, i64, u32, u64, f64, String, Vec<u8>, DateTime<Utc>, Uuid, Option<T>, a `#[derive(TableValue)]` enum or a type implementing `IntoValue` and `FromValue`; store other data with `#[tablekit(json)]` or `#[tablekit(records(max_properties = N))]`",
                quote::quote!(#ty).to_string().replace(' ', "")
            ),
        );
    }
}

/// `records` needs a `Vec<T>`, `split` a `Vec<u8>`.
fn storage_type(cx: &Ctxt, f: &Field<'_>) {
    let Some(s) = &f.attrs.storage else { return };
    let ok = match s.value {
        FieldStorage::Records(_) => f.kind == TypeKind::List && !f.optional,
        FieldStorage::Split(_) => f.kind == TypeKind::Bytes && !f.optional,
        FieldStorage::Json | FieldStorage::Value => true,
    };
    if !ok {
        let what = match s.value {
            FieldStorage::Records(_) => {
                "`records` needs a field of type `Vec<R>` where `R: Record`"
            }
            _ => "`split` needs a field of type `Vec<u8>`",
        };
        cx.error_at(s.span, what);
    }
}

/// A skipped field takes no other attribute.
fn skip_alone(cx: &Ctxt, f: &Field<'_>) {
    let Some(skip) = &f.attrs.skip else { return };
    let a = &f.attrs;
    if a.rename.is_some()
        || a.partition_key.is_some()
        || a.row_key.is_some()
        || a.storage.is_some()
        || a.key_only.is_some()
    {
        cx.error_at(
            skip.span,
            "a `skip` field is not stored: it takes no other tablekit attribute except `default`",
        );
    }
}

/// `key_only` needs a key role with a reversible format.
fn key_only(cx: &Ctxt, c: &Container<'_>, f: &Field<'_>) {
    let Some(k) = &f.attrs.key_only else { return };
    if f.attrs.partition_key.is_none() && f.attrs.row_key.is_none() {
        cx.error_at(
            k.span,
            "`key_only` needs the field to be part of `partition_key` or `row_key`",
        );
        return;
    }
    let index = c.fields.iter().position(|x| x.ident == f.ident);
    let mut parts = c
        .partition_key
        .iter()
        .chain(&c.row_key)
        .filter(|p| matches!(p.source, PartSource::Field(i) if Some(i) == index));
    if let Some(p) = parts.clone().next() {
        if !parts.any(|p| p.format.is_reversible()) {
            cx.error_at(
                k.span,
                format!(
                    "`key_only` needs a key format that can be read back, but `{}` cannot: drop `key_only` to store the field as a property too",
                    p.format.describe()
                ),
            );
        }
    }
}

/// Key fields are plain values, present.
fn key_field_type(cx: &Ctxt, f: &Field<'_>) {
    if f.attrs.partition_key.is_none() && f.attrs.row_key.is_none() {
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
    if let Some(format) = &f.attrs.format {
        if f.attrs.partition_key.is_none() && f.attrs.row_key.is_none() {
            cx.error_at(
                format.span,
                format!(
                    "key format `{}` applies to key parts: add `partition_key` or `row_key` to the field",
                    format.value.describe()
                ),
            );
        }
    }
}

/// A field named `partition_key`/`row_key` would clash with the key columns.
fn constant_column_names(cx: &Ctxt, f: &Field<'_>) {
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

/// Stored names are valid property names and unique (renamed names and old names included).
fn stored_names(cx: &Ctxt, c: &Container<'_>) {
    let mut seen: HashMap<String, String> = HashMap::new();
    if let Some((property, _)) = c.kind() {
        let span = c
            .attrs
            .kind_property
            .as_ref()
            .or(c.attrs.kind.as_ref())
            .map_or_else(proc_macro2::Span::call_site, syn::LitStr::span);
        if let Some(reason) = invalid_property_name(&property) {
            cx.error_at(
                span,
                format!("invalid kind property name `{property}`: {reason}"),
            );
        }
        seen.insert(property, "the kind".to_owned());
    }
    for f in c
        .fields
        .iter()
        .filter(|f| !f.is_skipped() && !f.is_key_only())
    {
        let mut names = vec![(f.stored_name.clone(), f.stored_span)];
        names.extend(
            f.attrs
                .rename_from
                .iter()
                .map(|r| (r.value.clone(), r.span)),
        );
        for (name, span) in names {
            if let Some(reason) = invalid_property_name(&name) {
                cx.error_at(
                    span,
                    format!("invalid stored property name `{name}`: {reason}"),
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

/// The service's property name rule (as `tablekit::limits::validate_property_name`).
fn invalid_property_name(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        return Some("a name cannot be empty");
    }
    if name.chars().count() > 255 {
        return Some("a name holds at most 255 characters");
    }
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        return Some("a name cannot start with a digit");
    }
    if !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return Some("a name holds only letters, digits and `_`");
    }
    if matches!(name, "PartitionKey" | "RowKey" | "Timestamp") {
        return Some("this is a system property name");
    }
    None
}

/// Two parts of one key do not share an order, and a composite key orders every part.
fn orders(cx: &Ctxt, parts: &[KeyPart]) {
    if parts.len() < 2 {
        return;
    }
    let mut seen = HashMap::new();
    for p in parts {
        match p.order {
            None => cx.error_at(
                p.span,
                "a key with several parts needs `order = n` on each part, e.g. `row_key(order = 0)`",
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
    let PartSource::Field(i) = p.source else {
        return;
    };
    let Some(f) = c.fields.get(i) else { return };
    let kind = &f.kind;
    let unsigned = matches!(kind, TypeKind::Known("u32" | "u64"))
        || matches!(f.value_ty, syn::Type::Path(tp) if tp.path.is_ident("u8") || tp.path.is_ident("u16"));
    let (ok, needs) = match &p.format {
        KeyFormat::Plain => (
            !matches!(kind, TypeKind::Known("DateTime" | "f64")),
            "a type with a plain key form",
        ),
        KeyFormat::Lowercase => (*kind == TypeKind::Known("String"), "`String`"),
        KeyFormat::Ticks
        | KeyFormat::InvertedTicks
        | KeyFormat::Date(_)
        | KeyFormat::InvertedYearMonth => (*kind == TypeKind::Known("DateTime"), "`DateTime<Utc>`"),
        KeyFormat::Pad(_) | KeyFormat::Inverted => {
            (unsigned, "an unsigned integer (`u8`, `u16`, `u32`, `u64`)")
        }
    };
    if !ok {
        let ty = f.ty;
        let ty = quote::quote!(#ty).to_string().replace(' ', "");
        let msg = match &p.format {
            KeyFormat::Plain if *kind == TypeKind::Known("DateTime") => format!(
                "a `{ty}` key part needs a format: `inverted_ticks`, `ticks` or `format = \"yyyyMMdd\"`"
            ),
            KeyFormat::Plain => format!("a `{ty}` cannot be a key part: its text does not sort like its value"),
            other => format!(
                "key format `{}` needs {needs}, but field `{}` is `{ty}`",
                other.describe(),
                f.ident
            ),
        };
        cx.error_at(p.format_span, msg);
    }
}

/// A constant part holds no forbidden key character.
fn constant_part(cx: &Ctxt, p: &KeyPart) {
    if let PartSource::Constant(text) = &p.source {
        if let Some(ch) = text.chars().find(|c| tablekit_forbidden(*c)) {
            cx.error_at(
                p.span,
                format!("constant key part contains {ch:?}, which keys cannot hold"),
            );
        }
    }
}
