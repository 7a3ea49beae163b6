//! `export` and `import`: a table as typed JSON lines or typed CSV, streamed page by page
//! (export) and chunk by chunk (import), so memory stays flat whatever the table's size.

use std::path::{Path, PathBuf};

use futures::stream::FuturesOrdered;
use futures::{StreamExt, TryStreamExt};
use indicatif::ProgressBar;
use tablekit::client::{RangePage, Table};
use tablekit::patterns::bulk::BulkWriter;
use tablekit::{DynamicEntity, Query};

use crate::bulk::{write_chunk, CHUNK};
use crate::checkpoint::{self, Checkpoint};
use crate::cli::{ExportArgs, FileFormat, ImportArgs, ScanArgs};
use crate::common::{check_filter, input, output, require_table};
use crate::connect::client;
use crate::exit::{Failure, Kind, Outcome};
use crate::interrupt::Interrupt;
use crate::jsonl::{JsonlReader, JsonlWriter};
use crate::progress::{bar, file_bar};
use crate::typed_csv::{Columns, CsvReader, CsvWriter};
#[cfg(feature = "parquet")]
use crate::typed_parquet::{ParquetColumns, ParquetReader, ParquetWriter};

/// The format `--format` names, else the one the file's extension says, else JSON lines.
fn format_of(format: Option<FileFormat>, path: Option<&Path>) -> FileFormat {
    format.unwrap_or_else(|| {
        let extension = path.and_then(Path::extension).unwrap_or_default();
        match extension.to_ascii_lowercase().to_str() {
            Some("csv") => FileFormat::Csv,
            #[cfg(feature = "parquet")]
            Some("parquet") => FileFormat::Parquet,
            _ => FileFormat::Jsonl,
        }
    })
}

fn export_query(filter: Option<&String>) -> Outcome<Query<DynamicEntity>> {
    let mut query = Query::new().allow_table_scan();
    if let Some(filter) = filter {
        check_filter(filter)?;
        query = query.filter_raw(filter.clone());
    }
    Ok(query)
}

/// Runs `export`.
pub(crate) async fn export(args: ExportArgs, interrupt: Interrupt) -> Outcome {
    let query = export_query(args.filter.as_ref())?;
    let client = client(&args.connection)?;
    require_table(&client, &args.table).await?;
    let table = client.table_named::<DynamicEntity>(&args.table);
    let out = || output(args.output.as_deref());
    let progress = bar("entities", None);
    let pass = Pass {
        table: &table,
        scan: &args.scan,
        interrupt: &interrupt,
    };
    let written = match format_of(args.format, args.output.as_deref()) {
        FileFormat::Jsonl => {
            let mut writer = JsonlWriter::new(out()?);
            let written = pass.each(query, &progress, |e| writer.write(e)).await?;
            writer.finish()?;
            written
        }
        FileFormat::Csv => {
            // The header needs every column first: one pass learns them, a second writes.
            progress.set_message("reading the columns");
            let mut columns = Columns::default();
            let learning = bar("entities", None);
            let total = pass
                .each(query.clone(), &learning, |e| {
                    columns.learn(e);
                    Ok(())
                })
                .await?;
            learning.finish_and_clear();
            progress.finish_and_clear();
            let progress = bar("entities", Some(total));
            let mut writer = CsvWriter::new(out()?, columns)?;
            let written = pass.each(query, &progress, |e| writer.write(e)).await?;
            writer.finish()?;
            progress.finish_and_clear();
            written
        }
        #[cfg(feature = "parquet")]
        FileFormat::Parquet => {
            // The schema needs every column first: one pass learns them, a second writes.
            let mut columns = ParquetColumns::default();
            let learning = ProgressBar::hidden();
            pass.each(query.clone(), &learning, |e| {
                columns.learn(e);
                Ok(())
            })
            .await?;
            // Checked before the file is made: a refused export leaves no file behind.
            columns.check()?;
            let mut writer = ParquetWriter::new(out()?, columns)?;
            let written = pass.each(query, &progress, |e| writer.write(e)).await?;
            writer.finish()?;
            written
        }
    };
    progress.finish_and_clear();
    let to = match &args.output {
        Some(path) => format!("`{}`", path.display()),
        None => "stdout".to_owned(),
    };
    eprintln!("exported {written} entities of `{}` to {to}", args.table);
    Ok(())
}

/// One pass of an export over the table's pages.
struct Pass<'a> {
    table: &'a Table<DynamicEntity>,
    scan: &'a ScanArgs,
    interrupt: &'a Interrupt,
}

