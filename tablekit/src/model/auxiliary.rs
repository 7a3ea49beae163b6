//! The rows a model keeps beside its entities (index rows, continuation rows): how they are
//! marked, and the error a typed read of one is.

use std::fmt;

use crate::values::entity::DynamicEntity;
use crate::values::value::Value;

/// Whether `entity` is a row a model keeps beside its entities (an index or continuation row).
pub(crate) fn is_auxiliary(entity: &DynamicEntity) -> bool {
    entity.value(AUXILIARY_PROPERTY).is_some()
}
/// The property that marks a row a model keeps beside its entities.
pub const AUXILIARY_PROPERTY: &str = "TablekitRow";

/// A row a model keeps beside its entities (an index row or a continuation row), met where an
/// entity of the model was expected. It converts into [`Error::AuxiliaryRow`](crate::Error::AuxiliaryRow).
///
/// ```
/// # use tablekit::prelude::*;
/// # #[derive(TableEntity)]
/// # #[tablekit(table = "Employees")]
/// # pub struct Employee {
/// #     #[tablekit(partition_key)]
/// #     pub department: String,
/// #     #[tablekit(row_key)]
/// #     pub id: String,
/// #     #[tablekit(index(unique))]
/// #     pub email: String,
/// # }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let emulator = tablekit_testing::Emulator::start().await?;
/// let table = emulator.client().table::<Employee>();
/// table.create().await?;
/// let mut kim = EmployeeEntity::new("Sales", "e-1");
/// kim.set_email("kim@example.com");
/// table.insert(&mut kim).await?;
/// let err = table.get("Sales", "email_kim@example.com").await.unwrap_err();
/// let Error::AuxiliaryRow(row) = &err else { panic!("{err}") };
/// assert_eq!(row.role, "index:email");
/// assert_eq!(
///     err.to_string(),
///     "row (Sales, email_kim@example.com) is not an entity: it is a model's `index:email` row"
/// );
/// # Ok(()) }
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub struct AuxiliaryRow {
    /// The row's PartitionKey.
    pub partition_key: String,
    /// The row's RowKey.
    pub row_key: String,
    /// What its [`AUXILIARY_PROPERTY`] says it is.
    pub role: String,
}

impl fmt::Display for AuxiliaryRow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let AuxiliaryRow {
            partition_key,
            row_key,
            role,
        } = self;
        write!(
            f,
            "row ({partition_key}, {row_key}) is not an entity: it is a model's `{role}` row"
        )
    }
}

impl AuxiliaryRow {
    /// The error for `row`, when it is a row a model keeps beside its entities.
    pub(crate) fn of(row: &DynamicEntity) -> Option<Self> {
        let role = match row.value(AUXILIARY_PROPERTY)? {
            Value::String(s) => s.to_string(),
            other => format!("a {} value", other.edm_type()),
        };
        Some(AuxiliaryRow {
            partition_key: row.partition_key().to_owned(),
            row_key: row.row_key().to_owned(),
            role,
        })
    }
}
