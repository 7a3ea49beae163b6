//! The [`MigrationReport`]: what a run or a dry run did, counted and with examples.

use std::collections::BTreeMap;
use std::fmt;

use super::{EntityChange, MigrateError};
use crate::values::entity::DynamicEntity;

/// The totals of a migration (or of a dry run: what it would change).
///
/// ```
/// use tablekit::DynamicEntity;
/// use tablekit::patterns::migrate::{Migration, MigrationReport};
/// let m = Migration::new().remove(["Old"]);
/// let mut report = MigrationReport::default();
/// for i in 0..3 {
///     let mut e = DynamicEntity::new("p", format!("{i}"));
///     if i > 0 { e.set("Old", 1); }
///     let change = m.apply(&mut e)?;
///     report.record(&e, &change);
/// }
/// assert_eq!(report.to_string(), "3 scanned, 2 changed, 1 unchanged, 0 failed; removed `Old` from 2");
/// # Ok::<(), tablekit::patterns::migrate::MigrateError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct MigrationReport {
    /// Entities read.
    pub scanned: u64,
    /// Entities changed (or that would be, in a dry run).
    pub changed: u64,
    /// Entities that needed no change.
    pub unchanged: u64,
    /// Entities that could not be migrated, with why (at most [`MAX_REPORTED_FAILURES`]
    /// listed; `failed` counts them all).
    pub failures: Vec<MigrateError>,
    /// Entities that could not be migrated.
    pub failed: u64,
    /// Writes repeated because another writer changed the entity first (412).
    pub conflicts_retried: u64,
    /// How many entities lost each property.
    pub removed: BTreeMap<String, u64>,
    /// How many entities had each property renamed, by `from -> to`.
    pub renamed: BTreeMap<String, u64>,
    /// Keys of the first changed entities (at most [`MAX_REPORTED_EXAMPLES`]), to inspect.
    pub examples: Vec<(String, String)>,
}

/// Failures a report keeps in full.
///
/// ```
/// use tablekit::patterns::migrate::{MigrateError, MigrationReport, MAX_REPORTED_FAILURES};
/// let mut report = MigrationReport::default();
/// for i in 0..150 {
///     let (partition_key, row_key) = ("p".to_owned(), i.to_string());
///     report.record_failure(MigrateError::KeysChanged { partition_key, row_key });
/// }
/// assert_eq!(report.failed, 150); // all counted
/// assert_eq!(report.failures.len(), MAX_REPORTED_FAILURES); // the first 100 kept
/// ```
pub const MAX_REPORTED_FAILURES: usize = 100;
/// Changed entities a report names.
///
/// ```
/// use tablekit::DynamicEntity;
/// use tablekit::patterns::migrate::{Migration, MigrationReport, MAX_REPORTED_EXAMPLES};
/// let m = Migration::new().map(|e| e.set("V", 2));
/// let mut report = MigrationReport::default();
/// for i in 0..50 {
///     let mut e = DynamicEntity::new("p", format!("{i:02}"));
///     let change = m.apply(&mut e)?;
///     report.record(&e, &change);
/// }
/// assert_eq!(report.changed, 50);
/// assert_eq!(report.examples.len(), MAX_REPORTED_EXAMPLES);
/// assert_eq!(report.examples[0], ("p".to_owned(), "00".to_owned()));
/// # Ok::<(), tablekit::patterns::migrate::MigrateError>(())
/// ```
pub const MAX_REPORTED_EXAMPLES: usize = 20;

impl MigrationReport {
    /// Counts one entity's outcome.
    ///
    /// ```
    /// use tablekit::DynamicEntity;
    /// use tablekit::patterns::migrate::{Migration, MigrationReport};
    /// let m = Migration::new().rename("Nick", "Nickname");
    /// let mut report = MigrationReport::default();
    /// let mut e = DynamicEntity::new("p", "r");
    /// e.set("Nick", "drako");
    /// let change = m.apply(&mut e)?;
    /// report.record(&e, &change);
    /// assert_eq!((report.scanned, report.changed), (1, 1));
    /// assert_eq!(report.renamed.get("Nick -> Nickname"), Some(&1));
    /// assert_eq!(report.examples, [("p".to_owned(), "r".to_owned())]);
    /// # Ok::<(), tablekit::patterns::migrate::MigrateError>(())
    /// ```
    pub fn record(&mut self, entity: &DynamicEntity, change: &EntityChange) {
        self.scanned += 1;
        if !change.changed {
            self.unchanged += 1;
            return;
        }
        self.changed += 1;
        for name in &change.removed {
            *self.removed.entry(name.clone()).or_default() += 1;
        }
        for (from, to) in &change.renamed {
            *self.renamed.entry(format!("{from} -> {to}")).or_default() += 1;
        }
        if self.examples.len() < MAX_REPORTED_EXAMPLES {
            self.examples.push((
                entity.partition_key().to_owned(),
                entity.row_key().to_owned(),
            ));
        }
    }

    /// Counts one entity that could not be migrated.
    ///
    /// ```
    /// use tablekit::patterns::migrate::{MigrateError, MigrationReport};
    /// let mut r = MigrationReport::default();
    /// r.record_failure(MigrateError::KeysChanged { partition_key: "p".into(), row_key: "r".into() });
    /// assert_eq!((r.scanned, r.failed, r.failures.len()), (1, 1, 1));
    /// ```
    pub fn record_failure(&mut self, error: MigrateError) {
        self.scanned += 1;
        self.failed += 1;
        if self.failures.len() < MAX_REPORTED_FAILURES {
            self.failures.push(error);
        }
    }

    /// Adds another report's counts (of a resumed run, or of concurrent workers).
    ///
    /// ```
    /// use tablekit::patterns::migrate::MigrationReport;
    /// let mut a = MigrationReport::default();
    /// a.scanned = 2;
    /// let mut b = MigrationReport::default();
    /// b.scanned = 3;
    /// a.merge(b);
    /// assert_eq!(a.scanned, 5);
    /// ```
    pub fn merge(&mut self, other: MigrationReport) {
        self.scanned += other.scanned;
        self.changed += other.changed;
        self.unchanged += other.unchanged;
        self.failed += other.failed;
        self.conflicts_retried += other.conflicts_retried;
        let room = MAX_REPORTED_FAILURES.saturating_sub(self.failures.len());
        self.failures.extend(other.failures.into_iter().take(room));
        for (k, v) in other.removed {
            *self.removed.entry(k).or_default() += v;
        }
        for (k, v) in other.renamed {
            *self.renamed.entry(k).or_default() += v;
        }
        let room = MAX_REPORTED_EXAMPLES.saturating_sub(self.examples.len());
        self.examples.extend(other.examples.into_iter().take(room));
    }
}

impl fmt::Display for MigrationReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} scanned, {} changed, {} unchanged, {} failed",
            self.scanned, self.changed, self.unchanged, self.failed
        )?;
        for (name, n) in &self.removed {
            write!(f, "; removed `{name}` from {n}")?;
        }
        for (rename, n) in &self.renamed {
            write!(f, "; renamed {rename} in {n}")?;
        }
        Ok(())
    }
}
