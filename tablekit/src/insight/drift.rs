//! Drift between a model and the entities a table holds.

use std::collections::BTreeMap;
use std::fmt;

use chrono::{DateTime, Utc};
use serde::Serialize;
use uuid::Uuid;

use super::generate::ModelDescription;
use super::key_shape::KeyShape;
use crate::client::error::Error;
use crate::model::auxiliary::is_auxiliary;
use crate::model::spread;
use crate::model::table_model::{TableEntity, TableModel};
use crate::values::convert::{FromValue, ValueError};
use crate::values::entity::DynamicEntity;
use crate::values::value::Value;

/// Examples kept per finding: enough to look one up, few enough for a readable report.
pub(super) const EXAMPLES: usize = 3;

/// How a field is kept, as [`FieldInfo`] says.
///
/// ```
/// use tablekit::prelude::*;
/// use tablekit::insight::{FieldStorage, ModelFields};
///
/// #[derive(Debug, Clone, PartialEq, Default, TableFields)]
/// pub struct Address {
///     pub city: String,
/// }
///
/// #[derive(TableEntity)]
/// #[tablekit(row_key(constant = "order", order = 0))]
/// pub struct Order {
///     #[tablekit(partition_key)]
///     pub region: String,
///     #[tablekit(row_key(order = 1, pad = 6), key_only)]
///     pub number: u64,
///     pub total: f64,
///     #[tablekit(json)]
///     pub tags: Vec<String>,
///     #[tablekit(flatten)]
///     pub address: Address,
/// }
///
/// let kept: Vec<_> = Order::FIELDS.iter().map(|f| (f.field, f.property, f.storage)).collect();
/// assert_eq!(kept, [
///     ("region", "Region", FieldStorage::Property),
///     ("number", "", FieldStorage::KeyOnly),
///     ("total", "Total", FieldStorage::Property),
///     ("tags", "Tags", FieldStorage::Spread),
///     ("address", "Address", FieldStorage::Flatten),
/// ]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldStorage {
    /// One property.
    Property,
    /// Properties named after the field's (records, split bytes, JSON text): `Name`,
    /// `Name_1`, ...
    Spread,
    /// A flattened struct: properties `Name_Field`, ...
    Flatten,
    /// Only in a key.
    KeyOnly,
}

/// One field of a `#[derive(TableEntity)]` model, as [`ModelFields::FIELDS`] lists it.
///
/// ```
/// use tablekit::prelude::*;
/// use tablekit::insight::{FieldStorage, ModelFields};
/// use tablekit::TableEntity;
///
/// #[derive(TableEntity)]
/// pub struct Gamer {
///     #[tablekit(partition_key)]
///     pub tag: String,
///     pub score: i32,
/// }
///
/// let score = Gamer::FIELDS.iter().find(|f| f.field == "score").unwrap();
/// assert_eq!((score.property, score.rust_type, score.optional), ("Score", "i32", false));
/// assert_eq!(score.storage, FieldStorage::Property);
///
/// // `read` reads a stored row as `try_score` does.
/// let mut row = DynamicEntity::new("dragon", "");
/// row.set("Score", 12i32);
/// assert!((score.read)(&GamerEntity::wrap(row.clone())).is_ok());
/// row.set("Score", "twelve");
/// let error = (score.read)(&GamerEntity::wrap(row)).unwrap_err();
/// assert!(error.to_string().contains("Score"));
/// ```
pub struct FieldInfo<E> {
    /// The Rust field.
    pub field: &'static str,
    /// The stored property (the prefix of a flattened struct; empty for a key-only field).
    pub property: &'static str,
    /// Names the property was stored under before (`rename_from`).
    pub old_names: &'static [&'static str],
    /// The field's Rust type, as written.
    pub rust_type: &'static str,
    /// Whether absent reads `None` (rather than a default).
    pub optional: bool,
    /// How the field is kept.
    pub storage: FieldStorage,
    /// Reads the field as its `try_` getter does: the reason it cannot, if it cannot.
    pub read: fn(&E) -> Result<(), Error>,
}

impl<E> fmt::Debug for FieldInfo<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FieldInfo")
            .field("field", &self.field)
            .field("property", &self.property)
            .field("rust_type", &self.rust_type)
            .field("optional", &self.optional)
            .field("storage", &self.storage)
            .finish_non_exhaustive()
    }
}

