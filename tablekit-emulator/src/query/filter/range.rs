//! The key range a filter's matches must lie in, read from its top-level `and` conjuncts
//! (`PartitionKey eq 'p' and RowKey ge 'a' and RowKey lt 'b'`), so a query seeks to its
//! first candidate and stops after its last instead of scanning the table.
//!
//! The range is a superset of the matches, never a subset: a conjunct it cannot use (under
//! an `or` or a `not`, a `ne`, a non-string literal) is skipped, and the whole filter is
//! still evaluated on every candidate.

use std::cmp::Ordering;
use std::ops::Bound;

use tablekit::query_plan::QueryPlan;
use tablekit::Value;

use super::parser::{Expr, Op, Operand};
use super::utf16_cmp;

/// Bounds on one key, in the service's (UTF-16) order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct KeyBounds {
    pub(crate) lower: Bound<String>,
    pub(crate) upper: Bound<String>,
}

impl Default for KeyBounds {
    fn default() -> Self {
        KeyBounds {
            lower: Bound::Unbounded,
            upper: Bound::Unbounded,
        }
    }
}

impl KeyBounds {
    /// The one value allowed, when the bounds are `ge x and le x` (or `eq x`).
    pub(crate) fn single(&self) -> Option<&str> {
        match (&self.lower, &self.upper) {
            (Bound::Included(a), Bound::Included(b)) if a == b => Some(a),
            _ => None,
        }
    }

    /// Whether `key` is past the upper bound (so is every later key).
    pub(crate) fn is_above(&self, key: &str) -> bool {
        match &self.upper {
            Bound::Unbounded => false,
            Bound::Included(upper) => utf16_cmp(key, upper).is_gt(),
            Bound::Excluded(upper) => utf16_cmp(key, upper).is_ge(),
        }
    }

    /// The smallest key the lower bound allows: `x` for `ge x`, the next string after `x`
    /// (`x` followed by U+0000, the smallest code unit) for `gt x`.
    pub(crate) fn first_key(&self) -> String {
        match &self.lower {
            Bound::Unbounded => String::new(),
            Bound::Included(lower) => lower.clone(),
            Bound::Excluded(lower) => format!("{lower}\0"),
        }
    }

    fn tighten(&mut self, op: Op, value: &str) {
        let included = || Bound::Included(value.to_owned());
        let excluded = || Bound::Excluded(value.to_owned());
        match op {
            Op::Eq => {
                self.raise(included());
                self.lower_top(included());
            }
            Op::Gt => self.raise(excluded()),
            Op::Ge => self.raise(included()),
            Op::Lt => self.lower_top(excluded()),
            Op::Le => self.lower_top(included()),
            Op::Ne => {}
        }
    }

    /// Keeps the higher of the two lower bounds.
    fn raise(&mut self, new: Bound<String>) {
        if tighter(&new, &self.lower, Ordering::Greater) {
            self.lower = new;
        }
    }

    /// Keeps the lower of the two upper bounds.
    fn lower_top(&mut self, new: Bound<String>) {
        if tighter(&new, &self.upper, Ordering::Less) {
            self.upper = new;
        }
    }
}

/// Whether bound `new` is stricter than `old`, where `direction` is the way values must
/// move to be stricter (`Greater` for lower bounds). At equal values `Excluded` is stricter.
fn tighter(new: &Bound<String>, old: &Bound<String>, direction: Ordering) -> bool {
    let value = |b: &Bound<String>| match b {
        Bound::Included(v) | Bound::Excluded(v) => Some(v.clone()),
        Bound::Unbounded => None,
    };
    match (value(new), value(old)) {
        (None, _) => false,
        (Some(_), None) => true,
        (Some(n), Some(o)) => match utf16_cmp(&n, &o) {
            Ordering::Equal => {
                matches!(new, Bound::Excluded(_)) && matches!(old, Bound::Included(_))
            }
            ord => ord == direction,
        },
    }
}

/// The bounds a filter puts on PartitionKey and RowKey.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct KeyRange {
    pub(crate) partition: KeyBounds,
    pub(crate) row: KeyBounds,
}

impl KeyRange {
    /// How the service finds the matches within these bounds.
    pub(crate) fn plan(&self) -> QueryPlan {
        let bounded = |b: &KeyBounds| b.lower != Bound::Unbounded || b.upper != Bound::Unbounded;
        match (self.partition.single(), self.row.single()) {
            (Some(pk), Some(rk)) => QueryPlan::PointRead {
                partition_key: pk.to_owned(),
                row_key: rk.to_owned(),
            },
            (Some(pk), None) if bounded(&self.row) => QueryPlan::RowRange {
                partition_key: pk.to_owned(),
            },
            (Some(pk), None) => QueryPlan::Partition {
                partition_key: pk.to_owned(),
            },
            (None, _) if bounded(&self.partition) => QueryPlan::PartitionRange,
            (None, _) => QueryPlan::TableScan,
        }
    }
}

