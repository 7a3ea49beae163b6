//! [`Filter`]: a `$filter` expression over one model, rendered with exact OData literals.
//!
//! Filters are built from typed [`Column`](crate::Column)s and combined with `and`, `or` and
//! `not`; the model parameter keeps a filter of one entity type out of a query of another.
//! Rendering owns every literal rule the service has (Int64 `L`, doubles that stay doubles,
//! `''` escaping, 7-digit `datetime'..'`, `guid'..'`, `X'..'`), so user code never formats one.
//! Hand-written filter text takes values through `@name` placeholders ([`Filter::raw_with`]),
//! written by the same rules.
//!
//! ```
//! use tablekit::{Column, DynamicEntity, Filter};
//! let name: Column<DynamicEntity, String> = Column::dynamic("Name");
//! let age: Column<DynamicEntity, i32> = Column::dynamic("Age");
//! let f = name.eq("a").or(name.eq("b")).and(age.lt(30).not());
//! assert_eq!(f.to_string(), "(Name eq 'a' or Name eq 'b') and not (Age lt 30)");
//! ```

// The filter's own parts: `params` and `number_literals` also serve the limits of `protocol`,
// which names a misfit parameter as invalid input.
pub(crate) mod number_literals;
pub(crate) mod params;

use std::fmt::{self, Write as _};
use std::marker::PhantomData;

use crate::codec::format_datetime;
use crate::filter::number_literals::check_numbers;
use crate::filter::params::{is_name_byte, is_param_name, named_values, NamedValue};
pub use crate::filter::params::{ParamError, Params};
use crate::values::convert::IntoValue;
use crate::values::value::Value;

/// A comparison operator of the `$filter` language.
///
/// ```
/// use tablekit::filter::CompareOp::{self, Eq, Ge, Gt, Le, Lt, Ne};
/// let keywords = [Eq, Ne, Gt, Ge, Lt, Le].map(CompareOp::keyword);
/// assert_eq!(keywords, ["eq", "ne", "gt", "ge", "lt", "le"]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompareOp {
    /// `eq`.
    Eq,
    /// `ne`.
    Ne,
    /// `gt`.
    Gt,
    /// `ge`.
    Ge,
    /// `lt`.
    Lt,
    /// `le`.
    Le,
}

impl CompareOp {
    /// The operator's keyword.
    pub fn keyword(self) -> &'static str {
        match self {
            CompareOp::Eq => "eq",
            CompareOp::Ne => "ne",
            CompareOp::Gt => "gt",
            CompareOp::Ge => "ge",
            CompareOp::Lt => "lt",
            CompareOp::Le => "le",
        }
    }
}

/// What a filter requires of one key.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct KeyCondition {
    /// The one value it must equal.
    pub(crate) equal: Option<String>,
    /// Whether it is bounded above or below.
    pub(crate) ranged: bool,
}

/// What a filter requires of the PartitionKey and the RowKey (see [`Filter::key_conditions`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct KeyConditions {
    pub(crate) partition: KeyCondition,
    pub(crate) row: KeyCondition,
    /// Whether a top-level conjunct is hand-written text, which may fix keys unseen.
    pub(crate) unread_text: bool,
}

impl KeyConditions {
    fn read(&mut self, expr: &Expr) {
        match expr {
            Expr::And(a, b) => {
                self.read(a);
                self.read(b);
            }
            Expr::Compare(name, op, Some(Value::String(value))) => {
                let key = match *name {
                    "PartitionKey" => &mut self.partition,
                    "RowKey" => &mut self.row,
                    _ => return,
                };
                match op {
                    CompareOp::Eq => key.equal = Some(value.to_string()),
                    CompareOp::Ne => {}
                    _ => key.ranged = true,
                }
            }
            Expr::Raw(_) => self.unread_text = true,
            _ => {}
        }
    }
}

