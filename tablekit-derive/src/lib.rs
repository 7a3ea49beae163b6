// Derive macros for tablekit: `#[derive(TableEntity)]`, `#[derive(TableValue)]` and
// `#[derive(Record)]`. The crate documentation is the README, so its examples are tested.
#![doc = include_str!("../README.md")]

use proc_macro::TokenStream;
use syn::{parse_macro_input, DeriveInput};

mod entity;
mod family;
mod fields;
mod internals;
mod record;
mod table_value;

/// Generates a typed wrapper over a dynamic entity, typed columns, key composition and
/// conversions for a struct with named fields.
///
/// On an enum whose variants each hold a model with a `kind` (`Blog(Blog)`), it generates an
/// entity family: `PostEntity` (`Blog(BlogEntity)`, ...) chosen by each row's stored kind,
/// `TableModel` (and `NamedTable` with `table = ".."`) on the enum, `PARTITION_KEY`, `ROW_KEY`,
/// `Post::only(filter)`, `From<BlogEntity> for PostEntity` and the accessors `as_blog()`,
/// `as_blog_mut()`, `into_blog()`, `kind()`. `#[tablekit(other)]` on a variant holding a
/// `DynamicEntity` keeps rows of any other kind; without it they are `Error::WrongKind`.
///
/// For `struct Gamer` it generates:
/// - `GamerEntity`, a wrapper holding a `DynamicEntity` (properties `Gamer` does not declare
///   survive a read-modify-write): `new(key fields..)`, `try_new(..)` (validates the keys),
///   `wrap`, `into_dynamic`, `as_dynamic(_mut)`, `partition_key`, `row_key`, `etag`,
///   `timestamp`, `validate_keys`, `is_partial` (read with a select), `allow_overwrite(column)`;
///   per field `field()` (its default when missing or unreadable), `try_field()` (why not:
///   unreadable, or not fetched by a select), `set_field(..)` (a `String` field's takes
///   `impl Into<String>`; replacing a value this code cannot read is noted, and writes refuse
///   the entity until `allow_overwrite`) and, for `String` fields, `field_str()` (the stored
///   text, borrowed); `from_model`, `to_model`,
///   `try_to_model`, `TryFrom<Gamer>` and `From<GamerEntity> for Gamer`.
/// - On `Gamer`: `impl TableModel` (`type Entity = GamerEntity`), `impl NamedTable` (its
///   `TABLE_NAME`, for `client.table::<Gamer>()`) when the struct names its table, typed columns
///   `Gamer::SCORE: Column<Gamer, i32>`, `PARTITION_KEY`, `ROW_KEY`, the key functions
///   `partition_key_of(..)` / `row_key_of(..)` and, for composite keys, prefix filters
///   `row_key_prefix(..)` (first part), `row_key_prefix_2(..)` (first two parts), ...
/// - For a key whose last part is a time formatted `ticks`, `inverted_ticks`,
///   `inverted_year_month` or a date pattern that sorts by time (`yyyy`, then each finer field
///   in turn: `yyyyMMdd`, not `ddMMyyyy`), a range filter `row_key_between(.., range)` /
///   `partition_key_between(.., range)` taking the leading parts' fields and any range of
///   times (`a..b`, `a..=b`, `a..`, `..b`): exact for ticks, every overlapping bucket
///   (month, day, ...) for the others; other formats get none.
///
/// # Container attributes: `#[tablekit(..)]` on the struct
/// - `table = "Gamers"`: the table name (`NamedTable::TABLE_NAME`), checked at compile time.
///   Without it the model has no table of its own: `client.table_named::<Gamer>("..")`.
/// - `kind = "Order"`: the model's kind, stored in the property `Kind` (or the one
///   `kind_property = "Type"` names) by `new` and `from_model`. Models sharing a table (even a
///   partition) then stay apart: every query filters on the kind, every read checks it
///   (`Error::WrongKind`), every write requires it (`TableModel::DISCRIMINATOR`).
/// - `kind_prefix = "R_"`: instead of `kind`, the model's rows are those whose RowKey starts
///   with `R_`, so rows written without a kind property (a legacy table's replies and
///   questions, say) can be told apart and read as an entity family. Queries filter on the
///   RowKey range, reads and writes check the RowKey.
/// - `rename_all = "PascalCase"`: how field names become stored names; one of `PascalCase`
///   (the default, as Azure users expect), `camelCase`, `snake_case`, `SCREAMING_SNAKE_CASE`,
///   `verbatim`.
/// - `key_separator = "_"`: joins the parts of a composite key (default `_`).
/// - `partition_key(constant = "text", order = n)` / `row_key(constant = "text", order = n)`:
///   a constant key part.
/// - `crate = "::my_crate::tablekit"`: the path generated code reaches tablekit by, for a crate
///   that uses it as a renamed dependency or through another crate's re-export (`::tablekit`
///   by default). `#[derive(TableValue)]` takes it too, and `#[derive(Record)]` as
///   `#[record(crate = "..")]`.
///
/// # Field attributes: `#[tablekit(..)]` on a field
/// - `rename = "GamerTag"`: the stored property name (a string: it is a wire name).
/// - `rename_from = "OldName"`: also read this name when the new one is absent (schema
///   evolution); writes use the new name and remove the old one. Repeatable.
/// - `skip`: not stored; the model reads its default.
/// - `default` / `default = expr`: what a missing or unreadable property reads as (Rust syntax,
///   e.g. `default = 0` or `default = Level::Dungeon`); without it, `Default::default()`.
/// - `partition_key` / `row_key`: the field is (part of) that key. With options:
///   `partition_key(order = n, <format>)`; every part of a composite key needs `order`.
/// - Key part formats, inside the role's parentheses or beside it (then for every role):
///   `inverted_ticks` (19 digits, `DateTime::MAX` ticks minus the time's, newest first),
///   `ticks` (19 digits), `pad = n` (zero padded unsigned integer), `inverted` (type max minus
///   value, padded: largest first), `transform = lowercase`, `format = "yyyyMMdd"` (any of
///   `yyyy`, `MM`, `dd`, `HH`, `mm`, `ss` and separators) and
///   `format = "inverted_year_month"` (`{9999 - year}_{13 - month}`). Without a format a part
///   is the value's `KeyPart` text (strings, integers, Uuids); a `DateTime` needs a format.
/// - `key_only`: the field lives only in the key; its getter decodes it from the key (only
///   for formats that can be read back: plain, `ticks`, `inverted_ticks`, `pad`, `inverted`).
/// - `records(max_properties = N)`: a `Vec<R: Record>` stored as versioned binary records
///   split across up to N 64 KiB properties; the setter returns an error when it does not fit.
/// - `split(max_properties = N)`: a `Vec<u8>` split across up to N properties.
/// - `split(rows = N)` / `records(rows = N)`: the same, spread beyond one entity over up to N
///   continuation rows written in one transaction with it (see `tablekit::spread`).
/// - `json`: any serde type stored as JSON text in one string property.
/// - `flatten` / `flatten(prefix = "Ship")`: a `#[derive(TableFields)]` struct (or an
///   `Option` of one) stored as one property per nested field, named `{prefix}_{Field}`; the
///   prefix is the field's stored name unless given. See `TableFields`.
///
/// Field types: `bool`, `i32`, `i64`, `u32`, `u64`, `f64`, `String`, `Vec<u8>`,
/// `DateTime<Utc>`, `Uuid`, `Option<T>` (absent property = `None`), enums with
/// `#[derive(TableValue)]`, and types implementing `IntoValue` + `FromValue`.
///
/// ```
/// use tablekit::prelude::*;
///
/// #[derive(Debug, Clone, Copy, PartialEq, Default, TableValue)]
/// pub enum Level { #[default] Dungeon, Castle }
///
/// /// A gamer.
/// #[derive(TableEntity)]
/// #[tablekit(table = "Gamers")]
/// pub struct Gamer {
///     /// The gamer tag; the PartitionKey is its lowercase form.
///     #[tablekit(partition_key, transform = lowercase, rename = "GamerTag")]
///     pub tag: String,
///     /// The score.
///     #[tablekit(default = 0)]
///     pub score: i32,
///     /// The current level.
///     pub level: Level,
/// }
///
/// let mut gamer = GamerEntity::new("Dragon");
/// gamer.set_score(gamer.score() + 10);
/// assert_eq!(gamer.partition_key(), "dragon");
/// assert_eq!(gamer.level(), Level::Dungeon);
/// let q = Query::<Gamer>::new().filter(Gamer::SCORE.ge(20)).select((Gamer::TAG, Gamer::SCORE));
/// assert_eq!(q.filter_string(), Some("Score ge 20"));
/// ```
#[proc_macro_derive(TableEntity, attributes(tablekit))]
pub fn derive_table_entity(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    match input.data {
        syn::Data::Enum(_) => family::derive(&input).into(),
        _ => entity::derive(&input).into(),
    }
}

