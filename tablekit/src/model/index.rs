//! Secondary indexes: the intra-partition index pattern of the "Table design patterns" guide.
//!
//! An indexed field (`#[tablekit(index)]`, `index(unique)`, `index(name = "..")`) gets an index
//! row beside each entity, in the same partition, written in the same entity group
//! transaction as the entity so the two never disagree. The index row's RowKey is the index
//! name, `_`, and the value escaped so any value makes a valid key; a non-unique index adds
//! `_` and the entity's RowKey, so several entities can share a value. Index rows carry the
//! [`AUXILIARY_PROPERTY`] (`TablekitRow` = `index:<name>`) and the RowKey of the entity they
//! point at ([`TARGET_PROPERTY`]); typed reads never return them as entities.
//!
//! This module is the data layer of the pattern: which rows an entity needs. The client's
//! writes and lookups put them on the wire.
//!
//! ```
//! use tablekit::index::Index;
//! use tablekit::{DynamicEntity, Value};
//! let email = Index::new("email", "Email").unique();
//! let mut kim = DynamicEntity::new("Sales", "e-1");
//! kim.set("Email", "kim/lee@example.com");
//! let row = email.row_of(&kim)?.expect("indexed");
//! assert_eq!(row.row_key(), "email_kim%2Flee@example.com");
//! assert_eq!(row.get::<String>("TablekitRow").as_deref(), Some("index:email"));
//! assert_eq!(row.get::<String>("TablekitTarget").as_deref(), Some("e-1"));
//! # Ok::<(), tablekit::InvalidInput>(())
//! ```

use std::fmt;

use chrono::{DateTime, SecondsFormat, Utc};
use uuid::Uuid;

pub use crate::model::auxiliary::AUXILIARY_PROPERTY;
use crate::protocol::limits::{self, InvalidInput, KeyKind};
use crate::values::entity::DynamicEntity;
use crate::values::value::{truncate_to_tick, Value};

/// The property of an index row that holds the RowKey of the entity it points at.
///
/// ```
/// assert_eq!(tablekit::index::TARGET_PROPERTY, "TablekitTarget");
/// ```
pub const TARGET_PROPERTY: &str = "TablekitTarget";

/// The property of an inter-partition index row that holds the PartitionKey of the entity it
/// points at.
///
/// ```
/// assert_eq!(tablekit::index::TARGET_PARTITION_PROPERTY, "TablekitTargetPartition");
/// ```
pub const TARGET_PARTITION_PROPERTY: &str = "TablekitTargetPartition";

/// One secondary index of a model: its name, the stored property it indexes, and whether a
/// value may belong to one entity only. `#[derive(TableEntity)]` declares them in
/// [`TableModel::INDEXES`](crate::TableModel::INDEXES).
///
/// ```
/// use tablekit::index::Index;
/// let by_name = Index::new("last_name", "LastName");
/// assert_eq!((by_name.name(), by_name.property(), by_name.is_unique()), ("last_name", "LastName", false));
/// assert!(Index::new("email", "Email").unique().is_unique());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Index {
    name: &'static str,
    property: &'static str,
    unique: bool,
    /// Where an inter-partition index keeps its rows: this partition rather than the
    /// entity's.
    partition: Option<&'static str>,
    /// And this table rather than the entity's.
    table: Option<&'static str>,
}

impl Index {
    /// A non-unique index named `name` on the stored property `property`.
    ///
    /// ```
    /// let index = tablekit::index::Index::new("city", "City");
    /// assert_eq!(index.name(), "city");
    /// ```
    pub const fn new(name: &'static str, property: &'static str) -> Self {
        Index {
            name,
            property,
            unique: false,
            partition: None,
            table: None,
        }
    }

