//! Drift of an entity family: each row checked against the model of the kind it holds.

use std::fmt;

use serde::Serialize;

use super::drift::{check_model, keys_text, DriftReport, ModelFields, EXAMPLES};
use crate::model::auxiliary::is_auxiliary;
use crate::values::entity::DynamicEntity;

/// Checks a sample of a family's table kind by kind: every row goes to the first kind
/// ([`kind`](Self::kind)) whose discriminator it holds and is checked against that model
/// with [`check_model`]; index and continuation rows (the rows models keep beside their
/// entities) are counted and skipped; rows of no kind are reported, as a read of the family
/// fails on them unless it has an `other` variant ([`other`](Self::other)).
///
/// ```
/// use tablekit::prelude::*;
/// use tablekit::insight::FamilyCheck;
///
/// #[derive(TableEntity)]
/// #[tablekit(kind = "Customer")]
/// pub struct Customer {
///     #[tablekit(partition_key)]
///     pub customer: String,
///     #[tablekit(row_key)]
///     pub id: String,
///     pub name: String,
/// }
///
/// #[derive(TableEntity)]
/// #[tablekit(kind = "Order")]
/// pub struct Order {
///     #[tablekit(partition_key)]
///     pub customer: String,
///     #[tablekit(row_key)]
///     pub id: String,
///     pub total_cents: i64,
/// }
///
/// let row = |kind: &str, id: &str| {
///     let mut e = DynamicEntity::new("bob", id);
///     e.set("Kind", kind);
///     e.set("Customer", "bob");
///     e.set("Id", id);
///     e
/// };
/// let mut bob = row("Customer", "profile");
/// bob.set("Name", "Bob");
/// let mut order = row("Order", "o-1");
/// order.set("TotalCents", "12.50"); // written as text by another program
/// let refund = row("Refund", "r-1"); // a kind the family does not know
///
/// let report = FamilyCheck::new(&[bob, order, refund]).kind::<Customer>().kind::<Order>().finish();
/// assert!(report.kinds[0].is_clean());
/// assert_eq!(report.kinds[1].unreadable[0].field, "total_cents");
/// assert_eq!(report.unclaimed.rows, 1);
/// assert!(report.fails_reads());
/// assert!(report.to_string().contains("rows of no kind: 1, e.g. (\"bob\", \"r-1\")"));
/// ```
#[derive(Debug)]
pub struct FamilyCheck<'a> {
    entities: &'a [DynamicEntity],
    /// Whether each entity was taken by a kind (or is a helper row).
    taken: Vec<bool>,
    report: FamilyReport,
}

impl<'a> FamilyCheck<'a> {
    /// A check of `entities`, a sample of the family's table (such as
    /// [`sample`](super::sample)'s, or every row of a partition).
    ///
    /// ```
    /// use tablekit::insight::FamilyCheck;
    /// use tablekit::DynamicEntity;
    /// let report = FamilyCheck::new(&[DynamicEntity::new("p", "r")]).finish();
    /// assert_eq!(report.unclaimed.rows, 1); // no kind named yet
    /// ```
    pub fn new(entities: &'a [DynamicEntity]) -> Self {
        let taken: Vec<bool> = entities.iter().map(is_auxiliary).collect();
        let report = FamilyReport {
            helper_rows: taken.iter().filter(|t| **t).count(),
            ..FamilyReport::default()
        };
        FamilyCheck {
            entities,
            taken,
            report,
        }
    }

    /// Checks the rows of `M`'s kind against `M`, in the order the kinds are named: a model
    /// without a kind takes every row no kind named before it took.
    ///
    /// ```
    /// use tablekit::prelude::*;
    /// use tablekit::insight::FamilyCheck;
    /// #[derive(TableEntity)]
    /// pub struct Anything {
    ///     #[tablekit(partition_key)]
    ///     pub tag: String,
    /// }
    /// let report = FamilyCheck::new(&[DynamicEntity::new("p", "r")]).kind::<Anything>().finish();
    /// assert_eq!((report.kinds[0].sampled, report.unclaimed.rows), (1, 0));
    /// ```
    pub fn kind<M: ModelFields>(mut self) -> Self {
        // The helper rows go along: a kind's continuation rows complete its values.
        let mut rows: Vec<DynamicEntity> = self
            .entities
            .iter()
            .filter(|e| is_auxiliary(e))
            .cloned()
            .collect();
        for (entity, taken) in self.entities.iter().zip(&mut self.taken) {
            if !*taken && M::DISCRIMINATOR.is_none_or(|d| d.matches(entity)) {
                *taken = true;
                rows.push(entity.clone());
            }
        }
        self.report.kinds.push(check_model::<M>(&rows, None));
        self
    }

