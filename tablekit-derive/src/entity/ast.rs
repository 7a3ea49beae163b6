//! The derive's view of the struct: fields with their parsed attributes, stored names, value
//! kinds and key parts, borrowing the syntax tree so errors keep their spans.

use proc_macro2::Span;
use syn::spanned::Spanned as _;
use syn::{Ident, Type};

use super::attr::{self, ContainerAttrs, FieldAttrs, FieldStorage, KeyFormat, RenameAll};
use super::ctxt::Ctxt;

/// What the derive knows about a field's type.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum TypeKind {
    /// One of the value layer's types, by name (`i32`, `String`, `DateTime`, `Uuid`, ...).
    Known(&'static str),
    /// `Vec<u8>`.
    Bytes,
    /// `Vec<T>` with `T` not `u8`.
    List,
    /// A user path type (an enum with `TableValue`, or a type implementing the value traits).
    User,
    /// A type that cannot be a property (references, tuples, arrays, `u8`, `f32`, maps...).
    Unsupported,
}

/// One named field.
pub(crate) struct Field<'a> {
    pub(crate) ident: &'a Ident,
    pub(crate) ty: &'a Type,
    /// The type without `Option<..>`.
    pub(crate) value_ty: &'a Type,
    pub(crate) optional: bool,
    pub(crate) kind: TypeKind,
    pub(crate) stored_name: String,
    pub(crate) stored_span: Span,
    pub(crate) attrs: FieldAttrs,
}

impl Field<'_> {
    pub(crate) fn storage(&self) -> FieldStorage {
        self.attrs
            .storage
            .as_ref()
            .map_or(FieldStorage::Value, |s| s.value.clone())
    }

    pub(crate) fn is_skipped(&self) -> bool {
        self.attrs.skip.is_some()
    }

    pub(crate) fn is_key_only(&self) -> bool {
        self.attrs.key_only.is_some()
    }
}

/// Where a key part's text comes from.
#[derive(Clone, Debug)]
pub(crate) enum PartSource {
    /// Field number `n`.
    Field(usize),
    /// A constant string.
    Constant(String),
}

/// One part of a composite key.
#[derive(Clone, Debug)]
pub(crate) struct KeyPart {
    pub(crate) source: PartSource,
    pub(crate) format: KeyFormat,
    pub(crate) format_span: Span,
    pub(crate) order: Option<u32>,
    pub(crate) span: Span,
}

/// The struct.
pub(crate) struct Container<'a> {
    pub(crate) ident: &'a Ident,
    pub(crate) vis: &'a syn::Visibility,
    pub(crate) attrs: ContainerAttrs,
    pub(crate) fields: Vec<Field<'a>>,
    pub(crate) partition_key: Vec<KeyPart>,
    pub(crate) row_key: Vec<KeyPart>,
}

impl Container<'_> {
    /// The discriminating property and this model's value of it, when `kind` is declared.
    pub(crate) fn kind(&self) -> Option<(String, String)> {
        let value = self.attrs.kind.as_ref()?.value();
        let property = self
            .attrs
            .kind_property
            .as_ref()
            .map_or_else(|| "Kind".to_owned(), syn::LitStr::value);
        Some((property, value))
    }

    pub(crate) fn separator(&self) -> String {
        self.attrs
            .key_separator
            .as_ref()
            .map_or_else(|| "_".to_owned(), syn::LitStr::value)
    }
}

/// Builds the IR; `None` (with an error recorded) when the input is not a named struct.
pub(crate) fn container<'a>(cx: &Ctxt, input: &'a syn::DeriveInput) -> Option<Container<'a>> {
    let named = match &input.data {
        syn::Data::Struct(syn::DataStruct {
            fields: syn::Fields::Named(named),
            ..
        }) => named,
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
    let attrs = attr::container_attrs(cx, input);
    let rename_all = attrs
        .rename_all
        .as_ref()
        .map_or(RenameAll::Pascal, |r| r.value);
    let fields: Vec<Field<'_>> = named
        .named
        .iter()
        .filter_map(|f| field(cx, f, rename_all))
        .collect();
    let (partition_key, row_key) = key_parts(&attrs, &fields);
    Some(Container {
        ident: &input.ident,
        vis: &input.vis,
        attrs,
        fields,
        partition_key,
        row_key,
    })
}