/// A struct stored inside an entity by a `#[tablekit(flatten)]` field: each of its fields is
/// a property named `{prefix}_{Field}`, nested to any depth.
///
/// The fields take `#[derive(TableEntity)]`'s field attributes except keys (`rename`,
/// `rename_from`, `default`, `skip`, `json`, `records`, `split`, `flatten`) and the struct
/// `rename_all` and `crate`. It generates `{Name}Columns<M, P>`: the typed columns of the
/// fields inside model `M` (`Customer::ADDRESS.city()` is a `Column<Customer, String>` named
/// `Address_City`), which as a whole select every property. The entity's wrapper gets the
/// usual getter (each nested field its default when missing), `try_` getter and setter (an
/// error when a nested `json` or `records` value does not fit). An `Option` of the struct is
/// `None` exactly when none of its properties is present: its setter's `None` removes them.
/// A flattened name another stored property has, or over 255 characters, is a compile error.
///
/// On an entity read through a select, the getter reads each nested field the select did not
/// fetch as its default, and the setter writes such a field only when its value is no longer
/// that default: reading one nested field, changing it and setting the struct back merges
/// that field alone, never defaults over what was not read. (To store a default in a field the
/// select did not fetch, select it.) A replace of such an entity is refused, as for any
/// partial entity.
///
/// ```
/// use tablekit::prelude::*;
///
/// #[derive(Debug, Clone, PartialEq, Default, TableFields)]
/// pub struct Geo { pub lat: f64, pub lon: f64 }
///
/// #[derive(Debug, Clone, PartialEq, Default, TableFields)]
/// pub struct Address {
///     pub city: String,
///     #[tablekit(flatten)]
///     pub geo: Geo,
/// }
///
/// #[derive(TableEntity)]
/// pub struct Customer {
///     #[tablekit(partition_key)]
///     pub id: String,
///     #[tablekit(flatten)]
///     pub address: Address,
///     #[tablekit(flatten(prefix = "Ship"))]
///     pub shipping: Option<Address>,
/// }
///
/// let mut customer = CustomerEntity::new("c1");
/// let home = Address { city: "Oslo".into(), geo: Geo { lat: 59.9, lon: 10.7 } };
/// customer.set_address(home.clone())?;
/// assert_eq!(customer.as_dynamic().get::<f64>("Address_Geo_Lat"), Some(59.9));
/// assert_eq!(customer.address(), home);
/// assert_eq!(customer.shipping(), None);
///
/// assert_eq!(Customer::ADDRESS.geo().lat().name(), "Address_Geo_Lat");
/// let q = Query::<Customer>::new()
///     .filter(Customer::SHIPPING.city().eq("Oslo"))
///     .select(Customer::ADDRESS);
/// assert_eq!(q.filter_string(), Some("Ship_City eq 'Oslo'"));
/// assert_eq!(q.select_list().unwrap(), ["Address_City", "Address_Geo_Lat", "Address_Geo_Lon"]);
/// # Ok::<(), tablekit::Error>(())
/// ```
#[proc_macro_derive(TableFields, attributes(tablekit))]
pub fn derive_table_fields(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    fields::derive(&input).into()
}