    /// The same index, kept in partition `partition` (of the entity's table, unless
    /// [`in_table`](Self::in_table) names another): an inter-partition index, written after
    /// the entity and so eventually consistent (see [`patterns::index`](crate::patterns::index)
    /// for the repair that makes it exact).
    ///
    /// ```
    /// let index = tablekit::index::Index::new("email", "Email").in_partition("ByEmail");
    /// assert_eq!(index.partition(), Some("ByEmail"));
    /// assert!(index.is_inter_partition());
    /// ```
    pub const fn in_partition(mut self, partition: &'static str) -> Self {
        self.partition = Some(partition);
        self
    }

    /// The same index, kept in table `table` (in the entity's PartitionKey, unless
    /// [`in_partition`](Self::in_partition) names one): eventually consistent, like an
    /// inter-partition index.
    ///
    /// ```
    /// let index = tablekit::index::Index::new("email", "Email").in_table("EmployeeIndex");
    /// assert_eq!(index.table(), Some("EmployeeIndex"));
    /// assert!(index.is_inter_partition());
    /// ```
    pub const fn in_table(mut self, table: &'static str) -> Self {
        self.table = Some(table);
        self
    }

    /// The partition an inter-partition index keeps its rows in, if one is named.
    ///
    /// ```
    /// assert_eq!(tablekit::index::Index::new("email", "Email").partition(), None);
    /// ```
    pub const fn partition(&self) -> Option<&'static str> {
        self.partition
    }

    /// The table an index keeps its rows in, if not the entity's.
    ///
    /// ```
    /// assert_eq!(tablekit::index::Index::new("email", "Email").table(), None);
    /// ```
    pub const fn table(&self) -> Option<&'static str> {
        self.table
    }

    /// Whether its rows live apart from the entity's partition (written after the entity,
    /// eventually consistent), rather than beside it in the same transaction.
    ///
    /// ```
    /// assert!(!tablekit::index::Index::new("email", "Email").is_inter_partition());
    /// ```
    pub const fn is_inter_partition(&self) -> bool {
        self.partition.is_some() || self.table.is_some()
    }

    /// The same index, refusing a value another entity of the partition holds.
    ///
    /// ```
    /// assert!(tablekit::index::Index::new("email", "Email").unique().is_unique());
    /// ```
    pub const fn unique(mut self) -> Self {
        self.unique = true;
        self
    }

    /// The index's name: the start of its rows' RowKeys.
    ///
    /// ```
    /// assert_eq!(tablekit::index::Index::new("email", "Email").name(), "email");
    /// ```
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// The stored property it indexes.
    ///
    /// ```
    /// assert_eq!(tablekit::index::Index::new("email", "Email").property(), "Email");
    /// ```
    pub const fn property(&self) -> &'static str {
        self.property
    }

    /// Whether a value may belong to one entity of a partition only.
    ///
    /// ```
    /// assert!(!tablekit::index::Index::new("city", "City").is_unique());
    /// ```
    pub const fn is_unique(&self) -> bool {
        self.unique
    }

    /// The value of [`AUXILIARY_PROPERTY`] on this index's rows: `index:<name>`.
    ///
    /// ```
    /// assert_eq!(tablekit::index::Index::new("email", "Email").marker(), "index:email");
    /// ```
    pub fn marker(&self) -> String {
        format!("index:{}", self.name)
    }

    /// Whether a RowKey could be one of this index's rows: an entity's RowKey must not be.
    ///
    /// ```
    /// let email = tablekit::index::Index::new("email", "Email");
    /// assert!(email.owns_row_key("email_kim@example.com"));
    /// assert!(!email.owns_row_key("e-1"));
    /// ```
    pub fn owns_row_key(&self, row_key: &str) -> bool {
        row_key
            .strip_prefix(self.name)
            .is_some_and(|rest| rest.starts_with('_'))
    }

    /// The text the value gives in index keys: `None` when the property is absent or null
    /// (no index row), an error for a type no index takes. A `DateTime` is keyed at the
    /// precision it is stored with, 100 ns ([`truncate_to_tick`]), so a lookup by a finer
    /// time finds the entity stored with it.
    ///
    /// ```
    /// use tablekit::index::Index;
    /// use tablekit::Value;
    /// let index = Index::new("code", "Code");
    /// assert_eq!(index.value_key(Some(&Value::Int32(7)))?.as_deref(), Some("7"));
    /// assert_eq!(index.value_key(Some(&Value::String("a_b".into())))?.as_deref(), Some("a%5Fb"));
    /// assert!(index.value_key(Some(&Value::Double(1.5))).is_err());
    /// assert_eq!(index.value_key(None)?, None);
    /// # Ok::<(), tablekit::InvalidInput>(())
    /// ```
    pub fn value_key(&self, value: Option<&Value>) -> Result<Option<String>, InvalidInput> {
        let Some(value) = value else {
            return Ok(None);
        };
        let text = match value {
            Value::String(s) => s.to_string(),
            Value::Int32(n) => n.to_string(),
            Value::Int64(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            Value::Guid(g) => g.hyphenated().to_string(),
            // The stored value's precision: a lookup by a finer time finds what it stored.
            Value::DateTime(t) => truncate_to_tick(*t).to_rfc3339_opts(SecondsFormat::AutoSi, true),
            other => {
                return Err(InvalidInput::Other(format!(
                    "index `{}` cannot index `{}`: it holds an {} value",
                    self.name,
                    self.property,
                    other.edm_type()
                )))
            }
        };
        Ok(Some(escape(&text)))
    }

    /// The RowKey of the index row for a value's key text (from
    /// [`value_key`](Self::value_key)) and the entity's RowKey, checked to be a valid key.
    ///
    /// ```
    /// use tablekit::index::Index;
    /// assert_eq!(Index::new("email", "Email").unique().row_key("kim", "e-1")?, "email_kim");
    /// assert_eq!(Index::new("city", "City").row_key("Oslo", "e-1")?, "city_Oslo_e-1");
    /// let long = "x".repeat(600);
    /// assert!(Index::new("city", "City").row_key(&long, "e-1").is_err());
    /// # Ok::<(), tablekit::InvalidInput>(())
    /// ```
    pub fn row_key(&self, value_key: &str, entity_row_key: &str) -> Result<String, InvalidInput> {
        // A value is unique within a partition's transaction only: rows kept apart always
        // carry the entity's keys.
        let key = match self.unique && !self.is_inter_partition() {
            true => format!("{}_{value_key}", self.name),
            false => format!("{}{entity_row_key}", self.prefix(value_key)),
        };
        limits::validate_key(KeyKind::RowKey, &key).map_err(|e| {
            InvalidInput::Other(format!(
                "the value of index `{}` does not fit in a RowKey: {e}",
                self.name
            ))
        })?;
        Ok(key)
    }

    /// The start every row of a non-unique index for this value's key text shares.
    ///
    /// ```
    /// assert_eq!(tablekit::index::Index::new("city", "City").prefix("Oslo"), "city_Oslo_");
    /// ```
    pub fn prefix(&self, value_key: &str) -> String {
        format!("{}_{value_key}_", self.name)
    }

    /// The index row `entity` needs (`None` when the property is absent or null), in the
    /// entity's partition.
    ///
    /// ```
    /// use tablekit::index::Index;
    /// use tablekit::DynamicEntity;
    /// let unindexed = DynamicEntity::new("Sales", "e-1"); // no `Email`
    /// assert!(Index::new("email", "Email").row_of(&unindexed)?.is_none());
    /// # Ok::<(), tablekit::InvalidInput>(())
    /// ```
    pub fn row_of(&self, entity: &DynamicEntity) -> Result<Option<DynamicEntity>, InvalidInput> {
        let Some(value_key) = self.value_key(entity.value(self.property))? else {
            return Ok(None);
        };
        let (partition_key, row_key) = match self.is_inter_partition() {
            false => (entity.partition_key(), entity.row_key().to_owned()),
            // Rows of many partitions meet here: the entity's PartitionKey tells them apart.
            true => (
                self.partition.unwrap_or(entity.partition_key()),
                format!("{}_{}", escape(entity.partition_key()), entity.row_key()),
            ),
        };
        let row_key = self.row_key(&value_key, &row_key)?;
        let mut row = DynamicEntity::new(partition_key, row_key);
        row.set(AUXILIARY_PROPERTY, self.marker());
        row.set(TARGET_PROPERTY, entity.row_key());
        if self.is_inter_partition() {
            row.set(TARGET_PARTITION_PROPERTY, entity.partition_key());
        }
        Ok(Some(row))
    }

    /// Whether `row` is one of this index's rows.
    ///
    /// ```
    /// use tablekit::index::Index;
    /// use tablekit::DynamicEntity;
    /// let email = Index::new("email", "Email").unique();
    /// let mut kim = DynamicEntity::new("Sales", "e-1");
    /// kim.set("Email", "kim@example.com");
    /// assert!(email.is_row(&email.row_of(&kim)?.expect("indexed")));
    /// assert!(!email.is_row(&kim));
    /// # Ok::<(), tablekit::InvalidInput>(())
    /// ```
    pub fn is_row(&self, row: &DynamicEntity) -> bool {
        matches!(row.value(AUXILIARY_PROPERTY), Some(Value::String(s)) if s.strip_prefix("index:") == Some(self.name))
    }
}

