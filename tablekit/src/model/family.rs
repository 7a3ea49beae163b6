//! Entity families: several models in one table, even one partition, read and written as one
//! type. `#[derive(TableEntity)]` on an enum whose variants each hold a model with a `kind`
//! makes the enum a [`TableModel`] whose entity is the matching enum of wrappers, chosen by
//! each row's stored kind.
//!
//! This is the layout of the "Windows Azure Table" whitepaper's micro-blogging example: blogs,
//! photos and comments of a channel share a partition, so one entity group transaction changes
//! them together and one query reads them together.
//!
//! ```
//! use tablekit::prelude::*;
//! use tablekit::family::Family;
//! use tablekit::TableModel;
//!
//! #[derive(TableEntity)]
//! #[tablekit(kind = "Blog")]
//! pub struct Blog {
//!     #[tablekit(partition_key)]
//!     pub channel: String,
//!     #[tablekit(row_key)]
//!     pub id: String,
//!     pub rating: i32,
//! }
//!
//! #[derive(TableEntity)]
//! #[tablekit(kind = "Photo")]
//! pub struct Photo {
//!     #[tablekit(partition_key)]
//!     pub channel: String,
//!     #[tablekit(row_key)]
//!     pub id: String,
//! }
//!
//! #[derive(TableEntity)]
//! #[tablekit(table = "Microblog")]
//! pub enum Post {
//!     Blog(Blog),
//!     Photo(Photo),
//! }
//!
//! let family = Post::FAMILY.expect("a family");
//! assert_eq!(family.kinds, ["Blog", "Photo"]);
//! let post = PostEntity::wrap(PhotoEntity::new("football", "p-1").into_dynamic());
//! assert!(post.as_photo().is_some());
//! let only = Post::only(Blog::RATING.gt(3));
//! assert_eq!(only.to_string(), "Kind eq 'Blog' and (Rating gt 3)");
//! ```

use std::marker::PhantomData;

use crate::filter::Filter;
pub use crate::model::table_model::Family;
use crate::model::table_model::{Discriminator, NamedTable, TableModel};
use crate::values::const_text::{str_eq, str_starts_with};

/// A model that is a variant of the family `F`: implemented by `#[derive(TableEntity)]` on
/// the family for each variant's model, so a filter of the model can be used in a query of
/// the family ([`only`]).
///
/// ```
/// use tablekit::prelude::*;
/// use tablekit::family::Variant;
/// # #[derive(TableEntity)]
/// # #[tablekit(kind = "Blog")]
/// # pub struct Blog {
/// #     #[tablekit(partition_key)]
/// #     pub channel: String,
/// # }
/// #[derive(TableEntity)]
/// pub enum Post {
///     Blog(Blog),
/// }
/// assert_eq!(<Blog as Variant<Post>>::KIND.value, "Blog");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a variant of the family `{F}`",
    note = "a filter of a model can only narrow a family that has a variant holding that model"
)]
pub trait Variant<F: TableModel>: TableModel {
    /// The model's kind.
    const KIND: Discriminator;
}

/// `filter` of the variant `V`, as a filter of its family `F` that also keeps only `V`'s
/// kind: `Kind eq 'Blog' and (Rating gt 3)`. The derive gives each family this as
/// `Post::only(..)`.
///
/// ```
/// use tablekit::prelude::*;
/// use tablekit::family;
/// # #[derive(TableEntity)]
/// # #[tablekit(kind = "Blog")]
/// # pub struct Blog {
/// #     #[tablekit(partition_key)]
/// #     pub channel: String,
/// #     pub rating: i32,
/// # }
/// #[derive(TableEntity)]
/// pub enum Post {
///     Blog(Blog),
/// }
/// let every_blog = family::only::<Post, Blog>(Filter::all());
/// assert_eq!(every_blog.to_string(), "Kind eq 'Blog'");
/// ```
pub fn only<F: TableModel, V: Variant<F>>(filter: Filter<V>) -> Filter<F> {
    let kind = V::KIND.filter::<F>();
    if filter.is_all() {
        return kind;
    }
    // The variant's filter is rendered as it is and grouped, so its own precedence holds.
    kind.and(Filter::raw(filter.render()))
}

