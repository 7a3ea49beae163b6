//! Property migrations: change the shape of every entity in a table (the `PropertyChanger` of
//! "Jeffrey Richter's Guide to Working with Azure Storage Tables via C# and other .NET
//! Languages", the versioning of Microsoft's "Windows Azure Table" whitepaper).
//!
//! Tables have no schema, so a schema change is a walk over the entities: keep only some
//! properties (optionally renamed), rename one, remove some, or run any closure. A
//! [`Migration`] is that change as a value: it is validated before anything is read, applied
//! to one entity at a time ([`Migration::apply`]), and summarised in a [`MigrationReport`],
//! which is also what a dry run returns. [`Migration::run`] walks a table or query: Replace
//! with `If-Match`, re-read and re-apply on 412, progress, and a checkpoint after each page
//! to resume from.
//!
//! ```
//! use tablekit::DynamicEntity;
//! use tablekit::patterns::migrate::{Migration, MigrationReport};
//!
//! let migration = Migration::new().rename("Nick", "Nickname").remove(["Legacy"]);
//! migration.validate()?;
//!
//! let mut e = DynamicEntity::new("p", "r");
//! e.set("Nick", "drako");
//! e.set("Legacy", 1);
//! e.set("Score", 7);
//! let change = migration.apply(&mut e)?;
//! assert!(change.is_changed());
//! assert_eq!(e.get::<String>("Nickname").as_deref(), Some("drako"));
//! assert!(!e.contains("Legacy") && e.contains("Score"));
//!
//! let mut report = MigrationReport::default();
//! report.record(&e, &change);
//! assert_eq!((report.scanned, report.changed), (1, 1));
//! assert_eq!(report.removed.get("Legacy"), Some(&1));
//! # Ok::<(), tablekit::patterns::migrate::MigrateError>(())
//! ```

use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::sync::Arc;

use futures::TryStreamExt;

use crate::client::error::{Error, Result};
use crate::client::{ContinuationToken, Table};
use crate::model::table_model::TableModel;
use crate::patterns::conflict_retry::ConflictRetry;
use crate::patterns::progress::{NoProgress, ProgressCounter, ProgressSink};
use crate::protocol::limits::{validate_entity, validate_property_name, InvalidInput};
use crate::query::builder::Query;
use crate::values::entity::DynamicEntity;

/// Why a migration cannot run, or cannot be applied to one entity.
///
/// ```
/// use tablekit::patterns::migrate::{MigrateError, Migration};
/// let err = Migration::new().rename("A", "Time stamp").validate().unwrap_err();
/// assert!(matches!(err, MigrateError::Invalid(_)));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MigrateError {
    /// The migration itself is invalid (a bad target name, two sources renamed to one name),
    /// or an entity it produced breaks a service limit.
    #[error(transparent)]
    Invalid(#[from] InvalidInput),
    /// A rename would overwrite a property the entity already has.
    #[error("entity ({partition_key:?}, {row_key:?}): renaming `{from}` to `{to}` would overwrite the existing `{to}`")]
    RenameConflict {
        /// The entity's PartitionKey.
        partition_key: String,
        /// The entity's RowKey.
        row_key: String,
        /// The property being renamed.
        from: String,
        /// The name it would take.
        to: String,
    },
    /// Writing the migrated entity failed (after retrying any 412s the policy allowed).
    #[error("entity ({partition_key:?}, {row_key:?}): {message}")]
    Write {
        /// The entity's PartitionKey.
        partition_key: String,
        /// The entity's RowKey.
        row_key: String,
        /// The client's error, as text.
        message: String,
    },
    /// A closure changed an entity's keys: a Replace cannot move an entity.
    #[error("entity ({partition_key:?}, {row_key:?}): a migration cannot change the keys")]
    KeysChanged {
        /// The original PartitionKey.
        partition_key: String,
        /// The original RowKey.
        row_key: String,
    },
}

type EntityFn = Arc<dyn Fn(&mut DynamicEntity) + Send + Sync>;

#[derive(Clone)]
enum Step {
    KeepOnly(Vec<(String, String)>),
    Rename(String, String),
    Remove(Vec<String>),
    Map(EntityFn),
}

impl fmt::Debug for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Step::KeepOnly(pairs) => f.debug_tuple("KeepOnly").field(pairs).finish(),
            Step::Rename(from, to) => f.debug_tuple("Rename").field(from).field(to).finish(),
            Step::Remove(names) => f.debug_tuple("Remove").field(names).finish(),
            Step::Map(_) => f.write_str("Map(..)"),
        }
    }
}

