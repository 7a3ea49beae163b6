//! Verifying and repairing a model's secondary indexes (see [`index`](crate::index)).
//!
//! The writes of `Table<M>` keep index rows in step with their entities in one transaction,
//! but rows written another way (untyped code, an import, a model that gained an index) can
//! leave an index behind. [`verify`] scans the table and reports the drift; [`repair`] also
//! fixes it: it adds missing index rows, removes stale ones and points wrong ones at their
//! entity. Each fix is conditional on what the scan read, so a row a writer changed meanwhile
//! is left to that writer (counted in [`RepairReport::skipped`]); run it again to converge.
//!
//! The scan streams the table page by page and keeps no entity: only the index rows of the
//! partition at hand, and the rows inter-partition indexes need, a bounded chunk at a time
//! (each chunk is compared with that index's stored rows, streamed in key order). Fixes are
//! sent as entity group transactions of up to 100 operations of one partition.
//!
//! ```
//! use tablekit::patterns::index::{repair, verify};
//! use tablekit::prelude::*;
//! #[derive(TableEntity)]
//! #[tablekit(table = "Employees")]
//! pub struct Employee {
//!     #[tablekit(partition_key)]
//!     pub department: String,
//!     #[tablekit(row_key)]
//!     pub id: String,
//!     #[tablekit(index(unique))]
//!     pub email: String,
//! }
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let emulator = tablekit_testing::Emulator::start().await?;
//! # let client = emulator.client();
//! let table = client.table::<Employee>();
//! table.create().await?;
//! // an entity written without its model: no index row
//! let mut untyped = DynamicEntity::new("Sales", "e-1");
//! untyped.set("Email", "kim@example.com");
//! client.table_named::<DynamicEntity>("Employees").insert(&mut untyped).await?;
//! assert!(Employee::by_email(&table, "Sales", "kim@example.com").await?.is_none());
//!
//! assert_eq!(verify(&table).await?.missing_added, 1); // found, not fixed
//! let report = repair(&table).await?;
//! assert_eq!((report.missing_added, report.stale_removed, report.wrong_fixed), (1, 0, 0));
//! assert!(Employee::by_email(&table, "Sales", "kim@example.com").await?.is_some());
//! assert!(verify(&table).await?.is_clean());
//! # Ok(()) }
//! ```

use std::collections::BTreeMap;

use futures::TryStreamExt;

use crate::client::{Batch, Table};
use crate::model::index::{Index, TARGET_PARTITION_PROPERTY, TARGET_PROPERTY};
use crate::model::plan::plan_of;
use crate::model::table_model::TableModel;
use crate::query::builder::Query;
use crate::values::entity::DynamicEntity;
use crate::values::etag::ETag;
use crate::Error;

/// What [`verify`] found or [`repair`] changed.
///
/// ```
/// use tablekit::patterns::index::RepairReport;
/// let report = RepairReport::default();
/// assert!(report.is_clean());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RepairReport {
    /// The entities of the model scanned.
    pub entities: usize,
    /// Index rows an entity needs that were missing (added by [`repair`]).
    pub missing_added: usize,
    /// Index rows no entity needs (removed by [`repair`]).
    pub stale_removed: usize,
    /// Index rows pointing at another entity than the one holding the value (pointed at it
    /// by [`repair`]).
    pub wrong_fixed: usize,
    /// Values a unique index cannot hold for every entity holding them: the index keeps
    /// the entity it points at, the others stay out of it until their values differ.
    pub unique_conflicts: usize,
    /// Fixes not made because the row changed after the scan read it.
    pub skipped: usize,
}

impl RepairReport {
    /// Whether nothing was found to fix.
    pub fn is_clean(&self) -> bool {
        self.missing_added + self.stale_removed + self.wrong_fixed + self.unique_conflicts == 0
    }
}

/// Scans the table and reports how `M`'s indexes differ from its entities, changing nothing.
pub async fn verify<M: TableModel>(table: &Table<M>) -> crate::Result<RepairReport> {
    scan(table, false, INTER_CHUNK).await
}

/// Scans the table and fixes how `M`'s indexes differ from its entities, reporting what it
/// changed.
pub async fn repair<M: TableModel>(table: &Table<M>) -> crate::Result<RepairReport> {
    scan(table, true, INTER_CHUNK).await
}

