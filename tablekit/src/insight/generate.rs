//! The source of a `#[derive(TableEntity)]` struct for a sample of a table's entities.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::key_shape::{KeyShape, PartShape};
use super::profile::{rust_type, EdmTypeKey, Profile, PropertyProfile};
use crate::values::entity::DynamicEntity;

/// Rust keywords a field cannot be named (`type`, `fn`, ...): such a field gets a `_` suffix.
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use",
    "where", "while", "abstract", "become", "box", "do", "final", "macro", "override", "priv",
    "try", "typeof", "unsized", "virtual", "yield", "gen",
];

/// Methods the generated wrapper has already: a field of that name gets a `_value` suffix.
const WRAPPER_METHODS: &[&str] = &[
    "new",
    "wrap",
    "into_dynamic",
    "as_dynamic",
    "as_dynamic_mut",
    "partition_key",
    "row_key",
    "etag",
    "timestamp",
    "allow_overwrite",
    "kind",
];

/// The most distinct values a property may take to propose an entity family.
const FAMILY_MAX_KINDS: usize = 8;

/// What to call the model.
///
/// ```
/// use tablekit::insight::{generate_model, GenerateOptions};
/// use tablekit::DynamicEntity;
///
/// let mut row = DynamicEntity::new("eu", "1");
/// row.set("Score", 5i32);
/// let rows = [row];
///
/// // Named after the table by default, which the struct's attribute names too.
/// let options = GenerateOptions { table: Some("Players".into()), ..Default::default() };
/// let model = generate_model(&rows, &options);
/// assert_eq!(model.description.name, "Player");
/// assert!(model.source.contains("#[tablekit(table = \"Players\""));
///
/// // Or named as given.
/// let options = GenerateOptions { name: Some("Gamer".into()), ..options };
/// assert!(generate_model(&rows, &options).source.contains("pub struct Gamer {"));
///
/// // Neither: a struct `Entity` without a table.
/// let model = generate_model(&rows, &GenerateOptions::default());
/// assert!(model.source.contains("pub struct Entity {"));
/// assert!(!model.source.contains("table ="));
/// ```
#[derive(Clone, Debug, Default)]
pub struct GenerateOptions {
    /// The struct's name (default: the table's name, singular-ish, in PascalCase).
    pub name: Option<String>,
    /// The table, for `#[tablekit(table = "...")]` and the header.
    pub table: Option<String>,
}

/// A model as data: what `schema check` compares a table with, and what
/// [`generate_model`] wrote the source from. Its JSON is stable, for files kept beside code.
///
/// ```
/// # fn main() -> Result<(), serde_json::Error> {
/// use tablekit::insight::{check, generate_model, GenerateOptions, ModelDescription};
/// use tablekit::DynamicEntity;
///
/// let rows: Vec<_> = (1..=2)
///     .map(|i| {
///         let mut e = DynamicEntity::new("eu", format!("order_{i:06}"));
///         e.set("Total", 12.5);
///         e
///     })
///     .collect();
/// let options = GenerateOptions { table: Some("Orders".into()), ..Default::default() };
/// let model = generate_model(&rows, &options);
///
/// // Kept in a file beside the code, read back for later checks.
/// let json = serde_json::to_string_pretty(&model.description)?;
/// let description: ModelDescription = serde_json::from_str(&json)?;
/// assert_eq!(description, model.description);
/// assert_eq!((description.name.as_str(), description.table.as_deref()), ("Order", Some("Orders")));
/// assert_eq!(description.row_key.to_string(), "\"order\"_{6 digits}");
/// let value: serde_json::Value = serde_json::from_str(&json)?;
/// assert_eq!(value["row_key"]["separator"], "_");
/// assert!(check(&description, &rows).is_clean());
/// # Ok(()) }
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelDescription {
    /// The struct's name.
    pub name: String,
    /// The table sampled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<String>,
    /// How PartitionKeys are made.
    #[serde(default)]
    pub partition_key: KeyShape,
    /// How RowKeys are made.
    #[serde(default)]
    pub row_key: KeyShape,
    /// The fields, in order.
    pub fields: Vec<FieldDescription>,
}

