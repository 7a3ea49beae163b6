//! What the wrapper (`GamerEntity`) gets: constructors, the plain accessors, per field a
//! getter, a `try_` getter and a setter, and the conversions to and from the model.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::Ident;
use tablekit_rules::KeyFormat;

use super::super::ast::{Field, Storage};
use super::super::role::KeyRole;
use super::accessors::{fallible_accessors, Docs};
use super::parts;
use super::Gen;
use crate::internals::names::{default_fn, marker};
use crate::internals::ty::{self, TypeKind};

/// The inherent items of the wrapper.
pub(super) fn items(g: &Gen<'_, '_>) -> TokenStream {
    let constructors = constructors(g);
    let plain = plain_accessors(g);
    let accessors =
        g.c.fields
            .iter()
            .enumerate()
            .map(|(i, f)| accessors(g, i, f));
    quote! {
        #constructors
        #plain
        #(#accessors)*
    }
}

/// `new(..)` from the key fields, and `try_new` that validates the keys.
fn constructors(g: &Gen<'_, '_>) -> TokenStream {
    let (p, c) = (g.p, g.c);
    let model = c.ident;
    let key_fields = c.all_key_fields();
    let params: Vec<TokenStream> = key_fields
        .iter()
        .map(|(_, f)| {
            let (ident, ty) = (f.ident, f.ty);
            quote!(#ident: impl #p::Into<#ty>)
        })
        .collect();
    let args: Vec<&Ident> = key_fields.iter().map(|(_, f)| f.ident).collect();
    let converts = key_fields.iter().map(|(_, f)| {
        let (ident, ty) = (f.ident, f.ty);
        quote!(let #ident: #ty = #p::Into::into(#ident);)
    });
    let keys = KeyRole::ALL.map(|role| key_call(g, role, &|f| quote!(&#f)));
    let stores = key_fields
        .iter()
        .filter(|(_, f)| f.storage == Storage::Property)
        .map(|(i, f)| {
            let (marker, ident) = (marker(*i), f.ident);
            quote!(#p::init_property::<#marker>(&mut dynamic, #ident);)
        });
    let defaults = c
        .fields
        .iter()
        .enumerate()
        .filter(|(i, f)| !c.is_key_field(*i) && f.storage == Storage::Property && !f.optional)
        .map(|(i, _)| {
            let marker = marker(i);
            quote!(#p::init_property_default::<#marker>(&mut dynamic);)
        });
    let flattened = (c.fields.iter().enumerate())
        .filter(|(_, f)| f.storage == Storage::Flatten)
        .map(|(i, f)| super::flatten::store_default(g, i, f));
    let kind = c
        .kind
        .as_ref()
        .map(|(property, value)| quote!(dynamic.set(#property, #value);));
    let [pk, rk] = keys;
    let new_body = g.body(quote! {
        #(#converts)*
        let mut dynamic = #p::DynamicEntity::new(#pk, #rk);
        #kind
        #(#stores)*
        #(#defaults)*
        #(#flattened)*
        Self(dynamic)
    });
    let part_checks = separator_checks(g);
    let try_new_body = g.body(quote! {
        #part_checks
        let entity = Self::new(#(#args),*);
        #p::validate_keys(&entity.0)?;
        #p::Ok(entity)
    });
    let new_doc = format!(
        "A new `{model}` entity from its key fields; other fields hold their defaults. The keys are checked when the entity is sent (or now, with `try_new`)."
    );
    quote! {
        #[doc = #new_doc]
        #[inline]
        pub fn new(#(#params),*) -> Self {
            #new_body
        }

        /// Like `new`, but refuses keys the service would reject (forbidden characters, over
        /// 1 KiB) with a typed error.
        #[inline]
        pub fn try_new(#(#params),*) -> #p::Result<Self, #p::Error> {
            #try_new_body
        }
    }
}

/// `Model::partition_key_of(..)` with each key field's value from `value_of(field ident)`.
fn key_call(
    g: &Gen<'_, '_>,
    role: KeyRole,
    value_of: &dyn Fn(&Ident) -> TokenStream,
) -> TokenStream {
    let (model, c) = (g.c.ident, g.c);
    let args = c
        .key_fields(&c.key(role).parts)
        .into_iter()
        .map(|(_, f)| value_of(f.ident));
    let key_fn = role.key_fn();
    quote!(#model::#key_fn(#(#args),*))
}

/// For `try_new`: string parts of a composite key must not hold the separator. The values are
/// `impl Into<T>` parameters, so each is converted once into a local first.
fn separator_checks(g: &Gen<'_, '_>) -> TokenStream {
    let (p, c) = (g.p, g.c);
    let separator = &c.separator;
    let mut out = TokenStream::new();
    let mut converted: Vec<usize> = Vec::new();
    for key in c.keys.iter().filter(|key| key.parts.len() >= 2) {
        let kind = key.role.kind(p);
        for (index, part) in key.parts.iter().enumerate() {
            let Some(i) = part.field() else { continue };
            if !matches!(
                part.format,
                KeyFormat::Plain | KeyFormat::Lowercase | KeyFormat::Uppercase
            ) {
                continue;
            }
            let Some(f) = c.fields.get(i) else { continue };
            if !matches!(f.kind, TypeKind::String | TypeKind::User) {
                continue;
            }
            let (ident, ty) = (f.ident, f.ty);
            if !converted.contains(&i) {
                converted.push(i);
                out.extend(quote!(let #ident: #ty = #p::Into::into(#ident);));
            }
            let text = parts::part_text(g, key.role, index, part, quote!(&#ident));
            let name = ident.to_string();
            out.extend(quote!(#p::check_key_part(#kind, #name, &#text, #separator)?;));
        }
    }
    out
}

/// The accessors every wrapper has.
fn plain_accessors(g: &Gen<'_, '_>) -> TokenStream {
    let (p, model) = (g.p, g.c.ident);
    quote! {
        /// Wraps a dynamic entity (read from the service, say); nothing is converted or lost.
        #[inline]
        pub fn wrap(dynamic: #p::DynamicEntity) -> Self {
            Self(dynamic)
        }

        /// The dynamic entity, with every property (declared or not).
        #[inline]
        pub fn into_dynamic(self) -> #p::DynamicEntity {
            self.0
        }

        /// The dynamic entity inside.
        #[inline]
        pub fn as_dynamic(&self) -> &#p::DynamicEntity {
            &self.0
        }

        /// The dynamic entity inside, mutably.
        #[inline]
        pub fn as_dynamic_mut(&mut self) -> &mut #p::DynamicEntity {
            &mut self.0
        }

        /// The PartitionKey.
        #[inline]
        pub fn partition_key(&self) -> &str {
            self.0.partition_key()
        }

        /// The RowKey.
        #[inline]
        pub fn row_key(&self) -> &str {
            self.0.row_key()
        }

        /// The version the entity was read or last written at.
        #[inline]
        pub fn etag(&self) -> #p::Option<&#p::ETag> {
            self.0.etag()
        }

        /// When the service last wrote the entity.
        #[inline]
        pub fn timestamp(&self) -> #p::Option<#p::DateTime<#p::Utc>> {
            self.0.timestamp()
        }

        /// Checks both keys against the service's rules.
        #[inline]
        pub fn validate_keys(&self) -> #p::Result<(), #p::Error> {
            #p::validate_keys(&self.0)
        }

        /// Whether the entity holds only the properties a query's select fetched: a field it
        /// did not fetch reads as an error from its `try_` getter, and replaces refuse it.
        #[inline]
        pub fn is_partial(&self) -> bool {
            self.0.is_partial()
        }

        /// Allows writes to replace the stored value of `column`'s field even though this code
        /// could not read it (a record of a newer version, say): without it, a write of the
        /// entity after that field's setter is refused.
        #[inline]
        pub fn allow_overwrite<T>(&mut self, column: #p::Column<#model, T>) {
            self.0.allow_overwrite(column.name());
        }
    }
}

/// Getter, `try_` getter and setter of one field.
fn accessors(g: &Gen<'_, '_>, i: usize, f: &Field<'_>) -> TokenStream {
    let (p, ident, ty, name) = (g.p, f.ident, f.ty, &f.name);
    let try_get = format_ident!("try_{}", ident);
    let docs = Docs {
        get: format!("`{ident}` (stored as `{name}`); its default when missing or unreadable (`{try_get}` says why)."),
        try_get: format!("`{ident}`, or why the stored value cannot be read."),
        set: format!("Sets `{ident}` (stored as `{name}`)."),
    };
    let marker = marker(i);
    let (get_body, try_body, set_fn) = match f.storage {
        Storage::Skipped => return TokenStream::new(),
        Storage::Property => return property_accessors(g, i, f, &docs),
        Storage::KeyOnly => return key_only_accessors(g, i, f, &docs),
        Storage::Flatten => return super::flatten::accessors(g, i, f),
        Storage::Records { .. } => {
            let element = ty::vec_inner(ty).unwrap_or(ty);
            (
                quote!(#p::get_records::<#marker>(&self.0)),
                quote!(#p::try_get_records::<#marker>(&self.0)),
                (
                    quote!(value: &[#element]),
                    quote!(#p::set_records::<#marker>(&mut self.0, value)),
                ),
            )
        }
        Storage::Split { .. } => (
            quote!(#p::get_split::<#marker>(&self.0)),
            quote!(#p::try_get_split::<#marker>(&self.0)),
            (
                quote!(value: &[u8]),
                quote!(#p::set_split::<#marker>(&mut self.0, value)),
            ),
        ),
        Storage::Json => (
            quote!(#p::get_json::<#marker>(&self.0)),
            quote!(#p::try_get_json::<#marker>(&self.0)),
            (
                quote!(value: &#ty),
                quote!(#p::set_json::<#marker>(&mut self.0, value)),
            ),
        ),
    };
    let (param, set_body) = set_fn;
    let bodies = [get_body, try_body, set_body].map(|body| g.body(body));
    fallible_accessors(
        g,
        f,
        param,
        bodies,
        &docs,
        "Too large a value is an error, never cut.",
    )
}

/// Sets the keys field `i` is part of, from `value` and the other key fields' getters.
fn rekey(g: &Gen<'_, '_>, i: usize) -> TokenStream {
    let c = g.c;
    let mut out = TokenStream::new();
    for key in c.keys.iter().filter(|key| key.contains(i)) {
        let field = c.fields.get(i).map(|f| f.ident);
        let call = key_call(g, key.role, &|ident| {
            if Some(ident) == field {
                quote!(&value)
            } else {
                quote!(&self.#ident())
            }
        });
        let setter = key.role.setter();
        out.extend(quote! {
            let key = #call;
            self.0.#setter(key);
        });
    }
    out
}

/// The setter's parameter: a `String` setter takes what users have (`&str`, `String`,
/// `Cow`...).
fn setter_param(g: &Gen<'_, '_>, f: &Field<'_>) -> (TokenStream, TokenStream) {
    let (p, ty) = (g.p, f.ty);
    if f.is_string() {
        (
            quote!(value: impl #p::Into<#p::String>),
            quote!(let value: #p::String = #p::Into::into(value);),
        )
    } else {
        (quote!(value: #ty), TokenStream::new())
    }
}

/// Accessors of a field stored in one property.
fn property_accessors(g: &Gen<'_, '_>, i: usize, f: &Field<'_>, docs: &Docs) -> TokenStream {
    let (p, ident) = (g.p, f.ident);
    let marker = marker(i);
    let (param, convert) = setter_param(g, f);
    let rekey = rekey(g, i);
    let set_doc = match rekey.is_empty() {
        true => docs.set.clone(),
        false => format!("{} The keys built from it are updated too.", docs.set),
    };
    let get_body = g.body(quote!(#p::get_property::<#marker>(&self.0)));
    let try_body = g.body(quote!(#p::try_get_property::<#marker>(&self.0)));
    let set_body = g.body(quote! {
        #convert
        #rekey
        #p::set_property::<#marker>(&mut self.0, value);
    });
    let borrow = (f.kind == TypeKind::String).then(|| {
        let accessor = format_ident!("{}_str", ident);
        let doc = format!("`{ident}` borrowed from the stored text, without a copy: `None` when it is absent or not text (`{ident}()` then gives the default).");
        let body = g.body(quote!(#p::property_str::<#marker>(&self.0)));
        quote! {
            #[doc = #doc]
            #[inline]
            pub fn #accessor(&self) -> #p::Option<&str> {
                #body
            }
        }
    });
    let accessors = getter_setter(
        g,
        f,
        param,
        (docs, &set_doc),
        [get_body, try_body, set_body],
    );
    quote! {
        #accessors
        #borrow
    }
}

/// A field's getter, `try_` getter and setter (taking `param`) around their bodies.
fn getter_setter(
    g: &Gen<'_, '_>,
    f: &Field<'_>,
    param: TokenStream,
    (docs, set_doc): (&Docs, &str),
    [get_body, try_body, set_body]: [TokenStream; 3],
) -> TokenStream {
    let (p, ident, ty) = (g.p, f.ident, f.ty);
    let (try_get, set) = (
        format_ident!("try_{}", ident),
        format_ident!("set_{}", ident),
    );
    let (get_doc, try_doc) = (&docs.get, &docs.try_get);
    quote! {
        #[doc = #get_doc]
        #[inline]
        pub fn #ident(&self) -> #ty {
            #get_body
        }
        #[doc = #try_doc]
        #[inline]
        pub fn #try_get(&self) -> #p::Result<#ty, #p::Error> {
            #try_body
        }
        #[doc = #set_doc]
        #[inline]
        pub fn #set(&mut self, #param) {
            #set_body
        }
    }
}

/// Accessors of a field that lives only in the key: read back from the first key part it is
/// in whose format can be read back.
fn key_only_accessors(g: &Gen<'_, '_>, i: usize, f: &Field<'_>, docs: &Docs) -> TokenStream {
    let p = g.p;
    let try_get = format_ident!("try_{}", f.ident);
    let default_fn = default_fn(i);
    let (param, convert) = setter_param(g, f);
    let rekey = rekey(g, i);
    let get_body = g.body(quote! {
        match self.#try_get() {
            #p::Ok(v) => v,
            #p::Err(_) => #default_fn(),
        }
    });
    let try_body = g.body(key_only_read(g, i, f));
    let set_body = g.body(quote! {
        #convert
        #rekey
        let _ = value;
    });
    let set_doc = format!("{} The keys built from it are updated too.", docs.set);
    getter_setter(
        g,
        f,
        param,
        (docs, &set_doc),
        [get_body, try_body, set_body],
    )
}

/// Decodes a `key_only` field from its key part.
fn key_only_read(g: &Gen<'_, '_>, i: usize, f: &Field<'_>) -> TokenStream {
    let (p, c, ty) = (g.p, g.c, f.ty);
    let field_name = f.ident.to_string();
    let separator = &c.separator;
    for key in &c.keys {
        let count = key.parts.len();
        let Some((index, part)) = key
            .parts
            .iter()
            .enumerate()
            .find(|(_, part)| part.field() == Some(i) && part.format.is_reversible())
        else {
            continue;
        };
        let getter = key.role.getter();
        let kind = key.role.kind(p);
        let decode = match part.format {
            KeyFormat::Ticks => quote!(#p::keys::parse_ticks(text)),
            KeyFormat::InvertedTicks => quote!(#p::keys::parse_inverted_ticks(text)),
            KeyFormat::Pad(_) => quote!(#p::keys::parse_pad(text)
                .and_then(|n| <#ty as #p::TryFrom<u64>>::try_from(n).ok())),
            KeyFormat::Inverted => {
                quote!(#p::keys::parse_inverted(text, <u64 as #p::From<#ty>>::from(<#ty>::MAX))
                .and_then(|n| <#ty as #p::TryFrom<u64>>::try_from(n).ok()))
            }
            // Plain; `check` refuses key_only on formats that cannot be read back.
            _ => quote!(<#ty as #p::keys::KeyPart>::from_key_part(text)),
        };
        return quote! {
            let key = self.0.#getter();
            match #p::keys::part(key, #separator, #index, #count).and_then(|text| #decode) {
                #p::Some(v) => #p::Ok(v),
                #p::None => #p::Err(#p::key_part_error(#kind, #field_name, key)),
            }
        };
    }
    let kind = KeyRole::Row.kind(p);
    quote!(#p::Err(#p::key_part_error(#kind, #field_name, "")))
}

/// `Gamer` <-> `GamerEntity`.
pub(super) fn conversions(g: &Gen<'_, '_>) -> TokenStream {
    let (p, c, wrapper) = (g.p, g.c, &g.wrapper);
    let model = c.ident;
    let [pk, rk] = KeyRole::ALL.map(|role| key_call(g, role, &|f| quote!(&model.#f)));
    let stores = c.fields.iter().enumerate().map(|(i, f)| {
        let (marker, ident) = (marker(i), f.ident);
        match f.storage {
            Storage::Property => quote!(#p::init_property::<#marker>(&mut dynamic, model.#ident);),
            Storage::Records { .. } => {
                quote!(#p::init_records::<#marker>(&mut dynamic, &model.#ident)?;)
            }
            Storage::Split { .. } => {
                quote!(#p::init_split::<#marker>(&mut dynamic, &model.#ident)?;)
            }
            Storage::Json => quote!(#p::init_json::<#marker>(&mut dynamic, &model.#ident)?;),
            Storage::Flatten => super::flatten::store(g, i, f),
            Storage::KeyOnly | Storage::Skipped => TokenStream::new(),
        }
    });
    let reads = c.fields.iter().enumerate().map(|(i, f)| {
        let ident = f.ident;
        match f.storage {
            Storage::Skipped => {
                let default_fn = default_fn(i);
                quote!(#ident: #default_fn())
            }
            _ => quote!(#ident: entity.#ident()),
        }
    });
    let try_reads = c.fields.iter().enumerate().map(|(i, f)| {
        let ident = f.ident;
        let try_get = format_ident!("try_{}", ident);
        match f.storage {
            Storage::Skipped => {
                let default_fn = default_fn(i);
                quote!(#ident: #default_fn())
            }
            _ => quote!(#ident: entity.#try_get()?),
        }
    });
    let kind = c
        .kind
        .as_ref()
        .map(|(property, value)| quote!(dynamic.set(#property, #value);));
    let from_body = g.body(quote! {
        let mut dynamic = #p::DynamicEntity::new(#pk, #rk);
        #kind
        #(#stores)*
        #p::Ok(Self(dynamic))
    });
    let to_body = g.body(quote! {
        let entity = self;
        #model { #(#reads),* }
    });
    let try_to_body = g.body(quote! {
        let entity = self;
        #p::Ok(#model { #(#try_reads),* })
    });
    let from_doc = format!("A `{model}` entity holding exactly these values; an error when a value cannot be stored (too large records, say), never a cut.");
    let to_doc =
        format!("The values as a `{model}`: each field its default when missing or unreadable.");
    let try_to_doc = format!("The values as a `{model}`, or the first field that cannot be read.");
    quote! {
        #[automatically_derived]
        impl #wrapper {
            #[doc = #from_doc]
            #[inline]
            pub fn from_model(model: #model) -> #p::Result<Self, #p::Error> {
                #from_body
            }

            #[doc = #to_doc]
            #[inline]
            pub fn to_model(&self) -> #model {
                #to_body
            }

            #[doc = #try_to_doc]
            #[inline]
            pub fn try_to_model(&self) -> #p::Result<#model, #p::Error> {
                #try_to_body
            }
        }

        #[automatically_derived]
        impl #p::TryFrom<#model> for #wrapper {
            type Error = #p::Error;
            #[inline]
            fn try_from(model: #model) -> #p::Result<Self, #p::Error> {
                #wrapper::from_model(model)
            }
        }

        #[automatically_derived]
        impl #p::From<#wrapper> for #model {
            #[inline]
            fn from(entity: #wrapper) -> Self {
                entity.to_model()
            }
        }
    }
}
