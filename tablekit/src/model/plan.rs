//! The storage plan of a model: every row one entity of it is stored as, so that every path
//! that reads or writes the model (`Table<M>`, `Table<Family>`, `Batch`, index repair, backups
//! and copies of typed tables) stores it the same way.
//!
//! One entity of a model is stored as
//! - its **main row**, at the entity's keys, holding its properties (and, for a model with a
//!   `kind`, the [`Discriminator`] property naming it);
//! - one **index row** per secondary index whose value it holds (see [`index`](crate::index)):
//!   in the entity's partition, in a named partition, or in another table;
//! - the **continuation rows** of each value spread over rows (see [`spread`](crate::spread)),
//!   beside the main row in its partition.
//!
//! The derive builds the plan once per model ([`StoragePlan::of`]); an entity family has one per
//! variant ([`TableModel::PLANS`]), and [`plan_of`] picks the one an entity's kind names, so a
//! family reads and writes each variant exactly as the variant's own table does.
//!
//! # Rows kept beside entities
//! Index and continuation rows carry the string property [`AUXILIARY_PROPERTY`]
//! (`TablekitRow`) naming their role (`index:<name>`, `continuation`), so any reader can tell
//! them from entities without knowing the model: typed reads never return them as entities
//! (whatever the query, select, family or page size: a query with a select also fetches this
//! one property to tell), untyped reads ([`DynamicEntity`]) show every row as it is.
//!
//! ```
//! use tablekit::prelude::*;
//! use tablekit::plan::StoragePlan;
//! use tablekit::TableModel;
//!
//! #[derive(TableEntity)]
//! #[tablekit(table = "Shop", kind = "Customer")]
//! pub struct Customer {
//!     #[tablekit(partition_key)]
//!     pub id: String,
//!     #[tablekit(row_key)]
//!     pub row: String,
//!     #[tablekit(index(unique))]
//!     pub email: String,
//! }
//!
//! let plan = StoragePlan::of::<Customer>();
//! assert_eq!(plan.kind.map(|k| k.value), Some("Customer"));
//! assert_eq!(plan.indexes.len(), 1);
//! assert!(plan.spread.is_empty());
//! assert!(plan.keeps_rows());
//! assert_eq!(Customer::PLANS, [plan]);
//! ```

pub use crate::model::auxiliary::AUXILIARY_PROPERTY;
use crate::model::index::Index;
use crate::model::spread::SpreadField;
use crate::model::table_model::{Discriminator, TableModel};
use crate::protocol::limits::InvalidInput;
use crate::values::entity::DynamicEntity;

/// The rows one entity of a model is stored as: see the [module docs](self).
///
/// ```
/// use tablekit::plan::StoragePlan;
/// use tablekit::DynamicEntity;
/// let untyped = StoragePlan::of::<DynamicEntity>();
/// assert_eq!(untyped, StoragePlan::MAIN_ROW_ONLY);
/// assert!(!untyped.keeps_rows());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoragePlan {
    /// The kind its main row holds, if the model declares one.
    pub kind: Option<Discriminator>,
    /// The secondary indexes it keeps index rows in.
    pub indexes: &'static [Index],
    /// The values it may spread over continuation rows.
    pub spread: &'static [SpreadField],
}

impl StoragePlan {
    /// The plan of a row no model describes (an open family's row of another kind, or an
    /// untyped entity): its main row alone.
    pub const MAIN_ROW_ONLY: StoragePlan = StoragePlan {
        kind: None,
        indexes: &[],
        spread: &[],
    };

    /// The plan of model `M`, from what its derive declares.
    pub const fn of<M: TableModel + ?Sized>() -> StoragePlan {
        StoragePlan {
            kind: M::DISCRIMINATOR,
            indexes: M::INDEXES,
            spread: M::SPREAD_FIELDS,
        }
    }

    /// Whether an entity of this plan has rows beside its main row, which its writes and
    /// deletes change with it in one transaction.
    pub const fn keeps_rows(&self) -> bool {
        !self.indexes.is_empty() || !self.spread.is_empty()
    }

