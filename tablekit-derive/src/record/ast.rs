//! The struct as `#[derive(Record)]` sees it: the version it writes and the versions each
//! field exists in, parsed from `#[record(..)]`.

use syn::spanned::Spanned as _;
use syn::{Data, DeriveInput, Expr, Member};

use crate::internals::attr::{self, Attr};
use crate::internals::ctxt::Ctxt;
use crate::internals::hygiene::Private;
use crate::internals::symbol::{self, Symbol, CRATE, DEFAULT, RECORD, SINCE, UNTIL, VERSION};

const STRUCT_KEYS: &[Symbol] = &[VERSION, CRATE];
const FIELD_KEYS: &[Symbol] = &[SINCE, UNTIL, DEFAULT];

/// A struct deriving `Record`.
pub(crate) struct Record<'a> {
    pub(crate) input: &'a DeriveInput,
    pub(crate) private: Private,
    /// Whether the input is a struct (the only shape the derive supports).
    pub(crate) is_struct: bool,
    /// `#[record(version = N)]`, 0 when absent.
    pub(crate) version: u16,
    pub(crate) fields: Vec<Field<'a>>,
}

/// One field and the versions it exists in.
pub(crate) struct Field<'a> {
    pub(crate) field: &'a syn::Field,
    pub(crate) member: Member,
    /// `#[record(since = K)]`: first version that has the field.
    pub(crate) since: u16,
    /// `#[record(until = K)]`: first version that no longer has it.
    pub(crate) until: Option<u16>,
    /// `#[record(default = expr)]`: its value when the data's version lacks it.
    pub(crate) default: Option<Expr>,
}

impl<'a> Record<'a> {
    pub(crate) fn from_ast(cx: &Ctxt, input: &'a DeriveInput) -> Self {
        let mut version = Attr::none(cx, RECORD, VERSION.as_str());
        let mut krate = Attr::none(cx, RECORD, CRATE.as_str());
        attr::each_meta(cx, &input.attrs, RECORD, |meta| {
            if meta.path == VERSION {
                // #[record(version = N)]
                if let Some(n) = version_number(cx, meta, VERSION) {
                    version.set(meta.path.span(), n);
                }
            } else if meta.path == CRATE {
                // #[record(crate = "::my_crate::tablekit")]
                if let Some(path) = attr::crate_path(cx, meta, CRATE) {
                    krate.set(meta.path.span(), path);
                }
            } else {
                attr::unknown(cx, meta, RECORD, &symbol::list(&[STRUCT_KEYS]));
            }
        });
        let fields = match &input.data {
            Data::Struct(data) => data
                .fields
                .iter()
                .enumerate()
                .map(|(i, f)| field(cx, i, f))
                .collect(),
            _ => {
                cx.error_spanned_by(
                    &input.ident,
                    "`Record` can only be derived for a struct; implement `tablekit::Record` by hand for enums",
                );
                Vec::new()
            }
        };
        let krate = krate.get().map(|k| k.value);
        Record {
            input,
            private: Private::new(krate.as_ref()),
            is_struct: matches!(input.data, Data::Struct(_)),
            version: version.get().map_or(0, |v| v.value),
            fields,
        }
    }
}

/// A version number, 0 to 65535.
fn version_number(cx: &Ctxt, meta: &syn::meta::ParseNestedMeta<'_>, key: Symbol) -> Option<u16> {
    let n = attr::lit_int::<u64>(cx, meta, key, "1")?;
    match u16::try_from(n) {
        Ok(n) => Some(n),
        Err(_) => {
            cx.error_spanned_by(&meta.path, "expected a version from 0 to 65535");
            None
        }
    }
}

fn field<'a>(cx: &Ctxt, index: usize, field: &'a syn::Field) -> Field<'a> {
    let member = match &field.ident {
        Some(ident) => Member::Named(ident.clone()),
        None => Member::Unnamed(syn::Index {
            index: u32::try_from(index).unwrap_or(u32::MAX),
            span: field.span(),
        }),
    };
    let mut since = Attr::none(cx, RECORD, SINCE.as_str());
    let mut until = Attr::none(cx, RECORD, UNTIL.as_str());
    let mut default = Attr::none(cx, RECORD, DEFAULT.as_str());
    attr::each_meta(cx, &field.attrs, RECORD, |meta| {
        let span = meta.path.span();
        if meta.path == SINCE {
            // #[record(since = K)]
            if let Some(n) = version_number(cx, meta, SINCE) {
                since.set(span, n);
            }
        } else if meta.path == UNTIL {
            // #[record(until = K)]
            if let Some(n) = version_number(cx, meta, UNTIL) {
                until.set(span, n);
            }
        } else if meta.path == DEFAULT {
            // #[record(default = expr)]
            if let Some(e) = attr::expr(cx, meta) {
                default.set(span, e);
            }
        } else {
            attr::unknown(cx, meta, RECORD, &symbol::list(&[FIELD_KEYS]));
        }
    });
    Field {
        field,
        member,
        since: since.get().map_or(0, |s| s.value),
        until: until.get().map(|u| u.value),
        default: default.get().map(|d| d.value),
    }
}
