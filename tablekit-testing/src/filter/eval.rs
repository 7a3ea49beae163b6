//! Evaluates a filter against one entity with the service's typing rules.
//!
//! A comparison holds only when both sides have the same EDM type: `N eq 5L` does not match
//! an Int32 `N`, `RowKey eq 1` matches nothing, and a missing property makes a comparison
//! false (so `not (Missing eq 1)` is true). Strings compare by UTF-16 code units, as .NET does.

use std::cmp::Ordering;
use std::sync::atomic::Ordering::Relaxed;

use chrono::{DateTime, Utc};
use tablekit::Value;

use super::parser::{Expr, Op, Operand, Property};

/// A value a filter can read: a key or table name (text), a property, or the Timestamp.
///
/// ```
/// use tablekit::{DynamicEntity, Value};
/// use tablekit_testing::filter::{Field, Subject};
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

/// Something a filter is evaluated against: an entity, or a table in the table listing.
///
/// ```
/// use tablekit_testing::filter::{Field, Filter, Subject};
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
/// let f = Filter::parse("TableName ge 'G' and TableName lt 'H'")?;
/// assert!(f.matches(&Listed("Gamers".into())));
/// assert!(!f.matches(&Listed("Orders".into())));
/// # Ok::<(), tablekit_testing::filter::FilterError>(())
/// ```
pub trait Subject {
    /// The value of `name`, or `None` when the subject has no such property.
    ///
    /// ```
    /// use tablekit::prelude::*;
    /// use tablekit_testing::filter::{Field, Subject};
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
    /// use tablekit_testing::filter::{Field, Subject};
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
    /// orders against `literal`, and where the subject has it: `None` when the subject has no
    /// such property, `Some((None, at))` when the two differ in type (the comparison is then
    /// false). The provided method reads the field and compares; a stored form can compare in
    /// place, without building a [`Value`].
    ///
    /// ```
    /// use std::cmp::Ordering;
    /// use tablekit::{DynamicEntity, Value};
    /// use tablekit_testing::filter::Subject;
    /// let mut e = DynamicEntity::new("p", "r");
    /// e.set("Score", 30);
    /// assert_eq!(e.compare_near("Score", 0, &Value::Int32(40)), Some((Some(Ordering::Less), 0)));
    /// assert_eq!(e.compare_near("Score", 0, &Value::Int64(40)), Some((None, 0))); // Int32 is not Int64
    /// assert_eq!(e.compare_near("Missing", 0, &Value::Int32(40)), None);
    /// ```
    fn compare_near(
        &self,
        name: &str,
        hint: usize,
        literal: &Value,
    ) -> Option<(Option<Ordering>, usize)> {
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
) -> Option<(Option<Ordering>, usize)> {
    let (field, at) = subject.field_near(name, hint)?;
    Some((compare_field(&field, literal), at))
}

/// How `field` orders against `literal`; `None` when their types differ.
pub(crate) fn compare_field(field: &Field<'_>, literal: &Value) -> Option<Ordering> {
    compare(field.view(), Field::Value(literal))
}

/// Whether `expr` holds for `subject`.
pub(crate) fn eval(expr: &Expr, subject: &dyn Subject) -> bool {
    match expr {
        Expr::And(a, b) => eval(a, subject) && eval(b, subject),
        Expr::Or(a, b) => eval(a, subject) || eval(b, subject),
        Expr::Not(inner) => !eval(inner, subject),
        Expr::Truthy(Operand::Property(property)) => {
            compare_property(property, &TRUE, subject) == Some(Ordering::Equal)
        }
        Expr::Truthy(Operand::Literal(value)) => *value == TRUE,
        // A property against a literal, the usual comparison, is compared in place.
        Expr::Compare(Operand::Property(property), op, Operand::Literal(literal)) => {
            compare_property(property, literal, subject).is_some_and(|ord| holds(*op, ord))
        }
        Expr::Compare(Operand::Literal(literal), op, Operand::Property(property)) => {
            compare_property(property, literal, subject)
                .is_some_and(|ord| holds(*op, ord.reverse()))
        }
        Expr::Compare(left, op, right) => match (resolve(left, subject), resolve(right, subject)) {
            (Some(l), Some(r)) => compare(l.view(), r.view()).is_some_and(|ord| holds(*op, ord)),
            _ => false,
        },
    }
}

const TRUE: Value = Value::Bool(true);

/// How `property` of `subject` orders against `literal`; `None` when the subject lacks it or
/// the types differ. Remembers where the property was found.
fn compare_property(
    property: &Property,
    literal: &Value,
    subject: &dyn Subject,
) -> Option<Ordering> {
    near(property, |name, hint| {
        subject.compare_near(name, hint, literal)
    })
    .flatten()
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

/// Where two byte strings first differ (the shorter one's length when one is a prefix).
/// This runs for every step of every key lookup: eight bytes are compared at once, in plain
/// loops (iterator adapters are slow in the debug builds tests run in).
#[inline]
fn first_difference(x: &[u8], y: &[u8]) -> usize {
    let common = x.len().min(y.len());
    let mut at = 0;
    while at + 8 <= common {
        let word = |s: &[u8]| u64::from_le_bytes(s[at..at + 8].try_into().unwrap_or_default());
        let diff = word(x) ^ word(y);
        if diff != 0 {
            // Little-endian: the lowest set bit lies in the first differing byte.
            return at + (diff.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    while at < common && x[at] == y[at] {
        at += 1;
    }
    at
}

/// Ordinal comparison by UTF-16 code units: the service's (and .NET's) string order, which
/// differs from Rust's byte order for characters above U+FFFF.
///
/// ```
/// use std::cmp::Ordering;
/// use tablekit_testing::filter::utf16_cmp;
/// // U+10000 is the surrogate pair D800 DC00 in UTF-16, so it sorts before U+FFFD.
/// assert_eq!(utf16_cmp("\u{10000}", "\u{FFFD}"), Ordering::Less);
/// assert_eq!("\u{10000}".cmp("\u{FFFD}"), Ordering::Greater);
/// assert_eq!(utf16_cmp("apple", "apples"), Ordering::Less);
/// ```
#[inline]
pub fn utf16_cmp(a: &str, b: &str) -> Ordering {
    let (x, y) = (a.as_bytes(), b.as_bytes());
    let at = first_difference(x, y);
    let (Some(&p), Some(&q)) = (x.get(at), y.get(at)) else {
        return x.len().cmp(&y.len());
    };
    // UTF-8 byte order is code point order. UTF-16 differs only where a character above
    // U+FFFF (lead byte F0 to F4, a surrogate pair starting 0xD800 to 0xDBFF) meets one in
    // U+E000 to U+FFFF (lead byte EE or EF): there the supplementary character sorts first.
    // A difference in a continuation byte means equal lead bytes, so byte order holds.
    let upper_bmp = |b: u8| b == 0xEE || b == 0xEF;
    if p >= 0xF0 && upper_bmp(q) {
        Ordering::Less
    } else if q >= 0xF0 && upper_bmp(p) {
        Ordering::Greater
    } else {
        p.cmp(&q)
    }
}
