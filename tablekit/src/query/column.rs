//! [`Column`]: a typed handle on one stored property of a model, the start of every typed filter.
//!
//! A column knows its model `M` and its value type `T`, so a filter over a Blog column cannot be
//! used in a Gamer query, a literal of the wrong type does not compile, and ordering operators
//! exist only for ordered types (diesel's typed columns, for Azure Tables).
//!
//! ```
//! use tablekit::{Column, DynamicEntity};
//! const SCORE: Column<DynamicEntity, i32> = Column::dynamic("Score");
//! assert_eq!(SCORE.ge(20).and(SCORE.le(40)).to_string(), "Score ge 20 and Score le 40");
//! ```

use std::fmt;
use std::marker::PhantomData;

use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime, Utc};

use crate::filter::{CompareOp, Filter};
use crate::query::keys;
use crate::values::convert::IntoValue;
use crate::values::entity::DynamicEntity;

/// How a column is stored: one property, or a value split across several.
///
/// A split column's `$select` names every property the value may use.
///
/// ```
/// use tablekit::column::Storage;
/// use tablekit::prelude::*;
///
/// #[derive(TableEntity)]
/// pub struct Photo {
///     #[tablekit(partition_key)]
///     pub id: String,
///     #[tablekit(split(max_properties = 3))]
///     pub bytes: Vec<u8>,
/// }
///
/// assert_eq!(Photo::ID.storage(), Storage::Single);
/// assert_eq!(Photo::BYTES.storage(), Storage::Split(3));
/// let q = Query::<Photo>::new().select(Photo::BYTES);
/// assert_eq!(q.select_list().unwrap(), ["Bytes", "Bytes__1", "Bytes__2"]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Storage {
    /// One property of the column's name.
    Single,
    /// A value split across up to this many properties (records, `split` fields).
    Split(usize),
}

/// One stored property of model `M`, holding values of type `T`.
///
/// Generated as associated constants by `#[derive(TableEntity)]` (`Gamer::SCORE`,
/// `Gamer::PARTITION_KEY`); for [`DynamicEntity`] build them with [`Column::dynamic`].
///
/// ```
/// use tablekit::{Column, DynamicEntity};
/// let name: Column<DynamicEntity, String> = Column::dynamic("Name");
/// assert_eq!(name.name(), "Name");
/// assert_eq!(name.eq("O'Brien").to_string(), "Name eq 'O''Brien'");
/// ```
pub struct Column<M, T> {
    name: &'static str,
    storage: Storage,
    /// Names the property was stored under before (`rename_from`): a select fetches them too.
    old_names: &'static [&'static str],
    marker: PhantomData<fn() -> (M, T)>,
}

impl<M, T> Column<M, T> {
    /// A column of stored property `name`: used by generated code only.
    #[doc(hidden)]
    pub const fn __new(name: &'static str, storage: Storage) -> Self {
        Column {
            name,
            storage,
            old_names: &[],
            marker: PhantomData,
        }
    }

    /// The column, also read under these earlier names: used by generated code only.
    #[doc(hidden)]
    pub const fn __with_old_names(mut self, old_names: &'static [&'static str]) -> Self {
        self.old_names = old_names;
        self
    }

    /// The names the property was stored under before (`#[tablekit(rename_from = "...")]`),
    /// which a select fetches too, so older entities still read their value.
    ///
    /// ```
    /// use tablekit::prelude::*;
    /// #[derive(TableEntity)]
    /// pub struct Gamer {
    ///     #[tablekit(partition_key)]
    ///     pub tag: String,
    ///     #[tablekit(rename_from = "Points")]
    ///     pub score: i32,
    /// }
    /// assert_eq!(Gamer::SCORE.old_names(), ["Points"]);
    /// let q = Query::<Gamer>::new().select(Gamer::SCORE);
    /// assert_eq!(q.select_list().unwrap(), ["Score", "Points"]);
    /// ```
    pub const fn old_names(&self) -> &'static [&'static str] {
        self.old_names
    }

    /// The stored property name.
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// How the column is stored.
    pub const fn storage(&self) -> Storage {
        self.storage
    }
}

impl<T> Column<DynamicEntity, T> {
    /// An untyped-model column for dynamic entities: the escape hatch when no struct describes
    /// the table. The value type still checks literals.
    pub const fn dynamic(name: &'static str) -> Self {
        Column::__new(name, Storage::Single)
    }
}

impl<M, T> Clone for Column<M, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<M, T> Copy for Column<M, T> {}