/// One field of a [`ModelDescription`].
///
/// ```
/// use tablekit::insight::{check, generate_model, FieldDescription, GenerateOptions};
/// use tablekit::DynamicEntity;
///
/// let mut first = DynamicEntity::new("eu", "order_000001");
/// first.set("Total", 12.5);
/// first.set("Note", "gift");
/// let mut second = DynamicEntity::new("eu", "order_000002");
/// second.set("Total", 3.0);
/// let rows = [first, second];
/// let mut description = generate_model(&rows, &GenerateOptions::default()).description;
///
/// let field = |name: &str| description.fields.iter().find(|f| f.field == name).unwrap().clone();
/// let order = field("order"); // the number in the RowKey
/// assert_eq!((order.property, order.rust_type.as_str(), order.optional), (None, "u64", false));
/// let note = field("note"); // in one row of two
/// assert_eq!((note.property.as_deref(), note.rust_type.as_str(), note.optional), (Some("Note"), "String", true));
///
/// // A field added by hand: no sampled row holds it yet.
/// description.fields.push(FieldDescription {
///     field: "currency".into(),
///     property: Some("Currency".into()),
///     rust_type: "String".into(),
///     optional: false,
/// });
/// let report = check(&description, &rows);
/// let absent = report.absent_fields.iter().find(|a| a.field == "currency").unwrap();
/// assert_eq!(absent.rows, 2);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FieldDescription {
    /// The Rust field.
    pub field: String,
    /// The stored property; `None` for a field kept only in a key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub property: Option<String>,
    /// The Rust type without `Option`: `i32`, `i64`, `f64`, `bool`, `String`,
    /// `DateTime<Utc>`, `Uuid`, `Vec<u8>`, `u64` (a key part) or `Value` (anything).
    pub rust_type: String,
    /// Whether the field is an `Option` (absent reads `None`).
    #[serde(default)]
    pub optional: bool,
}

/// A generated model: the source of the struct and the same model as data.
///
/// ```
/// use tablekit::insight::{generate_model, GenerateOptions};
/// use tablekit::DynamicEntity;
///
/// let mut row = DynamicEntity::new("eu", "o-1");
/// row.set("Total", 12.5);
/// let options = GenerateOptions { table: Some("Orders".into()), ..Default::default() };
/// let model = generate_model(&[row], &options);
///
/// // The source, for the code base.
/// assert!(model.source.starts_with("// A model of table `Orders`, from a sample of 1 entities in 1 partitions."));
/// assert!(model.source.contains("use tablekit::prelude::*;"));
/// assert!(model.source.contains("pub struct Order {"));
/// assert!(model.source.contains("pub total: f64,"));
///
/// // The same model as data, for drift checks.
/// let total = model.description.fields.iter().find(|f| f.field == "total").unwrap();
/// assert_eq!((total.property.as_deref(), total.rust_type.as_str()), (Some("Total"), "f64"));
/// ```
#[derive(Clone, Debug)]
pub struct GeneratedModel {
    /// Rust source: a header comment, `use tablekit::prelude::*;` and the struct.
    pub source: String,
    /// The model as data, for drift checks.
    pub description: ModelDescription,
}

/// One field being written.
struct FieldOut {
    name: String,
    property: Option<String>,
    ty: String,
    optional: bool,
    attrs: Vec<String>,
    docs: Vec<String>,
}