/// A change to apply to every entity: steps run in the order they were added.
///
/// ```
/// use tablekit::DynamicEntity;
/// use tablekit::patterns::migrate::Migration;
/// // Keep `Score` (as `Points`) and `Name`; drop everything else.
/// let m = Migration::new().keep_only_renamed([("Score", "Points"), ("Name", "Name")]);
/// let mut e = DynamicEntity::new("p", "r");
/// e.set("Score", 3);
/// e.set("Old", true);
/// m.apply(&mut e)?;
/// assert_eq!(e.get::<i32>("Points"), Some(3));
/// assert_eq!(e.len(), 1);
/// # Ok::<(), tablekit::patterns::migrate::MigrateError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Migration {
    steps: Vec<Step>,
}

impl Migration {
    /// A migration that changes nothing yet.
    ///
    /// ```
    /// use tablekit::DynamicEntity;
    /// use tablekit::patterns::migrate::Migration;
    /// let mut e = DynamicEntity::new("p", "r");
    /// e.set("A", 1);
    /// let change = Migration::new().apply(&mut e)?;
    /// assert!(!change.is_changed());
    /// assert_eq!(e.get::<i32>("A"), Some(1));
    /// # Ok::<(), tablekit::patterns::migrate::MigrateError>(())
    /// ```
    pub fn new() -> Self {
        Migration::default()
    }

    /// Keeps only these properties, removing every other one.
    ///
    /// ```
    /// use tablekit::DynamicEntity;
    /// use tablekit::patterns::migrate::Migration;
    /// let mut e = DynamicEntity::new("p", "r");
    /// e.set("A", 1);
    /// e.set("B", 2);
    /// Migration::new().keep_only(["A"]).apply(&mut e)?;
    /// assert!(e.contains("A") && !e.contains("B"));
    /// # Ok::<(), tablekit::patterns::migrate::MigrateError>(())
    /// ```
    pub fn keep_only<S: Into<String>>(self, names: impl IntoIterator<Item = S>) -> Self {
        self.keep_only_renamed(names.into_iter().map(|n| {
            let n = n.into();
            (n.clone(), n)
        }))
    }

    /// Keeps only the `from` properties, stored under their `to` names.
    ///
    /// ```
    /// use tablekit::DynamicEntity;
    /// use tablekit::patterns::migrate::Migration;
    /// let mut e = DynamicEntity::new("p", "r");
    /// e.set("Nick", "drako");
    /// e.set("Score", 7);
    /// e.set("Legacy", true);
    /// let m = Migration::new().keep_only_renamed([("Nick", "Nickname"), ("Score", "Score")]);
    /// let change = m.apply(&mut e)?;
    /// assert_eq!(e.get::<String>("Nickname").as_deref(), Some("drako"));
    /// assert_eq!(e.get::<i32>("Score"), Some(7));
    /// assert_eq!(change.removed, ["Legacy"]);
    /// assert_eq!(change.renamed, [("Nick".to_owned(), "Nickname".to_owned())]);
    /// # Ok::<(), tablekit::patterns::migrate::MigrateError>(())
    /// ```
    pub fn keep_only_renamed<A: Into<String>, B: Into<String>>(
        mut self,
        pairs: impl IntoIterator<Item = (A, B)>,
    ) -> Self {
        let pairs = pairs
            .into_iter()
            .map(|(a, b)| (a.into(), b.into()))
            .collect();
        self.steps.push(Step::KeepOnly(pairs));
        self
    }

    /// Renames a property; entities without it are unchanged, entities that already have the
    /// new name fail with [`MigrateError::RenameConflict`] (nothing is overwritten silently).
    ///
    /// ```
    /// use tablekit::DynamicEntity;
    /// use tablekit::patterns::migrate::{MigrateError, Migration};
    /// let m = Migration::new().rename("Nick", "Nickname");
    /// let mut e = DynamicEntity::new("p", "r");
    /// e.set("Nick", "drako");
    /// m.apply(&mut e)?;
    /// assert_eq!(e.get::<String>("Nickname").as_deref(), Some("drako"));
    /// assert!(!e.contains("Nick"));
    /// e.set("Nick", "again"); // both names now: the rename would overwrite `Nickname`
    /// assert!(matches!(m.apply(&mut e), Err(MigrateError::RenameConflict { .. })));
    /// # Ok::<(), tablekit::patterns::migrate::MigrateError>(())
    /// ```
    pub fn rename(mut self, from: impl Into<String>, to: impl Into<String>) -> Self {
        self.steps.push(Step::Rename(from.into(), to.into()));
        self
    }

