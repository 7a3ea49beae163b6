//! [`Query`]: a filter, a select list, a page size and a total for one table query.
//!
//! A query is plain data: building one sends nothing, so it can be built, cloned, logged and
//! tested without a server; the client runs it (`table.query(q)`) as pages, entities or chunks.
//! It is typed by the model, so a filter or select of another entity type does not compile.
//! What the service would refuse is refused while the query is built.
//!
//! Two numbers bound a query, and they are easy to confuse (other SDKs call either one "top"
//! or "take"):
//! - [`top`](Query::top) is the page size, the `$top` of each request: 1 to 1000, the most the
//!   service answers at once. Paging goes on past it, so every matching entity still arrives.
//! - [`take`](Query::take) is a total: the query's streams end after that many entities, and
//!   no request asks for more than are left.
//!
//! ```
//! use tablekit::{DynamicEntity, InvalidInput, Query};
//! let q = Query::<DynamicEntity>::new().top(100)?.take(250);
//! assert_eq!((q.top_value(), q.take_value()), (Some(100), Some(250))); // 100 + 100 + 50
//! let err = Query::<DynamicEntity>::new().top(5000).unwrap_err();
//! assert_eq!(err, InvalidInput::TopOutOfRange { top: 5000 });
//! # Ok::<(), InvalidInput>(())
//! ```

use std::fmt;
use std::marker::PhantomData;

use crate::filter::{bind_params, Filter, IntoFilter, ParamError};
use crate::model::table_model::{hides_auxiliary, TableModel};
use crate::protocol::limits::InvalidInput;
use crate::query::plan::QueryPlan;
use crate::query::select::Select;
use crate::values::convert::IntoValue;

/// The most entities the service answers in one page: the largest `$top`.
const MAX_TOP: u32 = 1000;

/// A query over entities of model `M`: `$filter`, `$select`, `$top` (the page size) and a
/// total number of entities to take.
///
/// ```
/// use tablekit::{DynamicEntity, Query};
/// let q = Query::<DynamicEntity>::new()
///     .filter_raw("PartitionKey eq 'p'")
///     .select_names(["Score"])
///     .top(10)?;
/// assert_eq!(q.filter_string(), Some("PartitionKey eq 'p'"));
/// assert_eq!(q.top_value(), Some(10));
/// # Ok::<(), tablekit::InvalidInput>(())
/// ```
pub struct Query<M> {
    filter: Option<String>,
    /// The same conditions as `filter`, kept typed for [`plan`](Query::plan) (hand-written
    /// text as [`Filter::raw`], which the plan does not read).
    typed: Filter<M>,
    /// Whether the query says it means to scan the table.
    scan_allowed: bool,
    select: Option<Vec<String>>,
    top: Option<u32>,
    take: Option<usize>,
    model: PhantomData<fn() -> M>,
}

impl<M: TableModel> Query<M> {
    /// A query for every entity.
    pub fn new() -> Self {
        Query {
            filter: None,
            typed: Filter::all(),
            scan_allowed: false,
            select: None,
            top: None,
            take: None,
            model: PhantomData,
        }
    }
}

impl<M> Query<M> {
    /// Adds a typed filter over `M` to the `$filter` (a filter over another entity does not
    /// compile): called again, or after [`filter_raw`](Self::filter_raw), both must hold, so
    /// no condition is ever dropped. A filter that matches everything adds nothing.
    ///
    /// ```
    /// use tablekit::{Column, DynamicEntity, Query};
    /// let score: Column<DynamicEntity, i32> = Column::dynamic("Score");
    /// let q = Query::new().filter(score.gt(5)).filter(score.lt(9).or(score.eq(20)));
    /// assert_eq!(q.filter_string(), Some("(Score gt 5) and (Score lt 9 or Score eq 20)"));
    /// ```
    pub fn filter(self, filter: impl IntoFilter<M>) -> Self {
        let filter = filter.into_filter();
        match filter.is_all() {
            true => self,
            false => {
                let text = filter.to_string();
                let mut query = self.and_filter(text);
                query.typed = std::mem::replace(&mut query.typed, Filter::all()).and(filter);
                query
            }
        }
    }

