//! Parsing of `#[tablekit(..)]` on the struct and its fields into spanned values. Parsing
//! checks only what a value must look like (a string, an integer, a known date pattern);
//! rules between attributes are `check`'s.

use quote::ToTokens as _;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned as _;
use syn::{Expr, LitStr};
use tablekit_rules::KeyFormat;
// The runtime's `spread::MAX_ROWS` and `spread::CHUNKS_PER_ROW` are these same constants.
use tablekit_rules::{SPREAD_CHUNKS_PER_ROW as CHUNKS_PER_ROW, SPREAD_MAX_ROWS as MAX_ROWS};

use super::role::KeyRole;
use crate::internals::attr::{self, Attr, Spanned};
use crate::internals::ctxt::Ctxt;
use crate::internals::symbol::{self, Symbol, *};

const CONTAINER_KEYS: &[Symbol] = &[
    TABLE,
    KIND,
    KIND_PROPERTY,
    KIND_PREFIX,
    RENAME_ALL,
    KEY_SEPARATOR,
    PARTITION_KEY,
    ROW_KEY,
    CRATE,
];
const FIELD_KEYS: &[Symbol] = &[
    RENAME,
    RENAME_FROM,
    SKIP,
    DEFAULT,
    PARTITION_KEY,
    ROW_KEY,
    KEY_ONLY,
    INDEX,
    FLATTEN,
];
const INDEX_KEYS: &[Symbol] = &[NAME, UNIQUE, PARTITION, TABLE];
const STORAGE_KEYS: &[Symbol] = &[RECORDS, SPLIT, JSON];
const CONSTANT_KEYS: &[Symbol] = &[CONSTANT, ORDER];

/// A key format, as parsed: `KeyFormat<String>` owns its date pattern.
pub(crate) type Format = KeyFormat<String>;

/// `partition_key` / `row_key` on a field, with its options.
#[derive(Clone, Debug)]
pub(crate) struct RoleAttr {
    pub(crate) role: KeyRole,
    pub(crate) span: proc_macro2::Span,
    pub(crate) order: Option<Spanned<u32>>,
    pub(crate) format: Option<Spanned<Format>>,
}

/// `records(..)`, `split(..)` or `json` on a field. With `rows = n` the value spreads over
/// up to `n` continuation rows, and `max_properties` is the chunks that allows in all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StorageAttr {
    Records {
        max_properties: usize,
        rows: Option<usize>,
    },
    Split {
        max_properties: usize,
        rows: Option<usize>,
    },
    Json,
}

/// Everything `#[tablekit(..)]` says about one field.
pub(crate) struct FieldAttrs {
    pub(crate) rename: Option<Spanned<String>>,
    pub(crate) rename_from: Vec<Spanned<String>>,
    pub(crate) skip: Option<Spanned<()>>,
    /// `default` (None inside) or `default = expr`.
    pub(crate) default: Option<Spanned<Option<Expr>>>,
    pub(crate) key_only: Option<Spanned<()>>,
    /// At most one per role, in the order written.
    pub(crate) roles: Vec<RoleAttr>,
    /// A format beside the roles: it applies to every role of the field.
    pub(crate) format: Option<Spanned<Format>>,
    pub(crate) storage: Option<Spanned<StorageAttr>>,
    /// `index`, `index(unique)`, `index(name = "..")`.
    pub(crate) index: Option<Spanned<IndexAttr>>,
    /// `flatten`, or `flatten(prefix = "Ship")` with its prefix.
    pub(crate) flatten: Option<Spanned<Option<String>>>,
}

/// `index(..)` on a field: a secondary index on its property.
#[derive(Clone, Debug, Default)]
pub(crate) struct IndexAttr {
    pub(crate) name: Option<LitStr>,
    pub(crate) unique: bool,
    /// `partition = ".."`: an inter-partition index kept in this partition.
    pub(crate) partition: Option<LitStr>,
    /// `table = ".."`: an index kept in this table.
    pub(crate) table: Option<LitStr>,
}

/// A constant key part declared on the struct.
#[derive(Clone, Debug)]
pub(crate) struct ConstantAttr {
    pub(crate) role: KeyRole,
    pub(crate) value: LitStr,
    pub(crate) order: Option<Spanned<u32>>,
}

