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

use futures::TryStreamExt;
use tablekit::client::{ContinuationToken, ScanCheckpoint, Table, TableServiceClient};
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
    let mut checkpoint = Checkpoint::load(&path, &job)?;
    require_table(&source_client, &args.source).await?;
    target_client
        .create_table_if_not_exists(&args.target)
        .await?;
    let source = source_client.table_named::<DynamicEntity>(&args.source);
    if !args.scan.is_serial() {
        let copy = RangeCopy {
            args: &args,
            target: &target_client,
            path: &path,
            interrupt: &interrupt,
        };
        return copy.run(&source, query, checkpoint).await;
    }
    let mut walk = source.query(query);
    if let Some(pk) = &checkpoint.next_partition_key {
        eprintln!(
            "resuming after {} entities ({} pages), from `{}`",
            checkpoint.entities,
            checkpoint.pages,
            path.display()
        );
        walk = walk.resume_from(ContinuationToken::new(
            pk.clone(),
            checkpoint.next_row_key.clone(),
        ));
    } else if checkpoint.pages > 0 {
        eprintln!(
            "the checkpoint `{}` says the copy is complete",
            path.display()
        );
        return Ok(());
    }
    let progress = bar("entities", None);
    progress.set_position(checkpoint.entities);
    let mut pages = walk.read_ahead(true).pages();
    let mut this_run = 0;
    while let Some(page) = pages
        .try_next()
        .await
        .map_err(|e| Failure::from(e).context(checkpoint.resume_note(&path)))?
    {
        let next = page.continuation().cloned();
        let entities = page.into_entities();
        checkpoint.entities += write_chunk(&target_client, &args.target, args.mode, entities)
            .await
            .map_err(|e| e.context(checkpoint.resume_note(&path)))?;
        checkpoint.pages += 1;
        this_run += 1;
        checkpoint.next_partition_key = next.as_ref().map(|t| t.next_partition_key().to_owned());
        checkpoint.next_row_key = next
            .as_ref()
            .and_then(|t| t.next_row_key().map(str::to_owned));
        checkpoint.done = next.is_none();
        checkpoint.save(&path)?;
        progress.set_position(checkpoint.entities);
        let limit = args.max_pages.is_some_and(|n| this_run >= n);
        if !checkpoint.done && (interrupt.is_set() || limit) {
            progress.finish_and_clear();
            return Err(checkpoint.interrupted(&path));
        }
    }
    progress.finish_and_clear();
    finish(&path);
    eprintln!(
        "copied {} entities from `{}` to `{}`",
        checkpoint.entities, args.source, args.target
    );
    Ok(())
}

/// A copy of the source's PartitionKey ranges read side by side, each page written, then
/// its range's continuation saved.
struct RangeCopy<'a> {
    args: &'a CopyArgs,
    target: &'a TableServiceClient,
    path: &'a Path,
    interrupt: &'a Interrupt,
}

impl RangeCopy<'_> {
    async fn run(
        &self,
        source: &Table<DynamicEntity>,
        query: Query<DynamicEntity>,
        mut checkpoint: Checkpoint,
    ) -> Outcome {
        let path = self.path;
        if checkpoint.done {
            eprintln!(
                "the checkpoint `{}` says the copy is complete",
                path.display()
            );
            return Ok(());
        }
        let ranges = match checkpoint.ranges.take() {
            Some(ranges) => {
                eprintln!(
                    "resuming after {} entities ({} pages), from `{}`",
                    checkpoint.entities,
                    checkpoint.pages,
                    path.display()
                );
                ranges
            }
            None => self.args.scan.scan(source, query.clone())?.plan().await?,
        };
        checkpoint.ranges = Some(ranges.clone());
        let mut pages = self.args.scan.pages(source, query, Some(ranges))?;
        let progress = bar("entities", None);
        progress.set_position(checkpoint.entities);
        let mut this_run = 0;
        while let Some(page) = pages
            .try_next()
            .await
            .map_err(|e| Failure::from(e).context(checkpoint.resume_note(path)))?
        {
            let entities = page.page.entities().to_vec();
            checkpoint.entities +=
                write_chunk(self.target, &self.args.target, self.args.mode, entities)
                    .await
                    .map_err(|e| e.context(checkpoint.resume_note(path)))?;
            checkpoint.pages += 1;
            this_run += 1;
            let ranges = checkpoint.ranges.get_or_insert_with(Default::default);
            ranges.record(&page);
            checkpoint.done = self.in_shard_done(ranges);
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

    /// Whether every range of this shard was read to its end.
    fn in_shard_done(&self, ranges: &ScanCheckpoint) -> bool {
        ranges.ranges.iter().enumerate().all(|(i, range)| {
            range.done
                || self
                    .args
                    .scan
                    .shard
                    .is_some_and(|(index, count)| i % count != index)
        })
    }
}

/// A finished copy leaves no checkpoint: running it again copies again.
fn finish(path: &Path) {
    let _ = std::fs::remove_file(path);
}