/// Escapes what a key may not hold, and `%` and `_` (the escape and the separator), as
/// `%XX` per UTF-8 byte: a value never runs into the next part, and any text fits a key.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '%' || c == '_' || tablekit_rules::is_forbidden_key_char(c) {
            let mut buf = [0; 4];
            for byte in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("%{byte:02X}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// A value types an index takes: what a lookup is given and the stored value it looks for.
/// Implemented for `String`, the integers the service stores, `bool`, `Uuid`,
/// `DateTime<Utc>`, and `Option` of each (an entity holding `None` has no index row).
///
/// ```
/// use tablekit::index::IndexValue;
/// use tablekit::Value;
/// assert_eq!(<String as IndexValue>::lookup_value("kim"), Value::String("kim".into()));
/// assert_eq!(<Option<i64> as IndexValue>::lookup_value(&7), Value::Int64(7));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be indexed",
    note = "an index takes a `String`, `i32`, `i64`, `bool`, `Uuid` or `DateTime<Utc>` field, or an `Option` of one"
)]
pub trait IndexValue {
    /// What a lookup takes (`str` for a `String` field).
    type Lookup: ?Sized;
    /// The stored value a lookup for `lookup` finds.
    fn lookup_value(lookup: &Self::Lookup) -> Value;
}