/// Writes a `#[derive(TableEntity)]` struct reading every entity of `sample` (see the
/// [module documentation](super) for what is inferred).
///
/// ```
/// use tablekit::insight::{generate_model, GenerateOptions};
/// use tablekit::DynamicEntity;
///
/// let mut rows = Vec::new();
/// for (i, region) in ["eu", "us"].iter().enumerate() {
///     let mut e = DynamicEntity::new(region, format!("order_{i:06}"));
///     e.set("Total", 12.5);
///     if i == 0 {
///         e.set("Note", "gift");
///     }
///     rows.push(e);
/// }
/// let model = generate_model(&rows, &GenerateOptions { table: Some("Orders".into()), ..Default::default() });
/// assert!(model.source.contains("#[tablekit(table = \"Orders\", row_key(constant = \"order\", order = 0))]"));
/// assert!(model.source.contains("#[tablekit(row_key(order = 1, pad = 6), key_only)]\n    pub order: u64,"));
/// assert!(model.source.contains("pub total: f64,"));
/// assert!(model.source.contains("/// String, in 1 of 2 sampled rows (50%)\n    pub note: Option<String>,"));
/// assert_eq!(model.description.name, "Order");
/// ```
pub fn generate_model(sample: &[DynamicEntity], options: &GenerateOptions) -> GeneratedModel {
    let profile = Profile::of(sample);
    let name = options
        .name
        .clone()
        .unwrap_or_else(|| struct_name(options.table.as_deref().unwrap_or("Entity")));
    let mut unknowns: Vec<String> = Vec::new();
    let mut struct_attrs: Vec<String> = Vec::new();
    if let Some(table) = &options.table {
        struct_attrs.push(format!("table = {table:?}"));
    }
    let pks: Vec<&str> = sample.iter().map(DynamicEntity::partition_key).collect();
    let rks: Vec<&str> = sample.iter().map(DynamicEntity::row_key).collect();
    let pk_shape = KeyShape::infer(&pks);
    let rk_shape = KeyShape::infer(&rks);
    // The derive has one separator for both keys: a RowKey split otherwise stays whole.
    let mut rk_emitted = rk_shape.clone();
    if let (Some(p), Some(r)) = (&pk_shape.separator, &rk_shape.separator) {
        if p != r && pk_shape.parts.len() > 1 && rk_shape.parts.len() > 1 {
            unknowns.push(format!(
                "the RowKey's parts ({rk_shape}): the derive joins both keys' parts with one \
                 separator, and the PartitionKey's is {p:?}; the RowKey is one text field here"
            ));
            rk_emitted = KeyShape::single(PartShape::Text);
        }
    }
    let separator = [&pk_shape, &rk_emitted]
        .into_iter()
        .filter(|s| s.parts.len() > 1)
        .find_map(|s| s.separator.clone());
    if let Some(sep) = separator.as_deref().filter(|s| *s != "_") {
        struct_attrs.push(format!("key_separator = {sep:?}"));
    }

    let mut taken: BTreeSet<String> = BTreeSet::new();
    let mut fields: Vec<FieldOut> = Vec::new();
    let mut key_properties: BTreeSet<String> = BTreeSet::new();
    for (role, shape, keys) in [
        ("partition_key", &pk_shape, &pks),
        ("row_key", &rk_emitted, &rks),
    ] {
        key_fields(
            role,
            shape,
            keys,
            sample,
            &profile,
            &mut KeyOut {
                struct_attrs: &mut struct_attrs,
                fields: &mut fields,
                taken: &mut taken,
                key_properties: &mut key_properties,
                unknowns: &mut unknowns,
            },
        );
    }

    for p in profile
        .properties
        .iter()
        .filter(|p| !key_properties.contains(&p.name))
    {
        fields.push(property_field(p, profile.rows, &mut taken, &mut unknowns));
    }

    let family = family_proposal(sample, &profile, &name, options.table.as_deref());
    let partitions = pks.iter().collect::<BTreeSet<_>>().len();

    let mut out = String::new();
    let table_text = options
        .table
        .as_deref()
        .map_or(String::from("a table"), |t| format!("table `{t}`"));
    let _ = writeln!(
        out,
        "// A model of {table_text}, from a sample of {} entities in {partitions} partitions.",
        profile.rows
    );
    out.push_str(
        "// What the sample cannot tell, to check before use:\n\
         // - the meaning of values: enums (`#[derive(TableValue)]`), JSON (`json`) and records\n\
         //   (`records`) read here as the `String`, `i32` or `Vec<u8>` they are stored as;\n\
         // - properties present in every sampled row are plain fields: a row outside the\n\
         //   sample that lacks one reads its default;\n",
    );
    for unknown in &unknowns {
        let _ = writeln!(out, "// - {unknown};");
    }
    if profile.rows == 0 {
        out.push_str("// - anything about properties: the sample was empty;\n");
    }
    out.push_str("\nuse tablekit::prelude::*;\n\n");
    if let Some(family) = &family {
        out.push_str(family);
        out.push('\n');
    }
    out.push_str("#[derive(Debug, Clone, PartialEq, TableEntity)]\n");
    if !struct_attrs.is_empty() {
        let _ = writeln!(out, "#[tablekit({})]", struct_attrs.join(", "));
    }
    let _ = writeln!(out, "pub struct {name} {{");
    for f in &fields {
        for doc in &f.docs {
            let _ = writeln!(out, "    /// {doc}");
        }
        if !f.attrs.is_empty() {
            let _ = writeln!(out, "    #[tablekit({})]", f.attrs.join(", "));
        }
        let ty = match f.optional {
            true => format!("Option<{}>", f.ty),
            false => f.ty.clone(),
        };
        let _ = writeln!(out, "    pub {}: {ty},", f.name);
    }
    out.push_str("}\n");

    let description = ModelDescription {
        name,
        table: options.table.clone(),
        partition_key: pk_shape,
        row_key: rk_shape,
        fields: fields
            .into_iter()
            .map(|f| FieldDescription {
                field: f.name,
                property: f.property,
                rust_type: f.ty,
                optional: f.optional,
            })
            .collect(),
    };
    GeneratedModel {
        source: out,
        description,
    }
}

