//! Evaluates a filter against one entity with the service's typing rules.
//!
//! A comparison holds only when both sides have the same EDM type: `N eq 5L` does not match
//! an Int32 `N`, `RowKey eq 1` matches nothing, and a missing property makes a comparison
//! false (so `not (Missing eq 1)` is true). Strings compare by UTF-16 code units, as .NET does.
//!
//! Doubles compare as IEEE 754 says. Azure's "Querying tables and entities" says nothing of
//! NaN, and OData 4.01's URL conventions take IEEE 754's rules: NaN is unordered, so `ne`
//! holds with NaN on either side (even against NaN) and `eq`, `lt`, `le`, `gt`, `ge` never
//! do, which keeps `ne` the same as `not (.. eq ..)`. `-0.0` equals `0.0`; the infinities
//! order below and above every other number.

use std::cmp::Ordering;
use std::sync::atomic::Ordering::Relaxed;

use chrono::{DateTime, Utc};
use tablekit::value::utf16_cmp;
use tablekit::Value;

use super::parser::{Expr, Op, Operand, Property};

/// A value a filter can read: a key or table name (text), a property, or the Timestamp.
///
/// ```
/// use tablekit::{DynamicEntity, Value};
/// use tablekit_emulator::filter::{Field, Subject};
/// let mut e = DynamicEntity::new("p", "r");
/// e.set("Score", 30);
/// assert!(matches!(e.field("PartitionKey"), Some(Field::Text("p"))));
/// assert!(matches!(e.field("Score"), Some(Field::Value(Value::Int32(30)))));
/// assert!(e.field("Timestamp").is_none()); // stamped only when stored
/// ```
#[derive(Clone, Debug)]
pub enum Field<'a> {
    /// `PartitionKey`, `RowKey` or `TableName`, or a String property's text.
    Text(&'a str),
    /// A stored property.
    Value(&'a Value),
    /// A property read out of a stored form that does not hold it as a [`Value`].
    Owned(Value),
    /// The `Timestamp`.
    Time(DateTime<Utc>),
}

impl Field<'_> {
    /// The field, borrowing an owned value.
    fn view(&self) -> Field<'_> {
        match self {
            Field::Text(text) => Field::Text(text),
            Field::Value(value) => Field::Value(value),
            Field::Owned(value) => Field::Value(value),
            Field::Time(time) => Field::Time(*time),
        }
    }
}

/// How a value compares with another: which comparison operators hold.
///
/// ```
/// use std::cmp::Ordering;
/// use tablekit::{DynamicEntity, Value};
/// use tablekit_emulator::filter::{Comparison, Subject};
/// let mut e = DynamicEntity::new("p", "r");
/// e.set("D", f64::NAN);
/// e.set("N", 5);
/// let nan = e.compare_near("D", 0, &Value::Double(1.5)).map(|(c, _)| c);
/// assert_eq!(nan, Some(Comparison::Unordered)); // only `ne` holds
/// let five = e.compare_near("N", 0, &Value::Int32(7)).map(|(c, _)| c);
/// assert_eq!(five, Some(Comparison::Ordered(Ordering::Less)));
/// let other_type = e.compare_near("N", 0, &Value::Int64(5)).map(|(c, _)| c);
/// assert_eq!(other_type, Some(Comparison::Mismatched)); // nothing holds, not even `ne`
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Comparison {
    /// Values of one EDM type, in this order.
    Ordered(Ordering),
    /// Doubles with a NaN on either side: unordered, so only `ne` holds (IEEE 754).
    Unordered,
    /// Values of different EDM types: no comparison holds, not even `ne`.
    Mismatched,
}

impl Comparison {
    /// The comparison seen from the other side: `a < b` is `b > a`.
    ///
    /// ```
    /// use std::cmp::Ordering;
    /// use tablekit_emulator::filter::Comparison;
    /// let less = Comparison::Ordered(Ordering::Less);
    /// assert_eq!(less.reverse(), Comparison::Ordered(Ordering::Greater));
    /// assert_eq!(Comparison::Unordered.reverse(), Comparison::Unordered);
    /// ```
    pub fn reverse(self) -> Comparison {
        match self {
            Comparison::Ordered(ord) => Comparison::Ordered(ord.reverse()),
            other => other,
        }
    }

    /// Whether the values are of one EDM type and equal.
    fn is_equal(self) -> bool {
        self == Comparison::Ordered(Ordering::Equal)
    }
}

