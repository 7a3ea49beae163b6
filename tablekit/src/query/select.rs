//! [`Select`]: a typed `$select` list of one model's columns.
//!
//! A select is a column or a tuple of columns of the query's model; a column of another model
//! does not compile. A field split across several properties selects all of its parts.
//!
//! ```
//! use tablekit::{Column, DynamicEntity, Query};
//! let a: Column<DynamicEntity, i32> = Column::dynamic("A");
//! let b: Column<DynamicEntity, String> = Column::dynamic("B");
//! let q = Query::<DynamicEntity>::new().select((a, b));
//! assert_eq!(q.select_list(), Some(&["A".to_owned(), "B".to_owned()][..]));
//! ```

use crate::model::split;
use crate::query::column::{Column, Storage};

/// A list of columns of model `M` to fetch.
///
/// A column, a tuple of columns of different types, or an array or `Vec` of one type; each
/// name is fetched once.
///
/// ```
/// use tablekit::select::Select;
/// use tablekit::{Column, DynamicEntity, Query};
/// let a: Column<DynamicEntity, i32> = Column::dynamic("A");
/// let b: Column<DynamicEntity, String> = Column::dynamic("B");
/// assert_eq!(Select::<DynamicEntity>::names(&(a, b, a)), ["A", "B"]);
/// assert_eq!(Select::<DynamicEntity>::names(&vec![b, b]), ["B"]);
/// let q = Query::<DynamicEntity>::new().select([a]);
/// assert_eq!(q.select_list().unwrap(), ["A"]);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a selection of `{M}`'s columns",
    label = "not a column (or tuple of columns) of `{M}`",
    note = "select takes columns of the query's own entity, e.g. `(Gamer::TAG, Gamer::SCORE)`"
)]
pub trait Select<M> {
    /// Appends the stored property names to fetch.
    fn push_names(&self, names: &mut Vec<String>);

    /// The stored property names to fetch.
    fn names(&self) -> Vec<String> {
        let mut names = Vec::new();
        self.push_names(&mut names);
        names
    }
}

impl<M, T> Select<M> for Column<M, T> {
    fn push_names(&self, names: &mut Vec<String>) {
        for name in std::iter::once(self.name()).chain(self.old_names().iter().copied()) {
            let parts = match self.storage() {
                Storage::Single => vec![name.to_owned()],
                Storage::Split(max) => split::chunk_names(name, max),
            };
            for part in parts {
                if !names.contains(&part) {
                    names.push(part);
                }
            }
        }
    }
}

/// A column of `M` of any value type, for select lists built at run time.
///
/// ```
/// use tablekit::{select::AnyColumn, Column, DynamicEntity, Query};
/// let a: Column<DynamicEntity, i32> = Column::dynamic("A");
/// let list: Vec<AnyColumn<DynamicEntity>> = vec![a.into()];
/// assert_eq!(Query::new().select(list).select_list().map(|l| l.len()), Some(1));
/// ```
pub struct AnyColumn<M> {
    column: Column<M, ()>,
}

impl<M> Clone for AnyColumn<M> {
    fn clone(&self) -> Self {
        AnyColumn {
            column: self.column,
        }
    }
}

impl<M, T> From<Column<M, T>> for AnyColumn<M> {
    fn from(c: Column<M, T>) -> Self {
        AnyColumn {
            column: Column::__new(c.name(), c.storage()).__with_old_names(c.old_names()),
        }
    }
}

impl<M> Select<M> for AnyColumn<M> {
    fn push_names(&self, names: &mut Vec<String>) {
        self.column.push_names(names);
    }
}

impl<M, S: Select<M>> Select<M> for Vec<S> {
    fn push_names(&self, names: &mut Vec<String>) {
        for s in self {
            s.push_names(names);
        }
    }
}

impl<M, S: Select<M>, const N: usize> Select<M> for [S; N] {
    fn push_names(&self, names: &mut Vec<String>) {
        for s in self {
            s.push_names(names);
        }
    }
}

macro_rules! tuple_select {
    ($($t:ident $i:tt),+) => {
        impl<M, $($t: Select<M>),+> Select<M> for ($($t,)+) {
            fn push_names(&self, names: &mut Vec<String>) {
                $(self.$i.push_names(names);)+
            }
        }
    };
}

tuple_select!(A 0);
tuple_select!(A 0, B 1);
tuple_select!(A 0, B 1, C 2);
tuple_select!(A 0, B 1, C 2, D 3);
tuple_select!(A 0, B 1, C 2, D 3, E 4);
tuple_select!(A 0, B 1, C 2, D 3, E 4, F 5);
tuple_select!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
tuple_select!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
tuple_select!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
tuple_select!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
tuple_select!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
tuple_select!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);
