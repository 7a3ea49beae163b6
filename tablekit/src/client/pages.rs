//! Running a [`Query`]: a stream of pages, a stream of entities, a chunker, and
//! continuation tokens.
//!
//! The service answers at most 1000 entities per page and may answer a short or even empty
//! page while more follow (timeouts, partition boundaries), so every consumer here loops on the
//! continuation, never on the page size. Nothing holds more than one page besides the one
//! being consumed: with [read-ahead](EntityQuery::read_ahead), the next page is requested
//! as soon as the current answer's headers (which say where it ends) arrive, and is
//! answered and decoded on a task of its own while the current page is decoded and consumed.

use std::collections::VecDeque;
use std::sync::Arc;

use futures::stream::{self, BoxStream, StreamExt, TryStreamExt};
use http::header::HeaderMap;
use http::Method;

use super::continuation::{ContinuationToken, QueryId};
use super::error::{Error, Result};
use super::read_cost::ReadCost;
use super::spread;
use super::table::Table;
use super::transport::{header_str, OnHead, ServiceRequest, ServiceResponse};
use crate::codec;
use crate::model::auxiliary::{is_auxiliary, AUXILIARY_PROPERTY};
use crate::model::table_model::{check_kind, hides_auxiliary, TableEntity, TableModel};
use crate::protocol::limits::InvalidInput;
use crate::query::builder::Query;
use crate::values::entity::Selection;

/// The most entities the service answers in one page.
const MAX_TOP: u32 = 1000;

/// One page of results and where the next one starts.
///
/// ```
/// use tablekit::client::Page;
/// use tablekit::DynamicEntity;
/// let page = Page::new(vec![DynamicEntity::new("p", "r")], None);
/// assert_eq!(page.len(), 1);
/// assert!(page.continuation().is_none());
/// for entity in page { assert_eq!(entity.row_key(), "r"); }
/// ```
#[derive(Clone, Debug)]
pub struct Page<E> {
    entities: Vec<E>,
    continuation: Option<ContinuationToken>,
    cost: Option<ReadCost>,
}

impl<E> Page<E> {
    /// A page of `entities`, followed by `continuation` if more remain.
    pub fn new(entities: Vec<E>, continuation: Option<ContinuationToken>) -> Self {
        Page {
            entities,
            continuation,
            cost: None,
        }
    }

    /// What answering this page cost the server, when it says: the tablekit emulator does
    /// (see [`ReadCost`]), the Table service and Azurite do not.
    ///
    /// ```
    /// use tablekit::client::Page;
    /// use tablekit::DynamicEntity;
    /// let page: Page<DynamicEntity> = Page::new(Vec::new(), None);
    /// assert_eq!(page.server_cost(), None);
    /// ```
    pub fn server_cost(&self) -> Option<ReadCost> {
        self.cost
    }

    fn with_cost(mut self, cost: Option<ReadCost>) -> Self {
        self.cost = cost;
        self
    }

    /// The entities on this page (possibly none, even when more follow).
    pub fn entities(&self) -> &[E] {
        &self.entities
    }

    /// The entities, by value.
    pub fn into_entities(self) -> Vec<E> {
        self.entities
    }

    /// Where the next page starts; `None` on the last page.
    pub fn continuation(&self) -> Option<&ContinuationToken> {
        self.continuation.as_ref()
    }

    /// How many entities this page holds.
    pub fn len(&self) -> usize {
        self.entities.len()
    }

    /// Whether this page holds no entity.
    pub fn is_empty(&self) -> bool {
        self.entities.is_empty()
    }

    /// The page, holding no more than `left` entities: a server that answers more than
    /// `$top` asked is cut to what the query still takes, without a continuation, because
    /// resuming there would skip the entities cut.
    fn cut_to(mut self, left: Option<usize>) -> Self {
        match left.filter(|left| self.entities.len() > *left) {
            Some(left) => {
                self.entities.truncate(left);
                Page::new(self.entities, None).with_cost(self.cost)
            }
            None => self,
        }
    }
}

impl<E> IntoIterator for Page<E> {
    type Item = E;
    type IntoIter = std::vec::IntoIter<E>;