impl IndexValue for String {
    type Lookup = str;
    fn lookup_value(lookup: &str) -> Value {
        Value::String(lookup.into())
    }
}

macro_rules! index_value {
    ($($ty:ty => $variant:ident),*) => {$(
        impl IndexValue for $ty {
            type Lookup = $ty;
            fn lookup_value(lookup: &$ty) -> Value {
                Value::$variant(lookup.clone())
            }
        }
    )*};
}

index_value!(i32 => Int32, i64 => Int64, bool => Bool, Uuid => Guid, DateTime<Utc> => DateTime);

impl<T: IndexValue> IndexValue for Option<T> {
    type Lookup = T::Lookup;
    fn lookup_value(lookup: &T::Lookup) -> Value {
        T::lookup_value(lookup)
    }
}

/// A unique index refused a value another entity of the partition holds: nothing of the
/// write was applied. It converts into [`Error::UniqueViolation`](crate::Error::UniqueViolation).
///
/// ```
/// # use tablekit::prelude::*;
/// # #[derive(TableEntity)]
/// # #[tablekit(table = "Employees")]
/// # pub struct Employee {
/// #     #[tablekit(partition_key)]
/// #     pub department: String,
/// #     #[tablekit(row_key)]
/// #     pub id: String,
/// #     #[tablekit(index(unique))]
/// #     pub email: String,
/// # }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let emulator = tablekit_testing::Emulator::start().await?;
/// let table = emulator.client().table::<Employee>();
/// table.create().await?;
/// let mut kim = EmployeeEntity::new("Sales", "e-1");
/// kim.set_email("kim@example.com");
/// table.insert(&mut kim).await?;
/// let mut lee = EmployeeEntity::new("Sales", "e-2");
/// lee.set_email("kim@example.com");
/// let err = table.insert(&mut lee).await.unwrap_err();
/// let Error::UniqueViolation(taken) = &err else { panic!("{err}") };
/// assert_eq!((taken.index, taken.value.as_str()), ("email", "kim@example.com"));
/// assert_eq!(err.to_string(), "unique index `email` already holds `kim@example.com` in partition `Sales`");
/// assert!(table.get("Sales", "e-2").await?.is_none()); // nothing applied
/// # Ok(()) }
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub struct UniqueViolation {
    /// The index's name.
    pub index: &'static str,
    /// The partition.
    pub partition_key: String,
    /// The value's key text (escaped as in the index row's RowKey).
    pub value: String,
}