/// Where key fields go.
struct KeyOut<'a> {
    struct_attrs: &'a mut Vec<String>,
    fields: &'a mut Vec<FieldOut>,
    taken: &'a mut BTreeSet<String>,
    key_properties: &'a mut BTreeSet<String>,
    unknowns: &'a mut Vec<String>,
}

/// The fields and struct attributes of one key.
fn key_fields(
    role: &str,
    shape: &KeyShape,
    keys: &[&str],
    sample: &[DynamicEntity],
    profile: &Profile,
    out: &mut KeyOut<'_>,
) {
    let label = if role == "partition_key" {
        "PartitionKey"
    } else {
        "RowKey"
    };
    let short = if role == "partition_key" {
        "partition"
    } else {
        "row"
    };
    if let [only] = shape.parts.as_slice() {
        match only {
            // No key field: the derive's key is then "" too.
            PartShape::Constant { value } if value.is_empty() => {}
            PartShape::Constant { value } => out
                .struct_attrs
                .push(format!("{role}(constant = {value:?})")),
            PartShape::Text if !keys.is_empty() => {
                // A property holding the whole key in every row is the key field itself.
                let same = profile.properties.iter().find(|p| {
                    p.present == profile.rows
                        && sample
                            .iter()
                            .all(|e| e.get::<String>(&p.name).as_deref() == Some(e_key(e, role)))
                });
                match same {
                    Some(p) => {
                        let mut f = named_field(&p.name, out.taken);
                        f.attrs.insert(0, role.to_owned());
                        f.docs
                            .push(format!("The {label}, stored as `{}` too.", p.name));
                        out.key_properties.insert(p.name.clone());
                        out.fields.push(f);
                    }
                    None => {
                        let f = key_field(short, None, role, only, label, out);
                        out.fields.push(f);
                    }
                }
            }
            part => {
                let f = key_field(short, None, role, part, label, out);
                out.fields.push(f);
            }
        }
        return;
    }
    let mut previous: Option<&str> = None;
    for (order, part) in shape.parts.iter().enumerate() {
        if let PartShape::Constant { value } = part {
            out.struct_attrs
                .push(format!("{role}(constant = {value:?}, order = {order})"));
            previous = Some(value);
            continue;
        }
        let base = previous
            .map(snake_case)
            .filter(|s| !s.is_empty() && !s.starts_with("p_"))
            .unwrap_or_else(|| format!("{short}_{order}"));
        let f = key_field(&base, Some(order), role, part, label, out);
        out.fields.push(f);
        previous = None;
    }
}

fn e_key<'e>(e: &'e DynamicEntity, role: &str) -> &'e str {
    if role == "partition_key" {
        e.partition_key()
    } else {
        e.row_key()
    }
}

/// A field kept only in a key (its value read back from the key).
fn key_field(
    base: &str,
    order: Option<usize>,
    role: &str,
    part: &PartShape,
    label: &str,
    out: &mut KeyOut<'_>,
) -> FieldOut {
    let (ty, format, doc) = match part {
        PartShape::Integer => ("u64", None, "a number".to_owned()),
        PartShape::Padded { width } => (
            "u64",
            Some(format!("pad = {width}")),
            format!("{width} zero-padded digits"),
        ),
        PartShape::Ticks => (
            "DateTime<Utc>",
            Some("ticks".into()),
            "19-digit ticks, oldest first".into(),
        ),
        PartShape::InvertedTicks => (
            "DateTime<Utc>",
            Some("inverted_ticks".into()),
            "19-digit inverted ticks, newest first".into(),
        ),
        PartShape::Uuid => ("Uuid", None, "a GUID".into()),
        PartShape::Date { pattern } => {
            // A date part cannot be read back from the key, so `key_only` refuses it.
            out.unknowns.push(format!(
                "the {label} part `{base}` is a date `{pattern}`: a `DateTime<Utc>` field with \
                 `{role}(format = {pattern:?})` writes it, but is stored as a property too; \
                 it is text here"
            ));
            ("String", None, format!("a date `{pattern}`, as text"))
        }
        PartShape::Text | PartShape::Constant { .. } => ("String", None, "text".into()),
    };
    let mut inner: Vec<String> = Vec::new();
    if let Some(order) = order {
        inner.push(format!("order = {order}"));
    }
    inner.extend(format);
    let attr = match inner.is_empty() {
        true => role.to_owned(),
        false => format!("{role}({})", inner.join(", ")),
    };
    FieldOut {
        name: unique(base.to_owned(), out.taken),
        property: None,
        ty: ty.to_owned(),
        optional: false,
        attrs: vec![attr, "key_only".into()],
        docs: vec![format!(
            "The {label}{}: {doc}.",
            match order {
                Some(o) => format!("'s part {o}"),
                None => String::new(),
            }
        )],
    }
}

