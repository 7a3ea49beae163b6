//! [`TableEntity`] and [`TableModel`]: what typed operations need to know about an entity type.
//!
//! Two traits because the two roles differ: the model (the plain struct `Gamer`) is a type-level
//! name that columns, filters, selects and `Table<Gamer>` are tied to, while the entity
//! (`GamerEntity`) is the value that travels, wrapping a [`DynamicEntity`] so nothing read is
//! lost. [`DynamicEntity`] plays both roles for untyped access.

use std::fmt;

use crate::filter::{CompareOp, Filter};
use crate::model::index::Index;
use crate::model::plan::StoragePlan;
use crate::model::spread::SpreadField;
use crate::values::entity::DynamicEntity;
use crate::values::value::Value;

/// A value that is an entity: it wraps a [`DynamicEntity`] and gives it back.
///
/// Implemented by [`DynamicEntity`] itself and by the wrappers `#[derive(TableEntity)]`
/// generates (`GamerEntity` for `Gamer`). Typed table operations take and return it.
///
/// ```
/// use tablekit::{DynamicEntity, TableEntity};
/// let e = DynamicEntity::wrap(DynamicEntity::new("p", "r"));
/// assert_eq!(TableEntity::partition_key(&e), "p");
/// ```
pub trait TableEntity: Sized + Send + Sync + 'static {
    /// Wraps a dynamic entity read from the service.
    fn wrap(dynamic: DynamicEntity) -> Self;
    /// Gives the dynamic entity back, with every property (declared or not).
    ///
    /// ```
    /// use tablekit::{DynamicEntity, TableEntity};
    /// # use tablekit::prelude::*;
    /// # #[derive(TableEntity)]
    /// # pub struct Gamer {
    /// #     #[tablekit(partition_key)]
    /// #     pub tag: String,
    /// #     pub score: i32,
    /// # }
    /// let mut read = DynamicEntity::new("dragon", "");
    /// read.set("AddedLater", 1.5); // not a field of `Gamer`
    /// let gamer = GamerEntity::wrap(read);
    /// let back = TableEntity::into_dynamic(gamer);
    /// assert_eq!(back.get::<f64>("AddedLater"), Some(1.5));
    /// ```
    fn into_dynamic(self) -> DynamicEntity;
    /// The dynamic entity inside.
    fn as_dynamic(&self) -> &DynamicEntity;
    /// The dynamic entity inside, mutably (the client records ETags through it).
    fn as_dynamic_mut(&mut self) -> &mut DynamicEntity;

    /// The PartitionKey.
    fn partition_key(&self) -> &str {
        self.as_dynamic().partition_key()
    }

    /// The RowKey.
    fn row_key(&self) -> &str {
        self.as_dynamic().row_key()
    }
}

impl TableEntity for DynamicEntity {
    fn wrap(dynamic: DynamicEntity) -> Self {
        dynamic
    }

    fn into_dynamic(self) -> DynamicEntity {
        self
    }

    fn as_dynamic(&self) -> &DynamicEntity {
        self
    }

    fn as_dynamic_mut(&mut self) -> &mut DynamicEntity {
        self
    }
}