/// `M`'s kind, for the const checks a family's derive generates: a variant model without a
/// `kind` stops the build here.
#[doc(hidden)]
pub const fn discriminator_of<M: TableModel>() -> Discriminator {
    match M::DISCRIMINATOR {
        Some(kind) => kind,
        None => panic!(
            "every variant of a family holds a model declaring `#[tablekit(kind = \"...\")]`"
        ),
    }
}

/// `M`'s kind, or an empty one for a model without (whose family's build already stops at
/// [`discriminator_of`]): every other const of the family uses it, so the missing kind is
/// reported once.
#[doc(hidden)]
pub const fn kind_or_empty<M: TableModel>() -> Discriminator {
    match M::DISCRIMINATOR {
        Some(kind) => kind,
        None => Discriminator {
            property: "",
            value: "",
        },
    }
}

/// The const checks between two variants of a family: one kind property, distinct kinds
/// (a variant without a kind is reported by [`discriminator_of`]).
#[doc(hidden)]
pub const fn check_variant_pair<A: TableModel, B: TableModel>() {
    let (Some(a), Some(b)) = (A::DISCRIMINATOR, B::DISCRIMINATOR) else {
        return;
    };
    if !str_eq(a.property, b.property) {
        panic!("the variants of a family store their kind in one property: give every variant's model the same `kind_property`");
    }
    if str_eq(a.value, b.value) {
        panic!("two variants of a family have the same kind: each variant's model needs its own `kind`");
    }
    if str_eq(a.property, Discriminator::ROW_KEY_PREFIX)
        && (str_starts_with(a.value, b.value) || str_starts_with(b.value, a.value))
    {
        panic!("one variant's `kind_prefix` starts another's: a RowKey would be of both kinds");
    }
}

/// The table a model names, if any, for the const checks of a family's variants:
/// `TableOf::<M>::NAME` is the inherent const when `M: NamedTable`, else [`NoTable`]'s `None`
/// (an inherent item whose bounds fail gives way to the trait's).
#[doc(hidden)]
pub struct TableOf<M: ?Sized>(PhantomData<M>);

impl<M: NamedTable> TableOf<M> {
    /// The model's table.
    pub const NAME: Option<&'static str> = Some(M::TABLE_NAME);
}

/// What [`TableOf`] answers for a model that names no table.
#[doc(hidden)]
pub trait NoTable {
    /// No table.
    const NAME: Option<&'static str> = None;
}

impl<M: ?Sized> NoTable for TableOf<M> {}

/// Two tables a family's variants live in must be one (a variant naming none fits any).
#[doc(hidden)]
pub const fn check_same_table(a: Option<&str>, b: Option<&str>) {
    if let (Some(a), Some(b)) = (a, b) {
        if !str_eq(a, b) {
            panic!("the variants of a family live in its table: a variant's model names another `table`");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::entity::DynamicEntity;

    #[test]
    fn a_closed_family_refuses_unlisted_and_missing_kinds_naming_its_kinds() {
        let post = Family {
            name: "Post",
            property: "Kind",
            kinds: &["Blog", "Photo"],
            open: false,
        };
        let mut video = DynamicEntity::new("p", "r");
        video.set("Kind", "Video");
        let err = post.check(&video).unwrap_err();
        assert_eq!(
            err.to_string(),
            "entity (p, r) is of no kind of `Post` (`Blog`, `Photo`): its `Kind` is `Video`"
        );
        let err = post.check(&DynamicEntity::new("p", "r")).unwrap_err();
        assert_eq!(err.found, None);
        video.set("Kind", "Photo");
        post.check(&video).unwrap();
    }

    #[test]
    fn const_checks_compare_strings_byte_by_byte() {
        assert!(str_eq("Blog", "Blog"));
        assert!(!str_eq("Blog", "Blogs"));
        assert!(!str_eq("Blog", "blog"));
    }
}
