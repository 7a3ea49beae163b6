//! `copy`: a table into another, on the same account or another, page by page, with a
//! checkpoint (the source's continuation token and the counts) saved after every page.
//!
//! Resuming: the copy goes on from the page after the last one whose writes all committed.
//! A Ctrl-C (or `--max-pages`) stops between pages, so nothing is written twice. A crash can
//! fall between a page's writes and its checkpoint; that one page is then written again on
//! resume, with Insert Or Replace (the default `--mode upsert`), which writes the same
//! entity with the same properties: idempotent, the target ends equal to the source. With
//! `--mode insert` such a page fails with a conflict instead of overwriting anything.

use std::path::{Path, PathBuf};

use futures::stream::BoxStream;
use futures::{StreamExt, TryStreamExt};
use tablekit::client::{ContinuationToken, RangePage, ScanCheckpoint, Table};
use tablekit::patterns::bulk::BulkWriter;
use tablekit::{DynamicEntity, Query};

use crate::bulk::write_chunk;
use crate::checkpoint::Checkpoint;
use crate::cli::CopyArgs;
use crate::common::{check_filter, require_table};
use crate::connect::client;
use crate::exit::{Failure, Outcome};
use crate::interrupt::Interrupt;
use crate::progress::bar;

fn checkpoint_path(args: &CopyArgs) -> PathBuf {
    args.checkpoint.clone().unwrap_or_else(|| {
        let shard = args
            .scan
            .shard
            .map(|(index, count)| format!("-shard-{}-of-{count}", index + 1))
            .unwrap_or_default();
        PathBuf::from(format!(
            "tablekit-copy-{}-{}{shard}.checkpoint",
            args.source, args.target
        ))
    })
}

/// Runs `copy`.
pub(crate) async fn run(args: CopyArgs, interrupt: Interrupt) -> Outcome {
    let mut query = Query::<DynamicEntity>::new().allow_table_scan();
    if let Some(filter) = &args.filter {
        check_filter(filter)?;
        query = query.filter_raw(filter.clone());
    }
    let source_client = client(&args.connection)?;
    let target_client = match args.destination.given() {
        Some(connection) => client(connection)?,
        None => source_client.clone(),
    };
    let same_service = source_client.endpoint().base_url() == target_client.endpoint().base_url();
    if same_service && args.source.eq_ignore_ascii_case(&args.target) {
        // Table names are case-insensitive: the copy would read what it writes.
        return Err(Failure::bad_input(format!(
            "`{}` is the source and the target: copy to another table or account",
            args.source
        )));
    }
    let job = format!(
        "copy {}/{} -> {}/{}{}",
        source_client.endpoint().account(),
        args.source,
        target_client.endpoint().account(),
        args.target,
        args.filter
            .as_ref()
            .map(|f| format!(" where {f}"))
            .unwrap_or_default()
    ) + &args.scan.job();
    let path = checkpoint_path(&args);
    let checkpoint = Checkpoint::load(&path, &job)?;
    require_table(&source_client, &args.source).await?;
    target_client
        .create_table_if_not_exists(&args.target)
        .await?;
    let source = source_client.table_named::<DynamicEntity>(&args.source);
    let copy = Copy {
        args: &args,
        writer: &BulkWriter::new(&target_client),
        path: &path,
        interrupt: &interrupt,
    };
    if args.scan.is_serial() {
        copy.walk(&source, query, checkpoint).await
    } else {
        copy.ranges(&source, query, checkpoint).await
    }
}

/// A copy under way: where it writes and keeps its checkpoint.
struct Copy<'a> {
    args: &'a CopyArgs,
    /// Writes to the target, pacing itself to what the target takes.
    writer: &'a BulkWriter,
    path: &'a Path,
    interrupt: &'a Interrupt,
}