    /// Removes these properties where present.
    ///
    /// ```
    /// use tablekit::DynamicEntity;
    /// use tablekit::patterns::migrate::Migration;
    /// let mut e = DynamicEntity::new("p", "r");
    /// e.set("Temp", 1);
    /// e.set("Keep", 2);
    /// let change = Migration::new().remove(["Temp", "Absent"]).apply(&mut e)?;
    /// assert_eq!(change.removed, ["Temp"]); // only what was there
    /// assert!(e.contains("Keep") && !e.contains("Temp"));
    /// # Ok::<(), tablekit::patterns::migrate::MigrateError>(())
    /// ```
    pub fn remove<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.steps
            .push(Step::Remove(names.into_iter().map(Into::into).collect()));
        self
    }

    /// Runs a closure on each entity (after the steps before it). It may change properties,
    /// not keys; an entity it leaves equal is not written.
    ///
    /// ```
    /// use tablekit::DynamicEntity;
    /// use tablekit::patterns::migrate::Migration;
    /// let m = Migration::new().map(|e| {
    ///     let cents: i64 = e.get_or("Price", 0.0f64).mul_add(100.0, 0.5) as i64;
    ///     e.set("PriceCents", cents);
    ///     e.remove("Price");
    /// });
    /// let mut e = DynamicEntity::new("p", "r");
    /// e.set("Price", 1.25);
    /// m.apply(&mut e)?;
    /// assert_eq!(e.get::<i64>("PriceCents"), Some(125));
    /// # Ok::<(), tablekit::patterns::migrate::MigrateError>(())
    /// ```
    pub fn map(mut self, f: impl Fn(&mut DynamicEntity) + Send + Sync + 'static) -> Self {
        self.steps.push(Step::Map(Arc::new(f)));
        self
    }

    /// Checks the migration before any entity is read: every target name is a valid property
    /// name, and no two kept properties end up with one name.
    ///
    /// ```
    /// use tablekit::patterns::migrate::Migration;
    /// assert!(Migration::new().rename("Nick", "Nickname").validate().is_ok());
    /// assert!(Migration::new().rename("Nick", "Nick name").validate().is_err());
    /// let clash = Migration::new().keep_only_renamed([("A", "X"), ("B", "X")]);
    /// assert!(clash.validate().is_err());
    /// ```
    pub fn validate(&self) -> Result<(), MigrateError> {
        for step in &self.steps {
            match step {
                Step::KeepOnly(pairs) => {
                    let mut targets = HashSet::new();
                    for (_, to) in pairs {
                        validate_property_name(to)?;
                        if !targets.insert(to.as_str()) {
                            return Err(InvalidInput::Other(format!(
                                "keep-only gives two properties the name `{to}`"
                            ))
                            .into());
                        }
                    }
                }
                Step::Rename(_, to) => validate_property_name(to)?,
                Step::Remove(_) | Step::Map(_) => {}
            }
        }
        Ok(())
    }

    /// Applies the migration to one entity in place, checks the result against the service's
    /// limits, and says what changed. On error the entity may be partly changed: apply to a
    /// copy when the original matters.
    ///
    /// ```
    /// use tablekit::DynamicEntity;
    /// use tablekit::patterns::migrate::{MigrateError, Migration};
    /// let mut e = DynamicEntity::new("p", "r");
    /// let change = Migration::new().map(|e| e.set("N", 1)).apply(&mut e)?;
    /// assert!(change.is_changed() && e.contains("N"));
    /// // A binary property over 64 KiB breaks a service limit: refused before any write.
    /// let bloat = Migration::new().map(|e| e.set("Blob", vec![0u8; 70_000]));
    /// assert!(matches!(bloat.apply(&mut e.clone()), Err(MigrateError::Invalid(_))));
    /// # Ok::<(), tablekit::patterns::migrate::MigrateError>(())
    /// ```
    pub fn apply(&self, entity: &mut DynamicEntity) -> Result<EntityChange, MigrateError> {
        let before = entity.clone();
        let mut change = EntityChange::default();
        for step in &self.steps {
            match step {
                Step::KeepOnly(pairs) => keep_only(entity, pairs, &mut change),
                Step::Rename(from, to) => rename(entity, from, to, &mut change)?,
                Step::Remove(names) => {
                    for name in names {
                        if entity.remove(name).is_some() {
                            change.removed.push(name.clone());
                        }
                    }
                }
                Step::Map(f) => {
                    f(entity);
                    if entity.partition_key() != before.partition_key()
                        || entity.row_key() != before.row_key()
                    {
                        return Err(MigrateError::KeysChanged {
                            partition_key: before.partition_key().to_owned(),
                            row_key: before.row_key().to_owned(),
                        });
                    }
                }
            }
        }
        change.changed = !same_properties(&before, entity);
        if change.changed {
            validate_entity(entity)?;
        }
        Ok(change)
    }
}