/// Stores a fieldless enum in one property: as its discriminant (`Int32`, the default) or, with
/// `#[tablekit(as_name)]` on the enum, as its variant name (`#[tablekit(rename = "...")]` on a
/// variant changes the stored name). An unknown stored value is a `ValueError::Invalid`, so an
/// entity getter reads the field's default and its `try_` form reports it.
///
/// ```
/// use tablekit::{FromValue, IntoValue, TableValue, Value};
///
/// #[derive(Debug, Clone, Copy, PartialEq, TableValue)]
/// #[repr(i32)]
/// pub enum Level { Dungeon = 0, Castle = 1 }
///
/// #[derive(Debug, Clone, Copy, PartialEq, TableValue)]
/// #[tablekit(as_name)]
/// pub enum Mood { Calm, #[tablekit(rename = "Angry!")] Angry }
///
/// assert_eq!(Level::Castle.into_value(), Some(Value::Int32(1)));
/// assert_eq!(Mood::Angry.into_value(), Some(Value::String("Angry!".into())));
/// assert!(Level::from_value(&Value::Int32(5)).is_err());
/// ```
#[proc_macro_derive(TableValue, attributes(tablekit))]
pub fn derive_table_value(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    table_value::derive(&input).into()
}

/// Implements tablekit's versioned binary `Record`; see `tablekit`'s documentation.
///
/// `#[record(version = n)]` on the struct is the version written; a field added later has
/// `#[record(since = k)]` and reads its default (or `default = expr`) from older data. A field
/// type without a `RecordField` format, such as a `#[derive(TableValue)]` enum, is stored as a
/// table value.
///
/// ```
/// use tablekit::prelude::*;
/// use tablekit::record::{decode_records, encode_records};
///
/// #[derive(Debug, Clone, Copy, PartialEq, Default, TableValue)]
/// pub enum Medal { #[default] Bronze, Gold }
///
/// #[derive(Debug, PartialEq, Record)]
/// #[record(version = 1)]
/// pub struct CompletedLevel {
///     pub level: i32,
///     #[record(since = 1)]
///     pub medal: Medal,
/// }
///
/// let bytes = encode_records(&[CompletedLevel { level: 7, medal: Medal::Gold }])?;
/// assert_eq!(decode_records::<CompletedLevel>(&bytes)?[0].medal, Medal::Gold);
/// // Version 0 data (one record, `level` only): the medal reads as its default.
/// let v0 = [0, 0, 1, 7, 0, 0, 0];
/// let old = decode_records::<CompletedLevel>(&v0)?;
/// assert_eq!(old, [CompletedLevel { level: 7, medal: Medal::Bronze }]);
/// # Ok::<(), tablekit::RecordError>(())
/// ```
#[proc_macro_derive(Record, attributes(record))]
pub fn derive_record(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    record::derive(&input).into()
}