/// A kind of entity: the plain struct of `#[derive(TableEntity)]` (`Gamer`), or
/// [`DynamicEntity`] for untyped access. Filters, selects and queries are typed by it, and a
/// `Table<M>` reads and writes `M::Entity`.
///
/// ```
/// use tablekit::{DynamicEntity, TableModel};
/// fn entity_type<M: TableModel>() -> &'static str {
///     std::any::type_name::<M::Entity>()
/// }
/// assert!(entity_type::<DynamicEntity>().ends_with("::DynamicEntity"));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a table entity model",
    note = "add `#[derive(TableEntity)]` to the struct, or use `DynamicEntity`"
)]
pub trait TableModel: Send + Sync + 'static {
    /// The entity type operations take and return.
    type Entity: TableEntity;
    /// The stored property that tells this model's rows from other rows of the same table,
    /// declared with `#[tablekit(kind = "...")]`: every read checks it, every query filters
    /// on it, every write carries it.
    ///
    /// ```
    /// use tablekit::prelude::*;
    /// use tablekit::{Discriminator, TableModel};
    /// #[derive(TableEntity)]
    /// #[tablekit(table = "Shop", kind = "Order")]
    /// pub struct Order {
    ///     #[tablekit(partition_key)]
    ///     pub customer: String,
    ///     #[tablekit(row_key)]
    ///     pub id: String,
    /// }
    /// let kind = Order::DISCRIMINATOR.expect("declared");
    /// assert_eq!(kind, Discriminator { property: "Kind", value: "Order" });
    /// assert_eq!(OrderEntity::new("alice", "o-1").as_dynamic().get::<String>("Kind").as_deref(), Some("Order"));
    /// assert_eq!(<DynamicEntity as TableModel>::DISCRIMINATOR, None);
    /// ```
    const DISCRIMINATOR: Option<Discriminator> = None;
    /// For an entity family (`#[derive(TableEntity)]` on an enum, see
    /// [`family`](crate::family)), the kinds it reads: reads refuse any other unless the
    /// family is open, and queries of a closed family filter on its kinds.
    ///
    /// ```
    /// use tablekit::{DynamicEntity, TableModel};
    /// assert!(<DynamicEntity as TableModel>::FAMILY.is_none());
    /// ```
    const FAMILY: Option<Family> = None;

    /// Checks the kind of an entity about to be written, before anything is sent: a model
    /// with a kind only writes rows of that kind, a family's variant only rows of its model's.
    ///
    /// ```
    /// use tablekit::prelude::*;
    /// use tablekit::TableModel;
    /// #[derive(TableEntity)]
    /// #[tablekit(kind = "Order")]
    /// pub struct Order {
    ///     #[tablekit(partition_key)]
    ///     pub customer: String,
    /// }
    /// let mut order = OrderEntity::new("alice");
    /// assert!(Order::check_write(&order).is_ok());
    /// order.as_dynamic_mut().set("Kind", "Customer");
    /// assert!(Order::check_write(&order).is_err());
    /// ```
    fn check_write(entity: &Self::Entity) -> Result<(), WrongKind> {
        check_kind::<Self>(entity.as_dynamic())
    }

    /// The secondary indexes kept beside each entity, declared with `#[tablekit(index)]` on
    /// fields: every write of the model keeps them in step (see [`index`](crate::index)).
    ///
    /// ```
    /// use tablekit::prelude::*;
    /// use tablekit::{DynamicEntity, TableModel};
    /// #[derive(TableEntity)]
    /// #[tablekit(table = "Employees")]
    /// pub struct Employee {
    ///     #[tablekit(partition_key)]
    ///     pub department: String,
    ///     #[tablekit(row_key)]
    ///     pub id: String,
    ///     #[tablekit(index(unique))]
    ///     pub email: String,
    /// }
    /// assert_eq!(Employee::INDEXES[0].name(), "email");
    /// assert!(<DynamicEntity as TableModel>::INDEXES.is_empty());
    /// ```
    const INDEXES: &'static [Index] = &[];

    /// The fields whose values may spread over continuation rows, declared with
    /// `#[tablekit(split(rows = n))]` or `records(rows = n)` (see [`spread`](crate::spread)):
    /// `Table<M>` writes, reads and deletes their rows with the entity.
    ///
    /// ```
    /// use tablekit::prelude::*;
    /// use tablekit::spread::SpreadField;
    /// use tablekit::TableModel;
    /// #[derive(TableEntity)]
    /// pub struct Report {
    ///     #[tablekit(partition_key)]
    ///     pub id: String,
    ///     #[tablekit(split(rows = 3))]
    ///     pub pdf: Vec<u8>,
    /// }
    /// assert_eq!(Report::SPREAD_FIELDS, [SpreadField { property: "Pdf", rows: 3 }]);
    /// assert!(<DynamicEntity as TableModel>::SPREAD_FIELDS.is_empty());
    /// ```
    const SPREAD_FIELDS: &'static [SpreadField] = &[];

    /// How an entity of the model is stored: one plan, or for an entity family the plan of
    /// each variant, which [`plan_of`](crate::plan::plan_of) picks by the entity's kind. Every
    /// path that reads or writes the model goes through it (see [`plan`](crate::plan)).
    ///
    /// ```
    /// use tablekit::plan::StoragePlan;
    /// use tablekit::{DynamicEntity, TableModel};
    /// assert_eq!(<DynamicEntity as TableModel>::PLANS, [StoragePlan::MAIN_ROW_ONLY]);
    /// ```
    const PLANS: &'static [StoragePlan] = &[StoragePlan::of::<Self>()];
}

