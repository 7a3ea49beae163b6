//! The derive's normalised view of the struct: every field with its stored name, storage and
//! type kind, both keys with their parts in order, and the container's table, kind and
//! separator. Built once from the parsed attributes; `check` reads it to find mistakes and
//! `expand` to generate code, and neither reads attributes. Borrows the syntax tree, so errors
//! keep their spans.

use proc_macro2::Span;
use syn::{Expr, Ident, Type};

use super::attr::{self, ContainerAttrs, FieldAttrs, Format, RenameAll, StorageAttr};
use super::role::KeyRole;
use crate::internals::ctxt::Ctxt;
use crate::internals::hygiene::Private;
use crate::internals::ty::{self, TypeKind};

/// How a field is kept in the entity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Storage {
    /// One property holding the value.
    Property,
    /// `records(max_properties = n)`: versioned binary records, split across properties.
    Records { max_properties: usize },
    /// `split(max_properties = n)`: bytes split across properties.
    Split { max_properties: usize },
    /// `json`: JSON text, split across properties when it outgrows one.
    Json,
    /// `key_only`: only in the key, read back from it.
    KeyOnly,
    /// `skip`: not stored.
    Skipped,
    /// `flatten`: a `#[derive(TableFields)]` struct, one property per field, named after the
    /// field's stored name (its prefix).
    Flatten,
}

impl Storage {
    /// Whether the field is one or more properties (and so has a column).
    pub(crate) fn is_stored(self) -> bool {
        !matches!(self, Storage::KeyOnly | Storage::Skipped)
    }
}

/// One named field.
pub(crate) struct Field<'a> {
    pub(crate) ident: &'a Ident,
    /// The type as written.
    pub(crate) ty: &'a Type,
    /// The type without `Option<..>` and invisible groups.
    pub(crate) value_ty: &'a Type,
    pub(crate) optional: bool,
    /// The kind of `value_ty`.
    pub(crate) kind: TypeKind,
    /// The stored property name.
    pub(crate) name: String,
    /// Where the stored name comes from: the `rename`, or the field's name.
    pub(crate) name_span: Span,
    /// `rename_from` names, read when the stored name is absent.
    pub(crate) old_names: Vec<String>,
    pub(crate) storage: Storage,
    /// `rows = n` of `split` / `records`: the continuation rows the value may spread over.
    pub(crate) spread_rows: Option<usize>,
    /// `default = expr`; `None` for `Default::default()`.
    pub(crate) default: Option<Expr>,
    /// The attributes as declared, for `check`'s rules between them.
    pub(crate) attrs: FieldAttrs,
}

impl Field<'_> {
    /// A `String` field (its key functions take `&str`, its setter `impl Into<String>`).
    pub(crate) fn is_string(&self) -> bool {
        self.kind == TypeKind::String && !self.optional
    }
}

/// A secondary index on a field, from `#[tablekit(index(..))]`.
pub(crate) struct IndexSpec<'c, 'a> {
    /// The field's position.
    pub(crate) position: usize,
    pub(crate) field: &'c Field<'a>,
    /// `name = ".."`, or the field's name.
    pub(crate) name: String,
    pub(crate) unique: bool,
    /// `partition = ".."` and `table = ".."`: where an inter-partition index keeps its rows.
    pub(crate) partition: Option<&'c syn::LitStr>,
    pub(crate) table: Option<&'c syn::LitStr>,
    /// Where the name comes from, for errors.
    pub(crate) span: Span,
}

/// Where a key part's text comes from.
#[derive(Clone, Debug)]
pub(crate) enum PartSource {
    /// Field number `n`.
    Field(usize),
    /// A constant string.
    Constant(String),
}

/// One part of a key.
#[derive(Clone, Debug)]
pub(crate) struct KeyPart {
    pub(crate) source: PartSource,
    pub(crate) format: Format,
    /// The attribute that chose the format (the role's when it is plain).
    pub(crate) format_span: Span,
    pub(crate) order: Option<u32>,
    pub(crate) span: Span,
}

impl KeyPart {
    pub(crate) fn field(&self) -> Option<usize> {
        match self.source {
            PartSource::Field(i) => Some(i),
            PartSource::Constant(_) => None,
        }
    }
}

/// One of the two keys, its parts sorted by `order` (parts without one keep declaration
/// order, after the ordered ones).
pub(crate) struct Key {
    pub(crate) role: KeyRole,
    pub(crate) parts: Vec<KeyPart>,
}

impl Key {
    /// Whether field `i` is a part.
    pub(crate) fn contains(&self, i: usize) -> bool {
        self.parts.iter().any(|p| p.field() == Some(i))
    }
}

