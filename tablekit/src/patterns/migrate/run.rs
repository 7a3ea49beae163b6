//! Walking a table or query with a migration: [`MigrateOptions`] (dry run, retries, resume,
//! progress, checkpoints), each entity replaced on its ETag and re-read on 412, and the
//! [`MigrationOutcome`].

use std::fmt;
use std::sync::Arc;

use futures::TryStreamExt;

use super::{EntityChange, MigrateError, Migration, MigrationReport};
use crate::client::error::{Error, Result};
use crate::client::{ContinuationToken, Table};
use crate::model::table_model::TableModel;
use crate::patterns::conflict_retry::ConflictRetry;
use crate::patterns::progress::{NoProgress, ProgressCounter, ProgressSink};
use crate::protocol::limits::InvalidInput;
use crate::query::builder::Query;
use crate::values::entity::DynamicEntity;

/// Receives the token to resume from after each page.
pub(super) type CheckpointFn = Arc<dyn Fn(&ContinuationToken) + Send + Sync>;

/// How a table walk runs: dry or for real, retry policy, resume point, progress, checkpoints.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let emulator = tablekit_testing::Emulator::start().await?;
/// # let client = emulator.client();
/// # let table = client.table_named::<tablekit::DynamicEntity>("Gamers");
/// # table.create().await?;
/// # for i in 0..5 {
/// #     let mut e = tablekit::DynamicEntity::new("g", format!("{i}"));
/// #     e.set("Legacy", true);
/// #     table.insert(&mut e).await?;
/// # }
/// use tablekit::patterns::migrate::{MigrateOptions, Migration};
/// use tablekit::Query;
/// // `table` holds five entities, each with a `Legacy` property.
/// let m = Migration::new().remove(["Legacy"]);
/// let dry = m.run(&table, Query::new(), MigrateOptions::new().dry_run(true)).await?;
/// let real = m.run(&table, Query::new(), MigrateOptions::new()).await?;
/// assert_eq!((dry.report.changed, real.report.changed), (5, 5));
/// let again = m.run(&table, Query::new(), MigrateOptions::new()).await?;
/// assert_eq!(again.report.unchanged, 5); // the real run wrote: nothing is left to change
/// # Ok(()) }
/// ```
#[derive(Clone, Default)]
pub struct MigrateOptions {
    dry_run: bool,
    retry: ConflictRetry,
    resume_from: Option<ContinuationToken>,
    progress: Option<Arc<dyn ProgressSink>>,
    checkpoint: Option<CheckpointFn>,
}

impl fmt::Debug for MigrateOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MigrateOptions")
            .field("dry_run", &self.dry_run)
            .field("retry", &self.retry)
            .field("resume_from", &self.resume_from)
            .finish_non_exhaustive()
    }
}

impl MigrateOptions {
    /// A real run from the start, with the default [`ConflictRetry`].
    ///
    /// ```
    /// use tablekit::patterns::migrate::MigrateOptions;
    /// let o = MigrateOptions::new().dry_run(true);
    /// assert!(o.is_dry_run());
    /// ```
    pub fn new() -> Self {
        MigrateOptions::default()
    }

    /// Reads and reports what would change, writes nothing.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let client = emulator.client();
    /// # let table = client.table_named::<tablekit::DynamicEntity>("Gamers");
    /// # table.create().await?;
    /// # for i in 0..5 {
    /// #     let mut e = tablekit::DynamicEntity::new("g", format!("{i}"));
    /// #     e.set("Legacy", true);
    /// #     table.insert(&mut e).await?;
    /// # }
    /// use tablekit::patterns::migrate::{MigrateOptions, Migration};
    /// use tablekit::Query;
    /// // `table` holds five entities, each with a `Legacy` property.
    /// let m = Migration::new().remove(["Legacy"]);
    /// let dry = m.run(&table, Query::new(), MigrateOptions::new().dry_run(true)).await?;
    /// assert_eq!((dry.report.changed, dry.report.removed["Legacy"]), (5, 5));
    /// assert!(table.get("g", "0").await?.unwrap().contains("Legacy")); // nothing written
    /// # Ok(()) }
    /// ```
    pub fn dry_run(mut self, dry: bool) -> Self {
        self.dry_run = dry;
        self
    }

    /// Whether this is a dry run.
    ///
    /// ```
    /// use tablekit::patterns::migrate::MigrateOptions;
    /// assert!(!MigrateOptions::new().is_dry_run()); // a real run unless asked
    /// assert!(MigrateOptions::new().dry_run(true).is_dry_run());
    /// ```
    pub fn is_dry_run(&self) -> bool {
        self.dry_run
    }