    fn into_iter(self) -> Self::IntoIter {
        self.entities.into_iter()
    }
}

/// A query ready to run on one table: choose how to consume it.
///
/// ```
/// use futures::TryStreamExt;
/// use tablekit::{DynamicEntity, Query};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let emulator = tablekit_testing::Emulator::start().await?;
/// # let client = emulator.client();
/// # emulator.create_table("Players")?;
/// # let players = (1..=25).map(|i| DynamicEntity::new("eu", format!("player-{i:02}")));
/// # let elsewhere = DynamicEntity::new("us", "player-01");
/// # emulator.seed("Players", players.chain([elsewhere]))?;
/// let table = client.table_named::<DynamicEntity>("Players");
/// let q = Query::new().filter_raw("PartitionKey eq 'eu'");
///
/// let mut seen = 0;
/// let mut pages = table.query(q.clone()).pages();
/// while let Some(page) = pages.try_next().await? {
///     for player in page {
///         assert_eq!(player.partition_key(), "eu");
///         seen += 1;
///     }
/// }
/// assert_eq!(seen, 25);
///
/// // web paging: one page and a token to come back with
/// let page = table.query(q.clone().top(20)?).first_page().await?;
/// assert_eq!(page.len(), 20);
/// let token = page.continuation().expect("25 players: more follow");
/// let link = token.to_string(); // e.g. in a "next" link
/// let next = table.query(q.top(20)?).resume_from(link.parse()?);
/// let next = next.first_page().await?;
/// assert_eq!(next.len(), 5);
/// assert!(next.continuation().is_none()); // the last page
/// # Ok(()) }
/// ```
pub struct EntityQuery<M: TableModel> {
    table: Table<M>,
    query: Query<M>,
    start: Option<ContinuationToken>,
    read_ahead: bool,
}

impl<M: TableModel> EntityQuery<M> {
    pub(crate) fn new(table: Table<M>, query: Query<M>) -> Self {
        EntityQuery {
            table,
            query,
            start: None,
            read_ahead: false,
        }
    }

    /// Requests each next page as soon as the current answer's headers arrive (they say
    /// where it ends), so the service answers it while this page's body is read, decoded and
    /// consumed: a scan then takes about the longer of the two times instead of their sum.
    /// The page read ahead is decoded on its own task too, so on a runtime with more than
    /// one thread two pages' decoding overlaps.
    /// Off by default for the streams, because a consumer that stops early has then paid for
    /// one page it never reads; [`count`] and [`collect_all`], which always read to the end,
    /// turn it on. Without a tokio runtime (needed to run the request meanwhile) pages are
    /// read one after the other.
    ///
    /// [`count`]: EntityQuery::count
    /// [`collect_all`]: EntityQuery::collect_all
    ///
    /// ```
    /// use futures::TryStreamExt;
    /// # use tablekit::DynamicEntity;
    /// # use tablekit_testing::Operation;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let client = emulator.client();
    /// # emulator.create_table("Logs")?;
    /// # let entries = (0..2500).map(|i| DynamicEntity::new("app", format!("{i:04}")));
    /// # emulator.seed("Logs", entries)?;
    /// let logs = client.table_named::<DynamicEntity>("Logs");
    /// let mut pages = logs.query_all().read_ahead(true).pages();
    /// let mut sizes = Vec::new();
    /// while let Some(page) = pages.try_next().await? {
    ///     sizes.push(page.len()); // the next page is on its way meanwhile
    /// }
    /// // 2500 entities, in pages of at most 1000
    /// assert_eq!(sizes, [1000, 1000, 500]);
    /// // and no request went past the last page
    /// assert_eq!(emulator.requests().count(Operation::Query), 3);
    /// # Ok(()) }
    /// ```
    pub fn read_ahead(mut self, on: bool) -> Self {
        self.read_ahead = on;
        self
    }

    /// Starts where an earlier page's [`continuation`](Page::continuation) pointed.
    pub fn resume_from(mut self, token: ContinuationToken) -> Self {
        self.start = Some(token);
        self
    }