impl<M, T> fmt::Debug for Column<M, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Column")
            .field("name", &self.name)
            .field("storage", &self.storage)
            .field("old_names", &self.old_names)
            .finish()
    }
}

/// A Rust value usable as a literal against a column of type `T`: `T` itself, or `&str` for a
/// `String` column. Anything else is a compile error naming both types.
///
/// ```
/// use tablekit::{Column, DynamicEntity};
/// let name: Column<DynamicEntity, String> = Column::dynamic("Name");
/// let owned = String::from("Ann");
/// // `&str`, `&String` and `String` are all literals for a `String` column.
/// assert_eq!(name.eq("Ann"), name.eq(&owned));
/// assert_eq!(name.eq(owned).to_string(), "Name eq 'Ann'");
/// ```
///
/// A literal of another type does not compile:
///
/// ```compile_fail,E0277
/// use tablekit::{Column, DynamicEntity};
/// let score: Column<DynamicEntity, i32> = Column::dynamic("Score");
/// let _ = score.eq("10"); // `&str` is not a value of this column's type `i32`
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a value of this column's type `{T}`",
    label = "expected a `{T}` here",
    note = "a filter literal must have the column's type"
)]
pub trait ColumnValue<T> {
    /// The value as the column's type.
    fn into_column_value(self) -> T;
}

impl<T> ColumnValue<T> for T {
    fn into_column_value(self) -> T {
        self
    }
}

impl ColumnValue<String> for &str {
    fn into_column_value(self) -> String {
        self.to_owned()
    }
}

impl ColumnValue<String> for &String {
    fn into_column_value(self) -> String {
        self.clone()
    }
}

/// Value types the service orders: numbers, strings, times, binary. `bool` and `Uuid` have no
/// order a filter can use; `u64` and `usize` are stored as a bit pattern whose order differs
/// above `i64::MAX`; durations beyond ±292 years and decimals are stored as text, which does not
/// sort like the numbers: their columns have only `eq` and `ne`.
///
/// As a bound, it lets a helper accept any column the service can order:
///
/// ```
/// use tablekit::column::Ordered;
/// use tablekit::{Column, DynamicEntity, Filter, IntoValue};
///
/// fn at_least<T: Ordered + IntoValue>(
///     column: Column<DynamicEntity, T>,
///     low: T,
/// ) -> Filter<DynamicEntity> {
///     column.ge(low)
/// }
///
/// let score: Column<DynamicEntity, i64> = Column::dynamic("Score");
/// let name: Column<DynamicEntity, String> = Column::dynamic("Name");
/// assert_eq!(at_least(score, 10).to_string(), "Score ge 10L");
/// assert_eq!(at_least(name, "m".to_owned()).to_string(), "Name ge 'm'");
/// ```
///
/// An ordering comparison on a `bool` column does not compile:
///
/// ```compile_fail,E0277
/// use tablekit::{Column, DynamicEntity};
/// let active: Column<DynamicEntity, bool> = Column::dynamic("Active");
/// let _ = active.gt(false); // `bool` values have no order a table filter can use
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` values have no order a table filter can use",
    label = "ordering comparison on a `{Self}` column",
    note = "only `eq` and `ne` apply to this column"
)]
pub trait Ordered {}

impl Ordered for i8 {}
impl Ordered for i16 {}
impl Ordered for i32 {}
impl Ordered for i64 {}
impl Ordered for isize {}
impl Ordered for u8 {}
impl Ordered for u16 {}
impl Ordered for u32 {}
impl Ordered for f32 {}
impl Ordered for f64 {}
impl Ordered for String {}
impl Ordered for Vec<u8> {}
impl Ordered for DateTime<Utc> {}
impl Ordered for DateTime<FixedOffset> {}
impl Ordered for NaiveDateTime {}
impl Ordered for NaiveDate {}
#[cfg(feature = "time")]
impl Ordered for time::OffsetDateTime {}

/// Which ends a [`Column::between`] range includes (the four `RangeOp` kinds of the C# library
/// that accompanies "Jeffrey Richter's Guide to Working with Azure Storage Tables via C# and
/// other .NET Languages").
///
/// ```
/// use tablekit::{Column, DynamicEntity, RangeKind};
/// let n: Column<DynamicEntity, i32> = Column::dynamic("N");
/// assert_eq!(n.between(1, 5, RangeKind::ExcludeLowerIncludeUpper).to_string(), "N gt 1 and N le 5");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum RangeKind {
    /// `lo <= x < hi` (the StartsWith shape).
    #[default]
    IncludeLowerExcludeUpper,
    /// `lo <= x <= hi`.
    IncludeLowerIncludeUpper,
    /// `lo < x < hi`.
    ExcludeLowerExcludeUpper,
    /// `lo < x <= hi`.
    ExcludeLowerIncludeUpper,
}