/// Everything `#[tablekit(..)]` says about the struct.
pub(crate) struct ContainerAttrs {
    pub(crate) table: Option<LitStr>,
    /// `kind = "Order"`: the value of the discriminating property.
    pub(crate) kind: Option<LitStr>,
    /// `kind_property = "Type"`: the discriminating property (`Kind` without it).
    pub(crate) kind_property: Option<LitStr>,
    /// `kind_prefix = "R_"`: the kind is told by this RowKey prefix, not a property.
    pub(crate) kind_prefix: Option<LitStr>,
    pub(crate) rename_all: Option<RenameAll>,
    pub(crate) key_separator: Option<LitStr>,
    pub(crate) constants: Vec<ConstantAttr>,
    /// `crate = "path"`: where generated code finds tablekit.
    pub(crate) krate: Option<syn::Path>,
}

/// `rename_all = "..."`: how field names become stored names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RenameAll {
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Verbatim,
}

impl RenameAll {
    pub(crate) fn apply(self, field: &str) -> String {
        use heck::{ToLowerCamelCase, ToShoutySnakeCase, ToSnakeCase, ToUpperCamelCase};
        let field = field.strip_prefix("r#").unwrap_or(field);
        match self {
            RenameAll::Pascal => field.to_upper_camel_case(),
            RenameAll::Camel => field.to_lower_camel_case(),
            RenameAll::Snake => field.to_snake_case(),
            RenameAll::ScreamingSnake => field.to_shouty_snake_case(),
            RenameAll::Verbatim => field.to_owned(),
        }
    }

    fn parse(cx: &Ctxt, s: &LitStr) -> Option<Self> {
        Some(match s.value().as_str() {
            "PascalCase" => RenameAll::Pascal,
            "camelCase" => RenameAll::Camel,
            "snake_case" => RenameAll::Snake,
            "SCREAMING_SNAKE_CASE" => RenameAll::ScreamingSnake,
            "verbatim" => RenameAll::Verbatim,
            other => {
                cx.error_spanned_by(
                    s,
                    format!("unknown `rename_all` case `{other}`, expected one of `PascalCase`, `camelCase`, `snake_case`, `SCREAMING_SNAKE_CASE`, `verbatim`"),
                );
                return None;
            }
        })
    }
}

fn unknown(cx: &Ctxt, meta: &ParseNestedMeta<'_>, valid: &[&[Symbol]]) {
    attr::unknown(cx, meta, TABLEKIT, &symbol::list(valid));
}

/// Parses a key format (`inverted_ticks`, `pad = 10`, ...); `None` when `meta` is not one,
/// `Some(None)` when it is one with a bad value (already reported).
fn key_format(cx: &Ctxt, meta: &ParseNestedMeta<'_>) -> Option<Option<Format>> {
    let path = &meta.path;
    Some(if path == INVERTED_TICKS {
        // row_key(inverted_ticks)
        Some(KeyFormat::InvertedTicks)
    } else if path == TICKS {
        // row_key(ticks)
        Some(KeyFormat::Ticks)
    } else if path == INVERTED {
        // row_key(inverted)
        Some(KeyFormat::Inverted)
    } else if path == PAD {
        // row_key(pad = 10)
        attr::lit_int::<usize>(cx, meta, PAD, "10").map(KeyFormat::Pad)
    } else if path == TRANSFORM {
        // transform = lowercase
        transform(cx, meta)
    } else if path == FORMAT {
        // format = "yyyyMMdd" / format = "inverted_year_month"
        attr::lit_str(cx, meta, FORMAT, "yyyyMMdd").and_then(|s| date_format(cx, &s))
    } else {
        return None;
    })
}

/// `transform = lowercase`, `uppercase`, or the path of a user function `fn(&T) -> String`.
fn transform(cx: &Ctxt, meta: &ParseNestedMeta<'_>) -> Option<Format> {
    match attr::expr(cx, meta)? {
        Expr::Path(p) if p.path == LOWERCASE => Some(KeyFormat::Lowercase),
        Expr::Path(p) if p.path == UPPERCASE => Some(KeyFormat::Uppercase),
        Expr::Path(p) if p.qself.is_none() => {
            Some(KeyFormat::Function(p.path.to_token_stream().to_string()))
        }
        other => {
            cx.error_spanned_by(
                other,
                "unknown key transform, expected `transform = lowercase`, `transform = uppercase` or `transform = path::to::function` (a `fn(&T) -> String`)",
            );
            None
        }
    }
}

fn date_format(cx: &Ctxt, s: &LitStr) -> Option<Format> {
    match KeyFormat::from_format(s.value()) {
        Ok(format) => Some(format),
        Err(reason) => {
            cx.error_spanned_by(
                s,
                format!(
                    "invalid key format `{}`: {reason}; expected `inverted_year_month`, `ticks`, `inverted_ticks` or a date pattern such as `yyyyMMdd`",
                    s.value()
                ),
            );
            None
        }
    }
}