/// The struct.
pub(crate) struct Container<'a> {
    pub(crate) ident: &'a Ident,
    pub(crate) vis: &'a syn::Visibility,
    /// The path generated code names everything by.
    pub(crate) private: Private,
    /// Whether the input is a struct with named fields and no generics, the only shape the
    /// derive supports; otherwise `fields` is empty and nothing is checked.
    pub(crate) supported: bool,
    pub(crate) table: Option<String>,
    /// The discriminating property and this model's value of it, when `kind` is declared.
    pub(crate) kind: Option<(String, String)>,
    /// The RowKey prefix that tells this model's rows, when `kind_prefix` is declared.
    pub(crate) kind_prefix: Option<String>,
    pub(crate) separator: String,
    pub(crate) fields: Vec<Field<'a>>,
    pub(crate) keys: [Key; 2],
    /// The attributes as declared, for `check`.
    pub(crate) attrs: ContainerAttrs,
}

impl<'a> Container<'a> {
    /// The indexed fields, in declaration order.
    pub(crate) fn indexes(&self) -> Vec<IndexSpec<'_, 'a>> {
        self.fields
            .iter()
            .enumerate()
            .filter_map(|(position, field)| {
                let attr = field.attrs.index.as_ref()?;
                let (name, span) = match &attr.value.name {
                    Some(name) => (name.value(), name.span()),
                    None => {
                        let ident = field.ident.to_string();
                        (ident.trim_start_matches("r#").to_owned(), attr.span)
                    }
                };
                Some(IndexSpec {
                    position,
                    field,
                    name,
                    unique: attr.value.unique,
                    partition: attr.value.partition.as_ref(),
                    table: attr.value.table.as_ref(),
                    span,
                })
            })
            .collect()
    }

    /// Builds the IR, recording parse errors; always returns one so the fallback can declare
    /// the generated API even for input the derive refuses.
    pub(crate) fn from_ast(cx: &Ctxt, input: &'a syn::DeriveInput) -> Self {
        let attrs = attr::container(cx, input);
        let named = supported_fields(cx, input);
        let supported = named.is_some();
        let rename_all = attrs.rename_all.unwrap_or(RenameAll::Pascal);
        let fields: Vec<Field<'a>> = named
            .into_iter()
            .flatten()
            .filter_map(|f| field(cx, f, rename_all))
            .collect();
        let keys = KeyRole::ALL.map(|role| key(role, &attrs, &fields));
        let kind = attrs.kind.as_ref().map(|value| {
            let property = attrs
                .kind_property
                .as_ref()
                .map_or_else(|| "Kind".to_owned(), syn::LitStr::value);
            (property, value.value())
        });
        Container {
            ident: &input.ident,
            vis: &input.vis,
            private: Private::new(attrs.krate.as_ref()),
            supported,
            table: attrs.table.as_ref().map(syn::LitStr::value),
            kind,
            kind_prefix: attrs.kind_prefix.as_ref().map(syn::LitStr::value),
            separator: attrs
                .key_separator
                .as_ref()
                .map_or_else(|| "_".to_owned(), syn::LitStr::value),
            fields,
            keys,
            attrs,
        }
    }

    pub(crate) fn key(&self, role: KeyRole) -> &Key {
        match role {
            KeyRole::Partition => &self.keys[0],
            KeyRole::Row => &self.keys[1],
        }
    }

    /// The distinct fields `parts` are built from, in part order.
    pub(crate) fn key_fields(&self, parts: &[KeyPart]) -> Vec<(usize, &Field<'a>)> {
        let mut out: Vec<(usize, &Field<'a>)> = Vec::new();
        for i in parts.iter().filter_map(KeyPart::field) {
            if let Some(f) = self.fields.get(i) {
                if !out.iter().any(|(j, _)| *j == i) {
                    out.push((i, f));
                }
            }
        }
        out
    }

    /// The distinct key fields of both keys: the parameters of `new`.
    pub(crate) fn all_key_fields(&self) -> Vec<(usize, &Field<'a>)> {
        let mut out = self.key_fields(&self.key(KeyRole::Partition).parts);
        for (i, f) in self.key_fields(&self.key(KeyRole::Row).parts) {
            if !out.iter().any(|(j, _)| *j == i) {
                out.push((i, f));
            }
        }
        out
    }

    /// Whether field `i` is part of a key.
    pub(crate) fn is_key_field(&self, i: usize) -> bool {
        self.keys.iter().any(|k| k.contains(i))
    }
}

/// The fields of a struct with named fields and no generics; `None`, with the error recorded,
/// for any other input.
fn supported_fields<'a>(
    cx: &Ctxt,
    input: &'a syn::DeriveInput,
) -> Option<&'a syn::punctuated::Punctuated<syn::Field, syn::Token![,]>> {
    let named = match &input.data {
        syn::Data::Struct(syn::DataStruct {
            fields: syn::Fields::Named(named),
            ..
        }) => &named.named,
        syn::Data::Struct(_) => {
            cx.error_spanned_by(
                &input.ident,
                "`#[derive(TableEntity)]` needs a struct with named fields, not a tuple or unit struct",
            );
            return None;
        }
        syn::Data::Enum(_) | syn::Data::Union(_) => {
            cx.error_spanned_by(
                &input.ident,
                "`#[derive(TableEntity)]` needs a struct with named fields; for an enum stored in a property use `#[derive(TableValue)]`",
            );
            return None;
        }
    };
    if !input.generics.params.is_empty() {
        cx.error_spanned_by(
            &input.generics,
            "`#[derive(TableEntity)]` does not support generic structs",
        );
        return None;
    }
    Some(named)
}