/// The fields of a model: `#[derive(TableEntity)]` on a struct implements it, so
/// [`check_model`] reads each stored value exactly as the model's getters would.
///
/// ```
/// use tablekit::prelude::*;
/// use tablekit::insight::{FieldStorage, ModelFields};
/// #[derive(TableEntity)]
/// pub struct Gamer {
///     #[tablekit(partition_key)]
///     pub tag: String,
///     #[tablekit(rename_from = "Points")]
///     pub score: Option<i64>,
/// }
/// let score = &Gamer::FIELDS[1];
/// assert_eq!((score.field, score.property, score.old_names), ("score", "Score", &["Points"][..]));
/// assert_eq!((score.rust_type, score.optional, score.storage), ("Option<i64>", true, FieldStorage::Property));
/// ```
pub trait ModelFields: TableModel {
    /// Every field but skipped ones, in declaration order.
    const FIELDS: &'static [FieldInfo<Self::Entity>];
}

/// A property the model does not know: kept on writes, but read by no field.
///
/// ```
/// use tablekit::insight::{check, generate_model, GenerateOptions};
/// use tablekit::DynamicEntity;
///
/// let order = |id: &str, total: f64| {
///     let mut e = DynamicEntity::new("eu", id);
///     e.set("Total", total);
///     e
/// };
/// let model = generate_model(&[order("1", 12.5), order("2", 3.0)], &GenerateOptions::default());
///
/// // Newer rows carry a coupon, as text or as a number.
/// let mut text = order("3", 9.0);
/// text.set("Coupon", "SPRING");
/// let mut number = order("4", 7.0);
/// number.set("Coupon", 15i32);
/// let report = check(&model.description, &[text, number]);
/// let unknown = &report.unknown_properties[0];
/// assert_eq!((unknown.property.as_str(), unknown.rows), ("Coupon", 2));
/// assert_eq!(unknown.types, ["String", "Int32"]);
/// assert!(!report.fails_reads());
/// assert!(report.to_string().contains("unknown property: `Coupon` (String, Int32) in 2 rows"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct UnknownProperty {
    /// The stored name.
    pub property: String,
    /// Sampled rows holding it.
    pub rows: usize,
    /// Its EDM types, as seen.
    pub types: Vec<String>,
}

/// A field some rows lack: it reads `None` or its default there.
///
/// ```
/// use tablekit::insight::{check, generate_model, GenerateOptions};
/// use tablekit::DynamicEntity;
///
/// let mut first = DynamicEntity::new("eu", "1");
/// first.set("Total", 12.5);
/// first.set("Note", "gift");
/// let mut second = DynamicEntity::new("eu", "2");
/// second.set("Total", 3.0);
/// let model = generate_model(&[first, second], &GenerateOptions::default());
///
/// // A row with neither property.
/// let report = check(&model.description, &[DynamicEntity::new("eu", "3")]);
/// let absent = |field: &str| report.absent_fields.iter().find(|a| a.field == field).unwrap();
/// assert_eq!((absent("total").property.as_str(), absent("total").optional), ("Total", false));
/// assert_eq!((absent("note").rows, absent("note").optional), (1, true));
/// let text = report.to_string();
/// assert!(text.contains("absent: `total` (Total) in 1 rows: reads its default"), "{text}");
/// assert!(text.contains("absent: `note` (Note) in 1 rows: reads None"), "{text}");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AbsentField {
    /// The Rust field.
    pub field: String,
    /// The stored property.
    pub property: String,
    /// Sampled rows without it.
    pub rows: usize,
    /// Whether the field is an `Option` (absent is expected) rather than a default.
    pub optional: bool,
}

/// A field some rows hold a value of that it cannot read: its getter gives the default, its
/// `try_` getter an error, and a setter over it makes writes refuse the entity.
///
/// ```
/// use tablekit::insight::{check, generate_model, GenerateOptions};
/// use tablekit::DynamicEntity;
///
/// let order = |id: &str| DynamicEntity::new("eu", id);
/// let (mut first, mut second) = (order("1"), order("2"));
/// first.set("Total", 12.5);
/// second.set("Total", 3.0);
/// let model = generate_model(&[first, second], &GenerateOptions::default());
///
/// // A newer writer stores the total as text.
/// let mut text = order("3");
/// text.set("Total", "12.50");
/// let report = check(&model.description, &[text]);
/// let unreadable = &report.unreadable[0];
/// assert_eq!((unreadable.field.as_str(), unreadable.property.as_str(), unreadable.rows), ("total", "Total", 1));
/// assert_eq!(unreadable.examples, [("eu".to_owned(), "3".to_owned())]);
/// assert!(report.fails_reads());
/// assert!(report.to_string().contains("unreadable: `total` (Total) in 1 rows"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Unreadable {
    /// The Rust field.
    pub field: String,
    /// The stored property.
    pub property: String,
    /// Sampled rows it cannot read.
    pub rows: usize,
    /// Why, for the first of them.
    pub reason: String,
    /// The keys of a few of them (PartitionKey, RowKey).
    pub examples: Vec<(String, String)>,
}