impl Copy<'_> {
    /// One query over the source, resumed from the checkpoint's continuation.
    async fn walk(
        &self,
        source: &Table<DynamicEntity>,
        query: Query<DynamicEntity>,
        checkpoint: Checkpoint,
    ) -> Outcome {
        let mut walk = source.query(query);
        match &checkpoint.next_partition_key {
            Some(pk) => {
                self.resuming(&checkpoint);
                let token = ContinuationToken::new(pk.clone(), checkpoint.next_row_key.clone());
                walk = walk.resume_from(token);
            }
            None if checkpoint.pages > 0 => {
                self.complete();
                return Ok(());
            }
            None => {}
        }
        let pages = walk
            .read_ahead(true)
            .pages()
            .map_ok(|page| RangePage { range: 0, page })
            .boxed();
        self.write_all(pages, checkpoint, |checkpoint, page| {
            let next = page.page.continuation();
            checkpoint.next_partition_key = next.map(|t| t.next_partition_key().to_owned());
            checkpoint.next_row_key = next.and_then(|t| t.next_row_key().map(str::to_owned));
            next.is_none()
        })
        .await
    }

    /// The source's PartitionKey ranges read side by side, each resumed from its own
    /// continuation in the checkpoint.
    async fn ranges(
        &self,
        source: &Table<DynamicEntity>,
        query: Query<DynamicEntity>,
        mut checkpoint: Checkpoint,
    ) -> Outcome {
        if checkpoint.done {
            self.complete();
            return Ok(());
        }
        let ranges = match checkpoint.ranges.take() {
            Some(ranges) => {
                self.resuming(&checkpoint);
                ranges
            }
            None => self.args.scan.scan(source, query.clone())?.plan().await?,
        };
        let pages = self.args.scan.pages(source, query, Some(ranges.clone()))?;
        checkpoint.ranges = Some(ranges);
        let shard = self.args.scan.shard;
        self.write_all(pages, checkpoint, move |checkpoint, page| {
            let ranges = checkpoint.ranges.get_or_insert_with(Default::default);
            ranges.record(page);
            in_shard_done(ranges, shard)
        })
        .await
    }

    /// Writes every page, then saves the checkpoint with the position `record` sets (which
    /// says whether the copy is done), stopping cleanly between pages when interrupted.
    async fn write_all(
        &self,
        mut pages: BoxStream<'static, tablekit::Result<RangePage<DynamicEntity>>>,
        mut checkpoint: Checkpoint,
        record: impl Fn(&mut Checkpoint, &RangePage<DynamicEntity>) -> bool,
    ) -> Outcome {
        let path = self.path;
        let progress = bar("entities", None);
        progress.set_position(checkpoint.entities);
        let mut this_run = 0;
        while let Some(page) = pages
            .try_next()
            .await
            .map_err(|e| Failure::from(e).context(checkpoint.resume_note(path)))?
        {
            // The position moves in memory now and reaches the file only once the page is
            // written: a failed write leaves the saved checkpoint before this page.
            let done = record(&mut checkpoint, &page);
            let entities = page.page.into_entities();
            checkpoint.entities +=
                write_chunk(self.writer, &self.args.target, self.args.mode, entities)
                    .await
                    .map_err(|e| e.context(checkpoint.resume_note(path)))?;
            checkpoint.pages += 1;
            this_run += 1;
            checkpoint.done = done;
            checkpoint.save(path)?;
            progress.set_position(checkpoint.entities);
            let limit = self.args.max_pages.is_some_and(|n| this_run >= n);
            if !checkpoint.done && (self.interrupt.is_set() || limit) {
                progress.finish_and_clear();
                return Err(checkpoint.interrupted(path));
            }
        }
        progress.finish_and_clear();
        finish(path);
        eprintln!(
            "copied {} entities from `{}` to `{}`",
            checkpoint.entities, self.args.source, self.args.target
        );
        Ok(())
    }

    fn resuming(&self, checkpoint: &Checkpoint) {
        eprintln!(
            "resuming after {} entities ({} pages), from `{}`",
            checkpoint.entities,
            checkpoint.pages,
            self.path.display()
        );
    }

    fn complete(&self) {
        eprintln!(
            "the checkpoint `{}` says the copy is complete",
            self.path.display()
        );
    }
}

/// Whether every range of this shard (`(index, count)`, or all ranges) was read to its end.
fn in_shard_done(ranges: &ScanCheckpoint, shard: Option<(usize, usize)>) -> bool {
    let in_shard = |i: usize| shard.is_none_or(|(index, count)| i % count == index);
    ranges
        .ranges
        .iter()
        .enumerate()
        .all(|(i, range)| range.done || !in_shard(i))
}

/// A finished copy leaves no checkpoint: running it again copies again.
fn finish(path: &Path) {
    let _ = std::fs::remove_file(path);
}