impl Pass<'_> {
    /// Calls `each` on every entity `query` reads, page by page, counting them on `progress`
    /// and stopping when interrupted; how many it read.
    async fn each<F>(
        &self,
        query: Query<DynamicEntity>,
        progress: &ProgressBar,
        mut each: F,
    ) -> Outcome<u64>
    where
        F: FnMut(&DynamicEntity) -> Outcome,
    {
        let mut read = 0u64;
        let mut pages = self.scan.pages(self.table, query, None)?;
        while let Some(RangePage { page, .. }) = pages.try_next().await? {
            page.entities().iter().try_for_each(&mut each)?;
            read += page.len() as u64;
            progress.inc(page.len() as u64);
            stop_if_interrupted(self.interrupt, "export")?;
        }
        Ok(read)
    }
}

fn stop_if_interrupted(interrupt: &Interrupt, what: &str) -> Outcome {
    if interrupt.is_set() {
        Err(Failure::new(
            Kind::Interrupted,
            format!("interrupted: the {what} is incomplete"),
        ))
    } else {
        Ok(())
    }
}

/// Chunks of an import being written at once.
const IN_FLIGHT: usize = 3;

/// Runs `import`: chunk by chunk, a few chunks in flight, the checkpoint saved after each
/// chunk written in order, so a Ctrl-C, a crash or a bad line stops it with a way to go on.
pub(crate) async fn import(args: ImportArgs, interrupt: Interrupt) -> Outcome {
    let client = client(&args.connection)?;
    let format = format_of(args.format, args.input.as_deref());
    let checkpoint_path = import_checkpoint(&args);
    let mut checkpoint = match &checkpoint_path {
        Some(path) => Checkpoint::load(path, &import_job(&args, format))?,
        None => Checkpoint::default(),
    };
    let mut next = match format {
        FileFormat::Jsonl => Chunks::Jsonl(JsonlReader::new(input(args.input.as_deref())?)),
        FileFormat::Csv => Chunks::Csv(CsvReader::new(input(args.input.as_deref())?)?),
        #[cfg(feature = "parquet")]
        FileFormat::Parquet => Chunks::Parquet(parquet_input(args.input.as_deref())?),
    };
    // From a file, the bytes read give an ETA; from stdin (or Parquet), a count.
    let size = args
        .input
        .as_deref()
        .filter(|_| next.reads_bytes())
        .and_then(|p| std::fs::metadata(p).ok())
        .map(|m| m.len());
    let progress = match size {
        Some(size) => file_bar(size),
        None => bar("entities", None),
    };
    client.create_table_if_not_exists(&args.table).await?;
    let writer = BulkWriter::new(&client);
    let mut first = next.skip(checkpoint.entities)?;
    // The next chunks are read and sent while one is still being written: a few in flight,
    // so memory stays bounded and the service is never idle while the file is read.
    let mut in_flight = FuturesOrdered::new();
    let mut read_all = false;
    let mut unreadable = None;
    loop {
        while !read_all && unreadable.is_none() && in_flight.len() < IN_FLIGHT {
            if interrupt.is_set() {
                break;
            }
            let chunk = match std::mem::take(&mut first) {
                chunk if !chunk.is_empty() => Ok(chunk),
                _ => next.chunk(),
            };
            match chunk {
                Ok(chunk) if chunk.is_empty() => read_all = true,
                Ok(chunk) => {
                    in_flight.push_back(write_chunk(&writer, &args.table, args.mode, chunk));
                }
                // The chunks already sent are written first, and counted.
                Err(e) => unreadable = Some(e),
            }
        }
        let Some(done) = in_flight.next().await else {
            break;
        };
        match done {
            Ok(n) => {
                checkpoint.entities += n;
                checkpoint.pages += 1;
                save(&checkpoint, checkpoint_path.as_deref())?;
                show(&progress, size, checkpoint.entities, next.bytes());
            }
            Err(e) => {
                // The chunks sent alongside finish too; a resume writes them again.
                while in_flight.next().await.is_some() {}
                return Err(e.context(written_note(&checkpoint, checkpoint_path.as_deref())));
            }
        }
    }
    // Every chunk sent is written: the input ended, could not be read, or Ctrl-C came.
    if let Some(error) = unreadable {
        return Err(error.context(written_note(&checkpoint, checkpoint_path.as_deref())));
    }
    if !read_all {
        return Err(match &checkpoint_path {
            Some(path) => checkpoint.interrupted(path),
            None => Failure::new(
                Kind::Interrupted,
                format!("interrupted after {} entities", checkpoint.entities),
            ),
        });
    }
    progress.finish_and_clear();
    if let Some(path) = &checkpoint_path {
        let _ = std::fs::remove_file(path);
    }
    eprintln!(
        "imported {} entities into `{}`",
        checkpoint.entities, args.table
    );
    Ok(())
}

