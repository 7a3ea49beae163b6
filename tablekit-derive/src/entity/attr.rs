//! Parsing of `#[tablekit(..)]` attributes into plain data. Parsing never emits code.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned as _;
use syn::{Expr, Lit, LitStr};

use super::ctxt::Ctxt;

const FIELD_KEYS: &str = "`rename`, `rename_from`, `skip`, `default`, `partition_key`, `row_key`, `key_only`, `transform`, `inverted_ticks`, `ticks`, `inverted`, `pad`, `format`, `records`, `split`, `json`";
const CONTAINER_KEYS: &str =
    "`table`, `kind`, `kind_property`, `rename_all`, `key_separator`, `partition_key`, `row_key`";
const ROLE_KEYS: &str =
    "`order`, `inverted_ticks`, `ticks`, `inverted`, `pad`, `transform`, `format`";
const CONSTANT_KEYS: &str = "`constant`, `order`";

/// How one key part is written.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum KeyFormat {
    /// The value's own text (`KeyPart`).
    Plain,
    /// `transform = lowercase`.
    Lowercase,
    /// `ticks`.
    Ticks,
    /// `inverted_ticks`.
    InvertedTicks,
    /// `pad = n`.
    Pad(usize),
    /// `inverted`.
    Inverted,
    /// `format = "yyyyMMdd"`.
    Date(String),
    /// `format = "inverted_year_month"`.
    InvertedYearMonth,
}

impl KeyFormat {
    /// Whether the value can be read back from the part (for `key_only`).
    pub(crate) fn is_reversible(&self) -> bool {
        matches!(
            self,
            KeyFormat::Plain
                | KeyFormat::Ticks
                | KeyFormat::InvertedTicks
                | KeyFormat::Pad(_)
                | KeyFormat::Inverted
        )
    }

    pub(crate) fn describe(&self) -> String {
        match self {
            KeyFormat::Plain => "plain".into(),
            KeyFormat::Lowercase => "transform = lowercase".into(),
            KeyFormat::Ticks => "ticks".into(),
            KeyFormat::InvertedTicks => "inverted_ticks".into(),
            KeyFormat::Pad(n) => format!("pad = {n}"),
            KeyFormat::Inverted => "inverted".into(),
            KeyFormat::Date(p) => format!("format = \"{p}\""),
            KeyFormat::InvertedYearMonth => "format = \"inverted_year_month\"".into(),
        }
    }
}

/// A value with the span of the attribute that set it.
#[derive(Clone, Debug)]
pub(crate) struct Spanned<T> {
    pub(crate) value: T,
    pub(crate) span: Span,
}

/// One attribute value that may be given at most once.
struct Once<T> {
    name: &'static str,
    value: Option<Spanned<T>>,
}

impl<T> Once<T> {
    fn new(name: &'static str) -> Self {
        Once { name, value: None }
    }

    /// Sets the value; a second occurrence is an error at that occurrence.
    fn set(&mut self, cx: &Ctxt, span: Span, value: T) {
        if self.value.is_some() {
            cx.error_at(
                span,
                format!("duplicate tablekit attribute `{}`", self.name),
            );
        } else {
            self.value = Some(Spanned { value, span });
        }
    }

    fn get(self) -> Option<Spanned<T>> {
        self.value
    }
}

/// Where a key role (`partition_key` / `row_key`) puts the field.
#[derive(Clone, Debug)]
pub(crate) struct KeyRole {
    pub(crate) span: Span,
    pub(crate) order: Option<Spanned<u32>>,
    pub(crate) format: Option<Spanned<KeyFormat>>,
}

/// How a field is stored.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum FieldStorage {
    /// One property holding the value.
    Value,
    /// `records(max_properties = n)`.
    Records(usize),
    /// `split(max_properties = n)`.
    Split(usize),
    /// `json`.
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
    pub(crate) partition_key: Option<KeyRole>,
    pub(crate) row_key: Option<KeyRole>,
    /// A format given outside the role parentheses: applies to every role of the field.
    pub(crate) format: Option<Spanned<KeyFormat>>,
    pub(crate) storage: Option<Spanned<FieldStorage>>,
}

