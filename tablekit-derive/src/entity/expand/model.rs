//! What the model (`Gamer`) gets: `TableModel`, `NamedTable`, `TableEntity` for the wrapper,
//! typed columns, key functions, prefix filters and time range filters.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use tablekit_rules::{KeyFormat, TimeRangeKind};

use super::super::ast::{Field, KeyPart, Storage};
use super::super::attr::Format;
use super::super::role::KeyRole;
use super::parts::{self, param};
use super::Gen;
use crate::internals::fallback::Mode;

/// The trait impls.
pub(super) fn traits(g: &Gen<'_, '_>) -> TokenStream {
    let (p, c, wrapper) = (g.p, g.c, &g.wrapper);
    let model = c.ident;
    let kind = match (&c.kind, &c.kind_prefix) {
        (Some((property, value)), _) => Some((quote!(#property), value)),
        (None, Some(prefix)) => Some((quote!(#p::Discriminator::ROW_KEY_PREFIX), prefix)),
        (None, None) => None,
    };
    let discriminator = kind.map(|(property, value)| {
        quote! {
            const DISCRIMINATOR: #p::Option<#p::Discriminator> =
                #p::Some(#p::Discriminator { property: #property, value: #value });
        }
    });
    // After an error any model may be used as a named one: a misspelled `table` must not add
    // a second error at each `client.table::<M>()`.
    let table = match (&c.table, g.mode) {
        (Some(name), _) => Some(name.as_str()),
        (None, Mode::Fallback) => Some(""),
        (None, Mode::Complete) => None,
    };
    let named = table.map(|name| {
        quote! {
            #[automatically_derived]
            impl #p::NamedTable for #model {
                const TABLE_NAME: &'static str = #name;
            }
        }
    });
    let indexes = super::index::indexes_const(g);
    let spread = spread_fields(g);
    let fields = model_fields(g);
    quote! {
        #fields

        #[automatically_derived]
        impl #p::TableModel for #model {
            type Entity = #wrapper;
            #discriminator
            #indexes
            #spread
        }

        #named

        #[automatically_derived]
        impl #p::TableEntity for #wrapper {
            #[inline]
            fn wrap(dynamic: #p::DynamicEntity) -> Self {
                #wrapper(dynamic)
            }
            #[inline]
            fn into_dynamic(self) -> #p::DynamicEntity {
                self.0
            }
            #[inline]
            fn as_dynamic(&self) -> &#p::DynamicEntity {
                &self.0
            }
            #[inline]
            fn as_dynamic_mut(&mut self) -> &mut #p::DynamicEntity {
                &mut self.0
            }
        }
    }
}

/// `ModelFields`: every field but skipped ones, with a reader calling its `try_` getter, so
/// drift checks read stored values exactly as the model's getters do.
fn model_fields(g: &Gen<'_, '_>) -> TokenStream {
    let (p, model, wrapper) = (g.p, g.c.ident, &g.wrapper);
    let fields = g.c.fields.iter().filter_map(|f| {
        let storage = match f.storage {
            Storage::Skipped => return None,
            Storage::Property => quote!(Property),
            Storage::Records { .. } | Storage::Split { .. } | Storage::Json => quote!(Spread),
            Storage::Flatten => quote!(Flatten),
            Storage::KeyOnly => quote!(KeyOnly),
        };
        let field = f.ident.to_string();
        let field = field.trim_start_matches("r#");
        let property = if f.storage == Storage::KeyOnly {
            ""
        } else {
            f.name.as_str()
        };
        let (old, optional) = (&f.old_names, f.optional);
        let ty = f.ty;
        let rust_type = quote!(#ty).to_string().replace(' ', "");
        let try_get = format_ident!("try_{}", field);
        Some(quote! {
            #p::FieldInfo {
                field: #field,
                property: #property,
                old_names: &[#(#old),*],
                rust_type: #rust_type,
                optional: #optional,
                storage: #p::FieldStorage::#storage,
                read: |entity: &#wrapper| entity.#try_get().map(#p::drop),
            }
        })
    });
    quote! {
        #[automatically_derived]
        impl #p::ModelFields for #model {
            const FIELDS: &'static [#p::FieldInfo<#wrapper>] = &[#(#fields),*];
        }
    }
}