/// Whether typed reads of `M` leave out the rows models keep beside their entities: every
/// model's do, but [`DynamicEntity`] reads every row as it is.
pub(crate) fn hides_auxiliary<M: TableModel>() -> bool {
    std::any::TypeId::of::<M>() != std::any::TypeId::of::<DynamicEntity>()
}

/// What a family reads: the property holding the kind, the kind of each variant and whether
/// rows of any other kind are kept (an `#[tablekit(other)]` variant) or refused.
///
/// ```
/// use tablekit::family::Family;
/// use tablekit::DynamicEntity;
/// let post = Family { name: "Post", property: "Kind", kinds: &["Blog", "Photo"], open: false };
/// assert_eq!(
///     post.filter::<DynamicEntity>().map(|f| f.to_string()).as_deref(),
///     Some("Kind eq 'Blog' or Kind eq 'Photo'")
/// );
/// let mut video = DynamicEntity::new("football", "v-1");
/// video.set("Kind", "Video");
/// assert_eq!(post.kind_of(&video), Some("Video"));
/// assert!(!post.reads(&video));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Family {
    /// The family's type name, for messages.
    pub name: &'static str,
    /// The stored property holding the kind, shared by every variant.
    pub property: &'static str,
    /// The kind of each variant, in declaration order.
    pub kinds: &'static [&'static str],
    /// Whether rows of an unlisted kind are read (into the `other` variant) rather than
    /// refused with [`WrongKind`].
    pub open: bool,
}

impl Family {
    /// The kind `entity` holds, when its kind property is a string.
    ///
    /// ```
    /// use tablekit::family::Family;
    /// use tablekit::DynamicEntity;
    /// let post = Family { name: "Post", property: "Kind", kinds: &["Blog"], open: true };
    /// assert_eq!(post.kind_of(&DynamicEntity::new("p", "r")), None);
    /// ```
    pub fn kind_of<'e>(&self, entity: &'e DynamicEntity) -> Option<&'e str> {
        if self.property == Discriminator::ROW_KEY_PREFIX {
            // The longest listed prefix the RowKey starts with.
            let row_key = entity.row_key();
            let kinds = self.kinds.iter().filter(|k| row_key.starts_with(**k));
            return kinds.max_by_key(|k| k.len()).copied();
        }
        match entity.value(self.property) {
            Some(Value::String(s)) => Some(s.as_str()),
            _ => None,
        }
    }

    /// Whether the family reads `entity`: it holds a listed kind, or the family is open.
    ///
    /// ```
    /// use tablekit::family::Family;
    /// use tablekit::DynamicEntity;
    /// let post = Family { name: "Post", property: "Kind", kinds: &["Blog"], open: true };
    /// assert!(post.reads(&DynamicEntity::new("p", "r")));
    /// ```
    pub fn reads(&self, entity: &DynamicEntity) -> bool {
        self.open
            || self
                .kind_of(entity)
                .is_some_and(|kind| self.kinds.contains(&kind))
    }

    /// The filter a query of the family sends: every listed kind, or `None` for an open
    /// family (it reads every row).
    ///
    /// ```
    /// use tablekit::family::Family;
    /// use tablekit::DynamicEntity;
    /// let post = Family { name: "Post", property: "Kind", kinds: &["Blog"], open: true };
    /// assert!(post.filter::<DynamicEntity>().is_none());
    /// ```
    pub fn filter<M>(&self) -> Option<Filter<M>> {
        if self.open {
            return None;
        }
        self.kinds
            .iter()
            .map(|value| {
                let property = self.property;
                Discriminator { property, value }.filter::<M>()
            })
            .reduce(Filter::or)
    }

    /// `Ok` when the family reads `entity`, else a [`WrongKind`] naming the family's kinds.
    pub(crate) fn check(&self, entity: &DynamicEntity) -> Result<(), WrongKind> {
        if self.reads(entity) {
            return Ok(());
        }
        Err(WrongKind::new(entity, self.property, self.name, self.kinds))
    }
}