/// Keys not of the model's shape.
///
/// ```
/// use tablekit::insight::{check, generate_model, GenerateOptions};
/// use tablekit::DynamicEntity;
///
/// let rows = [DynamicEntity::new("eu", "order_000001"), DynamicEntity::new("eu", "order_000002")];
/// let model = generate_model(&rows, &GenerateOptions::default());
///
/// // A writer that forgot the padding.
/// let newer = [DynamicEntity::new("eu", "order_17"), DynamicEntity::new("eu", "order_000018")];
/// let report = check(&model.description, &newer);
/// let mismatch = &report.key_mismatches[0];
/// assert_eq!(mismatch.key, "RowKey");
/// assert_eq!(mismatch.expected, "\"order\"_{6 digits}");
/// assert_eq!((mismatch.rows, mismatch.examples.as_slice()), (1, &["order_17".to_owned()][..]));
/// assert_eq!(
///     serde_json::to_value(mismatch).unwrap(),
///     serde_json::json!({ "key": "RowKey", "expected": "\"order\"_{6 digits}", "rows": 1, "examples": ["order_17"] }),
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct KeyMismatch {
    /// `PartitionKey` or `RowKey`.
    pub key: String,
    /// The shape expected.
    pub expected: String,
    /// Sampled rows whose key is not of it.
    pub rows: usize,
    /// A few of those keys.
    pub examples: Vec<String>,
}

/// What differs between a model and a sample of a table.
///
/// `Display` writes it for people; `serde_json::to_string` for CI. Unknown properties and
/// absent fields are kept safe by the model (unknown ones survive writes, absent ones read a
/// default), so only unreadable values and keys of another shape fail reads
/// ([`fails_reads`](Self::fails_reads)).
///
/// ```
/// use tablekit::insight::{check, generate_model, GenerateOptions};
/// use tablekit::DynamicEntity;
///
/// let order = |id: &str, total: f64| {
///     let mut e = DynamicEntity::new("eu", id);
///     e.set("Total", total);
///     e
/// };
/// let rows = [order("1", 12.5), order("2", 3.0)];
/// let options = GenerateOptions { name: Some("Order".into()), ..Default::default() };
/// let model = generate_model(&rows, &options);
///
/// let report = check(&model.description, &rows);
/// assert!(report.is_clean());
/// assert_eq!(report.to_string(), "model `Order` against 2 sampled rows:\n  no drift\n");
///
/// let mut newer = order("3", 9.0);
/// newer.set("Total", "9.00");
/// newer.set("Currency", "EUR");
/// let report = check(&model.description, &[newer]);
/// assert!(report.fails_reads());
/// let text = report.to_string();
/// assert!(text.contains("unreadable: `total` (Total) in 1 rows"), "{text}");
/// assert!(text.contains("unknown property: `Currency` (String) in 1 rows"), "{text}");
/// assert!(text.ends_with("=> reads of these rows fail or lose values\n"), "{text}");
///
/// // For CI: the same as JSON.
/// let json = serde_json::to_value(&report).unwrap();
/// assert_eq!(json["sampled"], 1);
/// assert_eq!(json["unreadable"][0]["field"], "total");
/// assert_eq!(json["unknown_properties"][0]["types"][0], "String");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DriftReport {
    /// The model's name.
    pub model: String,
    /// Rows compared.
    pub sampled: usize,
    /// Properties no field reads.
    pub unknown_properties: Vec<UnknownProperty>,
    /// Fields some rows lack.
    pub absent_fields: Vec<AbsentField>,
    /// Values fields cannot read.
    pub unreadable: Vec<Unreadable>,
    /// Keys of another shape.
    pub key_mismatches: Vec<KeyMismatch>,
}

impl DriftReport {
    /// Whether a read of some sampled row would fail (`try_` getters) or fall back to a
    /// default over a stored value: an unreadable value or a key of another shape.
    pub fn fails_reads(&self) -> bool {
        !self.unreadable.is_empty() || !self.key_mismatches.is_empty()
    }

