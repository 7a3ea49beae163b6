//! Backing up, restoring and copying tables through the client.

use std::sync::Arc;

use futures::{StreamExt, TryStreamExt};
use tokio::io::{AsyncBufRead, AsyncWrite};

use super::format::{BackupHeader, BackupReader, BackupSummary, BackupWriter};
use crate::client::{OperationKind, Table};
use crate::entity::DynamicEntity;
use crate::error::{Error, Result};
use crate::model::{TableEntity, TableModel};
use crate::patterns::bulk::{BulkReport, BulkWriter, WriteOp};
use crate::patterns::progress::{ProgressCounter, ProgressSink};
use crate::query::Query;

/// Streams every entity of `table` matching `query` into a backup written to `out`, page by
/// page (never the whole table in memory), reporting progress per page (entities, file bytes).
///
/// ```no_run
/// use tablekit::client::TableServiceClient;
/// use tablekit::patterns::backup;
/// use tablekit::patterns::progress::NoProgress;
/// use tablekit::{DynamicEntity, Query};
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let client = TableServiceClient::from_connection_string("UseDevelopmentStorage=true")?;
/// let table = client.table_named::<DynamicEntity>("Gamers");
/// let file = tokio::fs::File::create("gamers.tkb").await?;
/// let summary = backup::backup_table(&table, Query::new(), file, NoProgress).await?;
/// println!("{} entities, crc32 {:08x}", summary.entities, summary.crc32);
/// # Ok(()) }
/// ```
pub async fn backup_table<M: TableModel, W: AsyncWrite + Unpin>(
    table: &Table<M>,
    query: Query<M>,
    out: W,
    progress: impl ProgressSink,
) -> Result<BackupSummary> {
    let mut header = BackupHeader::for_table(table.name());
    if let Some(filter) = query.filter_string() {
        header = header.with_filter(filter);
    }
    let counter = ProgressCounter::new(progress);
    let mut writer = BackupWriter::new(out, &header).await?;
    let mut pages = table.query(query).pages();
    while let Some(page) = pages.try_next().await? {
        let before = writer.bytes();
        for entity in page.entities() {
            writer.write_entity(entity.as_dynamic()).await?;
        }
        counter.add(page.len() as u64, writer.bytes() - before);
    }
    let summary = writer.finish().await?;
    counter.finish();
    Ok(summary)
}

/// How restored or copied entities are written.
///
/// ```
/// use tablekit::patterns::backup::{RestoreOptions, WriteMode};
/// assert_eq!(WriteMode::default(), WriteMode::Upsert);
/// let insert_only = RestoreOptions::new().mode(WriteMode::Insert);
/// # let _ = insert_only;
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum WriteMode {
    /// Insert: an entity that exists already fails (and is reported), nothing is overwritten.
    Insert,
    /// Insert or replace (the default): the target ends up with the backup's version.
    #[default]
    Upsert,
    /// Replace existing entities only: an entity missing from the target fails.
    Replace,
}

impl WriteMode {
    fn kind(self) -> OperationKind {
        match self {
            WriteMode::Insert => OperationKind::Insert,
            WriteMode::Upsert => OperationKind::UpsertReplace,
            WriteMode::Replace => OperationKind::Replace,
        }
    }
}

/// Options of [`restore`] and [`copy_table`].
#[derive(Clone, Default)]
pub struct RestoreOptions {
    mode: WriteMode,
    resume_after: u64,
    concurrency: Option<usize>,
    progress: Option<Arc<dyn ProgressSink>>,
}

impl std::fmt::Debug for RestoreOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RestoreOptions")
            .field("mode", &self.mode)
            .field("resume_after", &self.resume_after)
            .field("concurrency", &self.concurrency)
            .finish_non_exhaustive()
    }
}

impl RestoreOptions {
    /// Upsert, from the start, default concurrency, no progress.
    ///
    /// ```
    /// use tablekit::patterns::backup::{RestoreOptions, WriteMode};
    /// let o = RestoreOptions::new().mode(WriteMode::Insert).resume_after(1200);
    /// assert_eq!(o.resume_point(), 1200);
    /// ```
    pub fn new() -> Self {
        RestoreOptions::default()
    }

    /// How entities are written.
    pub fn mode(mut self, mode: WriteMode) -> Self {
        self.mode = mode;
        self
    }

    /// Skips the first `n` entities of the backup: resume with an earlier run's
    /// [`RestoreReport::checkpoint`]. (The skipped lines are still checked.)
    pub fn resume_after(mut self, n: u64) -> Self {
        self.resume_after = n;
        self
    }

    /// The number of entities skipped before writing.
    pub fn resume_point(&self) -> u64 {
        self.resume_after
    }

    /// Transactions in flight at once.
    pub fn concurrency(mut self, n: usize) -> Self {
        self.concurrency = Some(n);
        self
    }

    /// Reports progress (entities settled, request bytes).
    pub fn progress(mut self, sink: impl ProgressSink) -> Self {
        self.progress = Some(Arc::new(sink));
        self
    }

    fn writer(&self, client: &crate::client::TableServiceClient) -> Result<BulkWriter> {
        let mut writer = BulkWriter::new(client);
        if let Some(n) = self.concurrency {
            writer = writer.concurrency(n)?;
        }
        if let Some(sink) = &self.progress {
            writer = writer.progress(SharedSink(Arc::clone(sink)));
        }
        Ok(writer)
    }
}