fn field<'a>(cx: &Ctxt, f: &'a syn::Field, rename_all: RenameAll) -> Option<Field<'a>> {
    let ident = f.ident.as_ref()?;
    let attrs = attr::field(cx, f);
    let (value_ty, optional) = match ty::option_inner(&f.ty) {
        Some(inner) => (ty::ungroup(inner), true),
        None => (ty::ungroup(&f.ty), false),
    };
    // A flattened field's stored name is its prefix: `flatten(prefix = ..)` wins.
    let prefix = (attrs.flatten.as_ref()).and_then(|f| Some((f.value.clone()?, f.span)));
    let (name, name_span) = match (prefix, &attrs.rename) {
        (Some(prefix), _) => prefix,
        (None, Some(r)) => (r.value.clone(), r.span),
        _ => (rename_all.apply(&ident.to_string()), ident.span()),
    };
    Some(Field {
        ident,
        ty: &f.ty,
        value_ty,
        optional,
        kind: ty::kind(value_ty),
        name,
        name_span,
        old_names: attrs.rename_from.iter().map(|r| r.value.clone()).collect(),
        storage: storage(&attrs),
        spread_rows: spread_rows(&attrs),
        default: attrs.default.as_ref().and_then(|d| d.value.clone()),
        attrs,
    })
}

/// The field's storage. Conflicting attributes are `check`'s errors; the fallback still
/// needs one answer: `skip` wins, then `key_only` on a key field, then the declared one.
fn storage(attrs: &FieldAttrs) -> Storage {
    if attrs.skip.is_some() {
        return Storage::Skipped;
    }
    if attrs.key_only.is_some() && !attrs.roles.is_empty() {
        return Storage::KeyOnly;
    }
    if attrs.flatten.is_some() {
        return Storage::Flatten;
    }
    match attrs.storage.as_ref().map(|s| s.value) {
        None => Storage::Property,
        Some(StorageAttr::Records { max_properties, .. }) => Storage::Records { max_properties },
        Some(StorageAttr::Split { max_properties, .. }) => Storage::Split { max_properties },
        Some(StorageAttr::Json) => Storage::Json,
    }
}

/// `rows = n` of a `split` / `records` field that is stored.
fn spread_rows(attrs: &FieldAttrs) -> Option<usize> {
    match attrs.storage.as_ref().map(|s| s.value) {
        Some(StorageAttr::Records { rows, .. } | StorageAttr::Split { rows, .. })
            if matches!(
                storage(attrs),
                Storage::Records { .. } | Storage::Split { .. }
            ) =>
        {
            rows
        }
        _ => None,
    }
}

/// The key `role`: the parts fields and the container declare, sorted by order.
fn key(role: KeyRole, attrs: &ContainerAttrs, fields: &[Field<'_>]) -> Key {
    let mut parts = Vec::new();
    for (index, f) in fields.iter().enumerate() {
        let Some(declared) = f.attrs.roles.iter().find(|r| r.role == role) else {
            continue;
        };
        // A flattened field is never a key part (`check` says so): the fallback's `new` then
        // takes the real key fields only.
        if f.attrs.flatten.is_some() {
            continue;
        }
        let (format, format_span) = match (&declared.format, &f.attrs.format) {
            (Some(own), _) | (None, Some(own)) => (own.value.clone(), own.span),
            (None, None) => (Format::Plain, declared.span),
        };
        parts.push(KeyPart {
            source: PartSource::Field(index),
            format,
            format_span,
            order: declared.order.as_ref().map(|o| o.value),
            span: declared.span,
        });
    }
    for c in attrs.constants.iter().filter(|c| c.role == role) {
        parts.push(KeyPart {
            source: PartSource::Constant(c.value.value()),
            format: Format::Plain,
            format_span: c.value.span(),
            order: c.order.as_ref().map(|o| o.value),
            span: c.value.span(),
        });
    }
    parts.sort_by_key(|p| p.order.unwrap_or(u32::MAX));
    Key { role, parts }
}