/// Reads the bounds from the conjuncts reachable from the root through `and` only.
pub(crate) fn key_range(expr: &Expr) -> KeyRange {
    let mut range = KeyRange::default();
    collect(expr, &mut range);
    range
}

fn collect(expr: &Expr, range: &mut KeyRange) {
    match expr {
        Expr::And(a, b) => {
            collect(a, range);
            collect(b, range);
        }
        Expr::Compare(left, op, right) => {
            let (name, op, value) = match (left, right) {
                (Operand::Property(p), Operand::Literal(Value::String(v))) => (&p.name, *op, v),
                (Operand::Literal(Value::String(v)), Operand::Property(p)) => {
                    (&p.name, mirrored(*op), v)
                }
                _ => return,
            };
            match name.as_str() {
                "PartitionKey" => range.partition.tighten(op, value),
                "RowKey" => range.row.tighten(op, value),
                _ => {}
            }
        }
        // Anything else may hold for keys outside any bound it names.
        Expr::Or(..) | Expr::Not(_) | Expr::Truthy(_) => {}
    }
}

/// `'a' lt RowKey` is `RowKey gt 'a'`.
fn mirrored(op: Op) -> Op {
    match op {
        Op::Gt => Op::Lt,
        Op::Ge => Op::Le,
        Op::Lt => Op::Gt,
        Op::Le => Op::Ge,
        same => same,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::filter::ParsedFilter;

    fn range(text: &str) -> KeyRange {
        ParsedFilter::parse(text).unwrap().key_range()
    }

    fn inc(v: &str) -> Bound<String> {
        Bound::Included(v.to_owned())
    }

    fn exc(v: &str) -> Bound<String> {
        Bound::Excluded(v.to_owned())
    }

    #[test]
    fn conjuncts_narrow_both_keys() {
        let r = range("PartitionKey eq 'p' and RowKey ge 'a' and RowKey lt 'b'");
        assert_eq!(r.partition.single(), Some("p"));
        assert_eq!((r.row.lower, r.row.upper), (inc("a"), exc("b")));
        let r = range("'m' lt PartitionKey and (PartitionKey le 'x' and N eq 1)");
        assert_eq!((r.partition.lower, r.partition.upper), (exc("m"), inc("x")));
    }

    #[test]
    fn bounds_plan_as_the_service_seeks() {
        let plan = |text| ParsedFilter::parse(text).unwrap().plan().to_string();
        assert_eq!(
            plan("PartitionKey eq 'p' and RowKey eq 'r'"),
            r#"point read of ("p", "r")"#
        );
        assert_eq!(
            plan("PartitionKey eq 'p' and RowKey ge 'a' and Score gt 3"),
            r#"RowKey range in partition "p""#
        );
        assert_eq!(
            plan("PartitionKey eq 'p' and Score gt 3"),
            r#"whole partition "p""#
        );
        assert_eq!(
            plan("PartitionKey ge 'a' and PartitionKey lt 'b'"),
            "range of partitions"
        );
        assert!(ParsedFilter::parse("PartitionKey eq 'p' or RowKey eq 'r'")
            .unwrap()
            .plan()
            .is_table_scan());
        assert!(ParsedFilter::parse("RowKey eq 'r'")
            .unwrap()
            .plan()
            .is_table_scan());
    }

    #[test]
    fn the_tightest_bound_wins() {
        let r = range(
            "RowKey gt 'b' and RowKey ge 'b' and RowKey ge 'a' and RowKey lt 'z' and RowKey le 'y'",
        );
        assert_eq!((r.row.lower, r.row.upper), (exc("b"), inc("y")));
        // UTF-16 order: U+1F600 sorts before U+FF61.
        let r = range("RowKey lt '\u{FF61}' and RowKey lt '\u{1F600}'");
        assert_eq!(r.row.upper, exc("\u{1F600}"));
    }

    #[test]
    fn what_cannot_bound_the_keys_is_ignored() {
        for text in [
            "PartitionKey eq 'p' or RowKey eq 'r'",
            "not (PartitionKey eq 'p')",
            "PartitionKey ne 'p'",
            "PartitionKey eq 1",
            "Name eq 'p'",
        ] {
            assert_eq!(range(text), KeyRange::default(), "{text}");
        }
    }

    #[test]
    fn bounds_answer_seek_questions() {
        let r = range("RowKey gt 'a' and RowKey le 'c'");
        assert_eq!(r.row.first_key(), "a\0");
        assert!(!r.row.is_above("c"));
        assert!(r.row.is_above("c\0"));
        assert_eq!(KeyBounds::default().first_key(), "");
    }
}