/// The expression tree, independent of the model.
#[derive(Clone, Debug, PartialEq)]
enum Expr {
    /// Matches everything (an empty prefix, say).
    All,
    /// `Name op literal`; a `None` literal (an absent `Option`) matches nothing.
    Compare(&'static str, CompareOp, Option<Value>),
    /// Text written by hand.
    Raw(String),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
}

/// A `$filter` over entities of model `M`.
///
/// ```
/// use tablekit::{Column, DynamicEntity, Filter};
/// let pk: Column<DynamicEntity, String> = Column::dynamic("PartitionKey");
/// let f: Filter<DynamicEntity> = pk.eq("p").and(Filter::raw("Score gt 3"));
/// assert_eq!(f.to_string(), "PartitionKey eq 'p' and (Score gt 3)");
/// ```
pub struct Filter<M> {
    expr: Expr,
    model: PhantomData<fn() -> M>,
}

impl<M> Filter<M> {
    fn from_expr(expr: Expr) -> Self {
        Filter {
            expr,
            model: PhantomData,
        }
    }

    pub(crate) fn compare(name: &'static str, op: CompareOp, value: Option<Value>) -> Self {
        Filter::from_expr(Expr::Compare(name, op, value))
    }

    /// The filter that matches every entity (renders as `true`; a query drops it).
    pub fn all() -> Self {
        Filter::from_expr(Expr::All)
    }

    /// Whether this filter matches every entity.
    pub fn is_all(&self) -> bool {
        matches!(self.expr, Expr::All)
    }

    /// Hand-written filter text, the escape hatch: it is used as given, in parentheses.
    /// Nothing in it is checked or escaped, so never splice a value into it with `format!`
    /// (a quote in the value breaks the filter or adds conditions): pass values to
    /// [`raw_with`](Self::raw_with) instead.
    pub fn raw(text: impl Into<String>) -> Self {
        Filter::from_expr(Expr::Raw(text.into()))
    }

    /// Hand-written filter text with `@name` placeholders, each replaced by its value written
    /// as a literal of the value's type (see [`bind_params`]): the safe way to put values
    /// into hand-written text. Used in parentheses, like [`raw`](Self::raw).
    ///
    /// Values are anything [`IntoValue`]: pairs of one type directly, mixed types through
    /// [`Params`]. A placeholder without a value, a value never used, a name given twice, an
    /// invalid name, a `None` value and a number its type cannot hold (an Int32 out of range)
    /// are each a [`ParamError`] (input the service would refuse: `?` makes it an
    /// [`InvalidInput`](crate::InvalidInput) error), before anything is sent.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let client = emulator.client();
    /// use tablekit::filter::{ParamError, Params};
    /// use tablekit::{DynamicEntity, Filter, Query};
    ///
    /// let table = client.table_named::<DynamicEntity>("Gamers");
    /// table.create().await?;
    /// for (tag, score) in [("O'Brien", 30), ("Ann", 30), ("O'Brien' or 'a' eq 'a", 30)] {
    ///     let mut gamer = DynamicEntity::new("eu", tag);
    ///     gamer.set("Score", score);
    ///     table.insert(&mut gamer).await?;
    /// }
    /// let tag = "O'Brien"; // user input: the quote is escaped, not a string's end
    /// let f = Filter::<DynamicEntity>::raw_with(
    ///     "RowKey eq @tag and Score ge @min",
    ///     Params::new().bind("tag", tag).bind("min", 20),
    /// )?;
    /// assert_eq!(f.to_string(), "(RowKey eq 'O''Brien' and Score ge 20)");
    /// let found = table.query(Query::new().filter(f)).count().await?;
    /// assert_eq!(found, 1);
    ///
    /// let err = Filter::<DynamicEntity>::raw_with("RowKey eq @tag", [("name", "Ann")]);
    /// assert!(matches!(err, Err(ParamError::Missing { .. }))); // `@tag` has no value
    /// # Ok(()) }
    /// ```
    pub fn raw_with<N, V>(
        text: &str,
        params: impl IntoIterator<Item = (N, V)>,
    ) -> Result<Self, ParamError>
    where
        N: AsRef<str>,
        V: IntoValue,
    {
        Ok(Filter::raw(bind_params(text, params)?))
    }