/// A model whose table is named in `#[tablekit(table = "...")]`: what
/// [`client.table::<M>()`](crate::client::TableServiceClient::table) needs. A model without
/// one (or [`DynamicEntity`]) names its table at each use with
/// [`client.table_named::<M>("Name")`](crate::client::TableServiceClient::table_named), so a
/// handle without a table name cannot be built.
///
/// ```
/// use tablekit::prelude::*;
/// use tablekit::NamedTable;
/// #[derive(TableEntity)]
/// #[tablekit(table = "Gamers")]
/// pub struct Gamer {
///     #[tablekit(partition_key)]
///     pub tag: String,
/// }
/// assert_eq!(Gamer::TABLE_NAME, "Gamers");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` names no table",
    label = "`{Self}` has no `#[tablekit(table = \"...\")]`",
    note = "add `#[tablekit(table = \"...\")]` to the struct, or name the table where it is used: `client.table_named::<{Self}>(\"Name\")`"
)]
pub trait NamedTable: TableModel {
    /// The table's name, checked at compile time by `#[derive(TableEntity)]`.
    const TABLE_NAME: &'static str;
}

/// A model's kind: the stored property that tells which model a row is (`Kind` unless
/// `kind_property = "..."` names another) and the value this model's rows hold in it.
///
/// Several models can share a table, even a partition (an order and its customer, so one
/// transaction changes both). Without a discriminator a model would read any row of the
/// partition as itself, every field at its default; with one, reads of another kind's row are
/// an error ([`WrongKind`]) and queries only return the model's own rows.
///
/// ```
/// use tablekit::{Discriminator, DynamicEntity};
/// let order = Discriminator { property: "Kind", value: "Order" };
/// let mut row = DynamicEntity::new("alice", "profile");
/// row.set("Kind", "Customer");
/// assert!(!order.matches(&row));
/// assert_eq!(order.filter::<DynamicEntity>().to_string(), "Kind eq 'Order'");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Discriminator {
    /// The stored property holding the kind.
    pub property: &'static str,
    /// This model's value of it.
    pub value: &'static str,
}

impl Discriminator {
    /// The `property` of a kind told by a RowKey prefix (`#[tablekit(kind_prefix = "R_")]`):
    /// rows of such a kind are those whose RowKey starts with `value`, so rows written
    /// before any kind property existed can still be told apart.
    ///
    /// ```
    /// use tablekit::{Discriminator, DynamicEntity};
    /// let reply = Discriminator { property: Discriminator::ROW_KEY_PREFIX, value: "R_" };
    /// assert!(reply.matches(&DynamicEntity::new("thread-1", "R_0042")));
    /// assert!(!reply.matches(&DynamicEntity::new("thread-1", "Q_0001")));
    /// assert_eq!(
    ///     reply.filter::<DynamicEntity>().to_string(),
    ///     "RowKey ge 'R_' and RowKey lt 'R`'"
    /// );
    /// ```
    pub const ROW_KEY_PREFIX: &'static str = "RowKey";

    /// Whether the kind is told by a RowKey prefix rather than a stored property.
    pub fn is_row_key_prefix(&self) -> bool {
        self.property == Self::ROW_KEY_PREFIX
    }

    /// Whether `entity` holds this kind.
    pub fn matches(&self, entity: &DynamicEntity) -> bool {
        if self.is_row_key_prefix() {
            return entity.row_key().starts_with(self.value);
        }
        matches!(entity.value(self.property), Some(Value::String(s)) if s == self.value)
    }

    /// The filter that keeps this kind's rows.
    ///
    /// ```
    /// use tablekit::{Discriminator, DynamicEntity};
    /// let note = Discriminator { property: "Type", value: "Bob's note" };
    /// assert_eq!(note.filter::<DynamicEntity>().to_string(), "Type eq 'Bob''s note'");
    /// ```
    pub fn filter<M>(&self) -> Filter<M> {
        let value = |text: String| Some(Value::String(text.into()));
        if self.is_row_key_prefix() {
            let from = Filter::compare(self.property, CompareOp::Ge, value(self.value.into()));
            return match prefix_end(self.value) {
                Some(end) => from.and(Filter::compare(self.property, CompareOp::Lt, value(end))),
                None => from,
            };
        }
        Filter::compare(self.property, CompareOp::Eq, value(self.value.into()))
    }

    /// `Ok` when `entity` is of this kind, else a [`WrongKind`] naming what it holds.
    pub(crate) fn check(&self, entity: &DynamicEntity) -> Result<(), WrongKind> {
        if self.matches(entity) {
            return Ok(());
        }
        Err(WrongKind::new(entity, self.property, self.value, &[]))
    }
}