    /// The first page only (from the resume point, if any), with its continuation token.
    pub async fn first_page(self) -> Result<Page<M::Entity>> {
        let (sent, start) = self.prepare()?;
        let Some(top) = sent.top_for(sent.take) else {
            return Ok(Page::new(Vec::new(), None)); // `take(0)`: nothing to ask for
        };
        let reply = request_page(&sent, start, top, &|_| {}).await?;
        let mut page = sent.decode(reply)?.cut_to(sent.take);
        spread::load_rows(&sent.table, &mut page.entities).await?;
        Ok(page)
    }

    /// The query as it will be sent, checked (table name, the resume token) before any
    /// request, and where it starts.
    fn prepare(self) -> Result<(Arc<Sent<M>>, Option<ContinuationToken>)> {
        let sent = Sent::new(self.table, &self.query)?;
        if let Some(start) = &self.start {
            start.check_query(sent.id)?;
        }
        Ok((Arc::new(sent), self.start))
    }

    /// Every page, following continuations until the service has no more.
    pub fn pages(self) -> BoxStream<'static, Result<Page<M::Entity>>> {
        let read_ahead = self.read_ahead && tokio::runtime::Handle::try_current().is_ok();
        let (sent, start) = match self.prepare() {
            Ok(prepared) => prepared,
            Err(e) => return stream::once(async { Err(e) }).boxed(),
        };
        let left = sent.take;
        let first = match sent.top_for(left) {
            None => Next::End,
            Some(top) if read_ahead => Next::Requested(Pending::spawn(&sent, start, top)),
            Some(_) => Next::At(start),
        };
        stream::try_unfold((first, left), move |(next, left)| {
            let sent = sent.clone();
            async move {
                let Some((page, ahead)) = fetch(&sent, next, left).await? else {
                    return Ok::<_, Error>(None);
                };
                let mut page = page.cut_to(left);
                spread::load_rows(&sent.table, &mut page.entities).await?;
                let left = left.map(|l| l.saturating_sub(page.len()));
                let next = next_after(&sent, &page, left, ahead, read_ahead);
                if matches!(next, Next::Requested(_)) {
                    // A task spawned from a busy worker waits for that worker: let it send
                    // its request before this one settles into decoding.
                    tokio::task::yield_now().await;
                }
                Ok(Some((page, (next, left))))
            }
        })
        .boxed()
    }

    /// Every entity, across pages.
    ///
    /// ```
    /// use futures::TryStreamExt;
    /// # use tablekit::client::Table;
    /// # use tablekit::{DynamicEntity, Query};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let client = emulator.client();
    /// # emulator.create_table("Players")?;
    /// # let players = (1..=5).map(|i| DynamicEntity::new("eu", format!("player-{i}")));
    /// # emulator.seed("Players", players)?;
    /// let table: Table = client.table_named("Players");
    /// let mut players = table.query(Query::new().top(2)?).entities(); // pages of 2, one stream
    /// let mut seen = 0;
    /// while let Some(player) = players.try_next().await? {
    ///     assert_eq!(player.partition_key(), "eu");
    ///     seen += 1;
    /// }
    /// assert_eq!(seen, 5);
    /// # Ok(()) }
    /// ```
    pub fn entities(self) -> BoxStream<'static, Result<M::Entity>> {
        self.pages()
            .map_ok(|page| stream::iter(page.into_entities().into_iter().map(Ok)))
            .try_flatten()
            .boxed()
    }

    /// A chunker returning exactly `n` entities per call across pages.
    ///
    /// ```
    /// # use tablekit::client::Table;
    /// # use tablekit::{DynamicEntity, Query};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let client = emulator.client();
    /// # emulator.create_table("Players")?;
    /// # let players = (1..=5).map(|i| DynamicEntity::new("eu", format!("player-{i}")));
    /// # emulator.seed("Players", players)?;
    /// let table: Table = client.table_named("Players");
    /// let mut chunks = table.query(Query::new().top(2)?).chunks();
    /// assert_eq!(chunks.next_chunk(3).await?.len(), 3); // across two pages
    /// assert_eq!(chunks.next_chunk(3).await?.len(), 2); // fewer only at the end
    /// assert!(chunks.next_chunk(3).await?.is_empty());
    /// # Ok(()) }
    /// ```
    pub fn chunks(self) -> Chunker<M::Entity> {
        Chunker {
            pages: self.pages(),
            buffer: VecDeque::new(),
            exhausted: false,
        }
    }

    /// Counts the matching entities (reading every page, with
    /// [read-ahead](EntityQuery::read_ahead)).
    pub async fn count(self) -> Result<usize> {
        self.read_ahead(true)
            .pages()
            .try_fold(0, |count, page| async move { Ok(count + page.len()) })
            .await
    }

    /// Collects every matching entity into memory (with [read-ahead](EntityQuery::read_ahead)):
    /// only for results known to be small.
    pub async fn collect_all(self) -> Result<Vec<M::Entity>> {
        self.read_ahead(true).entities().try_collect().await
    }
}