fn keep_only(entity: &mut DynamicEntity, pairs: &[(String, String)], change: &mut EntityChange) {
    let mut kept = Vec::new();
    for (from, to) in pairs {
        if let Some(value) = entity.remove(from) {
            if from != to {
                change.renamed.push((from.clone(), to.clone()));
            }
            kept.push((to.clone(), value));
        }
    }
    change
        .removed
        .extend(entity.properties().map(|(name, _)| name.to_owned()));
    entity.retain(|_, _| false);
    for (name, value) in kept {
        entity.set(name, value);
    }
}

fn rename(
    entity: &mut DynamicEntity,
    from: &str,
    to: &str,
    change: &mut EntityChange,
) -> Result<(), MigrateError> {
    if from == to || !entity.contains(from) {
        return Ok(());
    }
    if entity.contains(to) {
        return Err(MigrateError::RenameConflict {
            partition_key: entity.partition_key().to_owned(),
            row_key: entity.row_key().to_owned(),
            from: from.to_owned(),
            to: to.to_owned(),
        });
    }
    if let Some(value) = entity.remove(from) {
        entity.set(to, value);
        change.renamed.push((from.to_owned(), to.to_owned()));
    }
    Ok(())
}

/// Equal properties regardless of order (order is not stored by the service).
fn same_properties(a: &DynamicEntity, b: &DynamicEntity) -> bool {
    a.len() == b.len()
        && a.properties()
            .all(|(name, value)| b.value(name) == Some(value))
}

/// What a migration did to one entity.
///
/// ```
/// use tablekit::DynamicEntity;
/// use tablekit::patterns::migrate::Migration;
/// let mut e = DynamicEntity::new("p", "r");
/// let change = Migration::new().remove(["Gone"]).apply(&mut e)?;
/// assert!(!change.is_changed());
/// # Ok::<(), tablekit::patterns::migrate::MigrateError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct EntityChange {
    /// Whether the properties differ from before (only changed entities are written).
    pub changed: bool,
    /// Properties removed by keep-only or remove steps.
    pub removed: Vec<String>,
    /// Properties renamed, as `(from, to)`.
    pub renamed: Vec<(String, String)>,
}

impl EntityChange {
    /// Whether the entity needs writing.
    ///
    /// ```
    /// use tablekit::DynamicEntity;
    /// use tablekit::patterns::migrate::Migration;
    /// let m = Migration::new().remove(["Old"]);
    /// let mut current = DynamicEntity::new("p", "1");
    /// let mut outdated = DynamicEntity::new("p", "2");
    /// outdated.set("Old", 1);
    /// assert!(!m.apply(&mut current)?.is_changed());
    /// assert!(m.apply(&mut outdated)?.is_changed());
    /// # Ok::<(), tablekit::patterns::migrate::MigrateError>(())
    /// ```
    pub fn is_changed(&self) -> bool {
        self.changed
    }
}

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

/// Receives the token to resume from after each page.
type CheckpointFn = Arc<dyn Fn(&ContinuationToken) + Send + Sync>;

/// How a table walk runs: dry or for real, retry policy, resume point, progress, checkpoints.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let emulator = tablekit_testing::Emulator::start().await?;
/// # let client = emulator.client();
/// # let table = client.table_named::<tablekit::DynamicEntity>("Gamers");
/// # table.create().await?;
/// # for i in 0..5 {
/// #     let mut e = tablekit::DynamicEntity::new("g", format!("{i}"));
/// #     e.set("Legacy", true);
/// #     table.insert(&mut e).await?;
/// # }
/// use tablekit::patterns::migrate::{MigrateOptions, Migration};
/// use tablekit::Query;
/// // `table` holds five entities, each with a `Legacy` property.
/// let m = Migration::new().remove(["Legacy"]);
/// let dry = m.run(&table, Query::new(), MigrateOptions::new().dry_run(true)).await?;
/// let real = m.run(&table, Query::new(), MigrateOptions::new()).await?;
/// assert_eq!((dry.report.changed, real.report.changed), (5, 5));
/// let again = m.run(&table, Query::new(), MigrateOptions::new()).await?;
/// assert_eq!(again.report.unchanged, 5); // the real run wrote: nothing is left to change
/// # Ok(()) }
/// ```
#[derive(Clone, Default)]
pub struct MigrateOptions {
    dry_run: bool,
    retry: ConflictRetry,
    resume_from: Option<ContinuationToken>,
    progress: Option<Arc<dyn ProgressSink>>,
    checkpoint: Option<CheckpointFn>,
}

impl fmt::Debug for MigrateOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MigrateOptions")
            .field("dry_run", &self.dry_run)
            .field("retry", &self.retry)
            .field("resume_from", &self.resume_from)
            .finish_non_exhaustive()
    }
}