/// A constant key part declared on the container.
#[derive(Clone, Debug)]
pub(crate) struct ConstantPart {
    pub(crate) row_key: bool,
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
    pub(crate) rename_all: Option<Spanned<RenameAll>>,
    pub(crate) key_separator: Option<LitStr>,
    pub(crate) constants: Vec<ConstantPart>,
}

/// `rename_all = "..."`.
#[derive(Clone, Copy, Debug, PartialEq)]
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
}

fn is_tablekit(attr: &syn::Attribute) -> bool {
    attr.path().is_ident("tablekit")
}

/// A string literal value, or an error saying the attribute takes one.
fn lit_str(cx: &Ctxt, meta: &ParseNestedMeta<'_>, name: &str, example: &str) -> Option<LitStr> {
    let expr: Expr = match meta.value().and_then(|v| v.parse()) {
        Ok(e) => e,
        Err(e) => {
            cx.syn_error(e);
            return None;
        }
    };
    match &expr {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Str(s), ..
        }) => Some(s.clone()),
        other => {
            cx.error_spanned_by(
                other,
                format!("`{name}` takes a string literal, e.g. `{name} = \"{example}\"`"),
            );
            None
        }
    }
}

/// An integer literal value, or an error saying the attribute takes one.
fn lit_int<N: std::str::FromStr>(cx: &Ctxt, meta: &ParseNestedMeta<'_>, name: &str) -> Option<N>
where
    N::Err: std::fmt::Display,
{
    let expr: Expr = match meta.value().and_then(|v| v.parse()) {
        Ok(e) => e,
        Err(e) => {
            cx.syn_error(e);
            return None;
        }
    };
    match &expr {
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
                format!("`{name}` takes an integer literal, e.g. `{name} = 4`"),
            );
            None
        }
    }
}

/// Skips whatever follows an attribute key we already reported, so parsing goes on.
fn skip_rest(meta: &ParseNestedMeta<'_>) {
    if meta.input.peek(syn::Token![=]) {
        let _ = meta.value().and_then(|v| v.parse::<Expr>());
    } else if meta.input.peek(syn::token::Paren) {
        let _ = meta.parse_nested_meta(|m| {
            skip_rest(&m);
            Ok(())
        });
    }
}

