//! `backup` and `restore`: the library's checksummed backup format, with a checkpoint so an
//! interrupted restore goes on where it stopped.

use std::path::{Path, PathBuf};

use tablekit::patterns::backup::{backup_table, BackupError, BackupReader};
use tablekit::patterns::bulk::BulkWriter;
use tablekit::patterns::progress::Progress;
use tablekit::{DynamicEntity, Query};
use tokio::io::BufReader;

use crate::bulk::{write_chunk, CHUNK};
use crate::checkpoint::{self, Checkpoint};
use crate::cli::{BackupArgs, RestoreArgs};
use crate::common::{check_filter, require_table};
use crate::connect::client;
use crate::exit::{Failure, Kind, Outcome};
use crate::interrupt::Interrupt;
use crate::progress::{bar, file_bar};

/// Runs `backup`.
pub(crate) async fn backup(args: BackupArgs, interrupt: Interrupt) -> Outcome {
    let mut query = Query::<DynamicEntity>::new().allow_table_scan();
    if let Some(filter) = &args.filter {
        check_filter(filter)?;
        query = query.filter_raw(filter.clone());
    }
    let client = client(&args.connection)?;
    require_table(&client, &args.table).await?;
    let table = client.table_named::<DynamicEntity>(&args.table);
    let file = tokio::fs::File::create(&args.output).await.map_err(|e| {
        Failure::bad_input(format!("cannot create `{}`: {e}", args.output.display()))
    })?;
    let out = tokio::io::BufWriter::with_capacity(1 << 16, file);
    let progress = bar("entities", None);
    let sink = {
        let progress = progress.clone();
        move |p: &Progress| progress.set_position(p.items())
    };
    let summary = tokio::select! {
        summary = backup_table(&table, query, out, sink) => summary?,
        () = interrupt.wait() => {
            return Err(Failure::new(Kind::Interrupted, format!(
                "interrupted: `{}` is incomplete (without its trailer, a restore refuses it)",
                args.output.display()
            )));
        }
    };
    progress.finish_and_clear();
    eprintln!(
        "backed up {} entities of `{}` to `{}` (crc32 {:08x})",
        summary.entities,
        args.table,
        args.output.display(),
        summary.crc32
    );
    Ok(())
}

/// The default checkpoint of a restore: next to the backup file.
fn restore_checkpoint(args: &RestoreArgs) -> PathBuf {
    args.checkpoint
        .clone()
        .unwrap_or_else(|| checkpoint::beside(&args.input))
}

/// Runs `restore`. The whole file is checked first (every line and the trailer's count and
/// checksum), so a damaged backup writes nothing; then it is written chunk by chunk, the
/// checkpoint saved after each, so a Ctrl-C or a crash stops it with a way to go on.
pub(crate) async fn restore(args: RestoreArgs, interrupt: Interrupt) -> Outcome {
    let checkpoint_path = restore_checkpoint(&args);
    let job = format!("restore {} -> {}", args.input.display(), args.table);
    let mut checkpoint = Checkpoint::load(&checkpoint_path, &job)?;
    if !args.no_verify {
        verify(&args.input, &interrupt).await?;
    }
    let mut reader = open_backup(&args.input).await?;
    let client = client(&args.connection)?;
    client.create_table_if_not_exists(&args.table).await?;
    let writer = BulkWriter::new(&client);
    reader
        .skip(checkpoint.entities)
        .await
        .map_err(|e| damaged(&args.input, &e))?;
    let size = std::fs::metadata(&args.input).map(|m| m.len()).unwrap_or(0);
    let progress = file_bar(size);
    progress.set_position(reader.bytes_read());
    loop {
        let (chunk, error) = read_chunk(&mut reader).await;
        let end = chunk.len() < CHUNK && error.is_none();
        if !chunk.is_empty() {
            checkpoint.entities += write_chunk(&writer, &args.table, args.mode, chunk)
                .await
                .map_err(|e| e.context(checkpoint.resume_note(&checkpoint_path)))?;
            checkpoint.pages += 1;
            checkpoint.save(&checkpoint_path)?;
            progress.set_position(reader.bytes_read());
            progress.set_message(format!("{} entities", checkpoint.entities));
        }
        if let Some(error) = error {
            return Err(damaged(&args.input, &error)
                .context(format!("{} entities restored, then", checkpoint.entities)));
        }
        if end {
            break;
        }
        if interrupt.is_set() {
            return Err(checkpoint.interrupted(&checkpoint_path));
        }
    }
    progress.finish_and_clear();
    let _ = std::fs::remove_file(&checkpoint_path);
    eprintln!(
        "restored {} entities into `{}`",
        checkpoint.entities, args.table
    );
    Ok(())
}

/// The backup at `path`, its header read.
async fn open_backup(path: &Path) -> Outcome<BackupReader<BufReader<tokio::fs::File>>> {
    let file = tokio::fs::File::open(path)
        .await
        .map_err(|e| Failure::bad_input(format!("cannot open `{}`: {e}", path.display())))?;
    BackupReader::open(BufReader::with_capacity(1 << 16, file))
        .await
        .map_err(|e| damaged(path, &e))
}

/// Reads the whole backup, checking every line and the trailer, before anything is written.
async fn verify(path: &Path, interrupt: &Interrupt) -> Outcome {
    let mut reader = open_backup(path).await.map_err(nothing_written)?;
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let progress = file_bar(size);
    progress.set_message("checking the backup");
    loop {
        match reader.next_entity().await {
            Ok(Some(_)) => {}
            Ok(None) => break,
            Err(e) => return Err(nothing_written(damaged(path, &e))),
        }
        if reader.entities_read() % CHUNK as u64 == 0 {
            progress.set_position(reader.bytes_read());
            if interrupt.is_set() {
                return Err(Failure::new(
                    Kind::Interrupted,
                    "interrupted while checking the backup: nothing written",
                ));
            }
        }
    }
    progress.finish_and_clear();
    Ok(())
}

fn nothing_written(failure: Failure) -> Failure {
    Failure {
        message: format!(
            "{}; nothing written (the whole file is checked before the first write)",
            failure.message
        ),
        ..failure
    }
}

/// Up to a chunk of entities, and the error that stopped reading early, if any.
async fn read_chunk<R: tokio::io::AsyncBufRead + Unpin>(
    reader: &mut BackupReader<R>,
) -> (Vec<DynamicEntity>, Option<BackupError>) {
    let mut chunk = Vec::with_capacity(CHUNK);
    while chunk.len() < CHUNK {
        match reader.next_entity().await {
            Ok(Some(entity)) => chunk.push(entity),
            Ok(None) => break,
            Err(e) => return (chunk, Some(e)),
        }
    }
    (chunk, None)
}

/// A backup that cannot be read: bad input, with the reader's offset and line.
fn damaged(path: &Path, error: &BackupError) -> Failure {
    let what = if error.is_truncated() {
        "is truncated"
    } else {
        "cannot be read"
    };
    Failure::bad_input(format!("the backup `{}` {what}: {error}", path.display()))
}
