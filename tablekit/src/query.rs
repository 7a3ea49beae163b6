//! [`Query`]: a filter, a select list and a page size for one table query.
//!
//! A query is plain data: building one sends nothing, so it can be built, cloned, logged and
//! tested without a server; the client runs it (`table.query(q)`) as pages, entities or chunks.
//! It is typed by the model, so a filter or select of another entity type does not compile.

use std::fmt;
use std::marker::PhantomData;

use crate::convert::IntoValue;
use crate::error::Error;
use crate::filter::{bind_params, IntoFilter};
use crate::model::TableModel;
use crate::select::Select;

/// A query over entities of model `M`: `$filter`, `$select` and `$top`.
///
/// ```
/// use tablekit::{DynamicEntity, Query};
/// let q = Query::<DynamicEntity>::new()
///     .filter_raw("PartitionKey eq 'p'")
///     .select_names(["Score"])
///     .top(10);
/// assert_eq!(q.filter_string(), Some("PartitionKey eq 'p'"));
/// assert_eq!(q.top_value(), Some(10));
/// ```
pub struct Query<M> {
    filter: Option<String>,
    select: Option<Vec<String>>,
    top: Option<u32>,
    model: PhantomData<fn() -> M>,
}

impl<M: TableModel> Query<M> {
    /// A query for every entity.
    ///
    /// ```
    /// use tablekit::{DynamicEntity, Query};
    /// let q = Query::<DynamicEntity>::new(); // every entity, every property, full pages
    /// assert_eq!(q.filter_string(), None);
    /// assert_eq!(q.select_list(), None);
    /// assert_eq!(q.top_value(), None);
    /// ```
    pub fn new() -> Self {
        Query {
            filter: None,
            select: None,
            top: None,
            model: PhantomData,
        }
    }
}

impl<M> Query<M> {
    /// Sets the `$filter` from a typed filter over `M` (a filter over another entity does not
    /// compile). A filter that matches everything sets none.
    ///
    /// ```
    /// use tablekit::{Column, DynamicEntity, Query};
    /// let score: Column<DynamicEntity, i32> = Column::dynamic("Score");
    /// let q = Query::<DynamicEntity>::new().filter(score.ge(20).and(score.le(40)));
    /// assert_eq!(q.filter_string(), Some("Score ge 20 and Score le 40"));
    /// ```
    pub fn filter(mut self, filter: impl IntoFilter<M>) -> Self {
        let filter = filter.into_filter();
        self.filter = (!filter.is_all()).then(|| filter.to_string());
        self
    }

    /// Sets the `$select` list from columns of `M` (one column, or a tuple of them); a field
    /// split across several properties selects all its parts, a renamed field its old names.
    ///
    /// The keys and Timestamp always come back too (and the kind property of a model that
    /// declares one), so an entity read this way can be written back; it knows it is
    /// [partial](crate::DynamicEntity::is_partial): a field it did not fetch reads as an
    /// error from its `try_` getter, merges send only what it holds, and replaces refuse it.
    ///
    /// ```
    /// use tablekit::{Column, DynamicEntity, Query};
    /// let score: Column<DynamicEntity, i32> = Column::dynamic("Score");
    /// let q = Query::<DynamicEntity>::new().select(score);
    /// assert_eq!(q.select_list(), Some(&["Score".to_owned()][..]));
    /// ```
    pub fn select(mut self, columns: impl Select<M>) -> Self {
        self.select = Some(columns.names());
        self
    }

    /// Sets the `$filter` from text (the escape hatch; typed filters are safer).
    ///
    /// ```
    /// use tablekit::{DynamicEntity, Query};
    /// // sent as written: nothing checks the text or escapes quotes in it
    /// let q = Query::<DynamicEntity>::new().filter_raw("PartitionKey eq 'eu'");
    /// assert_eq!(q.filter_string(), Some("PartitionKey eq 'eu'"));
    /// ```
    pub fn filter_raw(mut self, filter: impl Into<String>) -> Self {
        self.filter = Some(filter.into());
        self
    }