    /// Sets the `$select` list from columns of `M` (one column, or a tuple of them); a field
    /// split across several properties selects all its parts, a renamed field its old names.
    ///
    /// The keys and Timestamp always come back too (and the kind property of a model that
    /// declares one), so an entity read this way can be written back; it knows it is
    /// [partial](crate::DynamicEntity::is_partial): a field it did not fetch reads as an
    /// error from its `try_` getter, merges send only what it holds, and replaces refuse it.
    pub fn select(mut self, columns: impl Select<M>) -> Self {
        self.select = Some(columns.names());
        self
    }

    /// Adds hand-written text to the `$filter` (the escape hatch; typed filters are safer):
    /// like [`filter`](Self::filter), with any filter set before both must hold. Blank text
    /// adds nothing.
    ///
    /// ```
    /// use tablekit::{DynamicEntity, Query};
    /// let q = Query::<DynamicEntity>::new().filter_raw("PartitionKey eq 'p'");
    /// assert_eq!(q.filter_string(), Some("PartitionKey eq 'p'"));
    /// let q = q.filter_raw("Score gt 3 or Score lt 0");
    /// assert_eq!(q.filter_string(), Some("(PartitionKey eq 'p') and (Score gt 3 or Score lt 0)"));
    /// ```
    pub fn filter_raw(self, filter: impl Into<String>) -> Self {
        let filter = filter.into();
        match filter.trim().is_empty() {
            true => self,
            false => {
                let mut query = self.and_filter(filter.clone());
                let typed = std::mem::replace(&mut query.typed, Filter::all());
                query.typed = typed.and(Filter::raw(filter));
                query
            }
        }
    }

    /// Adds filter text to the query's own: alone it is sent as written; after another, each
    /// is grouped and both must hold, so neither one's `or` reaches into the other.
    fn and_filter(mut self, text: String) -> Self {
        self.filter = Some(match self.filter.take() {
            None => text,
            Some(own) => Filter::<M>::raw(own).and(Filter::raw(text)).to_string(),
        });
        self
    }

    /// Adds hand-written text with `@name` placeholders to the `$filter` (as
    /// [`filter_raw`](Self::filter_raw) does), each replaced by
    /// its value written as a literal of the value's type: the safe way to put user values
    /// into hand-written text, where [`filter_raw`](Self::filter_raw) stays the escape hatch
    /// that sends text as written. The rules are [`bind_params`]'s: a placeholder without a
    /// value, an unused value, a name given twice, an invalid name, a `None` value or a number
    /// its type cannot hold (an Int32 out of range) is a [`ParamError`] (`?` makes it an
    /// [`InvalidInput::FilterParameter`](crate::InvalidInput::FilterParameter)), and nothing
    /// is sent.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let client = emulator.client();
    /// use tablekit::filter::{ParamError, Params};
    /// use tablekit::{DynamicEntity, Query};
    ///
    /// let table = client.table_named::<DynamicEntity>("Reviews");
    /// table.create().await?;
    /// for (row, author) in [("1", "it's me"), ("2", "x' or 'a' eq 'a"), ("3", "me")] {
    ///     let mut review = DynamicEntity::new("books", row);
    ///     review.set("Author", author);
    ///     table.insert(&mut review).await?;
    /// }
    /// let author = "x' or 'a' eq 'a"; // user input that would inject a condition
    /// let q = Query::<DynamicEntity>::new().filter_raw_with(
    ///     "PartitionKey eq @pk and Author eq @author",
    ///     Params::new().bind("pk", "books").bind("author", author),
    /// )?;
    /// assert_eq!(
    ///     q.filter_string(),
    ///     Some("PartitionKey eq 'books' and Author eq 'x'' or ''a'' eq ''a'")
    /// );
    /// let found = table.query(q).collect_all().await?;
    /// assert_eq!(found.len(), 1);
    /// assert_eq!(found[0].row_key(), "2");
    /// let missing = Query::<DynamicEntity>::new()
    ///     .filter_raw_with("Author eq @author", [("pk", "books")]); // `@author` has no value
    /// assert!(matches!(missing, Err(ParamError::Missing { .. })));
    /// # Ok(()) }
    /// ```
    pub fn filter_raw_with<N, V>(
        self,
        text: &str,
        params: impl IntoIterator<Item = (N, V)>,
    ) -> Result<Self, ParamError>
    where
        N: AsRef<str>,
        V: IntoValue,
    {
        Ok(self.filter_raw(bind_params(text, params)?))
    }