/// [`repair`], holding at most `rows` of the index rows inter-partition indexes need in
/// memory at once ([`repair`] holds 10,000): fewer rows, more passes over each such index's
/// stored rows.
///
/// ```
/// use tablekit::patterns::index::repair_holding;
/// use tablekit::prelude::*;
/// #[derive(TableEntity)]
/// #[tablekit(table = "Badges")]
/// pub struct Badge {
///     #[tablekit(partition_key)]
///     pub site: String,
///     #[tablekit(row_key)]
///     pub id: String,
///     #[tablekit(index(partition = "ByHolder"))]
///     pub holder: String,
/// }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let emulator = tablekit_testing::Emulator::start().await?;
/// # let client = emulator.client();
/// let table = client.table::<Badge>();
/// table.create().await?;
/// let raw: Table = client.table_named("Badges");
/// for site in ["north", "south", "west"] {
///     let mut untyped = DynamicEntity::new(site, "b-1");
///     untyped.set("Holder", "kim");
///     raw.insert(&mut untyped).await?;
/// }
/// let report = repair_holding(&table, 1).await?; // three passes over `ByHolder`
/// assert_eq!(report.missing_added, 3);
/// assert_eq!(Badge::by_holder(&table, "kim").await?.len(), 3);
/// # Ok(()) }
/// ```
pub async fn repair_holding<M: TableModel>(
    table: &Table<M>,
    rows: usize,
) -> crate::Result<RepairReport> {
    scan(table, true, rows.max(1)).await
}

/// How many index rows the inter-partition indexes' comparison holds at once, by default:
/// the needed rows of the entities scanned so far are compared with the stored rows (one
/// streamed pass over each index's rows) each time this many have gathered, and at the end.
const INTER_CHUNK: usize = 10_000;

/// The most operations of one entity group transaction.
const TRANSACTION_OPERATIONS: usize = 100;

/// One fix.
enum Fix {
    Add(DynamicEntity),
    Remove(DynamicEntity),
    Point(DynamicEntity, ETag),
}

impl Fix {
    fn partition_key(&self) -> &str {
        match self {
            Fix::Add(row) | Fix::Remove(row) | Fix::Point(row, _) => row.partition_key(),
        }
    }
}

/// The rows of one partition as the scan met them: the intra-partition index rows stored
/// and those its entities need.
#[derive(Default)]
struct Partition {
    key: Option<String>,
    present: Vec<DynamicEntity>,
    needed: Vec<DynamicEntity>,
}

async fn scan<M: TableModel>(
    table: &Table<M>,
    fix: bool,
    chunk: usize,
) -> crate::Result<RepairReport> {
    let raw: Table = table.client().table_named(table.name());
    let indexes = indexes_of::<M>();
    let mut report = RepairReport::default();
    let mut rows = raw.query_all().entities();
    let mut partition = Partition::default();
    // The rows inter-partition indexes need, for the partitions after `done` scanned so far.
    let mut needed: Vec<Vec<DynamicEntity>> = vec![Vec::new(); indexes.len()];
    let mut done: Option<String> = None;
    loop {
        let next = rows.try_next().await?;
        let ends = match (&next, &partition.key) {
            (Some(row), Some(key)) => row.partition_key() != key,
            (None, Some(_)) => true,
            (_, None) => false,
        };
        if ends {
            let ended = std::mem::take(&mut partition);
            let fixes = diff(ended.present, ended.needed, &mut report);
            if fix {
                apply(&raw, fixes, &mut report).await?;
            }
            if needed.iter().map(Vec::len).sum::<usize>() >= chunk {
                let upto = ended.key;
                compare_inter(
                    table,
                    &indexes,
                    &mut needed,
                    (&done, &upto),
                    fix,
                    &mut report,
                )
                .await?;
                done = upto;
            }
        }
        let Some(row) = next else { break };
        partition
            .key
            .get_or_insert_with(|| row.partition_key().to_owned());
        take_row::<M>(&indexes, row, &mut partition, &mut needed, &mut report)?;
    }
    compare_inter(
        table,
        &indexes,
        &mut needed,
        (&done, &None),
        fix,
        &mut report,
    )
    .await?;
    Ok(report)
}

/// Sorts one scanned row: an intra-partition index row is kept to compare, an
/// inter-partition one is left to [`compare_inter`], an entity of `M` adds the index rows it
/// needs; the entity itself is not kept.
fn take_row<M: TableModel>(
    indexes: &[&'static Index],
    row: DynamicEntity,
    partition: &mut Partition,
    inter: &mut [Vec<DynamicEntity>],
    report: &mut RepairReport,
) -> crate::Result<()> {
    if let Some(index) = indexes.iter().find(|i| i.is_row(&row)) {
        if !index.is_inter_partition() {
            partition.present.push(row);
        }
        return Ok(());
    }
    if crate::model::table_model::check_kind::<M>(&row).is_err()
        || crate::model::auxiliary::is_auxiliary(&row)
    {
        return Ok(());
    }
    report.entities += 1;
    let own = plan_of::<M>(&row).indexes;
    for (index, inter) in indexes.iter().zip(inter.iter_mut()) {
        if !own.contains(index) {
            continue;
        }
        if let Some(needed) = index.row_of(&row)? {
            match index.is_inter_partition() {
                true => inter.push(needed),
                false => partition.needed.push(needed),
            }
        }
    }
    Ok(())
}

/// Every index of `M`, each once: a family's are its variants'.
fn indexes_of<M: TableModel>() -> Vec<&'static Index> {
    let mut all: Vec<&'static Index> = Vec::new();
    for index in M::PLANS.iter().flat_map(|plan| plan.indexes) {
        if !all.contains(&index) {
            all.push(index);
        }
    }
    all
}