    /// Sets the `$filter` from hand-written text with `@name` placeholders, each replaced by
    /// its value written as a literal of the value's type: the safe way to put user values
    /// into hand-written text, where [`filter_raw`](Self::filter_raw) stays the escape hatch
    /// that sends text as written. The rules are [`bind_params`]'s: a placeholder without a
    /// value, an unused value, a name given twice, an invalid name or a `None` value is an
    /// [`InvalidInput::FilterParameter`](crate::InvalidInput::FilterParameter) error, and
    /// nothing is sent.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let client = tablekit::client::TableServiceClient::from_connection_string(
    /// #     &emulator.connection_string(),
    /// # )?;
    /// use tablekit::filter::Params;
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
    /// assert!(missing.unwrap_err().is_invalid_input());
    /// # Ok(()) }
    /// ```
    pub fn filter_raw_with<N, V>(
        self,
        text: &str,
        params: impl IntoIterator<Item = (N, V)>,
    ) -> Result<Self, Error>
    where
        N: AsRef<str>,
        V: IntoValue,
    {
        Ok(self.filter_raw(bind_params(text, params)?))
    }

    /// Sets the `$select` list by stored property names (the keys and Timestamp always come
    /// back too, as with [`select`](Self::select)).
    ///
    /// ```
    /// use tablekit::{DynamicEntity, Query};
    /// let q = Query::<DynamicEntity>::new().select_names(["GamerTag", "Score"]);
    /// let names = ["GamerTag".to_owned(), "Score".to_owned()];
    /// assert_eq!(q.select_list(), Some(&names[..]));
    /// ```
    pub fn select_names<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.select = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// Sets `$top`: the most entities per page (the service caps it at 1000).
    ///
    /// ```
    /// use tablekit::{DynamicEntity, Query};
    /// let q = Query::<DynamicEntity>::new().top(50); // pages of at most 50: paging goes on past them
    /// assert_eq!(q.top_value(), Some(50));
    /// ```
    pub fn top(mut self, n: u32) -> Self {
        self.top = Some(n);
        self
    }

    /// The `$filter` text, if any.
    ///
    /// ```
    /// use tablekit::{Column, DynamicEntity, Query};
    /// let tag: Column<DynamicEntity, String> = Column::dynamic("GamerTag");
    /// let q = Query::<DynamicEntity>::new().filter(tag.eq("O'Brien"));
    /// assert_eq!(q.filter_string(), Some("GamerTag eq 'O''Brien'")); // the quote is escaped
    /// assert_eq!(Query::<DynamicEntity>::new().filter_string(), None);
    /// ```
    pub fn filter_string(&self) -> Option<&str> {
        self.filter.as_deref()
    }

    /// The `$select` names the query asked for, if any (the keys and Timestamp, always sent
    /// besides them, are not listed).
    ///
    /// ```
    /// use tablekit::{DynamicEntity, Query};
    /// assert_eq!(Query::<DynamicEntity>::new().select_list(), None); // every property
    /// let q = Query::<DynamicEntity>::new().select_names(["Score"]);
    /// assert_eq!(q.select_list(), Some(&["Score".to_owned()][..]));
    /// ```
    pub fn select_list(&self) -> Option<&[String]> {
        self.select.as_deref()
    }

    /// The `$top` value, if any.
    ///
    /// ```
    /// use tablekit::{DynamicEntity, Query};
    /// assert_eq!(Query::<DynamicEntity>::new().top_value(), None); // the service's 1000
    /// assert_eq!(Query::<DynamicEntity>::new().top(20).top_value(), Some(20));
    /// ```
    pub fn top_value(&self) -> Option<u32> {
        self.top
    }
}

/// The properties every select fetches, so an entity read with one can be written back.
const ALWAYS_SELECTED: [&str; 3] = ["PartitionKey", "RowKey", "Timestamp"];

impl<M: TableModel> Query<M> {
    /// The `$filter` sent: the query's own and, for a model with a
    /// [`Discriminator`](crate::Discriminator), its kind.
    pub(crate) fn sent_filter(&self) -> Option<String> {
        let own = self.filter.as_deref().filter(|f| !f.trim().is_empty());
        let kind = M::DISCRIMINATOR.map(|kind| kind.filter::<M>().to_string());
        match (own, kind) {
            (own, None) => own.map(str::to_owned),
            (None, Some(kind)) => Some(kind),
            (Some(own), Some(kind)) => Some(format!("({own}) and {kind}")),
        }
    }

    /// The `$select` sent: `None` for every property; otherwise the keys, the Timestamp, the
    /// model's kind property, then the query's own names, each once.
    pub(crate) fn sent_select(&self) -> Option<Vec<String>> {
        let own = self.select.as_deref().filter(|s| !s.is_empty())?;
        let kind = M::DISCRIMINATOR.map(|kind| kind.property);
        let mut names: Vec<String> = Vec::with_capacity(own.len() + 4);
        for name in ALWAYS_SELECTED.into_iter().chain(kind).map(str::to_owned) {
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
            select: self.select.clone(),
            top: self.top,
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
            .finish()
    }
}