    /// The family has an `other` variant: rows of no kind read as they are, so they are
    /// reported but fail no read.
    ///
    /// ```
    /// use tablekit::insight::FamilyCheck;
    /// use tablekit::DynamicEntity;
    /// let report = FamilyCheck::new(&[DynamicEntity::new("p", "r")]).other().finish();
    /// assert_eq!(report.unclaimed.rows, 1);
    /// assert!(!report.fails_reads());
    /// ```
    pub fn other(mut self) -> Self {
        self.report.other = true;
        self
    }

    /// The report.
    ///
    /// ```
    /// use tablekit::insight::FamilyCheck;
    /// let report = FamilyCheck::new(&[]).finish();
    /// assert!(report.is_clean());
    /// ```
    pub fn finish(mut self) -> FamilyReport {
        for (entity, taken) in self.entities.iter().zip(&self.taken) {
            if !taken {
                self.report.unclaimed.add(entity);
            }
        }
        self.report
    }
}

/// Rows no kind of the family took.
///
/// ```
/// use tablekit::insight::FamilyCheck;
/// use tablekit::DynamicEntity;
/// let report = FamilyCheck::new(&[DynamicEntity::new("p", "r")]).finish();
/// assert_eq!(report.unclaimed.examples, [("p".to_owned(), "r".to_owned())]);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct UnclaimedRows {
    /// How many.
    pub rows: usize,
    /// The keys of a few of them (PartitionKey, RowKey).
    pub examples: Vec<(String, String)>,
}

impl UnclaimedRows {
    fn add(&mut self, entity: &DynamicEntity) {
        self.rows += 1;
        if self.examples.len() < EXAMPLES {
            self.examples.push((
                entity.partition_key().to_owned(),
                entity.row_key().to_owned(),
            ));
        }
    }
}

/// What differs between a family and a sample of its table: one [`DriftReport`] per kind,
/// and the rows of no kind. `Display` writes it for people, `serde_json` for CI.
///
/// ```
/// use tablekit::insight::FamilyCheck;
/// use tablekit::DynamicEntity;
/// let report = FamilyCheck::new(&[DynamicEntity::new("p", "r")]).finish();
/// let json = serde_json::to_value(&report).unwrap();
/// assert_eq!(json["unclaimed"]["rows"], 1);
/// assert_eq!(json["helper_rows"], 0);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct FamilyReport {
    /// One report per kind, in the order they were named.
    pub kinds: Vec<DriftReport>,
    /// Index and continuation rows, skipped.
    pub helper_rows: usize,
    /// Rows of no kind.
    pub unclaimed: UnclaimedRows,
    /// Whether the family reads rows of no kind as they are (an `other` variant).
    pub other: bool,
}

impl FamilyReport {
    /// Whether a read of some sampled row would fail or lose values: a kind's
    /// [`fails_reads`](DriftReport::fails_reads), or a row of no kind without an `other`
    /// variant to take it.
    pub fn fails_reads(&self) -> bool {
        self.kinds.iter().any(DriftReport::fails_reads) || (self.unclaimed.rows > 0 && !self.other)
    }

    /// Whether nothing differs at all.
    pub fn is_clean(&self) -> bool {
        self.kinds.iter().all(DriftReport::is_clean) && self.unclaimed.rows == 0
    }
}

impl fmt::Display for FamilyReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for kind in &self.kinds {
            kind.fmt(f)?;
        }
        if self.helper_rows > 0 {
            writeln!(
                f,
                "index and continuation rows skipped: {}",
                self.helper_rows
            )?;
        }
        if self.unclaimed.rows > 0 {
            let reads = if self.other {
                "read by the `other` variant"
            } else {
                "a read of the family fails on them"
            };
            writeln!(
                f,
                "rows of no kind: {}, e.g. {}: {reads}",
                self.unclaimed.rows,
                keys_text(&self.unclaimed.examples)
            )?;
        }
        Ok(())
    }
}
