//! The change as a value: a [`Migration`]'s steps, checked before anything is read and
//! applied to one entity at a time, with the [`EntityChange`] each made.

use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;

use super::MigrateError;
use crate::client::error::Result;
use crate::protocol::limits::{validate_entity, validate_property_name, InvalidInput};
use crate::values::entity::DynamicEntity;

pub(super) type EntityFn = Arc<dyn Fn(&mut DynamicEntity) + Send + Sync>;

#[derive(Clone)]
pub(super) enum Step {
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

pub(super) fn keep_only(
    entity: &mut DynamicEntity,
    pairs: &[(String, String)],
    change: &mut EntityChange,
) {
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

pub(super) fn rename(
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
pub(super) fn same_properties(a: &DynamicEntity, b: &DynamicEntity) -> bool {
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
