//! Evaluates a filter against one entity with the service's typing rules.
//!
//! A comparison holds only when both sides have the same EDM type: `N eq 5L` does not match
//! an Int32 `N`, `RowKey eq 1` matches nothing, and a missing property makes a comparison
//! false (so `not (Missing eq 1)` is true). Strings compare by UTF-16 code units, as .NET does.

use std::cmp::Ordering;

use chrono::{DateTime, Utc};
use tablekit::Value;

use super::parser::{Expr, Op, Operand};

/// A value a filter can read: a key or table name (text), a property, or the Timestamp.
#[derive(Clone, Copy, Debug)]
pub enum Field<'a> {
    /// `PartitionKey`, `RowKey` or `TableName`.
    Text(&'a str),
    /// A stored property.
    Value(&'a Value),
    /// The `Timestamp`.
    Time(DateTime<Utc>),
}

/// Something a filter is evaluated against: an entity, or a table in the table listing.
pub trait Subject {
    /// The value of `name`, or `None` when the subject has no such property.
    fn field(&self, name: &str) -> Option<Field<'_>>;
}

/// Whether `expr` holds for `subject`.
pub(crate) fn eval(expr: &Expr, subject: &dyn Subject) -> bool {
    match expr {
        Expr::And(a, b) => eval(a, subject) && eval(b, subject),
        Expr::Or(a, b) => eval(a, subject) || eval(b, subject),
        Expr::Not(inner) => !eval(inner, subject),
        Expr::Truthy(operand) => matches!(
            resolve(operand, subject),
            Some(Field::Value(Value::Bool(true)))
        ),
        Expr::Compare(left, op, right) => match (resolve(left, subject), resolve(right, subject)) {
            (Some(l), Some(r)) => compare(l, r).is_some_and(|ord| holds(*op, ord)),
            _ => false,
        },
    }
}

fn resolve<'a>(operand: &'a Operand, subject: &'a dyn Subject) -> Option<Field<'a>> {
    match operand {
        Operand::Literal(value) => Some(Field::Value(value)),
        Operand::Property(name) => subject.field(name),
    }
}

fn holds(op: Op, ord: Ordering) -> bool {
    match op {
        Op::Eq => ord == Ordering::Equal,
        Op::Ne => ord != Ordering::Equal,
        Op::Gt => ord == Ordering::Greater,
        Op::Ge => ord != Ordering::Less,
        Op::Lt => ord == Ordering::Less,
        Op::Le => ord != Ordering::Greater,
    }
}

/// Orders two fields of the same EDM type; `None` when the types differ (or for NaN).
fn compare(left: Field<'_>, right: Field<'_>) -> Option<Ordering> {
    match (left, right) {
        (Field::Text(a), Field::Text(b)) => Some(utf16_cmp(a, b)),
        (Field::Text(a), Field::Value(Value::String(b))) => Some(utf16_cmp(a, b)),
        (Field::Value(Value::String(a)), Field::Text(b)) => Some(utf16_cmp(a, b)),
        (Field::Time(a), Field::Time(b)) => Some(a.cmp(&b)),
        (Field::Time(a), Field::Value(Value::DateTime(b))) => Some(a.cmp(b)),
        (Field::Value(Value::DateTime(a)), Field::Time(b)) => Some(a.cmp(&b)),
        (Field::Value(a), Field::Value(b)) => compare_values(a, b),
        _ => None,
    }
}

fn compare_values(a: &Value, b: &Value) -> Option<Ordering> {
    match (a, b) {
        (Value::Bool(a), Value::Bool(b)) => Some(a.cmp(b)),
        (Value::Int32(a), Value::Int32(b)) => Some(a.cmp(b)),
        (Value::Int64(a), Value::Int64(b)) => Some(a.cmp(b)),
        (Value::Double(a), Value::Double(b)) => a.partial_cmp(b),
        (Value::DateTime(a), Value::DateTime(b)) => Some(a.cmp(b)),
        (Value::Guid(a), Value::Guid(b)) => Some(a.cmp(b)),
        (Value::String(a), Value::String(b)) => Some(utf16_cmp(a, b)),
        (Value::Binary(a), Value::Binary(b)) => Some(a.cmp(b)),
        _ => None,
    }
}

/// Ordinal comparison by UTF-16 code units: the service's (and .NET's) string order, which
/// differs from Rust's byte order for characters above U+FFFF.
pub fn utf16_cmp(a: &str, b: &str) -> Ordering {
    // Equal prefixes are common (shared key prefixes): skip them cheaply on bytes first.
    let common = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    // Back up to a character boundary so the UTF-16 walk starts on whole characters.
    let mut start = common;
    while start > 0 && !a.is_char_boundary(start) {
        start -= 1;
    }
    let (Some(ra), Some(rb)) = (a.get(start..), b.get(start..)) else {
        return a.encode_utf16().cmp(b.encode_utf16());
    };
    ra.encode_utf16().cmp(rb.encode_utf16())
}