    /// The policy for writes that lose a race with another writer (412).
    ///
    /// ```
    /// use tablekit::patterns::conflict_retry::ConflictRetry;
    /// use tablekit::patterns::migrate::MigrateOptions;
    /// // Entities many writers touch: redo a lost race up to 100 times per entity.
    /// let options = MigrateOptions::new().retry(ConflictRetry::new().max_attempts(100)?);
    /// assert!(format!("{options:?}").contains("max_attempts: 100"));
    /// # Ok::<(), tablekit::InvalidInput>(())
    /// ```
    pub fn retry(mut self, policy: ConflictRetry) -> Self {
        self.retry = policy;
        self
    }

    /// Starts at a checkpoint of an earlier run instead of the beginning.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let client = emulator.client();
    /// # let table = client.table_named::<tablekit::DynamicEntity>("Gamers");
    /// # table.create().await?;
    /// # for i in 0..5 {
    /// #     let mut e = tablekit::DynamicEntity::new("g", format!("{i}"));
    /// #     e.set("Legacy", true);
    /// #     table.insert(&mut e).await?;
    /// # }
    /// use tablekit::patterns::migrate::{MigrateOptions, Migration};
    /// use tablekit::Query;
    /// // `table` holds five entities; a checkpoint after a first page of two:
    /// let first_page = table.query(Query::new().top(2)?).first_page().await?;
    /// let checkpoint = first_page.continuation().cloned().expect("more pages follow");
    /// let m = Migration::new().remove(["Legacy"]);
    /// let options = MigrateOptions::new().resume_from(checkpoint);
    /// let rest = m.run(&table, Query::new(), options).await?;
    /// assert_eq!(rest.report.scanned, 3);
    /// assert!(table.get("g", "0").await?.unwrap().contains("Legacy")); // before the checkpoint
    /// # Ok(()) }
    /// ```
    pub fn resume_from(mut self, token: ContinuationToken) -> Self {
        self.resume_from = Some(token);
        self
    }

    /// Reports progress (entities read) after each page.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let client = emulator.client();
    /// # let table = client.table_named::<tablekit::DynamicEntity>("Gamers");
    /// # table.create().await?;
    /// # for i in 0..5 {
    /// #     let mut e = tablekit::DynamicEntity::new("g", format!("{i}"));
    /// #     e.set("Legacy", true);
    /// #     table.insert(&mut e).await?;
    /// # }
    /// use std::sync::atomic::{AtomicU64, Ordering};
    /// use std::sync::Arc;
    /// use tablekit::patterns::migrate::{MigrateOptions, Migration};
    /// use tablekit::patterns::progress::Progress;
    /// use tablekit::Query;
    /// let read = Arc::new(AtomicU64::new(0));
    /// let sink = Arc::clone(&read);
    /// let options = MigrateOptions::new().progress(move |p: &Progress| {
    ///     sink.store(p.items(), Ordering::Relaxed);
    /// });
    /// Migration::new().remove(["Legacy"]).run(&table, Query::new(), options).await?;
    /// assert_eq!(read.load(Ordering::Relaxed), 5); // `table` holds five entities
    /// # Ok(()) }
    /// ```
    pub fn progress(mut self, sink: impl ProgressSink) -> Self {
        self.progress = Some(Arc::new(sink));
        self
    }

    /// Called after each page is fully processed with the token to resume from; persist it
    /// to survive a crash.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let client = emulator.client();
    /// # let table = client.table_named::<tablekit::DynamicEntity>("Gamers");
    /// # table.create().await?;
    /// # for i in 0..5 {
    /// #     let mut e = tablekit::DynamicEntity::new("g", format!("{i}"));
    /// #     e.set("Legacy", true);
    /// #     table.insert(&mut e).await?;
    /// # }
    /// use std::sync::{Arc, Mutex};
    /// use tablekit::patterns::migrate::{MigrateOptions, Migration};
    /// use tablekit::Query;
    /// let saved = Arc::new(Mutex::new(Vec::new()));
    /// let store = Arc::clone(&saved);
    /// let options = MigrateOptions::new().on_checkpoint(move |token| {
    ///     store.lock().unwrap().push(token.to_string()) // a file or a table in real use
    /// });
    /// let m = Migration::new().remove(["Legacy"]);
    /// let outcome = m.run(&table, Query::new().top(2)?, options).await?;
    /// assert_eq!(outcome.report.changed, 5);
    /// assert_eq!(saved.lock().unwrap().len(), 2); // pages of 2, 2 and 1: none after the last
    /// # Ok(()) }
    /// ```
    pub fn on_checkpoint(mut self, f: impl Fn(&ContinuationToken) + Send + Sync + 'static) -> Self {
        self.checkpoint = Some(Arc::new(f));
        self
    }
}