/// The keys of a row.
fn key(row: &DynamicEntity) -> (&str, &str) {
    (row.partition_key(), row.row_key())
}

/// The entity an index row points at: (PartitionKey, RowKey).
fn target(row: &DynamicEntity) -> (Option<String>, Option<String>) {
    (
        row.get::<String>(TARGET_PARTITION_PROPERTY),
        row.get::<String>(TARGET_PROPERTY),
    )
}

/// Compares the rows each inter-partition index needs for the entities of the partitions in
/// `range` (after the first, up to and including the second; `None`: unbounded) with the
/// rows stored, streamed once in key order, and fixes the difference. A stored row pointing
/// into another range is left to that range's comparison.
async fn compare_inter<M: TableModel>(
    table: &Table<M>,
    indexes: &[&'static Index],
    needed: &mut [Vec<DynamicEntity>],
    range: (&Option<String>, &Option<String>),
    fix: bool,
    report: &mut RepairReport,
) -> crate::Result<()> {
    for (index, needed) in indexes.iter().zip(needed.iter_mut()) {
        if !index.is_inter_partition() {
            continue;
        }
        let mut wanted = std::mem::take(needed);
        wanted.sort_by(|a, b| key(a).cmp(&key(b)));
        let home: Table = table
            .client()
            .table_named(index.table().unwrap_or(table.name()));
        let mut stored = home.query(stored_rows(index, range)).entities();
        let mut wanted = wanted.into_iter().peekable();
        let mut writer = FixWriter::new(&home, fix);
        while let Some(row) = stored.try_next().await? {
            if !index.is_row(&row) {
                continue;
            }
            while let Some(missing) = wanted.next_if(|w| key(w) < key(&row)) {
                report.missing_added += 1;
                writer.push(Fix::Add(missing), report).await?;
            }
            match wanted.next_if(|w| key(w) == key(&row)) {
                Some(w) if target(&w) == target(&row) => {}
                Some(w) => {
                    report.wrong_fixed += 1;
                    let etag = row.etag().cloned().unwrap_or_else(ETag::any);
                    writer.push(Fix::Point(w, etag), report).await?;
                }
                None if in_range(target(&row).0.as_deref().unwrap_or(""), range) => {
                    report.stale_removed += 1;
                    writer.push(Fix::Remove(row), report).await?;
                }
                None => {}
            }
        }
        for missing in wanted {
            report.missing_added += 1;
            writer.push(Fix::Add(missing), report).await?;
        }
        writer.flush(report).await?;
    }
    Ok(())
}

/// The query of the rows an inter-partition index keeps for the entities of `range`: its
/// named partition, or the range's partitions of its table.
fn stored_rows(index: &Index, range: (&Option<String>, &Option<String>)) -> Query<DynamicEntity> {
    let literal = |text: &str| format!("'{}'", text.replace('\'', "''"));
    if let Some(partition) = index.partition() {
        return Query::new().filter_raw(format!("PartitionKey eq {}", literal(partition)));
    }
    let bounds: Vec<String> = [
        range
            .0
            .as_deref()
            .map(|after| format!("PartitionKey gt {}", literal(after))),
        range
            .1
            .as_deref()
            .map(|upto| format!("PartitionKey le {}", literal(upto))),
    ]
    .into_iter()
    .flatten()
    .collect();
    match bounds.is_empty() {
        true => Query::new().allow_table_scan(),
        false => Query::new().filter_raw(bounds.join(" and ")),
    }
}

/// Whether partition `key` is in `range` (see [`compare_inter`]).
fn in_range(key: &str, (after, upto): (&Option<String>, &Option<String>)) -> bool {
    after.as_deref().is_none_or(|after| key > after)
        && upto.as_deref().is_none_or(|upto| key <= upto)
}

/// The fixes that make the index rows `present` exactly the rows `needed`, counted in
/// `report`.
fn diff(
    present: Vec<DynamicEntity>,
    needed: Vec<DynamicEntity>,
    report: &mut RepairReport,
) -> Vec<Fix> {
    let key = |row: &DynamicEntity| (row.partition_key().to_owned(), row.row_key().to_owned());
    let mut present: BTreeMap<(String, String), DynamicEntity> =
        present.into_iter().map(|row| (key(&row), row)).collect();
    let mut claims_by_key: BTreeMap<(String, String), Vec<DynamicEntity>> = BTreeMap::new();
    for row in needed {
        claims_by_key.entry(key(&row)).or_default().push(row);
    }
    let needed = claims_by_key;
    let mut fixes = Vec::new();
    for (row_key, claims) in needed {
        let stored = present.remove(&row_key);
        let pointed = stored
            .as_ref()
            .and_then(|s| s.get::<String>(TARGET_PROPERTY));
        report.unique_conflicts += claims.len() - 1;
        if claims
            .iter()
            .any(|c| c.get::<String>(TARGET_PROPERTY) == pointed)
        {
            continue;
        }
        let Some(wanted) = claims.into_iter().next() else {
            continue;
        };
        match stored {
            None => {
                report.missing_added += 1;
                fixes.push(Fix::Add(wanted));
            }
            Some(stored) => {
                report.wrong_fixed += 1;
                let etag = stored.etag().cloned().unwrap_or_else(ETag::any);
                fixes.push(Fix::Point(wanted, etag));
            }
        }
    }
    report.stale_removed += present.len();
    fixes.extend(present.into_values().map(Fix::Remove));
    fixes
}

/// Makes the fixes of one partition, in transactions.
async fn apply(raw: &Table, fixes: Vec<Fix>, report: &mut RepairReport) -> crate::Result<()> {
    let mut writer = FixWriter::new(raw, true);
    for fix in fixes {
        writer.push(fix, report).await?;
    }
    writer.flush(report).await
}

/// Gathers fixes into entity group transactions (one partition, up to
/// [`TRANSACTION_OPERATIONS`] each) and sends them; a no-op when only verifying.
struct FixWriter<'a> {
    home: &'a Table,
    apply: bool,
    pending: Vec<Fix>,
}

