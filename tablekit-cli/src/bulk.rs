//! Writing a chunk of entities with the bulk writer's batching and pacing, all or an error
//! naming the first entity that failed.

use tablekit::patterns::bulk::{BulkWriter, ItemOutcome, WriteOp};
use tablekit::DynamicEntity;

use crate::cli::WriteModeArg;
use crate::exit::{kind_of, Failure, Kind, Outcome};

/// Entities read, planned and written at a time by the streaming commands: memory stays flat
/// whatever the table's size.
pub(crate) const CHUNK: usize = 1000;

/// Writes `entities` into `table`; every one is written, or the error names the first that
/// was not (and how many of the chunk were). One `writer` serves a whole command, so the
/// rates it learns from throttling carry from chunk to chunk.
pub(crate) async fn write_chunk(
    writer: &BulkWriter,
    table: &str,
    mode: WriteModeArg,
    entities: Vec<DynamicEntity>,
) -> Outcome<u64> {
    let count = entities.len() as u64;
    let ops = entities.into_iter().map(|mut e| {
        // The source's version means nothing to the target.
        e.set_etag(None);
        e.set_timestamp(None);
        match mode {
            WriteModeArg::Insert => WriteOp::insert(table, e),
            WriteModeArg::Upsert => WriteOp::upsert(table, e),
        }
    });
    let ops: Vec<WriteOp> = ops.collect();
    let keys: Vec<(String, String)> = ops
        .iter()
        .map(|op| {
            (
                op.entity().partition_key().to_owned(),
                op.entity().row_key().to_owned(),
            )
        })
        .collect();
    let report = writer.write_iter(ops).await;
    if report.committed() as u64 == count {
        return Ok(count);
    }
    let failed = report
        .outcomes()
        .iter()
        .enumerate()
        .find_map(|(i, o)| match o {
            ItemOutcome::Failed { error, .. } => Some((i, error.clone())),
            _ => None,
        });
    let written = report.committed();
    Err(match failed {
        Some((i, error)) => {
            let (pk, rk) = &keys[i];
            // A missing table was checked before: a 404 here is an operation that failed.
            let kind = match kind_of(&error) {
                Kind::NotFound => Kind::Failed,
                kind => kind,
            };
            Failure::new(
                kind,
                format!(
                    "cannot write ({pk:?}, {rk:?}) to `{table}` ({written} of {count} in this \
                     chunk written): {error}"
                ),
            )
        }
        None => Failure::failed(format!(
            "{} of {count} entities not written to `{table}`",
            count - written as u64
        )),
    })
}