impl MigrateOptions {
    /// A real run from the start, with the default [`ConflictRetry`].
    ///
    /// ```
    /// use tablekit::patterns::migrate::MigrateOptions;
    /// let o = MigrateOptions::new().dry_run(true);
    /// assert!(o.is_dry_run());
    /// ```
    pub fn new() -> Self {
        MigrateOptions::default()
    }

    /// Reads and reports what would change, writes nothing.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let client = emulator.client();
    /// # let table = client.table_named::<tablekit::DynamicEntity>("Gamers");
    /// # table.create().await?;
    /// # for i in 0..5 {
    /// #     let mut e = tablekit::DynamicEntity::new("g", format!("{i}"));
    /// #     e.set("Legacy", true);
    /// #     table.insert(&mut e).await?;
    /// # }
    /// use tablekit::patterns::migrate::{MigrateOptions, Migration};
    /// use tablekit::Query;
    /// // `table` holds five entities, each with a `Legacy` property.
    /// let m = Migration::new().remove(["Legacy"]);
    /// let dry = m.run(&table, Query::new(), MigrateOptions::new().dry_run(true)).await?;
    /// assert_eq!((dry.report.changed, dry.report.removed["Legacy"]), (5, 5));
    /// assert!(table.get("g", "0").await?.unwrap().contains("Legacy")); // nothing written
    /// # Ok(()) }
    /// ```
    pub fn dry_run(mut self, dry: bool) -> Self {
        self.dry_run = dry;
        self
    }

    /// Whether this is a dry run.
    ///
    /// ```
    /// use tablekit::patterns::migrate::MigrateOptions;
    /// assert!(!MigrateOptions::new().is_dry_run()); // a real run unless asked
    /// assert!(MigrateOptions::new().dry_run(true).is_dry_run());
    /// ```
    pub fn is_dry_run(&self) -> bool {
        self.dry_run
    }

    /// The policy for writes that lose a race with another writer (412).
    ///
    /// ```
    /// use tablekit::patterns::conflict_retry::ConflictRetry;
    /// use tablekit::patterns::migrate::MigrateOptions;
    /// // Entities many writers touch: redo a lost race up to 100 times per entity.
    /// let options = MigrateOptions::new().retry(ConflictRetry::new().max_attempts(100)?);
    /// assert!(format!("{options:?}").contains("max_attempts: 100"));
    /// # Ok::<(), tablekit::InvalidInput>(())
    /// ```
    pub fn retry(mut self, policy: ConflictRetry) -> Self {
        self.retry = policy;
        self
    }

    /// Starts at a checkpoint of an earlier run instead of the beginning.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let client = emulator.client();
    /// # let table = client.table_named::<tablekit::DynamicEntity>("Gamers");
    /// # table.create().await?;
    /// # for i in 0..5 {
    /// #     let mut e = tablekit::DynamicEntity::new("g", format!("{i}"));
    /// #     e.set("Legacy", true);
    /// #     table.insert(&mut e).await?;
    /// # }
    /// use tablekit::patterns::migrate::{MigrateOptions, Migration};
    /// use tablekit::Query;
    /// // `table` holds five entities; a checkpoint after a first page of two:
    /// let first_page = table.query(Query::new().top(2)?).first_page().await?;
    /// let checkpoint = first_page.continuation().cloned().expect("more pages follow");
    /// let m = Migration::new().remove(["Legacy"]);
    /// let options = MigrateOptions::new().resume_from(checkpoint);
    /// let rest = m.run(&table, Query::new(), options).await?;
    /// assert_eq!(rest.report.scanned, 3);
    /// assert!(table.get("g", "0").await?.unwrap().contains("Legacy")); // before the checkpoint
    /// # Ok(()) }
    /// ```
    pub fn resume_from(mut self, token: ContinuationToken) -> Self {
        self.resume_from = Some(token);
        self
    }

    /// Reports progress (entities read) after each page.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let client = emulator.client();
    /// # let table = client.table_named::<tablekit::DynamicEntity>("Gamers");
    /// # table.create().await?;
    /// # for i in 0..5 {
    /// #     let mut e = tablekit::DynamicEntity::new("g", format!("{i}"));
    /// #     e.set("Legacy", true);
    /// #     table.insert(&mut e).await?;
    /// # }
    /// use std::sync::atomic::{AtomicU64, Ordering};
    /// use std::sync::Arc;
    /// use tablekit::patterns::migrate::{MigrateOptions, Migration};
    /// use tablekit::patterns::progress::Progress;
    /// use tablekit::Query;
    /// let read = Arc::new(AtomicU64::new(0));
    /// let sink = Arc::clone(&read);
    /// let options = MigrateOptions::new().progress(move |p: &Progress| {
    ///     sink.store(p.items(), Ordering::Relaxed);
    /// });
    /// Migration::new().remove(["Legacy"]).run(&table, Query::new(), options).await?;
    /// assert_eq!(read.load(Ordering::Relaxed), 5); // `table` holds five entities
    /// # Ok(()) }
    /// ```
    pub fn progress(mut self, sink: impl ProgressSink) -> Self {
        self.progress = Some(Arc::new(sink));
        self
    }