    /// Both filters hold.
    pub fn and(self, other: impl IntoFilter<M>) -> Self {
        let other = other.into_filter();
        match (self.expr, other.expr) {
            (Expr::All, e) | (e, Expr::All) => Filter::from_expr(e),
            (a, b) => Filter::from_expr(Expr::And(Box::new(a), Box::new(b))),
        }
    }

    /// Either filter holds.
    pub fn or(self, other: impl IntoFilter<M>) -> Self {
        let other = other.into_filter();
        match (self.expr, other.expr) {
            (Expr::All, _) | (_, Expr::All) => Filter::all(),
            (a, b) => Filter::from_expr(Expr::Or(Box::new(a), Box::new(b))),
        }
    }

    /// The filter does not hold.
    #[allow(clippy::should_implement_trait)]
    pub fn not(self) -> Self {
        Filter::from_expr(Expr::Not(Box::new(self.expr)))
    }

    /// Groups this filter explicitly: rendering already adds the parentheses precedence
    /// needs, so this only makes intent visible in code.
    ///
    /// ```
    /// use tablekit::{Column, DynamicEntity};
    /// let a: Column<DynamicEntity, i32> = Column::dynamic("A");
    /// let f = a.eq(1).or(a.eq(2)).grouped().and(a.ne(3));
    /// assert_eq!(f.to_string(), "(A eq 1 or A eq 2) and A ne 3");
    /// ```
    pub fn grouped(self) -> Self {
        self
    }

    /// What the filter's top-level `and` conjuncts say of the keys: a condition under an
    /// `or` or a `not`, or in hand-written text, is not read, so the answer may know less
    /// than the filter, never more.
    pub(crate) fn key_conditions(&self) -> KeyConditions {
        let mut conditions = KeyConditions::default();
        conditions.read(&self.expr);
        conditions
    }

    /// The `$filter` text.
    pub fn render(&self) -> String {
        self.to_string()
    }
}

impl<M> Clone for Filter<M> {
    fn clone(&self) -> Self {
        Filter::from_expr(self.expr.clone())
    }
}

impl<M> PartialEq for Filter<M> {
    fn eq(&self, other: &Self) -> bool {
        self.expr == other.expr
    }
}

impl<M> fmt::Debug for Filter<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Filter").field(&self.to_string()).finish()
    }
}

impl<M> fmt::Display for Filter<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_expr(f, &self.expr)
    }
}

/// Something usable as a filter over `M`; implemented by [`Filter<M>`] only, so a filter over
/// another model is a compile error with this message.
///
/// As a parameter type, it lets a helper take any filter over the same model:
///
/// ```
/// use tablekit::filter::IntoFilter;
/// use tablekit::{Column, DynamicEntity, Filter};
///
/// fn in_partition(pk: &str, filter: impl IntoFilter<DynamicEntity>) -> Filter<DynamicEntity> {
///     let partition: Column<DynamicEntity, String> = Column::dynamic("PartitionKey");
///     partition.eq(pk).and(filter)
/// }
///
/// let score: Column<DynamicEntity, i32> = Column::dynamic("Score");
/// let f = in_partition("eu", score.gt(5));
/// assert_eq!(f.to_string(), "PartitionKey eq 'eu' and Score gt 5");
/// ```
///
/// A filter over another model does not compile:
///
/// ```compile_fail,E0277
/// use tablekit::prelude::*;
///
/// #[derive(TableEntity)]
/// pub struct Blog {
///     #[tablekit(partition_key)]
///     pub id: String,
/// }
///
/// #[derive(TableEntity)]
/// pub struct Gamer {
///     #[tablekit(partition_key)]
///     pub tag: String,
/// }
///
/// let _ = Query::<Gamer>::new().filter(Blog::ID.eq("x")); // not a filter over `Gamer`
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a filter over `{M}`",
    label = "this filter is not for `{M}`",
    note = "a filter built from one entity's columns cannot be used with another entity"
)]
pub trait IntoFilter<M> {
    /// The filter.
    fn into_filter(self) -> Filter<M>;
}

impl<M> IntoFilter<M> for Filter<M> {
    fn into_filter(self) -> Filter<M> {
        self
    }
}

