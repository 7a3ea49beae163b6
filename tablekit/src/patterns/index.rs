//! Verifying and repairing a model's secondary indexes (see [`index`](crate::index)).
//!
//! The writes of `Table<M>` keep index rows in step with their entities in one transaction,
//! but rows written another way (untyped code, an import, a model that gained an index) can
//! leave an index behind. [`verify`] scans the table and reports the drift; [`repair`] also
//! fixes it: it adds missing index rows, removes stale ones and points wrong ones at their
//! entity. Each fix is conditional on what the scan read, so a row a writer changed meanwhile
//! is left to that writer (counted in [`RepairReport::skipped`]); run it again to converge.
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

use crate::client::Table;
use crate::entity::DynamicEntity;
use crate::etag::ETag;
use crate::index::{Index, TARGET_PROPERTY};
use crate::model::TableModel;
use crate::plan::plan_of;
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
    scan(table, false).await
}

/// Scans the table and fixes how `M`'s indexes differ from its entities, reporting what it
/// changed.
pub async fn repair<M: TableModel>(table: &Table<M>) -> crate::Result<RepairReport> {
    scan(table, true).await
}

/// One fix.
enum Fix {
    Add(DynamicEntity),
    Remove(DynamicEntity),
    Point(DynamicEntity, ETag),
}

async fn scan<M: TableModel>(table: &Table<M>, fix: bool) -> crate::Result<RepairReport> {
    let raw: Table = table.client().table_named(table.name());
    let mut report = RepairReport::default();
    let mut rows = raw.query_all().entities();
    let mut partition: Vec<DynamicEntity> = Vec::new();
    // The rows inter-partition indexes need, gathered over the whole scan.
    let mut needed: Vec<Vec<DynamicEntity>> = vec![Vec::new(); indexes_of::<M>().len()];
    loop {
        let next = rows.try_next().await?;
        let ends = match (&next, partition.first()) {
            (Some(row), Some(first)) => row.partition_key() != first.partition_key(),
            (None, _) => true,
            (Some(_), None) => false,
        };
        if ends && !partition.is_empty() {
            let fixes = fixes_of::<M>(std::mem::take(&mut partition), &mut report, &mut needed)?;
            if fix {
                apply(&raw, fixes, &mut report).await?;
            }
        }
        match next {
            Some(row) => partition.push(row),
            None => break,
        }
    }
    for (index, needed) in indexes_of::<M>().into_iter().zip(needed) {
        if !index.is_inter_partition() {
            continue;
        }
        let home: Table = table
            .client()
            .table_named(index.table().unwrap_or(table.name()));
        let present: Vec<DynamicEntity> = home
            .query_all()
            .collect_all()
            .await?
            .into_iter()
            .filter(|row| index.is_row(row))
            .collect();
        let fixes = diff(present, needed, &mut report);
        if fix {
            apply(&home, fixes, &mut report).await?;
        }
    }
    Ok(report)
}

/// The fixes one partition needs, counted in `report`.
fn fixes_of<M: TableModel>(
    rows: Vec<DynamicEntity>,
    report: &mut RepairReport,
    inter: &mut [Vec<DynamicEntity>],
) -> crate::Result<Vec<Fix>> {
    let indexes = indexes_of::<M>();
    let intra = || indexes.iter().filter(|i| !i.is_inter_partition());
    let (indexed, entities): (Vec<_>, Vec<_>) = rows
        .into_iter()
        .partition(|row| intra().any(|i| i.is_row(row)));
    let entities: Vec<_> = entities
        .into_iter()
        .filter(|e| crate::model::check_kind::<M>(e).is_ok() && !crate::auxiliary::is_auxiliary(e))
        .collect();
    report.entities += entities.len();
    let mut needed = Vec::new();
    for entity in &entities {
        let own = plan_of::<M>(entity).indexes;
        for (index, inter) in indexes.iter().zip(inter.iter_mut()) {
            if !own.contains(index) {
                continue;
            }
            if let Some(row) = index.row_of(entity)? {
                match index.is_inter_partition() {
                    true => inter.push(row),
                    false => needed.push(row),
                }
            }
        }
    }
    Ok(diff(indexed, needed, report))
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

/// Makes the fixes, each conditional on what the scan read.
async fn apply(raw: &Table, fixes: Vec<Fix>, report: &mut RepairReport) -> crate::Result<()> {
    for fix in fixes {
        let result = match fix {
            Fix::Add(mut row) => raw.insert(&mut row).await,
            Fix::Remove(mut row) => raw.delete(&mut row).await,
            Fix::Point(mut row, etag) => {
                row.set_etag(Some(etag));
                raw.replace(&mut row).await
            }
        };
        match result {
            Ok(()) => {}
            Err(e) if lost_to_a_writer(&e) => report.skipped += 1,
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// The row changed since the scan: a writer's, not ours to fix now.
fn lost_to_a_writer(error: &Error) -> bool {
    error.is_conflict() || error.is_precondition_failed() || error.is_not_found()
}
