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

// The change itself, its report, and the walk over a table.
mod plan;
mod report;
mod run;

pub use plan::{EntityChange, Migration};
pub use report::{MigrationReport, MAX_REPORTED_EXAMPLES, MAX_REPORTED_FAILURES};
pub use run::{MigrateOptions, MigrationOutcome};

use crate::client::error::Error;
use crate::protocol::limits::InvalidInput;

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