/// Something a filter is evaluated against: an entity, or a table in the table listing.
///
/// ```
/// use tablekit_emulator::filter::{Field, ParsedFilter, Subject};
///
/// /// A table of the table listing: only `TableName` can be read.
/// struct Listed(String);
///
/// impl Subject for Listed {
///     fn field(&self, name: &str) -> Option<Field<'_>> {
///         (name == "TableName").then_some(Field::Text(&self.0))
///     }
/// }
///
/// let f = ParsedFilter::parse("TableName ge 'G' and TableName lt 'H'")?;
/// assert!(f.matches(&Listed("Gamers".into())));
/// assert!(!f.matches(&Listed("Orders".into())));
/// # Ok::<(), tablekit_emulator::filter::FilterError>(())
/// ```
pub trait Subject {
    /// The value of `name`, or `None` when the subject has no such property.
    ///
    /// ```
    /// use tablekit::prelude::*;
    /// use tablekit_emulator::filter::{Field, Subject};
    /// let mut e = DynamicEntity::new("p", "r");
    /// e.set_timestamp(Some(DateTime::UNIX_EPOCH));
    /// e.set("Name", "Ann");
    /// assert!(matches!(e.field("RowKey"), Some(Field::Text("r"))));
    /// assert!(matches!(e.field("Timestamp"), Some(Field::Time(t)) if t == DateTime::UNIX_EPOCH));
    /// assert!(matches!(e.field("Name"), Some(Field::Value(Value::String(s))) if s == "Ann"));
    /// assert!(e.field("name").is_none()); // names are case-sensitive
    /// ```
    fn field(&self, name: &str) -> Option<Field<'_>>;

    /// [`field`](Self::field) for a reader that remembers where the last subject had `name`
    /// (`hint`): the value and where this subject has it. The provided method ignores the
    /// hint; a subject with many properties looks there first.
    ///
    /// ```
    /// use tablekit::{DynamicEntity, Value};
    /// use tablekit_emulator::filter::{Field, Subject};
    /// let mut e = DynamicEntity::new("p", "r");
    /// e.set("A", 1);
    /// e.set("B", 2);
    /// // A stale hint still finds the property, and says where it is.
    /// let (field, at) = e.field_near("B", 0).unwrap();
    /// assert!(matches!(field, Field::Value(Value::Int32(2))));
    /// assert_eq!(at, 1);
    /// assert!(e.field_near("C", 1).is_none());
    /// ```
    fn field_near(&self, name: &str, hint: usize) -> Option<(Field<'_>, usize)> {
        self.field(name).map(|field| (field, hint))
    }

    /// How property `name` (looked for first at `hint`, like [`field_near`](Self::field_near))
    /// compares with `literal`, and where the subject has it: `None` when the subject has no
    /// such property. The provided method reads the field and compares; a stored form can
    /// compare in place, without building a [`Value`].
    ///
    /// ```
    /// use std::cmp::Ordering;
    /// use tablekit::{DynamicEntity, Value};
    /// use tablekit_emulator::filter::{Comparison, Subject};
    /// let mut e = DynamicEntity::new("p", "r");
    /// e.set("Score", 30);
    /// let less = Comparison::Ordered(Ordering::Less);
    /// assert_eq!(e.compare_near("Score", 0, &Value::Int32(40)), Some((less, 0)));
    /// let other_type = e.compare_near("Score", 0, &Value::Int64(40)); // Int32 is not Int64
    /// assert_eq!(other_type, Some((Comparison::Mismatched, 0)));
    /// assert_eq!(e.compare_near("Missing", 0, &Value::Int32(40)), None);
    /// ```
    fn compare_near(
        &self,
        name: &str,
        hint: usize,
        literal: &Value,
    ) -> Option<(Comparison, usize)> {
        compare_by_field(self, name, hint, literal)
    }
}

/// [`Subject::compare_near`] by reading the field and comparing it: what a subject does for
/// the names it has no faster way to compare.
pub(crate) fn compare_by_field<S: Subject + ?Sized>(
    subject: &S,
    name: &str,
    hint: usize,
    literal: &Value,
) -> Option<(Comparison, usize)> {
    let (field, at) = subject.field_near(name, hint)?;
    Some((compare_field(&field, literal), at))
}

/// How `field` compares with `literal`.
pub(crate) fn compare_field(field: &Field<'_>, literal: &Value) -> Comparison {
    compare(field.view(), Field::Value(literal))
}

/// Whether `expr` holds for `subject`.
pub(crate) fn eval(expr: &Expr, subject: &dyn Subject) -> bool {
    match expr {
        Expr::And(a, b) => eval(a, subject) && eval(b, subject),
        Expr::Or(a, b) => eval(a, subject) || eval(b, subject),
        Expr::Not(inner) => !eval(inner, subject),
        Expr::Truthy(Operand::Property(property)) => {
            compare_property(property, &TRUE, subject).is_some_and(Comparison::is_equal)
        }
        Expr::Truthy(Operand::Literal(value)) => *value == TRUE,
        // A property against a literal, the usual comparison, is compared in place.
        Expr::Compare(Operand::Property(property), op, Operand::Literal(literal)) => {
            compare_property(property, literal, subject).is_some_and(|c| holds(*op, c))
        }
        Expr::Compare(Operand::Literal(literal), op, Operand::Property(property)) => {
            compare_property(property, literal, subject).is_some_and(|c| holds(*op, c.reverse()))
        }
        Expr::Compare(left, op, right) => match (resolve(left, subject), resolve(right, subject)) {
            (Some(l), Some(r)) => holds(*op, compare(l.view(), r.view())),
            _ => false,
        },
    }
}