    /// Sets the `$select` list by stored property names (the keys and Timestamp always come
    /// back too, as with [`select`](Self::select)).
    pub fn select_names<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.select = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// Sets the page size, `$top`: each request asks for at most `n` entities, and paging
    /// goes on past them, so a query still yields every match (for a total, use
    /// [`take`](Self::take)). `n` is 1 to 1000, the most the service answers in one page;
    /// anything else is [`InvalidInput::TopOutOfRange`], here rather than when the query runs.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let client = emulator.client();
    /// use tablekit::{DynamicEntity, InvalidInput, Query};
    /// let table = client.table_named::<DynamicEntity>("Scores");
    /// table.create().await?;
    /// for i in 0..5 {
    ///     table.insert(&mut DynamicEntity::new("eu", format!("{i}"))).await?;
    /// }
    /// let q = Query::new().top(2)?; // pages of at most 2: paging goes on past them
    /// let page = table.query(q.clone()).first_page().await?;
    /// assert_eq!(page.len(), 2);
    /// assert_eq!(table.query(q).count().await?, 5); // every entity, in 3 pages
    /// assert_eq!(Query::<DynamicEntity>::new().top(0).unwrap_err(), InvalidInput::TopOutOfRange { top: 0 });
    /// assert!(Query::<DynamicEntity>::new().top(1001).is_err());
    /// # Ok(()) }
    /// ```
    pub fn top(mut self, n: u32) -> Result<Self, InvalidInput> {
        if !(1..=MAX_TOP).contains(&n) {
            return Err(InvalidInput::TopOutOfRange { top: n });
        }
        self.top = Some(n);
        Ok(self)
    }

    /// Takes at most `n` entities in all: the query's streams end after the `n`-th, whatever
    /// the page size, and no request asks for more entities than are left (`$top` is lowered
    /// to the rest). `take(0)` yields nothing and sends nothing. The total counts from where
    /// the query starts, a [continuation token](crate::client::EntityQuery::resume_from)
    /// included, and the last page's continuation resumes after the last entity taken.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let client = emulator.client();
    /// use futures::TryStreamExt;
    /// use tablekit::{DynamicEntity, Query};
    /// let table = client.table_named::<DynamicEntity>("Scores");
    /// table.create().await?;
    /// for i in 0..5 {
    ///     table.insert(&mut DynamicEntity::new("eu", format!("{i}"))).await?;
    /// }
    /// let three = Query::new().top(2)?.take(3); // pages of 2, 3 entities in all
    /// let pages: Vec<_> = table.query(three).pages().try_collect().await?;
    /// assert_eq!(pages.iter().map(|p| p.len()).collect::<Vec<_>>(), [2, 1]);
    /// let rest = table.query(Query::new()).resume_from(pages[1].continuation().unwrap().clone());
    /// let keys: Vec<String> = rest.collect_all().await?.iter().map(|e| e.row_key().into()).collect();
    /// assert_eq!(keys, ["3", "4"]); // nothing skipped, nothing repeated
    /// assert_eq!(table.query(Query::new().take(0)).count().await?, 0);
    /// # Ok(()) }
    /// ```
    pub fn take(mut self, n: usize) -> Self {
        self.take = Some(n);
        self
    }

