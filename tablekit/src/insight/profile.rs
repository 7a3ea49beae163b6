//! What a sample of entities says of each property: how often it is present, with which EDM
//! types, and (for short text) which values.

use std::collections::{BTreeMap, BTreeSet};

use crate::values::entity::DynamicEntity;
use crate::values::value::{EdmType, Value};

/// Distinct text values kept per property: enough to see a kind, few enough to stay small.
const DISTINCT_LIMIT: usize = 16;

/// One property across a sample.
#[derive(Clone, Debug, Default)]
pub(crate) struct PropertyProfile {
    /// The stored name.
    pub(crate) name: String,
    /// Rows holding it.
    pub(crate) present: usize,
    /// Rows per EDM type.
    pub(crate) types: BTreeMap<EdmTypeKey, usize>,
    /// Rows per text value; `None` once more than [`DISTINCT_LIMIT`] values were seen.
    pub(crate) values: Option<BTreeMap<String, usize>>,
}

/// [`EdmType`] ordered by its name, for maps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct EdmTypeKey(pub(crate) &'static str);

impl EdmTypeKey {
    pub(crate) fn of(t: EdmType) -> Self {
        EdmTypeKey(edm_name(t))
    }
}

/// `Int32`, `String`, ...: the EDM type without its `Edm.` prefix.
pub(crate) fn edm_name(t: EdmType) -> &'static str {
    let name = t.odata_name();
    name.strip_prefix("Edm.").unwrap_or(name)
}

/// The sample as profiles, in first-seen order, and the rows seen.
#[derive(Clone, Debug, Default)]
pub(crate) struct Profile {
    pub(crate) rows: usize,
    pub(crate) properties: Vec<PropertyProfile>,
}

impl Profile {
    pub(crate) fn of<'e>(entities: impl IntoIterator<Item = &'e DynamicEntity>) -> Profile {
        let mut profile = Profile::default();
        let mut index: BTreeMap<String, usize> = BTreeMap::new();
        for entity in entities {
            profile.rows += 1;
            for (name, value) in entity.properties() {
                let i = *index.entry(name.to_owned()).or_insert_with(|| {
                    profile.properties.push(PropertyProfile {
                        name: name.to_owned(),
                        values: Some(BTreeMap::new()),
                        ..PropertyProfile::default()
                    });
                    profile.properties.len() - 1
                });
                let p = &mut profile.properties[i];
                p.present += 1;
                *p.types.entry(EdmTypeKey::of(value.edm_type())).or_default() += 1;
                match (value, &mut p.values) {
                    (Value::String(text), Some(values)) if text.len() <= 64 => {
                        *values.entry(text.to_string()).or_default() += 1;
                        if values.len() > DISTINCT_LIMIT {
                            p.values = None;
                        }
                    }
                    (_, values) => *values = None,
                }
            }
        }
        profile
    }
}

/// The Rust type read from a property seen with `types`, and whether the types varied.
pub(crate) fn rust_type(types: &BTreeMap<EdmTypeKey, usize>) -> &'static str {
    let seen: BTreeSet<&str> = types.keys().map(|k| k.0).collect();
    let only = |allowed: &[&str]| seen.iter().all(|t| allowed.contains(t));
    match seen.len() {
        1 => match seen.first().copied().unwrap_or("String") {
            "Int32" => "i32",
            "Int64" => "i64",
            "Double" => "f64",
            "Boolean" => "bool",
            "DateTime" => "DateTime<Utc>",
            "Guid" => "Uuid",
            "Binary" => "Vec<u8>",
            _ => "String",
        },
        // An i64 reads Int32 values exactly, an f64 Int32 ones.
        _ if only(&["Int32", "Int64"]) => "i64",
        _ if only(&["Int32", "Double"]) => "f64",
        // Nothing narrower reads them all: the value as stored.
        _ => "Value",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn types(names: &[&'static str]) -> BTreeMap<EdmTypeKey, usize> {
        names.iter().map(|n| (EdmTypeKey(n), 1)).collect()
    }

    #[test]
    fn one_type_maps_to_its_rust_type() {
        for (edm, rust) in [
            ("Int32", "i32"),
            ("Int64", "i64"),
            ("Double", "f64"),
            ("Boolean", "bool"),
            ("DateTime", "DateTime<Utc>"),
            ("Guid", "Uuid"),
            ("Binary", "Vec<u8>"),
            ("String", "String"),
        ] {
            assert_eq!(rust_type(&types(&[edm])), rust, "{edm}");
        }
    }

    #[test]
    fn varying_types_take_the_widest_that_reads_them_all() {
        assert_eq!(rust_type(&types(&["Int32", "Int64"])), "i64");
        assert_eq!(rust_type(&types(&["Double", "Int32"])), "f64");
        assert_eq!(rust_type(&types(&["Int64", "Double"])), "Value");
        assert_eq!(rust_type(&types(&["Int32", "String"])), "Value");
    }

    #[test]
    fn a_profile_counts_presence_types_and_values() {
        let mut a = DynamicEntity::new("p", "1");
        a.set("Kind", "Order");
        a.set("N", 1i32);
        let mut b = DynamicEntity::new("p", "2");
        b.set("Kind", "Customer");
        b.set("N", 1i64 << 40);
        let profile = Profile::of([&a, &b]);
        assert_eq!(profile.rows, 2);
        let kind = &profile.properties[0];
        assert_eq!((kind.name.as_str(), kind.present), ("Kind", 2));
        assert_eq!(kind.values.as_ref().map(BTreeMap::len), Some(2));
        let n = &profile.properties[1];
        assert_eq!(rust_type(&n.types), "i64");
        assert!(n.values.is_none());
    }
}