    /// Called after each page is fully processed with the token to resume from; persist it
    /// to survive a crash.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let client = emulator.client();
    /// # let table = client.table_named::<tablekit::DynamicEntity>("Gamers");
    /// # table.create().await?;
    /// # for i in 0..5 {
    /// #     let mut e = tablekit::DynamicEntity::new("g", format!("{i}"));
    /// #     e.set("Legacy", true);
    /// #     table.insert(&mut e).await?;
    /// # }
    /// use std::sync::{Arc, Mutex};
    /// use tablekit::patterns::migrate::{MigrateOptions, Migration};
    /// use tablekit::Query;
    /// let saved = Arc::new(Mutex::new(Vec::new()));
    /// let store = Arc::clone(&saved);
    /// let options = MigrateOptions::new().on_checkpoint(move |token| {
    ///     store.lock().unwrap().push(token.to_string()) // a file or a table in real use
    /// });
    /// let m = Migration::new().remove(["Legacy"]);
    /// let outcome = m.run(&table, Query::new().top(2)?, options).await?;
    /// assert_eq!(outcome.report.changed, 5);
    /// assert_eq!(saved.lock().unwrap().len(), 2); // pages of 2, 2 and 1: none after the last
    /// # Ok(()) }
    /// ```
    pub fn on_checkpoint(mut self, f: impl Fn(&ContinuationToken) + Send + Sync + 'static) -> Self {
        self.checkpoint = Some(Arc::new(f));
        self
    }
}

/// The result of a table walk: the totals, and where to resume if it stopped early.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # use tablekit_testing::{Fault, Faults, Operation};
/// # let emulator = tablekit_testing::Emulator::start().await?;
/// # let no_retries = tablekit::client::RetryPolicy::none();
/// # let client = emulator.client_builder().retry_policy(no_retries).build()?;
/// # client.create_table("Gamers").await?;
/// # for i in 0..6 {
/// #     let mut e = tablekit::DynamicEntity::new("g", format!("{i}"));
/// #     e.set("Legacy", true);
/// #     client.table_named::<tablekit::DynamicEntity>("Gamers").insert(&mut e).await?;
/// # }
/// # let faults = Faults::seeded(16).rate(Fault::ServerBusy, 0.3).only(&[Operation::Query]);
/// # emulator.set_faults(Some(faults));
/// use tablekit::patterns::migrate::{MigrateOptions, Migration, MigrationReport};
/// use tablekit::{DynamicEntity, Query};
/// // `Gamers` holds six entities with a `Legacy` property. Reading a page fails now and then
/// // (503 ServerBusy), and `client` does not retry: the loop resumes from the checkpoint.
/// let table = client.table_named::<DynamicEntity>("Gamers");
/// let m = Migration::new().remove(["Legacy"]);
/// let mut options = MigrateOptions::new();
/// let (mut runs, mut total) = (0, MigrationReport::default());
/// loop {
///     let outcome = m.run(&table, Query::new().top(2)?, options.clone()).await?;
///     runs += 1;
///     total.merge(outcome.report);
///     match (outcome.error, outcome.resume_from) {
///         (None, _) => break, // the end
///         (Some(e), _) if runs == 10 => return Err(e.into()), // give up
///         (Some(_), Some(token)) => options = options.resume_from(token), // try again from there
///         (Some(_), None) => {} // the first page failed: start over
///     }
/// }
/// println!("{total}");
/// assert!(runs > 1);
/// assert_eq!((total.scanned, total.changed), (6, 6)); // each entity once, across the runs
/// # Ok(()) }
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub struct MigrationOutcome {
    /// What changed (or would have, in a dry run).
    pub report: MigrationReport,
    /// The error that stopped the walk (reading a page failed), if any.
    pub error: Option<Error>,
    /// Where to resume: the checkpoint after the last fully processed page (`None` when the
    /// walk reached the end, or stopped on the first page).
    pub resume_from: Option<ContinuationToken>,
}

struct SharedSink(Arc<dyn ProgressSink>);

impl ProgressSink for SharedSink {
    fn report(&self, progress: &crate::patterns::progress::Progress) {
        self.0.report(progress)
    }
}