/// A field for a stored property, named and renamed; type and docs left to the caller.
fn named_field(property: &str, taken: &mut BTreeSet<String>) -> FieldOut {
    let mut name = snake_case(property);
    if KEYWORDS.contains(&name.as_str()) {
        name.push('_');
    }
    if WRAPPER_METHODS.contains(&name.as_str()) {
        name.push_str("_value");
    }
    let name = unique(name, taken);
    // The derive's default stored name is the field's in PascalCase; anything it might
    // spell otherwise (digits, non-letters, a suffix added here) is renamed explicitly.
    let plain = property.chars().all(|c| c.is_ascii_alphabetic())
        && !name.ends_with('_')
        && pascal_case(&name) == property;
    FieldOut {
        attrs: match plain {
            true => Vec::new(),
            false => vec![format!("rename = {property:?}")],
        },
        name,
        property: Some(property.to_owned()),
        ty: "String".into(),
        optional: false,
        docs: Vec::new(),
    }
}

fn property_field(
    p: &PropertyProfile,
    rows: usize,
    taken: &mut BTreeSet<String>,
    unknowns: &mut Vec<String>,
) -> FieldOut {
    let mut f = named_field(&p.name, taken);
    let ty = rust_type(&p.types);
    let seen: Vec<String> = p
        .types
        .iter()
        .map(|(t, n)| format!("{} x{n}", t.0))
        .collect();
    let types: Vec<&str> = p.types.keys().map(|t: &EdmTypeKey| t.0).collect();
    let mut doc = types.join(" or ");
    if p.types.len() > 1 {
        doc = format!("types vary ({}): read as `{ty}`", seen.join(", "));
        unknowns.push(format!(
            "`{}`: its type varies ({}), read as `{ty}`",
            p.name,
            seen.join(", ")
        ));
    }
    if p.present < rows {
        let share = p.present * 100 / rows.max(1);
        let _ = write!(doc, ", in {} of {rows} sampled rows ({share}%)", p.present);
    }
    f.docs.push(doc);
    f.ty = ty.to_owned();
    // `Value` has no default, so a property of varying type is always optional.
    f.optional = p.present < rows || ty == "Value";
    f
}