    /// Refuses a plan with both indexes and spread values: the write paths keep one or the
    /// other in step, not both (the derive refuses the combination; this holds for
    /// hand-written models).
    pub(crate) fn check(&self) -> Result<(), InvalidInput> {
        if self.indexes.is_empty() || self.spread.is_empty() {
            return Ok(());
        }
        Err(InvalidInput::Other(
            "a model cannot have both indexes and values spread over rows: write it untyped".into(),
        ))
    }
}

/// The plan `entity` is stored by, as a row of `M`: `M`'s own, or for a family the plan of
/// the variant its kind names ([`StoragePlan::MAIN_ROW_ONLY`] for an open family's other
/// kinds).
///
/// ```
/// use tablekit::prelude::*;
/// use tablekit::plan::{plan_of, StoragePlan};
/// #[derive(TableEntity)]
/// #[tablekit(kind = "Blog")]
/// pub struct Blog {
///     #[tablekit(partition_key)]
///     pub channel: String,
///     #[tablekit(row_key)]
///     pub id: String,
///     #[tablekit(index)]
///     pub author: String,
/// }
/// #[derive(TableEntity)]
/// #[tablekit(kind = "Photo")]
/// pub struct Photo {
///     #[tablekit(partition_key)]
///     pub channel: String,
///     #[tablekit(row_key)]
///     pub id: String,
/// }
/// #[derive(TableEntity)]
/// pub enum Post {
///     Blog(Blog),
///     Photo(Photo),
/// }
/// let blog = BlogEntity::new("football", "b-1");
/// assert_eq!(plan_of::<Post>(blog.as_dynamic()), StoragePlan::of::<Blog>());
/// let photo = PhotoEntity::new("football", "p-1");
/// assert!(!plan_of::<Post>(photo.as_dynamic()).keeps_rows());
/// ```
pub fn plan_of<M: TableModel + ?Sized>(entity: &DynamicEntity) -> StoragePlan {
    if M::FAMILY.is_none() {
        return StoragePlan::of::<M>();
    }
    M::PLANS
        .iter()
        .find(|plan| plan.kind.is_some_and(|kind| kind.matches(entity)))
        .copied()
        .unwrap_or(StoragePlan::MAIN_ROW_ONLY)
}

/// Refuses a write through a family that would change a row's kind where either kind keeps
/// rows beside its entities: the rows of the stored kind would be left behind, or the new
/// kind's computed from properties of another model. Deleting the row first says what is meant.
pub(crate) fn check_kind_change<M: TableModel + ?Sized>(
    stored: &DynamicEntity,
    written: &DynamicEntity,
) -> Result<(), InvalidInput> {
    let Some(family) = M::FAMILY else {
        return Ok(());
    };
    let (before, after) = (plan_of::<M>(stored), plan_of::<M>(written));
    if before == after || !(before.keeps_rows() || after.keeps_rows()) {
        return Ok(());
    }
    let kind = |e: &DynamicEntity| family.kind_of(e).unwrap_or("no kind").to_owned();
    Err(InvalidInput::Other(format!(
        "entity ({}, {}) is stored as `{}`, and writing it as `{}` would leave rows kept beside one of them wrong: delete it first",
        stored.partition_key(),
        stored.row_key(),
        kind(stored),
        kind(written),
    )))
}

/// Whether some entity of `M` keeps rows beside its main row (a family: some variant).
pub(crate) fn any_keeps_rows<M: TableModel + ?Sized>() -> bool {
    M::PLANS.iter().any(StoragePlan::keeps_rows)
}

/// Whether some entity of `M` has indexes (a family: some variant).
pub(crate) fn any_indexes<M: TableModel + ?Sized>() -> bool {
    M::PLANS.iter().any(|plan| !plan.indexes.is_empty())
}

/// Whether some entity of `M` spreads values over rows (a family: some variant).
pub(crate) fn any_spread<M: TableModel + ?Sized>() -> bool {
    M::PLANS.iter().any(|plan| !plan.spread.is_empty())
}