/// `partition_key` alone or `partition_key(order = n, <format>)` on a field.
fn role(cx: &Ctxt, meta: &ParseNestedMeta<'_>, role: KeyRole) -> RoleAttr {
    let mut order = Attr::none(cx, TABLEKIT, ORDER.as_str());
    let mut format = Attr::none(cx, TABLEKIT, "key format");
    if meta.input.peek(syn::token::Paren) {
        attr::each_nested(cx, meta, |m| {
            let span = m.path.span();
            if m.path == ORDER {
                // partition_key(order = 1)
                if let Some(n) = attr::lit_int::<u32>(cx, m, ORDER, "0") {
                    order.set(span, n);
                }
            } else if let Some(f) = key_format(cx, m) {
                if let Some(f) = f {
                    format.set(span, f);
                }
            } else {
                unknown(cx, m, &[&[ORDER], FORMATS]);
            }
        });
    }
    RoleAttr {
        role,
        span: meta.path.span(),
        order: order.get(),
        format: format.get(),
    }
}

/// The bound of `records(..)` / `split(..)`: `max_properties = n` (one entity), or
/// `rows = n` (continuation rows), never both; the chunk count it allows and the rows.
fn bound(cx: &Ctxt, meta: &ParseNestedMeta<'_>, key: Symbol) -> Option<(usize, Option<usize>)> {
    let mut max = None;
    let mut rows = None;
    attr::each_nested(cx, meta, |m| {
        if m.path == MAX_PROPERTIES {
            max = attr::lit_int::<usize>(cx, m, MAX_PROPERTIES, "4");
        } else if m.path == ROWS {
            rows = Some(attr::lit_int::<usize>(cx, m, ROWS, "2"));
        } else {
            unknown(cx, m, &[&[MAX_PROPERTIES, ROWS]]);
        }
    });
    let Some(rows) = rows else {
        return max_properties(cx, meta, key, max).map(|n| (n, None));
    };
    if max.is_some() {
        cx.error_spanned_by(
            &meta.path,
            format!("`{key}` takes `max_properties` (one entity) or `rows` (continuation rows), not both"),
        );
        return None;
    }
    match rows? {
        rows @ 1..=MAX_ROWS => Some((1 + rows * CHUNKS_PER_ROW, Some(rows))),
        rows => {
            cx.error_spanned_by(
                &meta.path,
                format!("`{key}(rows = {rows})`: a value spreads over 1 to {MAX_ROWS} continuation rows"),
            );
            None
        }
    }
}

/// Checks `max_properties = n` of `records(..)` / `split(..)`.
fn max_properties(
    cx: &Ctxt,
    meta: &ParseNestedMeta<'_>,
    key: Symbol,
    max: Option<usize>,
) -> Option<usize> {
    match max {
        Some(0) => {
            cx.error_spanned_by(
                &meta.path,
                format!("`{key}` needs `max_properties` of at least 1"),
            );
            None
        }
        Some(n) => Some(n),
        None => {
            cx.error_spanned_by(
                &meta.path,
                format!("`{key}` needs a bound: `{key}(max_properties = 4)` or `{key}(rows = 2)`"),
            );
            None
        }
    }
}