    /// Whether nothing differs at all.
    pub fn is_clean(&self) -> bool {
        !self.fails_reads() && self.unknown_properties.is_empty() && self.absent_fields.is_empty()
    }
}

impl fmt::Display for DriftReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "model `{}` against {} sampled rows:",
            self.model, self.sampled
        )?;
        if self.is_clean() {
            return writeln!(f, "  no drift");
        }
        for u in &self.unreadable {
            writeln!(
                f,
                "  unreadable: `{}` ({}) in {} rows: {}; e.g. {}",
                u.field,
                u.property,
                u.rows,
                u.reason,
                keys_text(&u.examples)
            )?;
        }
        for k in &self.key_mismatches {
            writeln!(
                f,
                "  key: {} not {} in {} rows, e.g. {}",
                k.key,
                k.expected,
                k.rows,
                k.examples
                    .iter()
                    .map(|e| format!("{e:?}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )?;
        }
        for u in &self.unknown_properties {
            writeln!(
                f,
                "  unknown property: `{}` ({}) in {} rows: kept on writes, read by no field",
                u.property,
                u.types.join(", "),
                u.rows
            )?;
        }
        for a in &self.absent_fields {
            let reads = if a.optional { "None" } else { "its default" };
            writeln!(
                f,
                "  absent: `{}` ({}) in {} rows: reads {reads}",
                a.field, a.property, a.rows
            )?;
        }
        let verdict = if self.fails_reads() {
            "reads of these rows fail or lose values"
        } else {
            "every field reads"
        };
        writeln!(f, "  => {verdict}")
    }
}

pub(super) fn keys_text(examples: &[(String, String)]) -> String {
    examples
        .iter()
        .map(|(p, r)| format!("({p:?}, {r:?})"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Rows, the first reason and a few keys of one field's unreadable values.
type UnreadableTally = (usize, String, Vec<(String, String)>);

/// Counts being gathered.
#[derive(Default)]
struct Tally {
    unknown: BTreeMap<String, (usize, Vec<String>)>,
    absent: BTreeMap<usize, usize>,
    unreadable: BTreeMap<usize, UnreadableTally>,
    keys: [(usize, Vec<String>); 2],
}

impl Tally {
    fn unreadable(&mut self, field: usize, entity: &DynamicEntity, reason: impl fmt::Display) {
        let entry = self
            .unreadable
            .entry(field)
            .or_insert_with(|| (0, reason.to_string(), Vec::new()));
        entry.0 += 1;
        if entry.2.len() < EXAMPLES {
            entry.2.push((
                entity.partition_key().to_owned(),
                entity.row_key().to_owned(),
            ));
        }
    }

    fn unknown(&mut self, name: &str, value: &Value) {
        let entry = self.unknown.entry(name.to_owned()).or_default();
        entry.0 += 1;
        let t = super::profile::edm_name(value.edm_type()).to_owned();
        if !entry.1.contains(&t) {
            entry.1.push(t);
        }
    }

    fn key(&mut self, which: usize, shape: &KeyShape, key: &str) {
        if !shape.matches(key) {
            let entry = &mut self.keys[which];
            entry.0 += 1;
            if entry.1.len() < EXAMPLES {
                entry.1.push(key.to_owned());
            }
        }
    }

    /// The report, fields named by `field(i)` as `(field, property, optional)`.
    fn report(
        self,
        model: &str,
        sampled: usize,
        field: impl Fn(usize) -> (String, String, bool),
        shapes: [&KeyShape; 2],
    ) -> DriftReport {
        DriftReport {
            model: model.to_owned(),
            sampled,
            unknown_properties: self
                .unknown
                .into_iter()
                .map(|(property, (rows, types))| UnknownProperty {
                    property,
                    rows,
                    types,
                })
                .collect(),
            absent_fields: self
                .absent
                .into_iter()
                .map(|(i, rows)| {
                    let (field, property, optional) = field(i);
                    AbsentField {
                        field,
                        property,
                        rows,
                        optional,
                    }
                })
                .collect(),
            unreadable: self
                .unreadable
                .into_iter()
                .map(|(i, (rows, reason, examples))| {
                    let (field, property, _) = field(i);
                    Unreadable {
                        field,
                        property,
                        rows,
                        reason,
                        examples,
                    }
                })
                .collect(),
            key_mismatches: self
                .keys
                .into_iter()
                .zip(["PartitionKey", "RowKey"])
                .zip(shapes)
                .filter(|(((rows, _), _), _)| *rows > 0)
                .map(|(((rows, examples), key), shape)| KeyMismatch {
                    key: key.to_owned(),
                    expected: shape.to_string(),
                    rows,
                    examples,
                })
                .collect(),
        }
    }
}

/// Checks `entities` against a model description (from [`generate_model`](super::generate_model)
/// or its JSON): each field's property read as its Rust type (the same conversions as the
/// derive's getters), presence, unknown properties, and both keys against their shapes.
///
/// A `rust_type` other than the ones `generate_model` writes is only checked for presence.
pub fn check(model: &ModelDescription, entities: &[DynamicEntity]) -> DriftReport {
    let mut tally = Tally::default();
    for entity in entities {
        for (i, f) in model.fields.iter().enumerate() {
            let Some(property) = &f.property else {
                continue;
            };
            match entity.value(property) {
                None => *tally.absent.entry(i).or_default() += 1,
                Some(value) => {
                    if let Err(e) = reads_as(&f.rust_type, value) {
                        tally.unreadable(i, entity, e);
                    }
                }
            }
        }
        for (name, value) in entity.properties() {
            if !model
                .fields
                .iter()
                .any(|f| f.property.as_deref() == Some(name))
            {
                tally.unknown(name, value);
            }
        }
        tally.key(0, &model.partition_key, entity.partition_key());
        tally.key(1, &model.row_key, entity.row_key());
    }
    tally.report(
        &model.name,
        entities.len(),
        |i| {
            let f = &model.fields[i];
            (
                f.field.clone(),
                f.property.clone().unwrap_or_default(),
                f.optional,
            )
        },
        [&model.partition_key, &model.row_key],
    )
}

/// Whether a value reads as the named Rust type.
fn reads_as(rust_type: &str, value: &Value) -> Result<(), ValueError> {
    fn read<T: FromValue>(value: &Value) -> Result<(), ValueError> {
        T::from_value(value).map(drop)
    }
    match rust_type {
        "i32" => read::<i32>(value),
        "i64" => read::<i64>(value),
        "u64" => read::<u64>(value),
        "f64" => read::<f64>(value),
        "bool" => read::<bool>(value),
        "String" => read::<String>(value),
        "DateTime<Utc>" => read::<DateTime<Utc>>(value),
        "Uuid" => read::<Uuid>(value),
        "Vec<u8>" => read::<Vec<u8>>(value),
        _ => Ok(()),
    }
}

/// Checks `entities` against the model `M` (a `#[derive(TableEntity)]` struct): each field
/// read by its own `try_` getter (so records of a newer version, JSON that does not parse and
/// key-only fields whose key part does not read back are found as the code would find them),
/// presence of each property, and properties no field reads. The keys' shapes are checked
/// when given (`shapes`, e.g. from a generated description); key-only fields are checked
/// either way.
///
/// Index and continuation rows among `rows` are not entities: they are skipped, and the
/// continuation rows are joined to their entity before its fields are read, as a read of the
/// model does; a value whose continuation rows are not in `rows` is left unchecked.
///
/// ```
/// use tablekit::prelude::*;
/// use tablekit::insight::check_model;
///
/// #[derive(TableEntity)]
/// pub struct Gamer {
///     #[tablekit(partition_key)]
///     pub tag: String,
///     pub score: i32,
/// }
///
/// let mut row = DynamicEntity::new("dragon", "");
/// row.set("Tag", "dragon");
/// row.set("Score", 1i64 << 40); // too large for an i32
/// let report = check_model::<Gamer>(&[row], None);
/// assert_eq!(report.unreadable[0].field, "score");
/// assert!(report.unreadable[0].reason.contains("i32"));
/// ```
pub fn check_model<M: ModelFields>(
    rows: &[DynamicEntity],
    shapes: Option<(&KeyShape, &KeyShape)>,
) -> DriftReport {
    let (helpers, entities): (Vec<&DynamicEntity>, Vec<&DynamicEntity>) =
        rows.iter().partition(|row| is_auxiliary(row));
    let mut tally = Tally::default();
    let fields = M::FIELDS;
    let known = |name: &str| {
        fields.iter().any(|f| match f.storage {
            FieldStorage::KeyOnly => false,
            FieldStorage::Property => f.property == name || f.old_names.contains(&name),
            FieldStorage::Spread | FieldStorage::Flatten => {
                f.property == name
                    || name
                        .strip_prefix(f.property)
                        .is_some_and(|rest| rest.starts_with('_'))
            }
        }) || M::DISCRIMINATOR.is_some_and(|d| d.property == name)
    };
    for &entity in &entities {
        for (i, f) in fields.iter().enumerate() {
            if f.storage == FieldStorage::Property
                && entity.value(f.property).is_none()
                && f.old_names.iter().all(|o| entity.value(o).is_none())
            {
                *tally.absent.entry(i).or_default() += 1;
            }
        }
        for (name, value) in entity.properties() {
            if !known(name) {
                tally.unknown(name, value);
            }
        }
        if let Some((pk, rk)) = shapes {
            tally.key(0, pk, entity.partition_key());
            tally.key(1, rk, entity.row_key());
        }
        // The getters read the entity as a read assembles it.
        let assembled = assembled::<M>(entity, &helpers);
        let wrapped = M::Entity::wrap(assembled.clone().unwrap_or_else(|| entity.clone()));
        for (i, f) in fields.iter().enumerate() {
            let rows_missing = assembled.is_none() && is_spread_over_rows::<M>(f.property);
            if rows_missing {
                continue;
            }
            if let Err(e) = (f.read)(&wrapped) {
                tally.unreadable(i, entity, e);
            }
        }
    }
    let any = KeyShape::default();
    let (pk, rk) = shapes.unwrap_or((&any, &any));
    let name = std::any::type_name::<M>();
    let name = name.rsplit("::").next().unwrap_or(name);
    tally.report(
        name,
        entities.len(),
        |i| {
            let f = &fields[i];
            (f.field.to_owned(), f.property.to_owned(), f.optional)
        },
        [pk, rk],
    )
}

/// `entity` with the chunks of its continuation rows among `helpers` joined in, as a read
/// assembles it; `None` when its values use continuation rows and the sample holds none of
/// them (a sample of a few rows seldom does): those values are then left unchecked.
fn assembled<M: TableModel>(
    entity: &DynamicEntity,
    helpers: &[&DynamicEntity],
) -> Option<DynamicEntity> {
    let mut whole = entity.clone();
    if !spread::has_rows(entity, M::SPREAD_FIELDS) {
        return Some(whole);
    }
    let (start, end) = spread::continuation_range(entity.row_key());
    let rows: Vec<DynamicEntity> = helpers
        .iter()
        .filter(|row| {
            let key = row.row_key();
            row.partition_key() == entity.partition_key()
                && key >= start.as_str()
                && key < end.as_str()
        })
        .map(|row| (*row).clone())
        .collect();
    if rows.is_empty() {
        return None;
    }
    spread::join(&mut whole, rows, M::SPREAD_FIELDS);
    Some(whole)
}

fn is_spread_over_rows<M: TableModel>(property: &str) -> bool {
    M::SPREAD_FIELDS.iter().any(|f| f.property == property)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::insight::{generate_model, GenerateOptions};

    #[test]
    fn a_description_finds_each_kind_of_drift() {
        let mut base = DynamicEntity::new("eu", "0001");
        base.set("Score", 5i32);
        base.set("Name", "a");
        let model = generate_model(
            &[base.clone(), {
                let mut b = base.clone();
                b.set_row_key("0002");
                b
            }],
            &GenerateOptions {
                name: Some("Gamer".into()),
                table: None,
            },
        );
        let mut wide = DynamicEntity::new("eu", "0003");
        wide.set("Score", 1i64 << 40);
        wide.set("Extra", true);
        let mut odd = DynamicEntity::new("eu", "x");
        odd.set("Score", 1i32);
        odd.set("Name", "b");
        let report = check(&model.description, &[base, wide, odd]);
        assert_eq!(report.sampled, 3);
        assert_eq!(report.unreadable.len(), 1);
        assert_eq!(report.unreadable[0].property, "Score");
        assert_eq!(
            report.unreadable[0].examples,
            [("eu".to_owned(), "0003".to_owned())]
        );
        assert_eq!(report.unknown_properties[0].property, "Extra");
        assert_eq!(report.unknown_properties[0].types, ["Boolean"]);
        assert_eq!(report.absent_fields[0].property, "Name");
        assert_eq!(report.key_mismatches[0].key, "RowKey");
        assert_eq!(report.key_mismatches[0].examples, ["x"]);
        assert!(report.fails_reads());
        let text = report.to_string();
        assert!(
            text.contains("unreadable: `score` (Score) in 1 rows"),
            "{text}"
        );
        assert!(
            text.contains("key: RowKey not {4 digits} in 1 rows, e.g. \"x\""),
            "{text}"
        );
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["key_mismatches"][0]["rows"], 1);
    }
}