impl Migration {
    /// Walks every entity of `table` matching `query` and applies the migration, writing each
    /// changed entity with Replace and `If-Match` on the version read; when another writer got
    /// there first (412) the entity is read again and the migration re-applied. Entities are
    /// processed page by page; after each page the checkpoint callback gets the token to
    /// resume from. Unchanged entities are not written.
    ///
    /// The query must not `select` properties: a Replace of a partial entity would delete the
    /// rest, so such a query is refused before anything is read. Entities are handled as
    /// [`DynamicEntity`], so properties the model does not declare are kept.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// use tablekit::patterns::migrate::{MigrateOptions, Migration};
    /// use tablekit::{DynamicEntity, Query};
    /// # let client = emulator.client();
    /// let table = client.table_named::<DynamicEntity>("Gamers");
    /// # table.create().await?;
    /// # for (rk, nick) in [("1", Some("drako")), ("2", Some("kestrel")), ("3", None)] {
    /// #     let mut e = DynamicEntity::new("g", rk);
    /// #     if let Some(nick) = nick {
    /// #         e.set("Nick", nick);
    /// #     }
    /// #     table.insert(&mut e).await?;
    /// # }
    /// // `table` holds three gamers; ("g", "1") and ("g", "2") have a `Nick`.
    /// let m = Migration::new().rename("Nick", "Nickname");
    /// let dry = m.run(&table, Query::new(), MigrateOptions::new().dry_run(true)).await?;
    /// println!("would change {} of {}", dry.report.changed, dry.report.scanned);
    /// assert_eq!((dry.report.changed, dry.report.scanned), (2, 3));
    /// assert!(table.get("g", "1").await?.unwrap().contains("Nick")); // nothing written yet
    /// let done = m.run(&table, Query::new(), MigrateOptions::new()).await?;
    /// assert!(done.error.is_none());
    /// assert_eq!(done.report.changed, 2);
    /// let drako = table.get("g", "1").await?.unwrap();
    /// assert_eq!(drako.get::<String>("Nickname").as_deref(), Some("drako"));
    /// assert!(!drako.contains("Nick"));
    /// // A query that selects properties is refused: the Replace would drop the others.
    /// let partial = Query::new().select_names(["Nick"]);
    /// let refused = m.run(&table, partial, MigrateOptions::new()).await;
    /// assert!(refused.unwrap_err().is_invalid_input());
    /// # Ok(()) }
    /// ```
    pub async fn run<M: TableModel>(
        &self,
        table: &Table<M>,
        query: Query<M>,
        options: MigrateOptions,
    ) -> Result<MigrationOutcome> {
        self.validate()?;
        if query.select_list().is_some() {
            return Err(InvalidInput::Other(
                "a migration query cannot select properties: the Replace would drop the others"
                    .to_owned(),
            )
            .into());
        }
        let table: Table<DynamicEntity> = table.client().table_named(table.name());
        let mut dynamic_query = Query::<DynamicEntity>::new();
        if let Some(filter) = query.filter_string() {
            dynamic_query = dynamic_query.filter_raw(filter);
        }
        if let Some(top) = query.top_value() {
            dynamic_query = dynamic_query.top(top)?;
        }
        if let Some(take) = query.take_value() {
            dynamic_query = dynamic_query.take(take);
        }
        let mut walk = table.query(dynamic_query);
        if let Some(token) = options.resume_from.clone() {
            walk = walk.resume_from(token);
        }
        let counter = match &options.progress {
            Some(sink) => ProgressCounter::new(SharedSink(Arc::clone(sink))),
            None => ProgressCounter::new(NoProgress),
        };
        let mut outcome = MigrationOutcome {
            report: MigrationReport::default(),
            error: None,
            resume_from: options.resume_from.clone(),
        };
        let mut pages = walk.pages();
        loop {
            let page = match pages.try_next().await {
                Ok(Some(page)) => page,
                Ok(None) => {
                    outcome.resume_from = None;
                    break;
                }
                Err(e) => {
                    outcome.error = Some(e);
                    break;
                }
            };
            let next = page.continuation().cloned();
            let count = page.len() as u64;
            for entity in page.into_entities() {
                self.migrate_one(&table, entity, &options, &mut outcome.report)
                    .await;
            }
            counter.add(count, 0);
            outcome.resume_from = next.clone();
            if let (Some(token), Some(f)) = (&next, &options.checkpoint) {
                f(token);
            }
        }
        counter.finish();
        Ok(outcome)
    }