/// The first string after every string starting with `prefix`: its last character moved
/// to the next one (`None` when none is after it, and the range is open).
fn prefix_end(prefix: &str) -> Option<String> {
    let mut chars: Vec<char> = prefix.chars().collect();
    while let Some(last) = chars.pop() {
        let next = (u32::from(last) + 1..=u32::from(char::MAX)).find_map(char::from_u32);
        if let Some(next) = next {
            chars.push(next);
            return Some(chars.into_iter().collect());
        }
    }
    None
}

/// Checks that `entity` is of `M`'s kind, when `M` declares one, or of one its family reads.
pub(crate) fn check_kind<M: TableModel + ?Sized>(entity: &DynamicEntity) -> Result<(), WrongKind> {
    if let Some(family) = M::FAMILY {
        return family.check(entity);
    }
    M::DISCRIMINATOR.map_or(Ok(()), |kind| kind.check(entity))
}

/// A row that is not of the model's kind (see [`Discriminator`]): read through a model whose
/// kind it does not hold, or given to a write of that model. It converts into
/// [`Error::WrongKind`](crate::Error::WrongKind).
///
/// ```
/// # use tablekit::prelude::*;
/// # use tablekit::WrongKind;
/// # #[derive(TableEntity)]
/// # #[tablekit(table = "Shop", kind = "Order")]
/// # pub struct Order {
/// #     #[tablekit(partition_key)]
/// #     pub customer: String,
/// #     #[tablekit(row_key)]
/// #     pub id: String,
/// # }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let emulator = tablekit_testing::Emulator::start().await?;
/// # let client = emulator.client();
/// let shop = client.table_named::<DynamicEntity>("Shop");
/// shop.create().await?;
/// let mut profile = DynamicEntity::new("alice", "profile");
/// profile.set("Kind", "Customer");
/// shop.insert(&mut profile).await?;
/// let err = client.table::<Order>().get("alice", "profile").await.unwrap_err();
/// let Error::WrongKind(wrong) = &err else { panic!("{err}") };
/// assert_eq!((wrong.expected, wrong.found.as_deref()), ("Order", Some("Customer")));
/// assert_eq!(
///     err.to_string(),
///     "entity (alice, profile) is not of kind `Order`: its `Kind` is `Customer`"
/// );
/// # let _: &WrongKind = wrong;
/// # Ok(()) }
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub struct WrongKind {
    /// The row's PartitionKey.
    pub partition_key: String,
    /// The row's RowKey.
    pub row_key: String,
    /// The property that holds the kind.
    pub property: &'static str,
    /// The model's kind; for a family, the family's name.
    pub expected: &'static str,
    /// What the row holds there, if anything.
    pub found: Option<String>,
    /// For a family, every kind it reads; empty for a model.
    pub kinds: &'static [&'static str],
}

impl WrongKind {
    /// What `entity` holds in `property`, refused by a reader of `expected` (`kinds`, for a
    /// family).
    pub(crate) fn new(
        entity: &DynamicEntity,
        property: &'static str,
        expected: &'static str,
        kinds: &'static [&'static str],
    ) -> Self {
        WrongKind {
            partition_key: entity.partition_key().to_owned(),
            row_key: entity.row_key().to_owned(),
            property,
            expected,
            found: match property {
                Discriminator::ROW_KEY_PREFIX => Some(entity.row_key().to_owned()),
                _ => entity.value(property).map(|v| match v {
                    Value::String(s) => s.to_string(),
                    other => format!("a {} value", other.edm_type()),
                }),
            },
            kinds,
        }
    }
}

impl fmt::Display for WrongKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let WrongKind {
            partition_key,
            row_key,
            property,
            expected,
            kinds,
            ..
        } = self;
        if kinds.is_empty() {
            write!(
                f,
                "entity ({partition_key}, {row_key}) is not of kind `{expected}`: "
            )?;
        } else {
            let kinds: Vec<String> = kinds.iter().map(|k| format!("`{k}`")).collect();
            write!(
                f,
                "entity ({partition_key}, {row_key}) is of no kind of `{expected}` ({}): ",
                kinds.join(", ")
            )?;
        }
        match &self.found {
            Some(found) => write!(f, "its `{property}` is `{found}`"),
            None => write!(f, "it has no `{property}`"),
        }
    }
}

impl TableModel for DynamicEntity {
    type Entity = DynamicEntity;
}