fn unknown(cx: &Ctxt, meta: &ParseNestedMeta<'_>, valid: &str) {
    let name = meta
        .path
        .get_ident()
        .map(ToString::to_string)
        .unwrap_or_else(|| {
            let path = &meta.path;
            quote::quote!(#path).to_string().replace(' ', "")
        });
    cx.error_spanned_by(
        &meta.path,
        format!("unknown tablekit attribute `{name}`, expected one of {valid}"),
    );
    skip_rest(meta);
}

/// Parses a key format key (`inverted_ticks`, `pad = 10`, ...); `None` when `meta` is not one.
fn key_format(cx: &Ctxt, meta: &ParseNestedMeta<'_>) -> Option<Option<KeyFormat>> {
    let path = &meta.path;
    if path.is_ident("inverted_ticks") {
        // #[tablekit(row_key(inverted_ticks))]
        Some(Some(KeyFormat::InvertedTicks))
    } else if path.is_ident("ticks") {
        // #[tablekit(row_key(ticks))]
        Some(Some(KeyFormat::Ticks))
    } else if path.is_ident("inverted") {
        // #[tablekit(row_key(inverted))]
        Some(Some(KeyFormat::Inverted))
    } else if path.is_ident("pad") {
        // #[tablekit(row_key(pad = 10))]
        Some(lit_int::<usize>(cx, meta, "pad").map(KeyFormat::Pad))
    } else if path.is_ident("transform") {
        // #[tablekit(transform = lowercase)]
        Some(transform(cx, meta))
    } else if path.is_ident("format") {
        // #[tablekit(format = "yyyyMMdd")] / format = "inverted_year_month"
        let s = lit_str(cx, meta, "format", "yyyyMMdd")?;
        Some(date_format(cx, &s))
    } else {
        None
    }
}

fn transform(cx: &Ctxt, meta: &ParseNestedMeta<'_>) -> Option<KeyFormat> {
    let expr: Expr = match meta.value().and_then(|v| v.parse()) {
        Ok(e) => e,
        Err(e) => {
            cx.syn_error(e);
            return None;
        }
    };
    match &expr {
        Expr::Path(p) if p.path.is_ident("lowercase") => Some(KeyFormat::Lowercase),
        other => {
            cx.error_spanned_by(
                other,
                "unknown key transform, expected `transform = lowercase`",
            );
            None
        }
    }
}

fn date_format(cx: &Ctxt, s: &LitStr) -> Option<KeyFormat> {
    let text = s.value();
    match text.as_str() {
        "inverted_year_month" => Some(KeyFormat::InvertedYearMonth),
        "ticks" => Some(KeyFormat::Ticks),
        "inverted_ticks" => Some(KeyFormat::InvertedTicks),
        _ if is_date_pattern(&text) => Some(KeyFormat::Date(text)),
        _ => {
            cx.error_spanned_by(
                s,
                format!("invalid key format `{text}`, expected `inverted_year_month`, `ticks`, `inverted_ticks` or a date pattern of `yyyy`, `MM`, `dd`, `HH`, `mm`, `ss`"),
            );
            None
        }
    }
}

/// The same grammar as `tablekit::keys::is_valid_date_format`, checked at compile time.
fn is_date_pattern(pattern: &str) -> bool {
    let mut rest = pattern;
    let mut any = false;
    'outer: while let Some(c) = rest.chars().next() {
        for token in ["yyyy", "MM", "dd", "HH", "mm", "ss"] {
            if let Some(after) = rest.strip_prefix(token) {
                rest = after;
                any = true;
                continue 'outer;
            }
        }
        if c.is_alphabetic() || c == '%' || tablekit_forbidden(c) {
            return false;
        }
        rest = &rest[c.len_utf8()..];
    }
    any
}

/// The characters the service forbids in keys (as `tablekit::limits::is_forbidden_key_char`).
pub(crate) fn tablekit_forbidden(c: char) -> bool {
    matches!(c, '/' | '\\' | '#' | '?' | '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}')
}

/// `partition_key` alone or `partition_key(order = n, <format>)` on a field.
fn key_role(cx: &Ctxt, meta: &ParseNestedMeta<'_>) -> KeyRole {
    let mut order = Once::new("order");
    let mut format = Once::new("key format");
    if meta.input.peek(syn::token::Paren) {
        let result = meta.parse_nested_meta(|m| {
            let span = m.path.span();
            if m.path.is_ident("order") {
                // partition_key(order = 1)
                if let Some(n) = lit_int::<u32>(cx, &m, "order") {
                    order.set(cx, span, n);
                }
            } else if let Some(f) = key_format(cx, &m) {
                if let Some(f) = f {
                    format.set(cx, span, f);
                }
            } else {
                unknown(cx, &m, ROLE_KEYS);
            }
            Ok(())
        });
        if let Err(e) = result {
            cx.syn_error(e);
        }
    }
    KeyRole {
        span: meta.path.span(),
        order: order.get(),
        format: format.get(),
    }
}

/// `records(max_properties = n)` / `split(max_properties = n)`.
fn max_properties(cx: &Ctxt, meta: &ParseNestedMeta<'_>, name: &str) -> Option<usize> {
    let mut max = None;
    let result = meta.parse_nested_meta(|m| {
        if m.path.is_ident("max_properties") {
            max = lit_int::<usize>(cx, &m, "max_properties");
        } else {
            unknown(cx, &m, "`max_properties`");
        }
        Ok(())
    });
    if let Err(e) = result {
        cx.syn_error(e);
    }
    match max {
        Some(0) => {
            cx.error_spanned_by(
                &meta.path,
                format!("`{name}` needs `max_properties` of at least 1"),
            );
            None
        }
        Some(n) => Some(n),
        None => {
            cx.error_spanned_by(
                &meta.path,
                format!("`{name}` needs a bound: `{name}(max_properties = 4)`"),
            );
            None
        }
    }
}