/// Hands out query results in chunks of exactly the requested size, across page boundaries,
/// keeping leftovers for the next call (like `TakeAsync(chunkSize)` in the C# library that
/// accompanies "Jeffrey Richter's Guide to Working with Azure Storage Tables via C# and other
/// .NET Languages").
///
/// ```
/// # use tablekit::DynamicEntity;
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let emulator = tablekit_testing::Emulator::start().await?;
/// # let client = emulator.client();
/// # emulator.create_table("Logs")?;
/// # let entries = (0..1100).map(|i| DynamicEntity::new("app", format!("{i:04}")));
/// # emulator.seed("Logs", entries)?;
/// let logs = client.table_named::<DynamicEntity>("Logs");
/// let mut chunks = logs.query_all().chunks(); // 1100 entities: pages of 1000 and 100
/// let mut sizes = Vec::new();
/// while chunks.has_more() {
///     let chunk = chunks.next_chunk(250).await?; // 250 entities, fewer only at the end
///     sizes.push(chunk.len());
/// }
/// assert_eq!(sizes, [250, 250, 250, 250, 100]);
/// # Ok(()) }
/// ```
pub struct Chunker<E> {
    pages: BoxStream<'static, Result<Page<E>>>,
    buffer: VecDeque<E>,
    exhausted: bool,
}

impl<E: TableEntity> Chunker<E> {
    /// The next `n` entities; fewer only when the results end (empty once they have).
    ///
    /// ```
    /// # use tablekit::client::Table;
    /// # use tablekit::{DynamicEntity, Query};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let client = emulator.client();
    /// # emulator.create_table("Players")?;
    /// # let players = (1..=5).map(|i| DynamicEntity::new("eu", format!("player-{i}")));
    /// # emulator.seed("Players", players)?;
    /// let table: Table = client.table_named("Players");
    /// let mut chunks = table.query(Query::new().top(2)?).chunks();
    /// let chunk = chunks.next_chunk(3).await?; // pages of 2: one and a half pages
    /// let keys: Vec<&str> = chunk.iter().map(|p| p.row_key()).collect();
    /// assert_eq!(keys, ["player-1", "player-2", "player-3"]);
    /// assert_eq!(chunks.next_chunk(3).await?[0].row_key(), "player-4"); // the leftover comes first
    /// # Ok(()) }
    /// ```
    pub async fn next_chunk(&mut self, n: usize) -> Result<Vec<E>> {
        while self.buffer.len() < n && !self.exhausted {
            if let Some(entities) = self.read_page().await? {
                self.buffer.extend(entities);
            }
        }
        let take = n.min(self.buffer.len());
        Ok(self.buffer.drain(..take).collect())
    }