impl<'a> FixWriter<'a> {
    fn new(home: &'a Table, apply: bool) -> Self {
        FixWriter {
            home,
            apply,
            pending: Vec::new(),
        }
    }

    async fn push(&mut self, fix: Fix, report: &mut RepairReport) -> crate::Result<()> {
        if !self.apply {
            return Ok(());
        }
        let other_partition = self
            .pending
            .first()
            .is_some_and(|first| first.partition_key() != fix.partition_key());
        if other_partition || self.pending.len() == TRANSACTION_OPERATIONS {
            self.flush(report).await?;
        }
        self.pending.push(fix);
        Ok(())
    }

    /// Sends the pending fixes, each conditional on what the scan read: a fix whose row
    /// changed since is left out (counted in `skipped`) and the rest sent again.
    async fn flush(&mut self, report: &mut RepairReport) -> crate::Result<()> {
        let mut fixes = std::mem::take(&mut self.pending);
        while !fixes.is_empty() {
            match transaction(self.home, &fixes)?.submit().await {
                Ok(_) => return Ok(()),
                Err(
                    e @ Error::Batch {
                        index: Some(failed),
                        ..
                    },
                ) if lost_to_a_writer(&e) && failed < fixes.len() => {
                    fixes.remove(failed);
                    report.skipped += 1;
                }
                // The service did not name the operation: one at a time.
                Err(e) if lost_to_a_writer(&e) => {
                    for fix in fixes {
                        match transaction(self.home, std::slice::from_ref(&fix))?
                            .submit()
                            .await
                        {
                            Ok(_) => {}
                            Err(e) if lost_to_a_writer(&e) => report.skipped += 1,
                            Err(e) => return Err(e),
                        }
                    }
                    return Ok(());
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

/// One transaction of fixes of one partition.
fn transaction(home: &Table, fixes: &[Fix]) -> crate::Result<Batch<DynamicEntity>> {
    let mut batch = home.batch();
    for fix in fixes {
        match fix {
            Fix::Add(row) => batch.insert(row)?,
            Fix::Remove(row) => {
                let etag = row.etag().cloned().unwrap_or_else(ETag::any);
                batch.delete_by_key(row.partition_key(), row.row_key(), &etag)?
            }
            Fix::Point(row, etag) => {
                let mut row = row.clone();
                row.set_etag(Some(etag.clone()));
                batch.replace(&row)?
            }
        }
    }
    Ok(batch)
}

/// The row changed since the scan: a writer's, not ours to fix now.
fn lost_to_a_writer(error: &Error) -> bool {
    error.is_conflict() || error.is_precondition_failed() || error.is_not_found()
}