/// Parses every `#[tablekit(..)]` on a field.
pub(crate) fn field_attrs(cx: &Ctxt, field: &syn::Field) -> FieldAttrs {
    let mut rename = Once::new("rename");
    let mut rename_from = Vec::new();
    let mut skip = Once::new("skip");
    let mut default = Once::new("default");
    let mut key_only = Once::new("key_only");
    let mut partition_key: Option<KeyRole> = None;
    let mut row_key: Option<KeyRole> = None;
    let mut format = Once::new("key format");
    let mut storage = Once::new("storage (`records`, `split`, `json`)");
    for attr in field.attrs.iter().filter(|a| is_tablekit(a)) {
        let result = attr.parse_nested_meta(|meta| {
            let span = meta.path.span();
            let path = &meta.path;
            if path.is_ident("rename") {
                // #[tablekit(rename = "GamerTag")]
                if let Some(s) = lit_str(cx, &meta, "rename", "GamerTag") {
                    rename.set(cx, s.span(), s.value());
                }
            } else if path.is_ident("rename_from") {
                // #[tablekit(rename_from = "OldName")]
                if let Some(s) = lit_str(cx, &meta, "rename_from", "OldName") {
                    rename_from.push(Spanned {
                        value: s.value(),
                        span: s.span(),
                    });
                }
            } else if path.is_ident("skip") {
                // #[tablekit(skip)]
                skip.set(cx, span, ());
            } else if path.is_ident("default") {
                // #[tablekit(default)] or #[tablekit(default = expr)]
                if meta.input.peek(syn::Token![=]) {
                    match meta.value().and_then(|v| v.parse::<Expr>()) {
                        Ok(e) => default.set(cx, span, Some(e)),
                        Err(e) => cx.syn_error(e),
                    }
                } else {
                    default.set(cx, span, None);
                }
            } else if path.is_ident("key_only") {
                // #[tablekit(key_only)]
                key_only.set(cx, span, ());
            } else if path.is_ident("partition_key") {
                // #[tablekit(partition_key)] or partition_key(order = n, <format>)
                let role = key_role(cx, &meta);
                if partition_key.is_some() {
                    cx.error_at(span, "duplicate tablekit attribute `partition_key`");
                } else {
                    partition_key = Some(role);
                }
            } else if path.is_ident("row_key") {
                // #[tablekit(row_key)] or row_key(order = n, <format>)
                let role = key_role(cx, &meta);
                if row_key.is_some() {
                    cx.error_at(span, "duplicate tablekit attribute `row_key`");
                } else {
                    row_key = Some(role);
                }
            } else if path.is_ident("records") {
                // #[tablekit(records(max_properties = 4))]
                if let Some(n) = max_properties(cx, &meta, "records") {
                    storage.set(cx, span, FieldStorage::Records(n));
                }
            } else if path.is_ident("split") {
                // #[tablekit(split(max_properties = 4))]
                if let Some(n) = max_properties(cx, &meta, "split") {
                    storage.set(cx, span, FieldStorage::Split(n));
                }
            } else if path.is_ident("json") {
                // #[tablekit(json)]
                storage.set(cx, span, FieldStorage::Json);
            } else if let Some(f) = key_format(cx, &meta) {
                // #[tablekit(transform = lowercase)] and the other formats, for every key role
                if let Some(f) = f {
                    format.set(cx, span, f);
                }
            } else {
                unknown(cx, &meta, FIELD_KEYS);
            }
            Ok(())
        });
        if let Err(e) = result {
            cx.syn_error(e);
        }
    }
    FieldAttrs {
        rename: rename.get(),
        rename_from,
        skip: skip.get(),
        default: default.get(),
        key_only: key_only.get(),
        partition_key,
        row_key,
        format: format.get(),
        storage: storage.get(),
    }
}