    /// The next server page as it came (possibly empty while more follow), after any
    /// leftovers; `None` when the results have ended.
    ///
    /// ```
    /// # use tablekit::client::Table;
    /// # use tablekit::{DynamicEntity, Query};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let client = emulator.client();
    /// # emulator.create_table("Players")?;
    /// # let players = (1..=5).map(|i| DynamicEntity::new("eu", format!("player-{i}")));
    /// # emulator.seed("Players", players)?;
    /// let table: Table = client.table_named("Players");
    /// let mut chunks = table.query(Query::new().top(2)?).chunks();
    /// chunks.next_chunk(3).await?; // players 1 to 3: player-4 is left over
    /// assert_eq!(chunks.next_page().await?.map(|p| p.len()), Some(1)); // the leftover
    /// assert_eq!(chunks.next_page().await?.map(|p| p.len()), Some(1)); // the last page: player-5
    /// assert!(chunks.next_page().await?.is_none());
    /// # Ok(()) }
    /// ```
    pub async fn next_page(&mut self) -> Result<Option<Vec<E>>> {
        if !self.buffer.is_empty() {
            return Ok(Some(self.buffer.drain(..).collect()));
        }
        if self.exhausted {
            return Ok(None);
        }
        self.read_page().await
    }

    /// Whether more entities may follow (leftovers, or pages not yet read): false as soon as
    /// the last page's entities are all taken.
    pub fn has_more(&self) -> bool {
        !self.buffer.is_empty() || !self.exhausted
    }

    /// The next page's entities, or `None` at the end: the one place pages are read, so the
    /// one place that learns the query has ended. A page without a continuation is the last:
    /// knowing so now lets [`has_more`](Self::has_more) answer false once it is taken, rather
    /// than after one more (empty) chunk when the entities fill the chunks exactly.
    async fn read_page(&mut self) -> Result<Option<Vec<E>>> {
        let page = self.pages.try_next().await?;
        self.exhausted = page.as_ref().is_none_or(|p| p.continuation().is_none());
        Ok(page.map(Page::into_entities))
    }
}

/// Where a page stream goes on from.
enum Next<E> {
    /// The page at this position is still to be requested.
    At(Option<ContinuationToken>),
    /// The next page is already requested.
    Requested(Pending<E>),
    /// The last page was read, or all the query takes.
    End,
}

/// A page read ahead, and the position it asked for.
type Ahead<E> = Option<(ContinuationToken, Pending<E>)>;

/// The page `next` points at, decoded (`None` past the last), and the page after it when
/// that was read ahead, with the position it asked for.
async fn fetch<M: TableModel>(
    sent: &Arc<Sent<M>>,
    next: Next<M::Entity>,
    left: Option<usize>,
) -> Result<Option<(Page<M::Entity>, Ahead<M::Entity>)>> {
    match next {
        Next::At(position) => {
            // Only a stream with something left to take gets here.
            let top = sent.top_for(left).unwrap_or(MAX_TOP);
            let reply = request_page(sent, position, top, &|_| {}).await?;
            Ok(Some((sent.decode(reply)?, None)))
        }
        Next::Requested(mut pending) => {
            // The next page's position is in this answer's headers: it is asked for as soon as
            // they arrive, while this answer's body comes in, for no more entities than are
            // left should this page be full.
            let after = left.map(|l| l.saturating_sub(pending.top));
            let ahead = match sent.top_for(after) {
                Some(top) => pending
                    .continuation()
                    .await
                    .map(|token| (token.clone(), Pending::spawn(sent, Some(token), top))),
                None => None,
            };
            Ok(Some((pending.page().await?, ahead)))
        }
        Next::End => Ok(None),
    }
}

/// What follows `page` when `left` entities are still to take: the end, or the request for
/// the page at its continuation (the one read ahead, when it asked for that very position).
fn next_after<M: TableModel>(
    sent: &Arc<Sent<M>>,
    page: &Page<M::Entity>,
    left: Option<usize>,
    ahead: Ahead<M::Entity>,
    read_ahead: bool,
) -> Next<M::Entity> {
    let (Some(token), Some(top)) = (page.continuation().cloned(), sent.top_for(left)) else {
        return Next::End;
    };
    match ahead {
        // A retried request may have answered from elsewhere: the early request stands only
        // for the position this answer really ends at.
        Some((asked, pending)) if asked == token => Next::Requested(pending),
        _ if read_ahead => Next::Requested(Pending::spawn(sent, Some(token), top)),
        _ => Next::At(Some(token)),
    }
}

