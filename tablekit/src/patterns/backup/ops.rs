//! Backing up, restoring and copying tables through the client.

use std::sync::Arc;

use futures::{stream, StreamExt, TryStreamExt};
use tokio::io::{AsyncBufRead, AsyncWrite};

use super::format::{BackupHeader, BackupReader, BackupSummary, BackupWriter};
use crate::client::error::{Error, Result};
use crate::client::{OperationKind, Table};
use crate::model::plan::plan_of;
use crate::model::table_model::{TableEntity, TableModel};
use crate::patterns::bulk::{BulkReport, BulkWriter, WriteOp};
use crate::patterns::progress::{ProgressCounter, ProgressSink};
use crate::query::builder::Query;
use crate::values::entity::DynamicEntity;

/// Streams every entity of `table` matching `query` into a backup written to `out`, page by
/// page (never the whole table in memory), reporting progress per page (entities, file bytes).
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let emulator = tablekit_testing::Emulator::start().await?;
/// use tablekit::patterns::backup::{self, BackupReader};
/// use tablekit::patterns::progress::NoProgress;
/// use tablekit::{DynamicEntity, Query};
/// # let client = emulator.client();
/// let table = client.table_named::<DynamicEntity>("Gamers");
/// # table.create().await?;
/// # for pk in ["a", "b", "c"] {
/// #     table.insert(&mut DynamicEntity::new(pk, "1")).await?;
/// # }
/// // `table` holds ("a", "1"), ("b", "1") and ("c", "1").
/// let mut file = Vec::new(); // or a `tokio::fs::File`
/// let summary = backup::backup_table(&table, Query::new(), &mut file, NoProgress).await?;
/// println!("{} entities, crc32 {:08x}", summary.entities, summary.crc32);
/// assert_eq!((summary.entities, summary.bytes), (3, file.len() as u64));
/// // The file names its table and reads back entity by entity.
/// let mut reader = BackupReader::open(&file[..]).await?;
/// assert_eq!(reader.header().table.as_deref(), Some("Gamers"));
/// let mut keys = Vec::new();
/// while let Some(entity) = reader.next_entity().await? {
///     keys.push(entity.partition_key().to_owned());
/// }
/// assert_eq!(keys, ["a", "b", "c"]);
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
    // A backup reads the table by design.
    let mut pages = table.query(query.allow_table_scan()).pages();
    while let Some(page) = pages.try_next().await? {
        let before = writer.bytes();
        for entity in page.entities() {
            // Each entity as it is stored: with the rows its model keeps beside it.
            let dynamic = entity.as_dynamic();
            let plan = plan_of::<M>(dynamic);
            if !plan.keeps_rows() {
                writer.write_entity(dynamic).await?;
                continue;
            }
            for row in plan.stored_rows(dynamic.clone())? {
                writer.write_entity(&row).await?;
            }
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
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let emulator = tablekit_testing::Emulator::start().await?;
/// use tablekit::patterns::backup::{restore, RestoreOptions, WriteMode};
/// # use tablekit::patterns::backup::{BackupHeader, BackupWriter};
/// # let mut file = Vec::new();
/// # let mut w = BackupWriter::new(&mut file, &BackupHeader::for_table("Gamers")).await?;
/// # for pk in ["a", "b", "c"] {
/// #     w.write_entity(&tablekit::DynamicEntity::new(pk, "1")).await?;
/// # }
/// # w.finish().await?;
/// # let client = emulator.client();
/// let table = client.table_named("Gamers");
/// table.create().await?;
/// // `file` holds a backup of three entities.
/// let options = RestoreOptions::new().mode(WriteMode::Insert).concurrency(4);
/// let report = restore(&file[..], &table, options).await?;
/// assert!(report.is_complete());
/// assert_eq!(report.checkpoint, 3);
/// # Ok(()) }
/// ```
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
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// use tablekit::patterns::backup::{restore, RestoreOptions, WriteMode};
    /// use tablekit::DynamicEntity;
    /// # use tablekit::patterns::backup::{BackupHeader, BackupWriter};
    /// # let mut file = Vec::new();
    /// # let mut w = BackupWriter::new(&mut file, &BackupHeader::for_table("Gamers")).await?;
    /// # for pk in ["a", "b", "c"] {
    /// #     w.write_entity(&tablekit::DynamicEntity::new(pk, "1")).await?;
    /// # }
    /// # w.finish().await?;
    /// # let client = emulator.client();
    /// # let table = client.table_named::<tablekit::DynamicEntity>("Gamers");
    /// # table.create().await?;
    /// // `file` holds ("a", "1"), ("b", "1") and ("c", "1"); the table has a newer ("a", "1").
    /// let mut newer = DynamicEntity::new("a", "1");
    /// newer.set("Edited", true);
    /// table.insert(&mut newer).await?;
    /// let options = RestoreOptions::new().mode(WriteMode::Insert);
    /// let report = restore(&file[..], &table, options).await?;
    /// assert_eq!((report.writes.committed(), report.writes.not_committed()), (2, 1));
    /// assert!(table.get("a", "1").await?.unwrap().contains("Edited")); // not overwritten
    /// # Ok(()) }
    /// ```
    pub fn mode(mut self, mode: WriteMode) -> Self {
        self.mode = mode;
        self
    }

    /// Skips the first `n` entities of the backup: resume with an earlier run's
    /// [`RestoreReport::checkpoint`]. (The skipped lines are still checked.)
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// use tablekit::patterns::backup::{restore, RestoreOptions};
    /// # use tablekit::patterns::backup::{BackupHeader, BackupWriter};
    /// # let mut file = Vec::new();
    /// # let mut w = BackupWriter::new(&mut file, &BackupHeader::for_table("Gamers")).await?;
    /// # for pk in ["a", "b", "c"] {
    /// #     w.write_entity(&tablekit::DynamicEntity::new(pk, "1")).await?;
    /// # }
    /// # w.finish().await?;
    /// # let client = emulator.client();
    /// # let table = client.table_named::<tablekit::DynamicEntity>("Gamers");
    /// # table.create().await?;
    /// // `file` holds three entities; an earlier run stopped at checkpoint 2.
    /// let report = restore(&file[..], &table, RestoreOptions::new().resume_after(2)).await?;
    /// assert_eq!((report.skipped, report.writes.committed()), (2, 1));
    /// assert_eq!(report.checkpoint, 3);
    /// assert!(table.get("a", "1").await?.is_none()); // skipped, not written
    /// # Ok(()) }
    /// ```
    pub fn resume_after(mut self, n: u64) -> Self {
        self.resume_after = n;
        self
    }

    /// The number of entities skipped before writing.
    ///
    /// ```
    /// use tablekit::patterns::backup::RestoreOptions;
    /// assert_eq!(RestoreOptions::new().resume_point(), 0); // from the start
    /// assert_eq!(RestoreOptions::new().resume_after(500).resume_point(), 500);
    /// ```
    pub fn resume_point(&self) -> u64 {
        self.resume_after
    }

    /// Transactions in flight at once.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// use tablekit::patterns::backup::{restore, RestoreOptions};
    /// # use tablekit::patterns::backup::{BackupHeader, BackupWriter};
    /// # let mut file = Vec::new();
    /// # let mut w = BackupWriter::new(&mut file, &BackupHeader::for_table("Gamers")).await?;
    /// # for pk in ["a", "b", "c"] {
    /// #     w.write_entity(&tablekit::DynamicEntity::new(pk, "1")).await?;
    /// # }
    /// # w.finish().await?;
    /// # let client = emulator.client();
    /// # let table = client.table_named::<tablekit::DynamicEntity>("Gamers");
    /// # table.create().await?;
    /// let report = restore(&file[..], &table, RestoreOptions::new().concurrency(1)).await?;
    /// assert!(report.is_complete());
    /// // At least one: zero is refused before anything is written.
    /// let refused = restore(&file[..], &table, RestoreOptions::new().concurrency(0)).await;
    /// assert!(refused.unwrap_err().is_invalid_input());
    /// # Ok(()) }
    /// ```
    pub fn concurrency(mut self, n: usize) -> Self {
        self.concurrency = Some(n);
        self
    }

    /// Reports progress (entities settled, request bytes).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// use std::sync::atomic::{AtomicU64, Ordering};
    /// use std::sync::Arc;
    /// use tablekit::patterns::backup::{restore, RestoreOptions};
    /// use tablekit::patterns::progress::Progress;
    /// # use tablekit::patterns::backup::{BackupHeader, BackupWriter};
    /// # let mut file = Vec::new();
    /// # let mut w = BackupWriter::new(&mut file, &BackupHeader::for_table("Gamers")).await?;
    /// # for pk in ["a", "b", "c"] {
    /// #     w.write_entity(&tablekit::DynamicEntity::new(pk, "1")).await?;
    /// # }
    /// # w.finish().await?;
    /// # let client = emulator.client();
    /// # let table = client.table_named::<tablekit::DynamicEntity>("Gamers");
    /// # table.create().await?;
    /// let settled = Arc::new(AtomicU64::new(0));
    /// let sink = Arc::clone(&settled);
    /// let options = RestoreOptions::new().progress(move |p: &Progress| {
    ///     sink.store(p.items(), Ordering::Relaxed);
    /// });
    /// restore(&file[..], &table, options).await?;
    /// assert_eq!(settled.load(Ordering::Relaxed), 3); // `file` holds three entities
    /// # Ok(()) }
    /// ```
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
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let emulator = tablekit_testing::Emulator::start().await?;
/// use tablekit::patterns::backup::{restore, RestoreOptions};
/// # use tablekit::patterns::backup::{BackupHeader, BackupWriter};
/// # let mut file = Vec::new();
/// # let mut w = BackupWriter::new(&mut file, &BackupHeader::for_table("Gamers")).await?;
/// # for pk in ["a", "b", "c"] {
/// #     w.write_entity(&tablekit::DynamicEntity::new(pk, "1")).await?;
/// # }
/// # w.finish().await?;
/// # let client = emulator.client();
/// let table = client.table_named("Gamers");
/// # table.create().await?;
/// // `file` holds three entities; the copy at hand lost its last byte.
/// let cut = &file[..file.len() - 1];
/// let report = restore(cut, &table, RestoreOptions::new()).await?;
/// assert!(!report.is_complete());
/// assert!(report.read_error().is_some()); // stopped: truncated
/// assert_eq!(report.checkpoint, 3); // all three entities were read and written
/// // Resume from a sound copy, after the checkpoint.
/// let options = RestoreOptions::new().resume_after(report.checkpoint);
/// let rest = restore(&file[..], &table, options).await?;
/// assert!(rest.is_complete());
/// assert_eq!((rest.skipped, rest.writes.committed()), (3, 0));
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
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// use tablekit::patterns::backup::{restore, RestoreOptions};
    /// # use tablekit::patterns::backup::{BackupHeader, BackupWriter};
    /// # let mut file = Vec::new();
    /// # let mut w = BackupWriter::new(&mut file, &BackupHeader::for_table("Gamers")).await?;
    /// # for pk in ["a", "b", "c"] {
    /// #     w.write_entity(&tablekit::DynamicEntity::new(pk, "1")).await?;
    /// # }
    /// # w.finish().await?;
    /// # let client = emulator.client();
    /// # let table = client.table_named::<tablekit::DynamicEntity>("Gamers");
    /// # table.create().await?;
    /// assert!(restore(&file[..], &table, RestoreOptions::new()).await?.is_complete());
    /// let cut = &file[..file.len() - 1]; // the trailer's newline is missing
    /// assert!(!restore(cut, &table, RestoreOptions::new()).await?.is_complete());
    /// # Ok(()) }
    /// ```
    pub fn is_complete(&self) -> bool {
        self.writes.is_complete()
    }

    /// The error that stopped reading the file (truncation, corruption), if any.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// use tablekit::patterns::backup::{restore, BackupError, RestoreOptions};
    /// use tablekit::Error;
    /// # use tablekit::patterns::backup::{BackupHeader, BackupWriter};
    /// # let mut file = Vec::new();
    /// # let mut w = BackupWriter::new(&mut file, &BackupHeader::for_table("Gamers")).await?;
    /// # for pk in ["a", "b", "c"] {
    /// #     w.write_entity(&tablekit::DynamicEntity::new(pk, "1")).await?;
    /// # }
    /// # w.finish().await?;
    /// # let client = emulator.client();
    /// # let table = client.table_named::<tablekit::DynamicEntity>("Gamers");
    /// # table.create().await?;
    /// // `file` holds three entities; cut it inside the trailer.
    /// let cut = &file[..file.len() - 1];
    /// let report = restore(cut, &table, RestoreOptions::new()).await?;
    /// let err = report.read_error().and_then(Error::pattern_error::<BackupError>);
    /// assert!(err.is_some_and(BackupError::is_truncated));
    /// assert_eq!(report.checkpoint, 3); // the entities before the damage were written
    /// # Ok(()) }
    /// ```
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
/// Only a backup that cannot be opened at all (no valid header), one whose first
/// `resume_after` entities cannot be read (fewer of them, or damage before the resume point),
/// and invalid options (a concurrency of 0) are an `Err`.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let emulator = tablekit_testing::Emulator::start().await?;
/// use tablekit::patterns::backup::{restore, RestoreOptions, WriteMode};
/// # use tablekit::patterns::backup::{BackupHeader, BackupWriter};
/// # let mut file = Vec::new();
/// # let mut w = BackupWriter::new(&mut file, &BackupHeader::for_table("Gamers")).await?;
/// # for pk in ["a", "b", "c"] {
/// #     w.write_entity(&tablekit::DynamicEntity::new(pk, "1")).await?;
/// # }
/// # w.finish().await?;
/// # let client = emulator.client();
/// let table = client.table_named("Gamers");
/// table.create_if_not_exists().await?;
/// // `file` holds ("a", "1"), ("b", "1") and ("c", "1"). From disk, wrap the file:
/// // `tokio::io::BufReader::new(tokio::fs::File::open("gamers.tkb").await?)`.
/// let input = &file[..];
/// let options = RestoreOptions::new().mode(WriteMode::Insert).resume_after(0);
/// let report = restore(input, &table, options).await?;
/// println!("{} restored, checkpoint {}", report.writes.committed(), report.checkpoint);
/// assert_eq!((report.writes.committed(), report.checkpoint), (3, 3));
/// assert!(table.get("b", "1").await?.is_some());
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
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use tablekit::patterns::backup::{copy_table, RestoreOptions};
/// use tablekit::{DynamicEntity, Query};
/// # use tablekit_testing::Emulator;
/// # let (live_service, lab_service) = (Emulator::start().await?, Emulator::start().await?);
/// # let (live, lab) = (live_service.client(), lab_service.client());
/// // `live` and `lab`: clients of two different services
/// let source = live.table_named::<DynamicEntity>("Gamers");
/// # source.create().await?;
/// # for (pk, score) in [("a", 10), ("b", 20), ("c", 30)] {
/// #     let mut gamer = DynamicEntity::new(pk, "1");
/// #     gamer.set("Score", score);
/// #     source.insert(&mut gamer).await?;
/// # }
/// // `source` holds three gamers, each with a `Score`.
/// let target = lab.table_named("GamersCopy");
/// target.create_if_not_exists().await?;
/// let report = copy_table(&source, Query::new(), &target, RestoreOptions::new()).await?;
/// assert!(report.is_complete());
/// assert_eq!(report.committed(), 3);
/// assert_eq!(target.get("b", "1").await?.unwrap().get_or("Score", 0), 20);
/// assert_eq!(lab_service.table_names(), ["GamersCopy"]); // the other service
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
    // Each entity as it is stored: with the rows its model keeps beside it.
    let ops = source
        .query(query.allow_table_scan())
        .entities()
        .map(|e| {
            let dynamic = e?.into_dynamic();
            let rows = plan_of::<M>(&dynamic).stored_rows(dynamic)?;
            Ok::<_, crate::Error>(stream::iter(rows.into_iter().map(Ok)))
        })
        .try_flatten()
        .map(move |row| {
            row.map(|mut row| {
                // The source's version means nothing to the target.
                row.set_etag(None);
                row.set_timestamp(None);
                WriteOp::new(name.clone(), kind, row)
            })
        });
    Ok(options.writer(target.client())?.write(ops).await)
}