/// Parses every `#[tablekit(..)]` on a field.
pub(crate) fn field(cx: &Ctxt, field: &syn::Field) -> FieldAttrs {
    let mut rename = Attr::none(cx, TABLEKIT, RENAME.as_str());
    let mut rename_from = Vec::new();
    let mut skip = Attr::none(cx, TABLEKIT, SKIP.as_str());
    let mut default = Attr::none(cx, TABLEKIT, DEFAULT.as_str());
    let mut key_only = Attr::none(cx, TABLEKIT, KEY_ONLY.as_str());
    let mut roles: Vec<RoleAttr> = Vec::new();
    let mut format = Attr::none(cx, TABLEKIT, "key format");
    let mut storage = Attr::none(cx, TABLEKIT, "storage (`records`, `split`, `json`)");
    let mut index_attr = Attr::none(cx, TABLEKIT, INDEX.as_str());
    let mut flatten = Attr::none(cx, TABLEKIT, FLATTEN.as_str());
    attr::each_meta(cx, &field.attrs, TABLEKIT, |meta| {
        let span = meta.path.span();
        let path = &meta.path;
        if path == RENAME {
            // #[tablekit(rename = "GamerTag")]
            if let Some(s) = attr::lit_str(cx, meta, RENAME, "GamerTag") {
                rename.set(s.span(), s.value());
            }
        } else if path == RENAME_FROM {
            // #[tablekit(rename_from = "OldName")]
            if let Some(s) = attr::lit_str(cx, meta, RENAME_FROM, "OldName") {
                rename_from.push(Spanned {
                    value: s.value(),
                    span: s.span(),
                });
            }
        } else if path == SKIP {
            // #[tablekit(skip)]
            skip.set(span, ());
        } else if path == DEFAULT {
            // #[tablekit(default)] or #[tablekit(default = expr)]
            if meta.input.peek(syn::Token![=]) {
                if let Some(e) = attr::expr(cx, meta) {
                    default.set(span, Some(e));
                }
            } else {
                default.set(span, None);
            }
        } else if path == KEY_ONLY {
            // #[tablekit(key_only)]
            key_only.set(span, ());
        } else if let Some(r) = KeyRole::ALL.into_iter().find(|r| path == r.symbol()) {
            // #[tablekit(partition_key)] or partition_key(order = n, <format>)
            let parsed = role(cx, meta, r);
            if roles.iter().any(|other| other.role == r) {
                cx.error_at(
                    span,
                    format!("duplicate tablekit attribute `{}`", r.symbol()),
                );
            } else {
                roles.push(parsed);
            }
        } else if path == RECORDS {
            // #[tablekit(records(max_properties = 4))] or records(rows = 2)
            if let Some((max_properties, rows)) = bound(cx, meta, RECORDS) {
                storage.set(
                    span,
                    StorageAttr::Records {
                        max_properties,
                        rows,
                    },
                );
            }
        } else if path == SPLIT {
            // #[tablekit(split(max_properties = 4))] or split(rows = 2)
            if let Some((max_properties, rows)) = bound(cx, meta, SPLIT) {
                storage.set(
                    span,
                    StorageAttr::Split {
                        max_properties,
                        rows,
                    },
                );
            }
        } else if path == JSON {
            // #[tablekit(json)]
            storage.set(span, StorageAttr::Json);
        } else if path == INDEX {
            // #[tablekit(index)] or index(unique, name = "by_email")
            index_attr.set(span, index(cx, meta));
        } else if path == FLATTEN {
            // #[tablekit(flatten)] or #[tablekit(flatten(prefix = "Ship"))]
            flatten.set(span, flatten_prefix(cx, meta));
        } else if let Some(f) = key_format(cx, meta) {
            // #[tablekit(transform = lowercase)] and the other formats, for every key role
            if let Some(f) = f {
                format.set(span, f);
            }
        } else {
            unknown(cx, meta, &[FIELD_KEYS, FORMATS, STORAGE_KEYS]);
        }
    });
    FieldAttrs {
        rename: rename.get(),
        rename_from,
        skip: skip.get(),
        default: default.get(),
        key_only: key_only.get(),
        roles,
        format: format.get(),
        storage: storage.get(),
        index: index_attr.get(),
        flatten: flatten.get(),
    }
}

/// `index` alone or `index(unique, name = "..")`.
fn index(cx: &Ctxt, meta: &ParseNestedMeta<'_>) -> IndexAttr {
    let mut parsed = IndexAttr::default();
    if meta.input.peek(syn::token::Paren) {
        attr::each_nested(cx, meta, |m| {
            if m.path == UNIQUE {
                parsed.unique = true;
            } else if m.path == NAME {
                parsed.name = attr::lit_str(cx, m, NAME, "by_email");
            } else if m.path == PARTITION {
                parsed.partition = attr::lit_str(cx, m, PARTITION, "ByEmail");
            } else if m.path == TABLE {
                parsed.table = attr::lit_str(cx, m, TABLE, "EmployeeIndex");
            } else {
                unknown(cx, m, &[INDEX_KEYS]);
            }
        });
    }
    parsed
}

/// The prefix of `flatten(prefix = "Ship")`; `None` for a bare `flatten`.
fn flatten_prefix(cx: &Ctxt, meta: &ParseNestedMeta<'_>) -> Option<String> {
    let mut prefix = None;
    if meta.input.peek(syn::token::Paren) {
        attr::each_nested(cx, meta, |m| {
            if m.path == PREFIX {
                prefix = attr::lit_str(cx, m, PREFIX, "Ship").map(|s| s.value());
            } else {
                unknown(cx, m, &[&[PREFIX]]);
            }
        });
    }
    prefix
}

