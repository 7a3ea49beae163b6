//! [`TableEntity`] and [`TableModel`]: what typed operations need to know about an entity type.
//!
//! Two traits because the two roles differ: the model (the plain struct `Gamer`) is a type-level
//! name that columns, filters, selects and `Table<Gamer>` are tied to, while the entity
//! (`GamerEntity`) is the value that travels, wrapping a [`DynamicEntity`] so nothing read is
//! lost. [`DynamicEntity`] plays both roles for untyped access.

use crate::entity::DynamicEntity;

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
    /// read.set("Score", 30);
    /// let gamer = <GamerEntity as TableEntity>::wrap(read);
    /// assert_eq!(gamer.score(), 30);
    /// ```
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
    ///
    /// ```
    /// use tablekit::TableEntity;
    /// # use tablekit::prelude::*;
    /// # #[derive(TableEntity)]
    /// # pub struct Gamer {
    /// #     #[tablekit(partition_key)]
    /// #     pub tag: String,
    /// #     pub score: i32,
    /// # }
    /// let mut gamer = GamerEntity::new("dragon");
    /// gamer.set_score(30);
    /// let dynamic = TableEntity::as_dynamic(&gamer);
    /// assert_eq!(dynamic.partition_key(), "dragon");
    /// assert_eq!(dynamic.get::<i32>("Score"), Some(30));
    /// ```
    fn as_dynamic(&self) -> &DynamicEntity;
    /// The dynamic entity inside, mutably (the client records ETags through it).
    ///
    /// ```
    /// use tablekit::{ETag, TableEntity};
    /// # use tablekit::prelude::*;
    /// # #[derive(TableEntity)]
    /// # pub struct Gamer {
    /// #     #[tablekit(partition_key)]
    /// #     pub tag: String,
    /// #     pub score: i32,
    /// # }
    /// let mut gamer = GamerEntity::new("dragon");
    /// let dynamic = TableEntity::as_dynamic_mut(&mut gamer);
    /// dynamic.set("Score", 30);
    /// dynamic.set_etag(Some(ETag::new("W/\"1\"")));
    /// assert_eq!(gamer.score(), 30);
    /// assert_eq!(gamer.etag().map(ETag::as_str), Some("W/\"1\""));
    /// ```
    fn as_dynamic_mut(&mut self) -> &mut DynamicEntity;

    /// The PartitionKey.
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
    /// fn partition_of<E: TableEntity>(entity: &E) -> &str {
    ///     entity.partition_key()
    /// }
    /// assert_eq!(partition_of(&DynamicEntity::new("eu", "42")), "eu");
    /// assert_eq!(partition_of(&GamerEntity::new("dragon")), "dragon");
    /// ```
    fn partition_key(&self) -> &str {
        self.as_dynamic().partition_key()
    }

    /// The RowKey.
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
    /// fn row_of<E: TableEntity>(entity: &E) -> &str {
    ///     entity.row_key()
    /// }
    /// assert_eq!(row_of(&DynamicEntity::new("eu", "42")), "42");
    /// assert_eq!(row_of(&GamerEntity::new("dragon")), ""); // `Gamer` has no row key field
    /// ```
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
/// assert_eq!(<DynamicEntity as TableModel>::TABLE_NAME, None);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a table entity model",
    note = "add `#[derive(TableEntity)]` to the struct, or use `DynamicEntity`"
)]
pub trait TableModel: Send + Sync + 'static {
    /// The entity type operations take and return.
    type Entity: TableEntity;
    /// The table named in `#[tablekit(table = "...")]`, if any.
    const TABLE_NAME: Option<&'static str>;
}

impl TableModel for DynamicEntity {
    type Entity = DynamicEntity;
    const TABLE_NAME: Option<&'static str> = None;
}