const TRUE: Value = Value::Bool(true);

/// How `property` of `subject` compares with `literal`; `None` when the subject lacks it.
/// Remembers where the property was found.
fn compare_property(
    property: &Property,
    literal: &Value,
    subject: &dyn Subject,
) -> Option<Comparison> {
    near(property, |name, hint| {
        subject.compare_near(name, hint, literal)
    })
}

/// What `find` reads of `property`, given where the last subject had it; remembers where
/// this subject has it.
fn near<T>(property: &Property, find: impl FnOnce(&str, usize) -> Option<(T, usize)>) -> Option<T> {
    let hint = property.hint.load(Relaxed);
    let (found, at) = find(&property.name, hint)?;
    if at != hint {
        property.hint.store(at, Relaxed);
    }
    Some(found)
}

/// A subject that can start loading a property's value into cache, given where the last
/// subject had it.
pub(crate) trait Prefetch {
    fn prefetch(&self, hint: usize);
}

/// Starts loading the values `expr` reads from `entity`, at the places the last subject had
/// them, so that evaluating it a little later finds them in cache.
pub(crate) fn prefetch(expr: &Expr, entity: &impl Prefetch) {
    match expr {
        Expr::And(a, b) | Expr::Or(a, b) => {
            prefetch(a, entity);
            prefetch(b, entity);
        }
        Expr::Not(inner) => prefetch(inner, entity),
        Expr::Truthy(operand) => prefetch_operand(operand, entity),
        Expr::Compare(left, _, right) => {
            prefetch_operand(left, entity);
            prefetch_operand(right, entity);
        }
    }
}

fn prefetch_operand(operand: &Operand, entity: &impl Prefetch) {
    if let Operand::Property(property) = operand {
        entity.prefetch(property.hint.load(Relaxed));
    }
}

fn resolve<'a>(operand: &'a Operand, subject: &'a dyn Subject) -> Option<Field<'a>> {
    match operand {
        Operand::Literal(value) => Some(Field::Value(value)),
        Operand::Property(property) => near(property, |name, hint| subject.field_near(name, hint)),
    }
}

/// Whether `op` holds for two values that compare as `comparison`.
fn holds(op: Op, comparison: Comparison) -> bool {
    let ord = match comparison {
        Comparison::Ordered(ord) => ord,
        // Unordered values (a NaN) differ, and are neither less nor greater.
        Comparison::Unordered => return op == Op::Ne,
        Comparison::Mismatched => return false,
    };
    match op {
        Op::Eq => ord == Ordering::Equal,
        Op::Ne => ord != Ordering::Equal,
        Op::Gt => ord == Ordering::Greater,
        Op::Ge => ord != Ordering::Less,
        Op::Lt => ord == Ordering::Less,
        Op::Le => ord != Ordering::Greater,
    }
}

/// How two fields compare: ordered when they have one EDM type.
fn compare(left: Field<'_>, right: Field<'_>) -> Comparison {
    let ord = match (left, right) {
        (Field::Text(a), Field::Text(b)) => utf16_cmp(a, b),
        (Field::Text(a), Field::Value(Value::String(b))) => utf16_cmp(a, b),
        (Field::Value(Value::String(a)), Field::Text(b)) => utf16_cmp(a, b),
        (Field::Time(a), Field::Time(b)) => a.cmp(&b),
        (Field::Time(a), Field::Value(Value::DateTime(b))) => a.cmp(b),
        (Field::Value(Value::DateTime(a)), Field::Time(b)) => a.cmp(&b),
        (Field::Value(a), Field::Value(b)) => return compare_values(a, b),
        _ => return Comparison::Mismatched,
    };
    Comparison::Ordered(ord)
}

fn compare_values(a: &Value, b: &Value) -> Comparison {
    let ord = match (a, b) {
        (Value::Bool(a), Value::Bool(b)) => a.cmp(b),
        (Value::Int32(a), Value::Int32(b)) => a.cmp(b),
        (Value::Int64(a), Value::Int64(b)) => a.cmp(b),
        (Value::Double(a), Value::Double(b)) => return compare_doubles(*a, *b),
        (Value::DateTime(a), Value::DateTime(b)) => a.cmp(b),
        (Value::Guid(a), Value::Guid(b)) => a.cmp(b),
        (Value::String(a), Value::String(b)) => utf16_cmp(a, b),
        (Value::Binary(a), Value::Binary(b)) => a.cmp(b),
        _ => return Comparison::Mismatched,
    };
    Comparison::Ordered(ord)
}

/// IEEE 754's comparison (see the module docs): NaN is unordered, `-0.0` equals `0.0`.
fn compare_doubles(a: f64, b: f64) -> Comparison {
    a.partial_cmp(&b)
        .map_or(Comparison::Unordered, Comparison::Ordered)
}