/// A proposed entity family, as a comment: a text property with few values whose rows have
/// different properties.
fn family_proposal(
    sample: &[DynamicEntity],
    profile: &Profile,
    name: &str,
    table: Option<&str>,
) -> Option<String> {
    let preferred = ["Kind", "Type", "EntityType", "RowType"];
    let mut candidates: Vec<&PropertyProfile> = profile
        .properties
        .iter()
        .filter(|p| {
            p.present == profile.rows
                && p.types.len() == 1
                && p.types.contains_key(&EdmTypeKey("String"))
                && p.values
                    .as_ref()
                    .is_some_and(|v| (2..=FAMILY_MAX_KINDS).contains(&v.len()))
        })
        .collect();
    candidates.sort_by_key(|p| {
        (
            !preferred.contains(&p.name.as_str()),
            p.values.as_ref().map_or(0, BTreeMap::len),
        )
    });
    for candidate in candidates {
        let mut shapes: BTreeMap<String, (usize, Option<BTreeSet<String>>)> = BTreeMap::new();
        for e in sample {
            let Some(kind) = e.get::<String>(&candidate.name) else {
                continue;
            };
            let props: BTreeSet<String> = e
                .properties()
                .map(|(n, _)| n.to_owned())
                .filter(|n| *n != candidate.name)
                .collect();
            let entry = shapes.entry(kind).or_insert((0, None));
            entry.0 += 1;
            entry.1 = Some(match entry.1.take() {
                None => props,
                Some(common) => common.intersection(&props).cloned().collect(),
            });
        }
        let distinct: BTreeSet<&BTreeSet<String>> =
            shapes.values().filter_map(|(_, s)| s.as_ref()).collect();
        if distinct.len() < 2 {
            continue;
        }
        let mut text = format!(
            "// An entity family, proposed: `{}` takes {} values whose rows hold different\n\
             // properties, so each kind could be a model of its own, read as one enum:\n//\n",
            candidate.name,
            shapes.len()
        );
        let kind_attr = match candidate.name.as_str() {
            "Kind" => String::new(),
            other => format!(", kind_property = {other:?}"),
        };
        let mut variants = Vec::new();
        for (kind, (rows, common)) in &shapes {
            let variant = Some(pascal_case(&snake_case(kind)))
                .filter(|v| v.chars().next().is_some_and(|c| c.is_ascii_alphabetic()))
                .unwrap_or_else(|| format!("Kind{}", variants.len()));
            let props: Vec<&str> = common.iter().flatten().map(String::as_str).collect();
            let _ = writeln!(
                text,
                "//     #[derive(TableEntity)]\n\
                 //     #[tablekit(kind = {kind:?}{kind_attr})]\n\
                 //     pub struct {variant} {{ /* {rows} rows; always: {} */ }}\n//",
                if props.is_empty() {
                    "no other property".to_owned()
                } else {
                    props.join(", ")
                }
            );
            variants.push(variant);
        }
        let _ = writeln!(text, "//     #[derive(TableEntity)]");
        if let Some(table) = table {
            let _ = writeln!(text, "//     #[tablekit(table = {table:?})]");
        }
        let _ = writeln!(text, "//     pub enum {name}Row {{");
        for v in &variants {
            let _ = writeln!(text, "//         {v}({v}),");
        }
        text.push_str(
            "//         #[tablekit(other)]\n//         Other(DynamicEntity),\n//     }\n",
        );
        return Some(text);
    }
    None
}

/// A name not yet taken: `name`, else `name_2`, `name_3`, ...
fn unique(name: String, taken: &mut BTreeSet<String>) -> String {
    let mut candidate = name.clone();
    let mut n = 2;
    while taken.contains(&candidate) {
        candidate = format!("{name}_{n}");
        n += 1;
    }
    taken.insert(candidate.clone());
    candidate
}