fn field<'a>(cx: &Ctxt, f: &'a syn::Field, rename_all: RenameAll) -> Option<Field<'a>> {
    let ident = f.ident.as_ref()?;
    let attrs = attr::field_attrs(cx, f);
    let (value_ty, optional) = match option_inner(&f.ty) {
        Some(inner) => (inner, true),
        None => (&f.ty, false),
    };
    let (stored_name, stored_span) = match &attrs.rename {
        Some(r) => (r.value.clone(), r.span),
        None => (rename_all.apply(&ident.to_string()), ident.span()),
    };
    Some(Field {
        ident,
        ty: &f.ty,
        value_ty,
        optional,
        kind: type_kind(value_ty),
        stored_name,
        stored_span,
        attrs,
    })
}

/// `T` of `Option<T>`.
fn option_inner(ty: &Type) -> Option<&Type> {
    let Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    single_generic(last)
}

fn single_generic(segment: &syn::PathSegment) -> Option<&Type> {
    let syn::PathArguments::AngleBracketed(args) = &segment.arguments else {
        return None;
    };
    match args.args.first() {
        Some(syn::GenericArgument::Type(t)) if args.args.len() == 1 => Some(t),
        _ => None,
    }
}

/// Classifies a type by its last path segment (the derive cannot resolve names; the trait
/// bounds in the generated code are the final word).
pub(crate) fn type_kind(ty: &Type) -> TypeKind {
    let Type::Path(p) = ty else {
        return TypeKind::Unsupported;
    };
    if p.qself.is_some() {
        return TypeKind::User;
    }
    let Some(last) = p.path.segments.last() else {
        return TypeKind::Unsupported;
    };
    let name = last.ident.to_string();
    match name.as_str() {
        "bool" => TypeKind::Known("bool"),
        "i32" => TypeKind::Known("i32"),
        "i64" => TypeKind::Known("i64"),
        "u32" => TypeKind::Known("u32"),
        "u64" => TypeKind::Known("u64"),
        "f64" => TypeKind::Known("f64"),
        "String" => TypeKind::Known("String"),
        "DateTime" => TypeKind::Known("DateTime"),
        "Uuid" => TypeKind::Known("Uuid"),
        "Vec" => match single_generic(last) {
            Some(Type::Path(inner)) if inner.path.is_ident("u8") => TypeKind::Bytes,
            _ => TypeKind::List,
        },
        "u8" | "u16" | "i8" | "i16" | "i128" | "u128" | "usize" | "isize" | "f32" | "char"
        | "str" | "HashMap" | "BTreeMap" | "HashSet" | "BTreeSet" | "VecDeque" | "Box" | "Rc"
        | "Arc" | "Option" => TypeKind::Unsupported,
        _ => TypeKind::User,
    }
}

/// The key parts declared by fields and by the container, in declaration order (ordering and
/// checks happen in `check`).
fn key_parts(attrs: &ContainerAttrs, fields: &[Field<'_>]) -> (Vec<KeyPart>, Vec<KeyPart>) {
    let mut pk = Vec::new();
    let mut rk = Vec::new();
    for (index, f) in fields.iter().enumerate() {
        for (role, out) in [
            (&f.attrs.partition_key, &mut pk),
            (&f.attrs.row_key, &mut rk),
        ] {
            let Some(role) = role else { continue };
            let (format, format_span) = match (&role.format, &f.attrs.format) {
                (Some(own), _) | (None, Some(own)) => (own.value.clone(), own.span),
                (None, None) => (KeyFormat::Plain, role.span),
            };
            out.push(KeyPart {
                source: PartSource::Field(index),
                format,
                format_span,
                order: role.order.as_ref().map(|o| o.value),
                span: role.span,
            });
        }
    }
    for c in &attrs.constants {
        let part = KeyPart {
            source: PartSource::Constant(c.value.value()),
            format: KeyFormat::Plain,
            format_span: c.value.span(),
            order: c.order.as_ref().map(|o| o.value),
            span: c.value.span(),
        };
        if c.row_key {
            rk.push(part);
        } else {
            pk.push(part);
        }
    }
    (pk, rk)
}

/// Sorts parts by `order` (parts without one keep declaration order after ordered ones).
pub(crate) fn sort_parts(parts: &mut [KeyPart]) {
    parts.sort_by_key(|p| p.order.unwrap_or(u32::MAX));
}

/// The span of a type, for `quote_spanned!`.
pub(crate) fn type_span(ty: &Type) -> Span {
    ty.span()
}