/// Parses every `#[tablekit(..)]` on the struct.
pub(crate) fn container(cx: &Ctxt, input: &syn::DeriveInput) -> ContainerAttrs {
    let mut table = Attr::none(cx, TABLEKIT, TABLE.as_str());
    let mut kind = Attr::none(cx, TABLEKIT, KIND.as_str());
    let mut kind_property = Attr::none(cx, TABLEKIT, KIND_PROPERTY.as_str());
    let mut kind_prefix = Attr::none(cx, TABLEKIT, KIND_PREFIX.as_str());
    let mut rename_all = Attr::none(cx, TABLEKIT, RENAME_ALL.as_str());
    let mut key_separator = Attr::none(cx, TABLEKIT, KEY_SEPARATOR.as_str());
    let mut krate = Attr::none(cx, TABLEKIT, CRATE.as_str());
    let mut constants = Vec::new();
    attr::each_meta(cx, &input.attrs, TABLEKIT, |meta| {
        let span = meta.path.span();
        let path = &meta.path;
        if path == TABLE {
            // #[tablekit(table = "Gamers")]
            if let Some(s) = attr::lit_str(cx, meta, TABLE, "Gamers") {
                table.set(span, s);
            }
        } else if path == KIND {
            // #[tablekit(kind = "Order")]
            if let Some(s) = attr::lit_str(cx, meta, KIND, "Order") {
                kind.set(span, s);
            }
        } else if path == KIND_PREFIX {
            // #[tablekit(kind_prefix = "R_")]
            if let Some(s) = attr::lit_str(cx, meta, KIND_PREFIX, "R_") {
                kind_prefix.set(span, s);
            }
        } else if path == KIND_PROPERTY {
            // #[tablekit(kind_property = "Kind")]
            if let Some(s) = attr::lit_str(cx, meta, KIND_PROPERTY, "Kind") {
                kind_property.set(span, s);
            }
        } else if path == RENAME_ALL {
            // #[tablekit(rename_all = "PascalCase")]
            if let Some(s) = attr::lit_str(cx, meta, RENAME_ALL, "PascalCase") {
                if let Some(r) = RenameAll::parse(cx, &s) {
                    rename_all.set(span, r);
                }
            }
        } else if path == KEY_SEPARATOR {
            // #[tablekit(key_separator = "_")]
            if let Some(s) = attr::lit_str(cx, meta, KEY_SEPARATOR, "_") {
                key_separator.set(span, s);
            }
        } else if path == CRATE {
            // #[tablekit(crate = "::my_crate::tablekit")]
            if let Some(p) = attr::crate_path(cx, meta, CRATE) {
                krate.set(span, p);
            }
        } else if let Some(role) = KeyRole::ALL.into_iter().find(|r| path == r.symbol()) {
            // #[tablekit(row_key(constant = "profile", order = 0))]
            if let Some(c) = constant(cx, meta, role) {
                constants.push(c);
            }
        } else {
            unknown(cx, meta, &[CONTAINER_KEYS]);
        }
    });
    ContainerAttrs {
        table: table.get().map(|s| s.value),
        kind: kind.get().map(|s| s.value),
        kind_property: kind_property.get().map(|s| s.value),
        kind_prefix: kind_prefix.get().map(|s| s.value),
        rename_all: rename_all.get().map(|s| s.value),
        key_separator: key_separator.get().map(|s| s.value),
        constants,
        krate: krate.get().map(|s| s.value),
    }
}

fn constant(cx: &Ctxt, meta: &ParseNestedMeta<'_>, role: KeyRole) -> Option<ConstantAttr> {
    let mut value = Attr::none(cx, TABLEKIT, CONSTANT.as_str());
    let mut order = Attr::none(cx, TABLEKIT, ORDER.as_str());
    attr::each_nested(cx, meta, |m| {
        let span = m.path.span();
        if m.path == CONSTANT {
            if let Some(s) = attr::lit_str(cx, m, CONSTANT, "profile") {
                value.set(span, s);
            }
        } else if m.path == ORDER {
            if let Some(n) = attr::lit_int::<u32>(cx, m, ORDER, "0") {
                order.set(span, n);
            }
        } else {
            unknown(cx, m, &[CONSTANT_KEYS]);
        }
    });
    match value.get() {
        Some(v) => Some(ConstantAttr {
            role,
            value: v.value,
            order: order.get(),
        }),
        None => {
            cx.error_spanned_by(
                &meta.path,
                format!(
                    "a key on the struct is a constant part: `{}(constant = \"profile\")`",
                    role.symbol()
                ),
            );
            None
        }
    }
}