/// A page request running on its own task, which also decodes the answer: a stream's
/// consumer then finds the page decoded, and two pages' decoding can overlap on two
/// threads. Stopped when the stream is dropped before it.
struct Pending<E> {
    task: tokio::task::JoinHandle<Result<Page<E>>>,
    /// The continuation of a successful answer, sent when its headers arrive.
    head: tokio::sync::oneshot::Receiver<Option<ContinuationToken>>,
    /// The `$top` it asked for: its page holds at most this many entities.
    top: usize,
}

impl<E: TableEntity> Pending<E> {
    /// Requests the page at `position`, of at most `top` entities, on a task of its own.
    fn spawn<M: TableModel<Entity = E>>(
        sent: &Arc<Sent<M>>,
        position: Option<ContinuationToken>,
        top: u32,
    ) -> Self {
        let sent = sent.clone();
        let (sender, head) = tokio::sync::oneshot::channel();
        let sender = std::sync::Mutex::new(Some(sender));
        let task = tokio::spawn(async move {
            let on_head = |headers: &HeaderMap| {
                // Only the first attempt with an answer tells: a retry is checked later.
                let first = sender.lock().ok().and_then(|mut sender| sender.take());
                if let Some(sender) = first {
                    // The stream may be gone already: then nobody waits for it.
                    let _ = sender.send(sent.continuation_in(headers));
                }
            };
            let reply = request_page(&sent, position, top, &on_head).await?;
            sent.decode(reply)
        });
        Pending {
            task,
            head,
            top: top as usize,
        }
    }

    /// Where the page after this one starts, as soon as the answer's headers are in; `None`
    /// for the last page and when the request fails before answering.
    async fn continuation(&mut self) -> Option<ContinuationToken> {
        (&mut self.head).await.ok().flatten()
    }

    async fn page(mut self) -> Result<Page<E>> {
        match (&mut self.task).await {
            Ok(reply) => reply,
            // The request's own panic, surfaced where it would have happened without the task.
            Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            // Only `Drop` cancels the task, and it has not run: kept typed all the same.
            Err(e) => Err(Error::Transport {
                source: Box::new(e),
                after_uncertain_attempt: false,
            }),
        }
    }
}

impl<E> Drop for Pending<E> {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// A query as it is sent, made once for all its pages: the request's parameters, what its
/// entities hold, and the identity its continuation tokens carry.
struct Sent<M: TableModel> {
    table: Table<M>,
    /// `GET /Table()`.
    path: String,
    /// `$filter` and `$select`.
    parameters: Vec<(&'static str, String)>,
    /// The query's page size, `$top` (at most [`MAX_TOP`]).
    page_size: Option<u32>,
    /// How many entities the query takes in all.
    take: Option<usize>,
    /// What a select fetched, shared by the entities it reads; `None` without a select.
    selection: Option<Arc<Selection>>,
    id: QueryId,
}

/// Warns of a table scan, and refuses a query that may scan when the table refuses scans and
/// the query does not allow one.
fn check_plan<M: TableModel>(table: &Table<M>, query: &Query<M>) -> Result<()> {
    let plan = query.plan();
    if !plan.may_scan() || query.allows_table_scan() {
        return Ok(());
    }
    if table.refuses_scans() {
        return Err(InvalidInput::TableScan {
            table: table.name().to_owned(),
        }
        .into());
    }
    // Only a scan the plan is sure of is worth a warning: hand-written text may well fix
    // the PartitionKey.
    if plan.is_table_scan() {
        tracing::warn!(
            target: "tablekit::query",
            table = table.name(),
            filter = query.filter_string().unwrap_or(""),
            "the query scans the whole table"
        );
    }
    Ok(())
}

impl<M: TableModel> Sent<M> {
    /// Checks the query and builds what every page request sends.
    fn new(table: Table<M>, query: &Query<M>) -> Result<Self> {
        let name = table.checked_name()?;
        check_plan(&table, query)?;
        let path = format!("/{name}()");
        let filter = query.sent_filter();
        let select = query.sent_select();
        let id = QueryId::of(name, filter.as_deref(), select.as_deref());
        let mut parameters = Vec::with_capacity(3);
        if let Some(filter) = filter {
            parameters.push(("$filter", filter));
        }
        let selection = select.map(|names| {
            parameters.push(("$select", names.join(",")));
            // The marker of rows kept beside entities is fetched to tell them apart, not
            // as a property the entity was read with.
            Arc::new(Selection::new(
                names.iter().filter(|n| *n != AUXILIARY_PROPERTY),
            ))
        });
        Ok(Sent {
            table,
            path,
            parameters,
            page_size: query.top_value(),
            take: query.take_value(),
            selection,
            id,
        })
    }