/// `TotalCents`, `totalCents`, `TOTAL_CENTS`, `ABCValue` to `total_cents`, ..., `abc_value`;
/// anything but letters and digits becomes `_`; a leading digit gets a `p_` prefix.
pub(crate) fn snake_case(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_alphanumeric() {
            if c.is_ascii_uppercase() && i > 0 {
                let prev = chars[i - 1];
                let next_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
                if prev.is_ascii_lowercase()
                    || prev.is_ascii_digit()
                    || (prev.is_ascii_uppercase() && next_lower)
                {
                    out.push('_');
                }
            }
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    let out = out.trim_matches('_').to_owned();
    match out.chars().next() {
        None => "property".to_owned(),
        Some(c) if c.is_ascii_digit() => format!("p_{out}"),
        Some(_) => out,
    }
}

/// `total_cents` to `TotalCents`.
fn pascal_case(snake: &str) -> String {
    snake
        .split('_')
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut chars = w.chars();
            chars
                .next()
                .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// A struct name from a table's: PascalCase, a trailing `s` dropped (`Orders` to `Order`).
fn struct_name(table: &str) -> String {
    let name = pascal_case(&snake_case(table));
    let name = match name.strip_suffix('s') {
        Some(stem) if stem.len() > 1 && !stem.ends_with('s') => stem.to_owned(),
        _ => name,
    };
    // `snake_case` gave a leading digit a `p_`, so the name starts with a letter.
    name
}

#[cfg(test)]
mod tests {
    use chrono::{TimeZone, Utc};

    use super::*;

    #[test]
    fn names() {
        assert_eq!(snake_case("TotalCents"), "total_cents");
        assert_eq!(snake_case("totalCents"), "total_cents");
        assert_eq!(snake_case("ABCValue"), "abc_value");
        assert_eq!(snake_case("Ship_Floor"), "ship_floor");
        assert_eq!(snake_case("2fa"), "p_2fa");
        assert_eq!(snake_case("--"), "property");
        assert_eq!(pascal_case("total_cents"), "TotalCents");
        assert_eq!(struct_name("Orders"), "Order");
        assert_eq!(struct_name("Address"), "Address");
        assert_eq!(struct_name("7days"), "P7day");
    }

    #[test]
    fn fields_are_renamed_where_the_derive_would_spell_them_otherwise() {
        let mut taken = BTreeSet::new();
        assert!(named_field("Score", &mut taken).attrs.is_empty());
        assert_eq!(
            named_field("score", &mut taken).attrs,
            ["rename = \"score\""]
        );
        let f = named_field("Type", &mut taken);
        assert_eq!((f.name.as_str(), f.attrs.len()), ("type_", 1));
        let f = named_field("New", &mut taken);
        assert_eq!(f.name, "new_value");
        let f = named_field("Score2", &mut taken);
        assert_eq!(f.attrs, ["rename = \"Score2\""]);
    }

    #[test]
    fn key_structure_becomes_attributes() {
        let t = Utc.with_ymd_and_hms(2024, 5, 6, 7, 8, 9).unwrap();
        let rows: Vec<DynamicEntity> = (0..3)
            .map(|i| {
                let mut e = DynamicEntity::new(
                    format!("user-{i:04}"),
                    crate::keys::inverted_ticks(&(t + chrono::Duration::seconds(i))),
                );
                e.set("N", i as i32);
                e
            })
            .collect();
        let model = generate_model(&rows, &GenerateOptions::default());
        assert!(
            model.source.contains(
                "#[tablekit(key_separator = \"-\", partition_key(constant = \"user\", order = 0))]"
            ),
            "{}",
            model.source
        );
        assert!(model.source.contains(
            "#[tablekit(partition_key(order = 1, pad = 4), key_only)]\n    pub user: u64,"
        ));
        assert!(model.source.contains(
            "#[tablekit(row_key(inverted_ticks), key_only)]\n    pub row: DateTime<Utc>,"
        ));
        assert!(model.source.contains("    pub n: i32,"));
        assert_eq!(
            model.description.row_key,
            KeyShape::single(PartShape::InvertedTicks)
        );
    }

    #[test]
    fn a_property_holding_the_key_is_the_key_field() {
        let rows: Vec<DynamicEntity> = ["alice", "bob"]
            .iter()
            .map(|u| {
                let mut e = DynamicEntity::new(u, "");
                e.set("UserName", *u);
                e
            })
            .collect();
        let model = generate_model(&rows, &GenerateOptions::default());
        assert!(
            model
                .source
                .contains("    #[tablekit(partition_key)]\n    pub user_name: String,"),
            "{}",
            model.source
        );
        assert!(!model.source.contains("row_key"));
    }

    #[test]
    fn kinds_with_different_shapes_propose_a_family() {
        let mut order = DynamicEntity::new("c1", "o1");
        order.set("Kind", "Order");
        order.set("Total", 3.5);
        let mut customer = DynamicEntity::new("c1", "profile");
        customer.set("Kind", "Customer");
        customer.set("Email", "a@example.com");
        let model = generate_model(
            &[order, customer],
            &GenerateOptions {
                name: Some("Shop".into()),
                table: None,
            },
        );
        assert!(
            model
                .source
                .contains("// An entity family, proposed: `Kind` takes 2 values"),
            "{}",
            model.source
        );
        assert!(model
            .source
            .contains("//     pub struct Order { /* 1 rows; always: Total */ }"));
        assert!(model.source.contains("//         Customer(Customer),"));
        assert!(model.source.contains("pub total: Option<f64>,"));
    }

    #[test]
    fn varying_types_are_said() {
        let mut a = DynamicEntity::new("p", "1");
        a.set("Mixed", 1i32);
        let mut b = DynamicEntity::new("p", "2");
        b.set("Mixed", "one");
        let model = generate_model(&[a, b], &GenerateOptions::default());
        assert!(
            model
                .source
                .contains("// - `Mixed`: its type varies (Int32 x1, String x1), read as `Value`;"),
            "{}",
            model.source
        );
        assert!(model.source.contains("pub mixed: Option<Value>,"));
    }
}
