//! How `export` and `copy` read their source: one query from the first page to the last, or
//! PartitionKey ranges read side by side (`--parallel`), possibly one shard of them
//! (`--shard`), split where probes of the table say or at `--split-at`.

use futures::stream::BoxStream;
use futures::{StreamExt, TryStreamExt};
use tablekit::client::{ParallelScan, RangePage, ScanCheckpoint, Table};
use tablekit::{DynamicEntity, Query};

use crate::cli::ScanArgs;
use crate::exit::{Failure, Outcome};

/// A shard `I/N` (from 1) as `(index from 0, count)`.
pub(crate) fn parse_shard(text: &str) -> Result<(usize, usize), String> {
    let bad = || format!("`{text}` is not a shard: write I/N, such as 2/4 (the second of four)");
    let (index, count) = text.split_once('/').ok_or_else(bad)?;
    let index: usize = index.trim().parse().map_err(|_| bad())?;
    let count: usize = count.trim().parse().map_err(|_| bad())?;
    if count == 0 || index == 0 || index > count {
        return Err(format!(
            "shard {index}/{count} does not exist: shards are numbered 1 to N"
        ));
    }
    Ok((index - 1, count))
}

impl ScanArgs {
    /// Whether the source is read as one query, in key order.
    pub(crate) fn is_serial(&self) -> bool {
        self.parallel <= 1 && self.shard.is_none() && self.split_at.is_empty()
    }

    /// What sets this read apart in a checkpoint's job: another shard or split is another
    /// job.
    pub(crate) fn job(&self) -> String {
        if self.is_serial() {
            return String::new();
        }
        let mut job = " in ranges".to_owned();
        if let Some((index, count)) = self.shard {
            job.push_str(&format!(" shard {}/{count}", index + 1));
        }
        if !self.split_at.is_empty() {
            job.push_str(&format!(" split at {}", self.split_at.join(",")));
        }
        job
    }

    /// The parallel scan of `query` these options ask for.
    pub(crate) fn scan(
        &self,
        table: &Table<DynamicEntity>,
        query: Query<DynamicEntity>,
    ) -> Outcome<ParallelScan<DynamicEntity>> {
        let bad = |e: tablekit::Error| Failure::bad_input(e.to_string());
        let mut scan = table
            .parallel_scan(query)
            .concurrency(self.parallel.max(1))
            .map_err(bad)?;
        if !self.split_at.is_empty() {
            scan = scan.split_at(self.split_at.iter().cloned());
        }
        if let Some((index, count)) = self.shard {
            if self.split_at.is_empty() {
                return Err(Failure::bad_input(
                    "`--shard` needs `--split-at KEYS`: every machine must split the table at \
                     the same PartitionKeys, or shards could overlap or leave entities out",
                ));
            }
            scan = scan.shard(index, count).map_err(bad)?;
        }
        Ok(scan)
    }

    /// Every page of `query` as these options read it, the range of each (0 when serial).
    pub(crate) fn pages(
        &self,
        table: &Table<DynamicEntity>,
        query: Query<DynamicEntity>,
        resume: Option<ScanCheckpoint>,
    ) -> Outcome<BoxStream<'static, tablekit::Result<RangePage<DynamicEntity>>>> {
        if self.is_serial() {
            let pages = table.query(query).read_ahead(true).pages();
            return Ok(pages.map_ok(|page| RangePage { range: 0, page }).boxed());
        }
        let mut scan = self.scan(table, query)?;
        if let Some(checkpoint) = resume {
            scan = scan.resume(checkpoint);
        }
        Ok(scan.pages())
    }
}

#[cfg(test)]
mod tests {
    use super::parse_shard;

    #[test]
    fn shards_are_numbered_from_one() {
        assert_eq!(parse_shard("1/4"), Ok((0, 4)));
        assert_eq!(parse_shard("4/4"), Ok((3, 4)));
        for bad in ["0/4", "5/4", "1/0", "2", "a/b", "1/4/2"] {
            assert!(parse_shard(bad).is_err(), "{bad}");
        }
    }
}