fn write_expr(f: &mut fmt::Formatter<'_>, expr: &Expr) -> fmt::Result {
    match expr {
        Expr::All => f.write_str("true"),
        Expr::Compare(name, op, Some(value)) => {
            write!(f, "{name} {} ", op.keyword())?;
            write_literal(f, value)
        }
        // An absent value: no stored property equals "nothing", so `eq` matches nothing and
        // `ne` everything. The service has no null literal; these forms say it exactly.
        Expr::Compare(name, CompareOp::Ne, None) => write!(f, "not ({name} eq {name} and false)"),
        Expr::Compare(name, _, None) => write!(f, "({name} eq {name} and false)"),
        Expr::Raw(text) => write!(f, "({text})"),
        Expr::And(a, b) => write_binary(f, "and", a, b),
        Expr::Or(a, b) => write_binary(f, "or", a, b),
        Expr::Not(inner) => {
            f.write_str("not (")?;
            write_expr(f, inner)?;
            f.write_char(')')
        }
    }
}

/// Writes `a op b`, parenthesizing a child of the other boolean operator (`and` binds tighter
/// than `or`, and explicit grouping reads better either way).
fn write_binary(f: &mut fmt::Formatter<'_>, op: &str, a: &Expr, b: &Expr) -> fmt::Result {
    write_operand(f, op, a)?;
    write!(f, " {op} ")?;
    write_operand(f, op, b)
}

fn write_operand(f: &mut fmt::Formatter<'_>, parent: &str, e: &Expr) -> fmt::Result {
    let needs_parens = match e {
        Expr::And(..) => parent != "and",
        Expr::Or(..) => parent != "or",
        _ => false,
    };
    if needs_parens {
        f.write_char('(')?;
        write_expr(f, e)?;
        f.write_char(')')
    } else {
        write_expr(f, e)
    }
}

/// Writes one literal as the service parses it.
fn write_literal(f: &mut impl fmt::Write, value: &Value) -> fmt::Result {
    match value {
        Value::Bool(b) => write!(f, "{b}"),
        Value::Int32(n) => write!(f, "{n}"),
        Value::Int64(n) => write!(f, "{n}L"),
        Value::Double(d) => f.write_str(&double_literal(*d)),
        Value::DateTime(t) => write!(f, "datetime'{}'", format_datetime(t)),
        Value::Guid(g) => write!(f, "guid'{}'", g.hyphenated()),
        Value::String(s) => write!(f, "'{}'", s.replace('\'', "''")),
        Value::Binary(bytes) => {
            f.write_str("X'")?;
            for b in bytes {
                write!(f, "{b:02x}")?;
            }
            f.write_char('\'')
        }
    }
}

/// A double literal that the service parses as a double, never as an integer, with the
/// invariant `.` decimal point: `2.0`, `0.1`, `1.5E+300`, `NaN`, `INF`, `-INF`.
///
/// ```
/// use tablekit::filter::double_literal;
/// assert_eq!(double_literal(2.0), "2.0");
/// assert_eq!(double_literal(1e300), "1.0E+300");
/// assert_eq!(double_literal(-2.5e-7), "-2.5E-7");
/// assert_eq!(double_literal(f64::NEG_INFINITY), "-INF");
/// ```
pub fn double_literal(d: f64) -> String {
    if d.is_nan() {
        return "NaN".to_owned();
    }
    if d.is_infinite() {
        return if d > 0.0 { "INF" } else { "-INF" }.to_owned();
    }
    // Debug is the shortest text that round-trips; it uses `e` for very large/small values.
    let text = format!("{d:?}");
    match text.split_once('e') {
        Some((mantissa, exponent)) => {
            let mantissa = with_point(mantissa);
            match exponent.strip_prefix('-') {
                Some(digits) => format!("{mantissa}E-{digits}"),
                None => format!("{mantissa}E+{exponent}"),
            }
        }
        None => with_point(&text),
    }
}

fn with_point(number: &str) -> String {
    if number.contains('.') {
        number.to_owned()
    } else {
        format!("{number}.0")
    }
}