/// The result of a table walk: the totals, and where to resume if it stopped early.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # use tablekit_testing::{Fault, Faults, Operation};
/// # let emulator = tablekit_testing::Emulator::start().await?;
/// # let no_retries = tablekit::client::RetryPolicy::none();
/// # let client = emulator.client_builder().retry_policy(no_retries).build()?;
/// # client.create_table("Gamers").await?;
/// # for i in 0..6 {
/// #     let mut e = tablekit::DynamicEntity::new("g", format!("{i}"));
/// #     e.set("Legacy", true);
/// #     client.table_named::<tablekit::DynamicEntity>("Gamers").insert(&mut e).await?;
/// # }
/// # let faults = Faults::seeded(16).rate(Fault::ServerBusy, 0.3).only(&[Operation::Query]);
/// # emulator.set_faults(Some(faults));
/// use tablekit::patterns::migrate::{MigrateOptions, Migration, MigrationReport};
/// use tablekit::{DynamicEntity, Query};
/// // `Gamers` holds six entities with a `Legacy` property. Reading a page fails now and then
/// // (503 ServerBusy), and `client` does not retry: the loop resumes from the checkpoint.
/// let table = client.table_named::<DynamicEntity>("Gamers");
/// let m = Migration::new().remove(["Legacy"]);
/// let mut options = MigrateOptions::new();
/// let (mut runs, mut total) = (0, MigrationReport::default());
/// loop {
///     let outcome = m.run(&table, Query::new().top(2)?, options.clone()).await?;
///     runs += 1;
///     total.merge(outcome.report);
///     match (outcome.error, outcome.resume_from) {
///         (None, _) => break, // the end
///         (Some(e), _) if runs == 10 => return Err(e.into()), // give up
///         (Some(_), Some(token)) => options = options.resume_from(token), // try again from there
///         (Some(_), None) => {} // the first page failed: start over
///     }
/// }
/// println!("{total}");
/// assert!(runs > 1);
/// assert_eq!((total.scanned, total.changed), (6, 6)); // each entity once, across the runs
/// # Ok(()) }
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub struct MigrationOutcome {
    /// What changed (or would have, in a dry run).
    pub report: MigrationReport,
    /// The error that stopped the walk (reading a page failed), if any.
    pub error: Option<Error>,
    /// Where to resume: the checkpoint after the last fully processed page (`None` when the
    /// walk reached the end, or stopped on the first page).
    pub resume_from: Option<ContinuationToken>,
}

pub(super) struct SharedSink(Arc<dyn ProgressSink>);

impl ProgressSink for SharedSink {
    fn report(&self, progress: &crate::patterns::progress::Progress) {
        self.0.report(progress)
    }
}