/// The checkpoint an import keeps: the one named, else one beside the input file; none for
/// stdin, which cannot be read again.
fn import_checkpoint(args: &ImportArgs) -> Option<PathBuf> {
    let file = args.input.as_deref().filter(|p| p.as_os_str() != "-");
    args.checkpoint
        .clone()
        .or_else(|| file.map(checkpoint::beside))
}

/// What an import's checkpoint belongs to: a resume with another input, table or format is
/// refused rather than skip the wrong entities.
fn import_job(args: &ImportArgs, format: FileFormat) -> String {
    let input = args.input.as_deref().unwrap_or(Path::new("-"));
    format!("import {} -> {} as {format:?}", input.display(), args.table)
}

fn save(checkpoint: &Checkpoint, path: Option<&Path>) -> Outcome {
    match path {
        Some(path) => checkpoint.save(path),
        None => Ok(()),
    }
}

/// How far an import that stopped got, and how to go on.
fn written_note(checkpoint: &Checkpoint, path: Option<&Path>) -> String {
    match path {
        Some(path) => checkpoint.resume_note(path),
        None => format!("{} entities imported", checkpoint.entities),
    }
}

/// The chunks of an import's input.
enum Chunks<R: std::io::BufRead> {
    Jsonl(JsonlReader<R>),
    Csv(CsvReader<R>),
    #[cfg(feature = "parquet")]
    Parquet(ParquetReader),
}

/// A Parquet file to import: its footer is at the end, so it is read from a file, not stdin.
#[cfg(feature = "parquet")]
fn parquet_input(path: Option<&Path>) -> Outcome<ParquetReader> {
    let Some(path) = path.filter(|p| p.as_os_str() != "-") else {
        return Err(Failure::bad_input(
            "Parquet is read from a file (`-i PATH`), not from stdin",
        ));
    };
    let file = std::fs::File::open(path)
        .map_err(|e| Failure::bad_input(format!("cannot open `{}`: {e}", path.display())))?;
    ParquetReader::open(file)
}

/// Progress: bytes read of a file (entities in the message), or entities.
fn show(progress: &ProgressBar, size: Option<u64>, entities: u64, bytes: u64) {
    if size.is_some() {
        progress.set_position(bytes);
        progress.set_message(format!("{entities} entities"));
    } else {
        progress.set_position(entities);
    }
}

impl<R: std::io::BufRead> Chunks<R> {
    /// Whether the reader counts the bytes it read (Parquet reads by row group).
    fn reads_bytes(&self) -> bool {
        match self {
            Chunks::Jsonl(_) | Chunks::Csv(_) => true,
            #[cfg(feature = "parquet")]
            Chunks::Parquet(_) => false,
        }
    }

    fn bytes(&self) -> u64 {
        match self {
            Chunks::Jsonl(reader) => reader.bytes(),
            Chunks::Csv(reader) => reader.bytes(),
            #[cfg(feature = "parquet")]
            Chunks::Parquet(_) => 0,
        }
    }

    fn chunk(&mut self) -> Outcome<Vec<DynamicEntity>> {
        match self {
            Chunks::Jsonl(reader) => reader.next_chunk(CHUNK),
            Chunks::Csv(reader) => reader.next_chunk(CHUNK),
            #[cfg(feature = "parquet")]
            Chunks::Parquet(reader) => reader.next_chunk(CHUNK),
        }
    }

    /// Reads past the first `n` entities, which an earlier run wrote: returns the rest of
    /// the chunk holding the next one.
    fn skip(&mut self, mut n: u64) -> Outcome<Vec<DynamicEntity>> {
        while n > 0 {
            let mut chunk = self.chunk()?;
            if chunk.is_empty() {
                return Err(Failure::bad_input(format!(
                    "the checkpoint counts {n} more entities than the input holds: is it the \
                     same input?"
                )));
            }
            match usize::try_from(n) {
                Ok(rest) if rest < chunk.len() => {
                    chunk.drain(..rest);
                    return Ok(chunk);
                }
                _ => n -= chunk.len() as u64,
            }
        }
        Ok(Vec::new())
    }
}