impl fmt::Display for UniqueViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let UniqueViolation {
            index,
            partition_key,
            value,
        } = self;
        write!(
            f,
            "unique index `{index}` already holds `{value}` in partition `{partition_key}`"
        )
    }
}

/// Refuses an entity RowKey that one of `indexes`' rows could have: the rows of an index
/// and the entities of its model share their partition, so their keys must not meet.
///
/// ```
/// use tablekit::index::{check_entity_row_key, Index};
/// let email = [Index::new("email", "Email")];
/// assert!(check_entity_row_key(&email, "e-1").is_ok());
/// assert!(check_entity_row_key(&email, "email_kim@example.com").is_err());
/// ```
pub fn check_entity_row_key(indexes: &[Index], row_key: &str) -> Result<(), InvalidInput> {
    match indexes.iter().find(|i| i.owns_row_key(row_key)) {
        Some(index) => Err(InvalidInput::Other(format!(
            "RowKey `{row_key}` starts like the rows of index `{}`: an entity of an indexed model cannot have it",
            index.name()
        ))),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_text_makes_a_valid_key_and_no_value_runs_into_the_next_part() {
        for text in ["a/b\\c#d?e", "\u{0}\u{1f}\u{7f}\u{85}", "100%_", "ünï ☃"] {
            let key = escape(text);
            assert!(limits::validate_key(KeyKind::RowKey, &key).is_ok(), "{key}");
            assert!(!key.contains('_'), "{key}");
        }
        assert_eq!(escape("\u{85}"), "%C2%85");
        assert_ne!(escape("a_b"), escape("a%5Fb"));
    }

    #[test]
    fn a_time_keys_at_the_stored_precision() {
        let index = Index::new("starts", "Starts");
        let key = |nanos| {
            // 2023-11-14T22:13:59: a second a leap second may follow
            let time = DateTime::from_timestamp(1_700_000_039, nanos).unwrap_or_default();
            index.value_key(Some(&Value::DateTime(time))).ok().flatten()
        };
        assert_eq!(key(123_456_789), key(123_456_700));
        assert_ne!(key(123_456_789), key(123_456_800));
        assert_eq!(key(1_999_999_999), key(999_999_999)); // a leap second
    }

    #[test]
    fn an_entity_row_key_that_looks_like_an_index_row_is_recognised() {
        let index = Index::new("email", "Email");
        assert!(index.owns_row_key("email_"));
        assert!(!index.owns_row_key("emailx_"));
    }
}