impl Migration {
    /// Walks every entity of `table` matching `query` and applies the migration, writing each
    /// changed entity with Replace and `If-Match` on the version read; when another writer got
    /// there first (412) the entity is read again and the migration re-applied. Entities are
    /// processed page by page; after each page the checkpoint callback gets the token to
    /// resume from. Unchanged entities are not written.
    ///
    /// The query must not `select` properties: a Replace of a partial entity would delete the
    /// rest, so such a query is refused before anything is read. Entities are handled as
    /// [`DynamicEntity`], so properties the model does not declare are kept.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// use tablekit::patterns::migrate::{MigrateOptions, Migration};
    /// use tablekit::{DynamicEntity, Query};
    /// # let client = emulator.client();
    /// let table = client.table_named::<DynamicEntity>("Gamers");
    /// # table.create().await?;
    /// # for (rk, nick) in [("1", Some("drako")), ("2", Some("kestrel")), ("3", None)] {
    /// #     let mut e = DynamicEntity::new("g", rk);
    /// #     if let Some(nick) = nick {
    /// #         e.set("Nick", nick);
    /// #     }
    /// #     table.insert(&mut e).await?;
    /// # }
    /// // `table` holds three gamers; ("g", "1") and ("g", "2") have a `Nick`.
    /// let m = Migration::new().rename("Nick", "Nickname");
    /// let dry = m.run(&table, Query::new(), MigrateOptions::new().dry_run(true)).await?;
    /// println!("would change {} of {}", dry.report.changed, dry.report.scanned);
    /// assert_eq!((dry.report.changed, dry.report.scanned), (2, 3));
    /// assert!(table.get("g", "1").await?.unwrap().contains("Nick")); // nothing written yet
    /// let done = m.run(&table, Query::new(), MigrateOptions::new()).await?;
    /// assert!(done.error.is_none());
    /// assert_eq!(done.report.changed, 2);
    /// let drako = table.get("g", "1").await?.unwrap();
    /// assert_eq!(drako.get::<String>("Nickname").as_deref(), Some("drako"));
    /// assert!(!drako.contains("Nick"));
    /// // A query that selects properties is refused: the Replace would drop the others.
    /// let partial = Query::new().select_names(["Nick"]);
    /// let refused = m.run(&table, partial, MigrateOptions::new()).await;
    /// assert!(refused.unwrap_err().is_invalid_input());
    /// # Ok(()) }
    /// ```
    pub async fn run<M: TableModel>(
        &self,
        table: &Table<M>,
        query: Query<M>,
        options: MigrateOptions,
    ) -> Result<MigrationOutcome> {
        self.validate()?;
        if query.select_list().is_some() {
            return Err(InvalidInput::Other(
                "a migration query cannot select properties: the Replace would drop the others"
                    .to_owned(),
            )
            .into());
        }
        let table: Table<DynamicEntity> = table.client().table_named(table.name());
        // A migration walks the table by design.
        let mut dynamic_query = Query::<DynamicEntity>::new().allow_table_scan();
        if let Some(filter) = query.filter_string() {
            dynamic_query = dynamic_query.filter_raw(filter);
        }
        if let Some(top) = query.top_value() {
            dynamic_query = dynamic_query.top(top)?;
        }
        if let Some(take) = query.take_value() {
            dynamic_query = dynamic_query.take(take);
        }
        let mut walk = table.query(dynamic_query);
        if let Some(token) = options.resume_from.clone() {
            walk = walk.resume_from(token);
        }
        let counter = match &options.progress {
            Some(sink) => ProgressCounter::new(SharedSink(Arc::clone(sink))),
            None => ProgressCounter::new(NoProgress),
        };
        let mut outcome = MigrationOutcome {
            report: MigrationReport::default(),
            error: None,
            resume_from: options.resume_from.clone(),
        };
        let mut pages = walk.pages();
        loop {
            let page = match pages.try_next().await {
                Ok(Some(page)) => page,
                Ok(None) => {
                    outcome.resume_from = None;
                    break;
                }
                Err(e) => {
                    outcome.error = Some(e);
                    break;
                }
            };
            let next = page.continuation().cloned();
            let count = page.len() as u64;
            for entity in page.into_entities() {
                self.migrate_one(&table, entity, &options, &mut outcome.report)
                    .await;
            }
            counter.add(count, 0);
            outcome.resume_from = next.clone();
            if let (Some(token), Some(f)) = (&next, &options.checkpoint) {
                f(token);
            }
        }
        counter.finish();
        Ok(outcome)
    }

    /// Migrates one entity, re-reading and re-applying on 412.
    async fn migrate_one(
        &self,
        table: &Table<DynamicEntity>,
        mut entity: DynamicEntity,
        options: &MigrateOptions,
        report: &mut MigrationReport,
    ) {
        let mut attempt = 1;
        loop {
            let change = match self.apply(&mut entity) {
                Ok(change) => change,
                Err(e) => return report.record_failure(e),
            };
            if !change.changed || options.dry_run {
                return report.record(&entity, &change);
            }
            let error = match table.replace(&mut entity).await {
                Ok(()) => return report.record(&entity, &change),
                Err(e) => e,
            };
            let (pk, rk) = (
                entity.partition_key().to_owned(),
                entity.row_key().to_owned(),
            );
            if !error.is_precondition_failed() || attempt >= options.retry.attempts() {
                return report.record_failure(write_failure(&pk, &rk, &error));
            }
            report.conflicts_retried += 1;
            options.retry.pause(attempt).await;
            attempt += 1;
            entity = match table.get(&pk, &rk).await {
                Ok(Some(fresh)) => fresh,
                // Deleted by someone else meanwhile: nothing left to migrate.
                Ok(None) => return report.record(&entity, &EntityChange::default()),
                Err(e) => return report.record_failure(write_failure(&pk, &rk, &e)),
            };
        }
    }
}

pub(super) fn write_failure(partition_key: &str, row_key: &str, error: &Error) -> MigrateError {
    MigrateError::Write {
        partition_key: partition_key.to_owned(),
        row_key: row_key.to_owned(),
        message: error.to_string(),
    }
}