    /// Says the query means to read the whole table, so a table that
    /// [refuses table scans](crate::client::Table::refuse_table_scans) runs it.
    ///
    /// ```
    /// use tablekit::{DynamicEntity, Query};
    /// let audit = Query::<DynamicEntity>::new().allow_table_scan();
    /// assert!(audit.allows_table_scan());
    /// ```
    pub fn allow_table_scan(mut self) -> Self {
        self.scan_allowed = true;
        self
    }

    /// Whether [`allow_table_scan`](Self::allow_table_scan) was called.
    pub fn allows_table_scan(&self) -> bool {
        self.scan_allowed
    }

    /// The `$filter` text, if any.
    pub fn filter_string(&self) -> Option<&str> {
        self.filter.as_deref()
    }

    /// The `$select` names the query asked for, if any (the keys and Timestamp, always sent
    /// besides them, are not listed).
    pub fn select_list(&self) -> Option<&[String]> {
        self.select.as_deref()
    }

    /// The `$top` value, if any.
    pub fn top_value(&self) -> Option<u32> {
        self.top
    }

    /// The total set by [`take`](Self::take), if any.
    pub fn take_value(&self) -> Option<usize> {
        self.take
    }
}

/// The properties every select fetches, so an entity read with one can be written back.
const ALWAYS_SELECTED: [&str; 3] = ["PartitionKey", "RowKey", "Timestamp"];

impl<M: TableModel> Query<M> {
    /// How the service will find this query's entities, from the key conditions of its
    /// filter and of the model's kind (see [`QueryPlan`]): a point read, a RowKey range in
    /// one partition, a whole partition, a range of partitions, or a table scan. Known before
    /// anything is sent; the client logs a warning (`tracing`, target `tablekit::query`) for
    /// each table scan it sends, and a table made with
    /// [`refuse_table_scans`](crate::client::Table::refuse_table_scans) refuses them unless
    /// the query [allows](Self::allow_table_scan) one.
    ///
    /// ```
    /// use tablekit::prelude::*;
    /// use tablekit::query_plan::QueryPlan;
    /// #[derive(TableEntity)]
    /// struct Gamer {
    ///     #[tablekit(partition_key)]
    ///     region: String,
    ///     #[tablekit(row_key)]
    ///     tag: String,
    ///     score: i64,
    /// }
    /// let europe = Query::<Gamer>::new().filter(Gamer::PARTITION_KEY.eq("eu").and(Gamer::SCORE.gt(10)));
    /// assert_eq!(europe.plan(), QueryPlan::Partition { partition_key: "eu".into() });
    /// // The region is also stored as a property: a filter on it is a scan.
    /// assert!(Query::<Gamer>::new().filter(Gamer::REGION.eq("eu")).plan().is_table_scan());
    /// let everywhere = Query::<Gamer>::new().filter(Gamer::SCORE.gt(10));
    /// assert!(everywhere.plan().is_table_scan());
    /// // Hand-written text is not read.
    /// assert_eq!(Query::<Gamer>::new().filter_raw("PartitionKey eq 'eu'").plan(), QueryPlan::Unknown);
    /// ```
    pub fn plan(&self) -> QueryPlan {
        let kind = match M::FAMILY {
            Some(family) => family.filter::<M>(),
            None => M::DISCRIMINATOR.map(|kind| kind.filter::<M>()),
        };
        let filter = match kind {
            Some(kind) => self.typed.clone().and(kind),
            None => self.typed.clone(),
        };
        QueryPlan::of(filter.key_conditions())
    }