/// `SPREAD_FIELDS`: the fields declared `split(rows = n)` / `records(rows = n)`, if any.
fn spread_fields(g: &Gen<'_, '_>) -> TokenStream {
    let p = g.p;
    let fields: Vec<_> =
        g.c.fields
            .iter()
            .filter_map(|f| {
                let (property, rows) = (&f.name, f.spread_rows?);
                Some(quote!(#p::SpreadField { property: #property, rows: #rows }))
            })
            .collect();
    if fields.is_empty() {
        return TokenStream::new();
    }
    quote! {
        const SPREAD_FIELDS: &'static [#p::SpreadField] = &[#(#fields),*];
    }
}

/// The associated items of the model.
pub(super) fn items(g: &Gen<'_, '_>) -> TokenStream {
    let columns = columns(g);
    let mut out = quote!(#columns);
    for role in KeyRole::ALL {
        out.extend(key_function(g, role));
        out.extend(prefix_functions(g, role));
        out.extend(time_range_function(g, role));
    }
    out
}

/// `Gamer::PARTITION_KEY`, `Gamer::ROW_KEY` and one column per stored field.
fn columns(g: &Gen<'_, '_>) -> TokenStream {
    let (p, model) = (g.p, g.c.ident);
    let fields =
        g.c.fields
            .iter()
            .enumerate()
            .filter(|(_, f)| f.storage.is_stored())
            .map(|(i, f)| {
                if f.storage == Storage::Flatten {
                    return super::flatten::column(g, i, f);
                }
                let column = format_ident!(
                    "{}",
                    heck::ToShoutySnakeCase::to_shouty_snake_case(
                        f.ident.to_string().trim_start_matches("r#")
                    )
                );
                let ty = column_type(f);
                let name = &f.name;
                let storage = match f.storage {
                    Storage::Records { max_properties } | Storage::Split { max_properties } => {
                        quote!(#p::Storage::Split(#max_properties))
                    }
                    Storage::Json => quote!(#p::JSON_STORAGE),
                    _ => quote!(#p::Storage::Single),
                };
                let doc = format!("The `{name}` column (field `{}`).", f.ident);
                let old = &f.old_names;
                quote! {
                    #[doc = #doc]
                    pub const #column: #p::Column<#model, #ty> =
                        #p::Column::__new(#name, #storage).__with_old_names(&[#(#old),*]);
                }
            });
    quote! {
        /// The PartitionKey column.
        pub const PARTITION_KEY: #p::Column<#model, #p::String> =
            #p::Column::__new("PartitionKey", #p::Storage::Single);
        /// The RowKey column.
        pub const ROW_KEY: #p::Column<#model, #p::String> =
            #p::Column::__new("RowKey", #p::Storage::Single);
        #(#fields)*
    }
}

/// A column's value type: the field's without `Option` for a property; the field's own for
/// records, split and JSON fields, which have no comparisons.
fn column_type<'a>(f: &Field<'a>) -> &'a syn::Type {
    match f.storage {
        Storage::Property => f.value_ty,
        _ => f.ty,
    }
}

/// `Gamer::partition_key_of(&tag)` / `row_key_of(..)`: the key a model's values give.
fn key_function(g: &Gen<'_, '_>, role: KeyRole) -> TokenStream {
    let (p, c) = (g.p, g.c);
    let parts = &c.key(role).parts;
    let params = c.key_fields(parts).into_iter().map(|(_, f)| param(f));
    let body = g.body(parts::compose(g, role, parts, &|i| {
        let ident = c.fields.get(i).map(|f| f.ident);
        quote!(#ident)
    }));
    let name = role.key_fn();
    let doc = format!(
        "The {} of an entity with these key field values.",
        role.service_name()
    );
    quote! {
        #[doc = #doc]
        #[inline]
        pub fn #name(#(#params),*) -> #p::String {
            #body
        }
    }
}

/// `ExpenseItem::row_key_prefix(&expense_id)`: a StartsWith filter per leading part.
fn prefix_functions(g: &Gen<'_, '_>, role: KeyRole) -> TokenStream {
    let (p, c) = (g.p, g.c);
    let parts = &c.key(role).parts;
    let column = role.column();
    let mut out = TokenStream::new();
    for k in 1..parts.len() {
        let leading = parts.get(..k).unwrap_or_default();
        let params = c.key_fields(leading).into_iter().map(|(_, f)| param(f));
        let prefix = parts::leading_prefix(g, role, leading);
        let name = match k {
            1 => format_ident!("{}_prefix", role.symbol().as_str()),
            _ => format_ident!("{}_prefix_{}", role.symbol().as_str(), k),
        };
        let doc = format!(
            "Entities whose {} starts with these {k} leading part(s) and the separator: the range `[prefix, upper)` as a filter.",
            role.symbol()
        );
        let body = g.body(quote! {
            let prefix: #p::String = #prefix;
            #p::key_prefix(Self::#column, &prefix)
        });
        out.extend(quote! {
            #[doc = #doc]
            #[inline]
            pub fn #name(#(#params),*) -> #p::Filter<Self> {
                #body
            }
        });
    }
    out
}

/// `Blog::row_key_between(range)`, `Blog::partition_key_between(&channel, range)`: for a key
/// whose last part is a time in a format that sorts by time, the keys whose time lies in a
/// range. The bound arithmetic is the runtime's (`keys::time_key_range`).
fn time_range_function(g: &Gen<'_, '_>, role: KeyRole) -> TokenStream {
    let (p, c) = (g.p, g.c);
    let parts = &c.key(role).parts;
    let Some((last, leading)) = parts.split_last() else {
        return TokenStream::new();
    };
    let (Some(i), Some(kind), Some(format)) =
        (last.field(), last.format.time_range(), time_format(g, last))
    else {
        return TokenStream::new();
    };
    let Some(field) = c.fields.get(i) else {
        return TokenStream::new();
    };
    // The time would also build the prefix, which a range of times cannot fix.
    if leading.iter().any(|part| part.field() == Some(i)) {
        return TokenStream::new();
    }
    let params = c.key_fields(leading).into_iter().map(|(_, f)| param(f));
    let prefix = parts::leading_prefix(g, role, leading);
    let column = role.column();
    let name = format_ident!("{}_between", role.symbol().as_str());
    let doc = time_range_doc(role, &field.ident.to_string(), &last.format, kind);
    let body = g.body(quote! {
        let prefix: #p::String = #prefix;
        #p::key_time_range(Self::#column, &prefix, #format, range)
    });
    quote! {
        #[doc = #doc]
        #[inline]
        pub fn #name(
            #(#params,)*
            range: impl #p::RangeBounds<#p::DateTime<#p::Utc>>,
        ) -> #p::Filter<Self> {
            #body
        }
    }
}

/// The runtime's `TimeFormat` of a time part; `None` for a part that is no time.
fn time_format(g: &Gen<'_, '_>, part: &KeyPart) -> Option<TokenStream> {
    let p = g.p;
    Some(match &part.format {
        KeyFormat::Ticks => quote!(#p::keys::TimeFormat::ticks()),
        KeyFormat::InvertedTicks => quote!(#p::keys::TimeFormat::inverted_ticks()),
        KeyFormat::InvertedYearMonth => quote!(#p::keys::TimeFormat::inverted_year_month()),
        KeyFormat::Date(pattern) => quote!(#p::date_time_format(#pattern)),
        KeyFormat::Plain
        | KeyFormat::Lowercase
        | KeyFormat::Uppercase
        | KeyFormat::Function(_)
        | KeyFormat::Pad(_)
        | KeyFormat::Inverted => return None,
    })
}

fn time_range_doc(role: KeyRole, field: &str, format: &Format, kind: TimeRangeKind) -> String {
    let what = format!(
        "Entities whose {} is these leading parts followed by a `{field}` time in `range` (`a..b`, `a..=b`, `a..`, `..b`, `..`), as a key range.",
        role.service_name()
    );
    match kind {
        TimeRangeKind::Exact => format!("{what} Exact to the service's 100 ns tick."),
        TimeRangeKind::Buckets => format!(
            "{what} The part `{format}` is one bucket of time, so every bucket overlapping the range is selected: entities at its edges may lie outside it; filter those on the stored time when it matters."
        ),
    }
}