    /// The `$top` of a request when `left` entities are still to take: the page size,
    /// lowered to what is left; `None` when nothing is.
    fn top_for(&self, left: Option<usize>) -> Option<u32> {
        let page = self.page_size.unwrap_or(MAX_TOP);
        match left {
            None => Some(page),
            Some(0) => None,
            Some(left) => Some(u32::try_from(left).map_or(page, |left| left.min(page))),
        }
    }

    /// Where the page after an answer with these headers starts, tied to this query.
    fn continuation_in(&self, headers: &HeaderMap) -> Option<ContinuationToken> {
        let token = ContinuationToken::from_headers(
            header_str(headers, "x-ms-continuation-NextPartitionKey"),
            header_str(headers, "x-ms-continuation-NextRowKey"),
        )?;
        Some(token.bound_to(self.id))
    }

    /// The entities of one answer as the model's entity type, each marked with what the
    /// select fetched and checked to be of the model's kind, and the answer's continuation.
    /// The answer's buffer then goes back for the next page.
    fn decode(&self, reply: ServiceResponse) -> Result<Page<M::Entity>> {
        let entities: Vec<_> = codec::decode_page(&reply.body)?
            .into_iter()
            // Typed pages skip the rows models keep beside their entities (index rows).
            .filter(|entity| !(hides_auxiliary::<M>() && is_auxiliary(entity)))
            .map(|mut entity| {
                check_kind::<M>(&entity)?;
                if let Some(selection) = &self.selection {
                    entity.set_selection(selection.clone());
                }
                Ok(M::Entity::wrap(entity))
            })
            .collect::<Result<_>>()?;
        self.table.client().transport().http.give_back(reply.body);
        let cost = ReadCost::from_headers(&reply.headers);
        Ok(Page::new(entities, self.continuation_in(&reply.headers)).with_cost(cost))
    }
}

/// One `GET /Table()` with the query's parameters and the position.
async fn request_page<M: TableModel>(
    sent: &Sent<M>,
    position: Option<ContinuationToken>,
    top: u32,
    on_head: OnHead<'_>,
) -> Result<ServiceResponse> {
    let mut call = ServiceRequest::new(Method::GET, sent.path.clone());
    call.query.extend(sent.parameters.iter().cloned());
    // No `$top` for a full page: the service's own 1000 applies.
    if top < MAX_TOP || sent.page_size.is_some() {
        call.query.push(("$top", top.to_string()));
    }
    if let Some(position) = position {
        call.query.extend(position.query_parameters());
    }
    sent.table
        .client()
        .transport()
        .send_observed(&call, on_head)
        .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DynamicEntity;

    fn page(n: usize) -> Page<DynamicEntity> {
        let entities = (0..n)
            .map(|i| DynamicEntity::new("p", i.to_string()))
            .collect();
        Page::new(
            entities,
            Some(ContinuationToken::from_headers(Some("p"), Some("9")).unwrap()),
        )
    }

    #[test]
    fn a_page_longer_than_what_is_left_is_cut_and_ends_the_query() {
        let cut = page(5).cut_to(Some(3));
        assert_eq!(cut.len(), 3);
        assert!(
            cut.continuation().is_none(),
            "resuming would skip the entities cut"
        );
    }

    #[test]
    fn a_page_within_what_is_left_keeps_its_continuation() {
        for left in [None, Some(5), Some(6)] {
            let kept = page(5).cut_to(left);
            assert_eq!(kept.len(), 5);
            assert!(kept.continuation().is_some(), "{left:?}");
        }
    }
}