    /// Migrates one entity, re-reading and re-applying on 412.
    async fn migrate_one(
        &self,
        table: &Table<DynamicEntity>,
        mut entity: DynamicEntity,
        options: &MigrateOptions,
        report: &mut MigrationReport,
    ) {
        let mut attempt = 1;
        loop {
            let change = match self.apply(&mut entity) {
                Ok(change) => change,
                Err(e) => return report.record_failure(e),
            };
            if !change.changed || options.dry_run {
                return report.record(&entity, &change);
            }
            let error = match table.replace(&mut entity).await {
                Ok(()) => return report.record(&entity, &change),
                Err(e) => e,
            };
            let (pk, rk) = (
                entity.partition_key().to_owned(),
                entity.row_key().to_owned(),
            );
            if !error.is_precondition_failed() || attempt >= options.retry.attempts() {
                return report.record_failure(write_failure(&pk, &rk, &error));
            }
            report.conflicts_retried += 1;
            options.retry.pause(attempt).await;
            attempt += 1;
            entity = match table.get(&pk, &rk).await {
                Ok(Some(fresh)) => fresh,
                // Deleted by someone else meanwhile: nothing left to migrate.
                Ok(None) => return report.record(&entity, &EntityChange::default()),
                Err(e) => return report.record_failure(write_failure(&pk, &rk, &e)),
            };
        }
    }
}

fn write_failure(partition_key: &str, row_key: &str, error: &Error) -> MigrateError {
    MigrateError::Write {
        partition_key: partition_key.to_owned(),
        row_key: row_key.to_owned(),
        message: error.to_string(),
    }
}

/// An invalid migration is invalid input, as anywhere else; the other failures are the
/// migration's own, in [`Error::Pattern`].
impl From<MigrateError> for Error {
    fn from(error: MigrateError) -> Self {
        match error {
            MigrateError::Invalid(invalid) => Error::InvalidInput(invalid),
            other => Error::Pattern(Box::new(other)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::value::Value;
    use proptest::prelude::*;

    fn entity(props: &[(&str, i32)]) -> DynamicEntity {
        let mut e = DynamicEntity::new("p", "r");
        for (n, v) in props {
            e.set(*n, *v);
        }
        e
    }

    #[test]
    fn rename_refuses_to_overwrite() {
        let mut e = entity(&[("A", 1), ("B", 2)]);
        let err = Migration::new().rename("A", "B").apply(&mut e).unwrap_err();
        assert!(matches!(err, MigrateError::RenameConflict { .. }));
        assert!(err.to_string().contains("would overwrite"));
    }

    #[test]
    fn keep_only_swaps_names_without_losing_values() {
        let m = Migration::new().keep_only_renamed([("A", "B"), ("B", "A")]);
        m.validate().unwrap();
        let mut e = entity(&[("A", 1), ("B", 2), ("C", 3)]);
        let change = m.apply(&mut e).unwrap();
        assert_eq!(e.get::<i32>("A"), Some(2));
        assert_eq!(e.get::<i32>("B"), Some(1));
        assert_eq!(change.removed, vec!["C".to_owned()]);
    }

    #[test]
    fn keep_only_with_duplicate_targets_is_refused_up_front() {
        let m = Migration::new().keep_only_renamed([("A", "X"), ("B", "X")]);
        assert!(m.validate().is_err());
    }

    #[test]
    fn a_closure_cannot_move_an_entity() {
        let m = Migration::new().map(|e| e.set_row_key("other"));
        let err = m.apply(&mut entity(&[])).unwrap_err();
        assert!(matches!(err, MigrateError::KeysChanged { .. }));
    }

    #[test]
    fn a_result_over_the_limits_is_refused() {
        let m = Migration::new().map(|e| e.set("Big", vec![0u8; 70_000]));
        let err = m.apply(&mut entity(&[])).unwrap_err();
        assert!(matches!(
            err,
            MigrateError::Invalid(InvalidInput::BinaryTooLarge { .. })
        ));
    }

    #[test]
    fn reordering_is_not_a_change() {
        let m = Migration::new().map(|e| {
            let v = e.remove("A").unwrap_or(Value::Int32(0));
            e.set("A", v);
        });
        let change = m.apply(&mut entity(&[("A", 1), ("B", 2)])).unwrap();
        assert!(!change.is_changed());
    }

    proptest! {
        #[test]
        fn remove_then_keep_only_leaves_exactly_the_kept_present_names(
            names in proptest::collection::btree_set("[A-E]", 0..5),
            keep in proptest::collection::btree_set("[A-E]", 0..5),
        ) {
            let mut e = DynamicEntity::new("p", "r");
            for n in &names { e.set(n.as_str(), 1); }
            let change = Migration::new().keep_only(keep.iter().cloned()).apply(&mut e).unwrap();
            let left: std::collections::BTreeSet<String> = e.properties().map(|(n, _)| n.to_owned()).collect();
            let expected: std::collections::BTreeSet<String> = names.intersection(&keep).cloned().collect();
            prop_assert_eq!(&left, &expected);
            prop_assert_eq!(change.changed, names.len() != expected.len());
            prop_assert_eq!(change.removed.len(), names.len() - expected.len());
        }
    }
}