    /// The `$filter` sent: the query's own and, for a model with a
    /// [`Discriminator`](crate::Discriminator), its kind.
    pub(crate) fn sent_filter(&self) -> Option<String> {
        let own = self.filter.as_deref().filter(|f| !f.trim().is_empty());
        let kind = match M::FAMILY {
            Some(family) => family.filter::<M>(),
            None => M::DISCRIMINATOR.map(|kind| kind.filter::<M>()),
        };
        match (own, kind) {
            (own, None) => own.map(str::to_owned),
            (None, Some(kind)) => Some(kind.to_string()),
            // A family's kinds are an `or`: rendering groups it.
            (Some(own), Some(kind)) => Some(Filter::<M>::raw(own).and(kind).to_string()),
        }
    }

    /// The `$select` sent: `None` for every property; otherwise the keys, the Timestamp, the
    /// model's kind property, the property marking rows kept beside entities (so a typed
    /// reader still tells them apart, see [`plan`](crate::plan)), then the query's own names,
    /// each once.
    pub(crate) fn sent_select(&self) -> Option<Vec<String>> {
        let own = self.select.as_deref().filter(|s| !s.is_empty())?;
        let kind = M::FAMILY
            .map(|family| family.property)
            .or(M::DISCRIMINATOR.map(|kind| kind.property));
        let marker = hides_auxiliary::<M>().then_some(crate::model::auxiliary::AUXILIARY_PROPERTY);
        let mut names: Vec<String> = Vec::with_capacity(own.len() + 5);
        for name in ALWAYS_SELECTED
            .into_iter()
            .chain(kind)
            .chain(marker)
            .map(str::to_owned)
        {
            names.push(name);
        }
        for name in own {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
        Some(names)
    }
}

impl<M: TableModel> Default for Query<M> {
    fn default() -> Self {
        Query::new()
    }
}

impl<M> Clone for Query<M> {
    fn clone(&self) -> Self {
        Query {
            filter: self.filter.clone(),
            typed: self.typed.clone(),
            scan_allowed: self.scan_allowed,
            select: self.select.clone(),
            top: self.top,
            take: self.take,
            model: PhantomData,
        }
    }
}

impl<M> fmt::Debug for Query<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Query")
            .field("filter", &self.filter)
            .field("select", &self.select)
            .field("top", &self.top)
            .field("take", &self.take)
            .field("scan_allowed", &self.scan_allowed)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Column, DynamicEntity};

    fn score() -> Column<DynamicEntity, i32> {
        Column::dynamic("Score")
    }

    #[test]
    fn a_second_filter_is_added_not_swapped_in() {
        let q = Query::new().filter(score().gt(5)).filter(score().lt(9));
        assert_eq!(q.filter_string(), Some("(Score gt 5) and (Score lt 9)"));
        let q = Query::new()
            .filter(score().eq(1).or(score().eq(2)))
            .filter(score().ne(3).or(score().ne(4)));
        assert_eq!(
            q.filter_string(),
            Some("(Score eq 1 or Score eq 2) and (Score ne 3 or Score ne 4)")
        );
    }

    #[test]
    fn raw_filters_are_added_and_grouped() {
        let q = Query::<DynamicEntity>::new()
            .filter_raw("A eq 1 or A eq 2")
            .filter_raw("B eq 3");
        assert_eq!(q.filter_string(), Some("(A eq 1 or A eq 2) and (B eq 3)"));
        let q = Query::new().filter_raw("A eq 1").filter(score().gt(5));
        assert_eq!(q.filter_string(), Some("(A eq 1) and (Score gt 5)"));
        let q = Query::new().filter(score().gt(5)).filter_raw("A eq 1");
        assert_eq!(q.filter_string(), Some("(Score gt 5) and (A eq 1)"));
    }

    #[test]
    fn a_filter_that_holds_always_adds_nothing() {
        let q = Query::new().filter(score().gt(5)).filter(Filter::all());
        assert_eq!(q.filter_string(), Some("Score gt 5"));
        let q = q.filter_raw("  ");
        assert_eq!(q.filter_string(), Some("Score gt 5"));
        assert_eq!(
            Query::<DynamicEntity>::new()
                .filter(Filter::all())
                .filter_string(),
            None
        );
    }
}