/// Parses every `#[tablekit(..)]` on the struct.
pub(crate) fn container_attrs(cx: &Ctxt, input: &syn::DeriveInput) -> ContainerAttrs {
    let mut table = Once::new("table");
    let mut kind = Once::new("kind");
    let mut kind_property = Once::new("kind_property");
    let mut rename_all = Once::new("rename_all");
    let mut key_separator = Once::new("key_separator");
    let mut constants = Vec::new();
    for attr in input.attrs.iter().filter(|a| is_tablekit(a)) {
        let result = attr.parse_nested_meta(|meta| {
            let span = meta.path.span();
            if meta.path.is_ident("table") {
                // #[tablekit(table = "Gamers")]
                if let Some(s) = lit_str(cx, &meta, "table", "Gamers") {
                    table.set(cx, span, s);
                }
            } else if meta.path.is_ident("kind") {
                // #[tablekit(kind = "Order")]
                if let Some(s) = lit_str(cx, &meta, "kind", "Order") {
                    kind.set(cx, span, s);
                }
            } else if meta.path.is_ident("kind_property") {
                // #[tablekit(kind_property = "Kind")]
                if let Some(s) = lit_str(cx, &meta, "kind_property", "Kind") {
                    kind_property.set(cx, span, s);
                }
            } else if meta.path.is_ident("rename_all") {
                // #[tablekit(rename_all = "PascalCase")]
                if let Some(s) = lit_str(cx, &meta, "rename_all", "PascalCase") {
                    if let Some(r) = rename_all_value(cx, &s) {
                        rename_all.set(cx, span, r);
                    }
                }
            } else if meta.path.is_ident("key_separator") {
                // #[tablekit(key_separator = "_")]
                if let Some(s) = lit_str(cx, &meta, "key_separator", "_") {
                    key_separator.set(cx, span, s);
                }
            } else if meta.path.is_ident("partition_key") || meta.path.is_ident("row_key") {
                // #[tablekit(row_key(constant = "profile", order = 0))]
                let row_key = meta.path.is_ident("row_key");
                if let Some(c) = constant_part(cx, &meta, row_key) {
                    constants.push(c);
                }
            } else {
                unknown(cx, &meta, CONTAINER_KEYS);
            }
            Ok(())
        });
        if let Err(e) = result {
            cx.syn_error(e);
        }
    }
    ContainerAttrs {
        table: table.get().map(|s| s.value),
        kind: kind.get().map(|s| s.value),
        kind_property: kind_property.get().map(|s| s.value),
        rename_all: rename_all.get(),
        key_separator: key_separator.get().map(|s| s.value),
        constants,
    }
}

fn rename_all_value(cx: &Ctxt, s: &LitStr) -> Option<RenameAll> {
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

fn constant_part(cx: &Ctxt, meta: &ParseNestedMeta<'_>, row_key: bool) -> Option<ConstantPart> {
    let mut value = Once::new("constant");
    let mut order = Once::new("order");
    let result = meta.parse_nested_meta(|m| {
        let span = m.path.span();
        if m.path.is_ident("constant") {
            if let Some(s) = lit_str(cx, &m, "constant", "profile") {
                value.set(cx, span, s);
            }
        } else if m.path.is_ident("order") {
            if let Some(n) = lit_int::<u32>(cx, &m, "order") {
                order.set(cx, span, n);
            }
        } else {
            unknown(cx, &m, CONSTANT_KEYS);
        }
        Ok(())
    });
    if let Err(e) = result {
        cx.syn_error(e);
    }
    match value.get() {
        Some(v) => Some(ConstantPart {
            row_key,
            value: v.value,
            order: order.get(),
        }),
        None => {
            cx.error_spanned_by(
                &meta.path,
                "a key on the struct is a constant part: `row_key(constant = \"profile\")`",
            );
            None
        }
    }
}