struct SharedSink(Arc<dyn ProgressSink>);

impl ProgressSink for SharedSink {
    fn report(&self, progress: &crate::patterns::progress::Progress) {
        self.0.report(progress)
    }
}

/// What a restore did.
///
/// ```no_run
/// use tablekit::client::TableServiceClient;
/// use tablekit::patterns::backup::{restore, RestoreOptions};
/// # async fn run(file: &[u8]) -> tablekit::Result<()> {
/// let client = TableServiceClient::from_connection_string("UseDevelopmentStorage=true")?;
/// let table = client.table_named("Gamers");
/// let report = restore(file, &table, RestoreOptions::new()).await?;
/// if !report.is_complete() {
///     eprintln!("stopped: {:?}; resume after {}", report.read_error(), report.checkpoint);
/// }
/// # Ok(()) }
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub struct RestoreReport {
    /// Entities skipped at the start (the resume point).
    pub skipped: u64,
    /// The per-entity outcomes of this run (index 0 is entity `skipped` of the file).
    pub writes: BulkReport,
    /// Entities from the start of the file known to be restored: pass it to
    /// [`RestoreOptions::resume_after`] to continue after an interruption or a failure.
    pub checkpoint: u64,
}

impl RestoreReport {
    /// Whether the whole file was read, intact, and every entity written.
    pub fn is_complete(&self) -> bool {
        self.writes.is_complete()
    }

    /// The error that stopped reading the file (truncation, corruption), if any.
    pub fn read_error(&self) -> Option<&Error> {
        self.writes.input_error()
    }
}

/// Restores a backup into `table` (which must exist), with the bulk writer's batching: the
/// entities are streamed from `input` (never all in memory), grouped into transactions and
/// written as `options` say. A truncated or damaged file stops the restore with
/// [`RestoreReport::read_error`] naming the byte offset; the entities before the damage are
/// written, and [`RestoreReport::checkpoint`] says where to resume.
///
/// Only a backup that cannot be opened at all (no valid header) is an `Err`.
///
/// ```no_run
/// use tablekit::client::TableServiceClient;
/// use tablekit::patterns::backup::{restore, RestoreOptions, WriteMode};
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let client = TableServiceClient::from_connection_string("UseDevelopmentStorage=true")?;
/// let table = client.table_named("Gamers");
/// table.create_if_not_exists().await?;
/// let file = tokio::io::BufReader::new(tokio::fs::File::open("gamers.tkb").await?);
/// let options = RestoreOptions::new().mode(WriteMode::Insert).resume_after(0);
/// let report = restore(file, &table, options).await?;
/// println!("{} restored, checkpoint {}", report.writes.committed(), report.checkpoint);
/// # Ok(()) }
/// ```
pub async fn restore<R: AsyncBufRead + Unpin>(
    input: R,
    table: &Table<DynamicEntity>,
    options: RestoreOptions,
) -> Result<RestoreReport> {
    let mut reader = BackupReader::open(input).await?;
    reader.skip(options.resume_after).await?;
    let name = table.name().to_owned();
    let kind = options.mode.kind();
    let ops = reader.into_stream().map(move |e| {
        e.map(|e| WriteOp::new(name.clone(), kind, e))
            .map_err(Error::from)
    });
    let writes = options.writer(table.client())?.write(ops).await;
    let checkpoint = options.resume_after + writes.committed_prefix() as u64;
    Ok(RestoreReport {
        skipped: options.resume_after,
        writes,
        checkpoint,
    })
}

/// Copies every entity of `source` matching `query` into `target` (which must exist),
/// page by page, with the bulk writer's batching. The tables may be on different accounts:
/// each handle sends through its own client. `resume_after` in `options` is ignored (resume a
/// copy with a narrower query instead).
///
/// The copy is not a snapshot: writes to `source` during the copy may or may not be seen.
///
/// ```no_run
/// use tablekit::client::TableServiceClient;
/// use tablekit::patterns::backup::{copy_table, RestoreOptions};
/// use tablekit::{DynamicEntity, Query};
/// # async fn run() -> tablekit::Result<()> {
/// let live = TableServiceClient::from_connection_string("UseDevelopmentStorage=true")?;
/// let lab = TableServiceClient::from_connection_string("UseDevelopmentStorage=true")?;
/// let source = live.table_named::<DynamicEntity>("Gamers");
/// let target = lab.table_named("GamersCopy");
/// target.create_if_not_exists().await?;
/// let report = copy_table(&source, Query::new(), &target, RestoreOptions::new()).await?;
/// assert!(report.is_complete());
/// # Ok(()) }
/// ```
pub async fn copy_table<M: TableModel>(
    source: &Table<M>,
    query: Query<M>,
    target: &Table<DynamicEntity>,
    options: RestoreOptions,
) -> Result<BulkReport> {
    let name = target.name().to_owned();
    let kind = options.mode.kind();
    let ops = source.query(query).entities().map(move |e| {
        e.map(|e| {
            let mut dynamic = e.into_dynamic();
            // The source's version means nothing to the target.
            dynamic.set_etag(None);
            dynamic.set_timestamp(None);
            WriteOp::new(name.clone(), kind, dynamic)
        })
    });
    Ok(options.writer(target.client())?.write(ops).await)
}
