//! The delete of an entity whose storage plan keeps rows beside it (index rows, continuation
//! rows): the stored entity is read to learn its plan and its rows, then it and its rows are
//! deleted in one transaction conditional on the ETag read (see [`plan`](crate::plan)).

use super::batch::Batch;
use super::contention::{self, Contended};
use super::error::Result;
use super::indexed::{follow, lost_race, IndexChanges};
use super::table::Table;
use crate::model::auxiliary::AuxiliaryRow;
use crate::model::plan::{any_spread, plan_of, StoragePlan};
use crate::model::spread;
use crate::model::table_model::{check_kind, TableModel};
use crate::values::entity::DynamicEntity;
use crate::values::etag::ETag;

// Here, not in `plan`: its error is the client's, which the model layer cannot name.
impl StoragePlan {
    /// Every row `entity` is stored as in its own table, as this plan's writes store it: the
    /// main row (without the chunks that moved), its continuation rows and the index rows the
    /// table holds (an index kept in another table is that table's). Backups and copies of
    /// typed tables write these, so what they restore reads back and is found as it was.
    ///
    /// ```
    /// use tablekit::prelude::*;
    /// use tablekit::plan::StoragePlan;
    /// #[derive(TableEntity)]
    /// pub struct Employee {
    ///     #[tablekit(partition_key)]
    ///     pub department: String,
    ///     #[tablekit(row_key)]
    ///     pub id: String,
    ///     #[tablekit(index(unique))]
    ///     pub email: String,
    /// }
    /// let mut kim = EmployeeEntity::new("Sales", "e-1");
    /// kim.set_email("kim@example.com");
    /// let rows = StoragePlan::of::<Employee>().stored_rows(kim.into_dynamic())?;
    /// let keys: Vec<&str> = rows.iter().map(|r| r.row_key()).collect();
    /// assert_eq!(keys, ["e-1", "email_kim@example.com"]);
    /// # Ok::<(), tablekit::Error>(())
    /// ```
    pub fn stored_rows(&self, entity: DynamicEntity) -> Result<Vec<DynamicEntity>> {
        if !self.keeps_rows() {
            return Ok(vec![entity]);
        }
        self.check()?;
        let mut index_rows = Vec::with_capacity(self.indexes.len());
        for index in self.indexes.iter().filter(|i| i.table().is_none()) {
            index_rows.extend(index.row_of(&entity)?);
        }
        let parts = spread::spread(&entity, self.spread)?;
        let mut rows = Vec::with_capacity(1 + parts.rows.len() + index_rows.len());
        rows.push(parts.main);
        rows.extend(parts.rows);
        rows.extend(index_rows);
        Ok(rows)
    }
}

/// Deletes the entity at these keys and the rows its plan keeps, if `etag` matches
/// ([`ETag::any`] for whatever is stored).
pub(crate) async fn delete<M: TableModel>(
    table: &Table<M>,
    partition_key: &str,
    row_key: &str,
    etag: &ETag,
) -> Result<()> {
    if any_spread::<M>() {
        spread::check_main_key(row_key)?;
    }
    let mut attempt = 0;
    loop {
        attempt += 1;
        // Nothing stored is the service's 404, answered without a delete: a plain delete
        // sent now could remove an entity inserted since the read, leaving its rows behind.
        let stored = table.untyped().fetch_row(partition_key, row_key).await?;
        if let Some(row) = AuxiliaryRow::of(&stored) {
            return Err(row.into());
        }
        check_kind::<M>(&stored)?;
        let plan = plan_of::<M>(&stored);
        plan.check()?;
        // `*` is the caller's "whatever is stored": the state read is what is deleted, so a
        // failure of that condition is a lost race, tried again from a new read.
        let ours = etag.is_any();
        let condition = match (ours, stored.etag()) {
            (true, Some(read)) => read.clone(),
            _ => etag.clone(),
        };
        let mut changes = IndexChanges::read(table, plan.indexes, Some(&stored), None).await?;
        let mut batch = table.untyped().batch();
        batch.delete_by_key(partition_key, row_key, &condition)?;
        changes.add_to(&mut batch)?;
        delete_continuations(&mut batch, &stored, plan.spread)?;
        match batch.submit().await {
            Ok(_) => {
                follow(table, plan.indexes, Some(&stored), None).await;
                return Ok(());
            }
            Err(e) if lost_race(&e, ours, &changes) => {
                if attempt >= contention::ATTEMPTS {
                    return Err(Contended::new(partition_key, row_key, attempt).into());
                }
                contention::back_off(attempt).await;
            }
            Err(e) => return Err(e),
        }
    }
}

/// Adds the deletes of every continuation row `stored` uses.
fn delete_continuations(
    batch: &mut Batch<DynamicEntity>,
    stored: &DynamicEntity,
    fields: &[spread::SpreadField],
) -> Result<()> {
    let (partition_key, row_key) = (stored.partition_key(), stored.row_key());
    for field in fields {
        for index in 1..=spread::rows_used(stored, field.property) {
            let key = spread::continuation_key(row_key, field.property, index);
            batch.delete_by_key(partition_key, &key, &ETag::any())?;
        }
    }
    Ok(())
}