impl RangeKind {
    fn ops(self) -> (CompareOp, CompareOp) {
        match self {
            RangeKind::IncludeLowerExcludeUpper => (CompareOp::Ge, CompareOp::Lt),
            RangeKind::IncludeLowerIncludeUpper => (CompareOp::Ge, CompareOp::Le),
            RangeKind::ExcludeLowerExcludeUpper => (CompareOp::Gt, CompareOp::Lt),
            RangeKind::ExcludeLowerIncludeUpper => (CompareOp::Gt, CompareOp::Le),
        }
    }
}

impl<M, T> Column<M, T> {
    fn compare(self, op: CompareOp, value: impl ColumnValue<T>) -> Filter<M>
    where
        T: IntoValue,
    {
        Filter::compare(self.name, op, value.into_column_value().into_value())
    }

    /// `Name eq value`.
    pub fn eq(self, value: impl ColumnValue<T>) -> Filter<M>
    where
        T: IntoValue,
    {
        self.compare(CompareOp::Eq, value)
    }

    /// `Name ne value`.
    ///
    /// ```
    /// use tablekit::{Column, DynamicEntity};
    /// let c: Column<DynamicEntity, uuid::Uuid> = Column::dynamic("Id");
    /// let f = c.ne(uuid::Uuid::nil());
    /// assert_eq!(f.to_string(), "Id ne guid'00000000-0000-0000-0000-000000000000'");
    /// ```
    pub fn ne(self, value: impl ColumnValue<T>) -> Filter<M>
    where
        T: IntoValue,
    {
        self.compare(CompareOp::Ne, value)
    }

    /// `Name gt value` (ordered types only).
    ///
    /// ```
    /// use tablekit::{Column, DynamicEntity};
    /// let c: Column<DynamicEntity, f64> = Column::dynamic("Ratio");
    /// assert_eq!(c.gt(2.0).to_string(), "Ratio gt 2.0");
    /// ```
    pub fn gt(self, value: impl ColumnValue<T>) -> Filter<M>
    where
        T: Ordered + IntoValue,
    {
        self.compare(CompareOp::Gt, value)
    }

    /// `Name ge value` (ordered types only).
    pub fn ge(self, value: impl ColumnValue<T>) -> Filter<M>
    where
        T: Ordered + IntoValue,
    {
        self.compare(CompareOp::Ge, value)
    }

    /// `Name lt value` (ordered types only).
    pub fn lt(self, value: impl ColumnValue<T>) -> Filter<M>
    where
        T: Ordered + IntoValue,
    {
        self.compare(CompareOp::Lt, value)
    }

    /// `Name le value` (ordered types only).
    ///
    /// ```
    /// use tablekit::{Column, DynamicEntity};
    /// let c: Column<DynamicEntity, i64> = Column::dynamic("Total");
    /// assert_eq!(c.le(9).to_string(), "Total le 9L");
    /// ```
    pub fn le(self, value: impl ColumnValue<T>) -> Filter<M>
    where
        T: Ordered + IntoValue,
    {
        self.compare(CompareOp::Le, value)
    }

    /// Both bounds at once, ends included or not as `kind` says.
    pub fn between(
        self,
        low: impl ColumnValue<T>,
        high: impl ColumnValue<T>,
        kind: RangeKind,
    ) -> Filter<M>
    where
        T: Ordered + IntoValue,
    {
        let (low_op, high_op) = kind.ops();
        self.compare(low_op, low).and(self.compare(high_op, high))
    }
}

impl<M> Column<M, String> {
    /// Values starting with `prefix`, as the range `[prefix, upper)` (the service has no
    /// `startswith`); an empty prefix matches every entity.
    ///
    /// ```
    /// use tablekit::{Column, DynamicEntity};
    /// let c: Column<DynamicEntity, String> = Column::dynamic("Name");
    /// assert_eq!(c.starts_with("Jeff").to_string(), "Name ge 'Jeff' and Name lt 'Jefg'");
    /// assert_eq!(c.starts_with("").to_string(), "true");
    /// ```
    pub fn starts_with(self, prefix: &str) -> Filter<M> {
        if prefix.is_empty() {
            return Filter::all();
        }
        let low = self.compare(CompareOp::Ge, prefix);
        match keys::prefix_upper_bound(prefix) {
            Some(upper) => low.and(self.compare(CompareOp::Lt, upper)),
            None => low,
        }
    }
}