/// Replaces each `@name` placeholder of `text` by the value named `name`, written as a
/// literal of its type, exactly as typed filters write them: `'..'` with `''` for a quote,
/// Int64 with `L`, doubles that stay doubles, `datetime'..'` with 7 fractional digits,
/// `guid'..'`, `X'..'`, `true`/`false`.
///
/// A placeholder stands for a whole literal (write `At ge @day`, not `datetime'@day'`) and may
/// be used more than once. An `@` inside a quoted literal of the text is text, not a
/// placeholder (`''` inside a literal is a quote and does not end it). Every value must be
/// used, and every placeholder given a value, under a name of ASCII letters, digits and `_`
/// (given without the `@`, not starting with a digit): anything else is a [`ParamError`].
/// So is a number written by hand that its type cannot hold, which the service would refuse:
/// an Int32 (no suffix) out of range, as an Int64 written without its `L` usually is.
///
/// ```
/// use tablekit::filter::bind_params;
/// let text = bind_params(
///     "(Owner eq @who or Editor eq @who) and Mail ne 'x@y' and Note ne 'it''s @who'",
///     [("who", "O'Brien @home")],
/// )?;
/// assert_eq!(
///     text,
///     "(Owner eq 'O''Brien @home' or Editor eq 'O''Brien @home') \
///      and Mail ne 'x@y' and Note ne 'it''s @who'"
/// );
/// assert!(bind_params("A eq @a", [("a", 1), ("b", 2)]).is_err()); // `@b` is never used
/// assert!(bind_params("Id eq 5454161346626", [("a", 1)]).is_err()); // `5454161346626L`
/// # Ok::<(), tablekit::Error>(())
/// ```
pub fn bind_params<N, V>(
    text: &str,
    params: impl IntoIterator<Item = (N, V)>,
) -> Result<String, ParamError>
where
    N: AsRef<str>,
    V: IntoValue,
{
    let mut values = named_values(params)?;
    let bound = substitute(text, &mut values)?;
    if let Some(unused) = values.into_iter().find(|v| !v.used) {
        return Err(ParamError::Unused { name: unused.name });
    }
    Ok(bound)
}

/// Copies `text`, writing each placeholder outside string literals as its value's literal and
/// checking the numbers written by hand.
fn substitute(text: &str, values: &mut [NamedValue]) -> Result<String, ParamError> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(['\'', '@']) {
        check_numbers(&rest[..at], text.len() - rest.len())?;
        out.push_str(&rest[..at]);
        let offset = text.len() - rest.len() + at;
        rest = if rest.as_bytes()[at] == b'\'' {
            let end = string_literal_end(text, offset)?;
            out.push_str(&text[offset..end]);
            &text[end..]
        } else {
            let name_len = rest[at + 1..]
                .bytes()
                .take_while(|b| is_name_byte(*b))
                .count();
            let name = &rest[at + 1..at + 1 + name_len];
            write_placeholder(&mut out, name, values)?;
            &rest[at + 1 + name_len..]
        };
    }
    check_numbers(rest, text.len() - rest.len())?;
    out.push_str(rest);
    Ok(out)
}

/// The byte offset just past the string literal whose opening quote is at `start` (`''` is a
/// quote inside it, not its end).
fn string_literal_end(text: &str, start: usize) -> Result<usize, ParamError> {
    let bytes = text.as_bytes();
    let mut i = start + 1;
    while i < bytes.len() {
        if bytes[i] == b'\'' {
            if bytes.get(i + 1) != Some(&b'\'') {
                return Ok(i + 1);
            }
            i += 1;
        }
        i += 1;
    }
    Err(ParamError::UnclosedLiteral { position: start })
}

/// Writes the literal of the value named `name`, and marks it used.
fn write_placeholder(
    out: &mut String,
    name: &str,
    values: &mut [NamedValue],
) -> Result<(), ParamError> {
    if !is_param_name(name) {
        return Err(ParamError::InvalidName {
            name: format!("@{name}"),
        });
    }
    let Some(named) = values.iter_mut().find(|v| v.name == name) else {
        return Err(ParamError::Missing {
            name: name.to_owned(),
        });
    };
    named.used = true;
    // Writing into a `String` cannot fail.
    let _ = write_literal(out, &named.value);
    Ok(())
}
