//! Builds the expression tree of a `$filter` from its tokens (precedence: `not`, `and`, `or`).

use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering::Relaxed;

use tablekit::Value;

use super::lexer::Token;
use super::FilterError;

/// The most nested parentheses or `not`s accepted: input from the network never overflows
/// the stack.
const MAX_DEPTH: usize = 64;
/// The service accepts at most 15 discrete comparisons in one filter.
pub(crate) const MAX_COMPARISONS: usize = 15;

/// A comparison operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    Eq,
    Ne,
    Gt,
    Ge,
    Lt,
    Le,
}

/// One side of a comparison.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Operand {
    /// A property (or `PartitionKey`, `RowKey`, `Timestamp`, `TableName`).
    Property(Property),
    /// A literal.
    Literal(Value),
}

/// A property a filter reads, and where the last subject had it.
#[derive(Debug)]
pub(crate) struct Property {
    pub(crate) name: String,
    /// Entities of one table mostly share a layout: the place the name was found last is
    /// tried first, which spares a search through the names before it (and their memory).
    /// Atomic only so a filter stays `Sync`; a stale hint costs one search, never a result.
    pub(crate) hint: AtomicUsize,
}

impl Property {
    fn new(name: String) -> Self {
        Property {
            name,
            hint: AtomicUsize::new(0),
        }
    }
}

impl Clone for Property {
    fn clone(&self) -> Self {
        Property {
            name: self.name.clone(),
            hint: AtomicUsize::new(self.hint.load(Relaxed)),
        }
    }
}

impl PartialEq for Property {
    /// Equal when the names are: the hint is not part of the filter.
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

/// A filter expression.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Expr {
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    Compare(Operand, Op, Operand),
    /// A lone Boolean property or literal (`Active`, `true`).
    Truthy(Operand),
}

/// Parses a whole token list into one expression; `offsets` are where the tokens start in
/// the text, `end` its length, for errors.
pub(crate) fn parse(tokens: &[Token], offsets: &[usize], end: usize) -> Result<Expr, FilterError> {
    let mut parser = Parser {
        tokens,
        offsets,
        end,
        pos: 0,
        depth: 0,
        comparisons: 0,
    };
    let expr = parser.or()?;
    if parser.pos < tokens.len() {
        return Err(parser.error("unexpected text after the end of the expression"));
    }
    Ok(expr)
}

struct Parser<'a> {
    tokens: &'a [Token],
    offsets: &'a [usize],
    end: usize,
    pos: usize,
    depth: usize,
    comparisons: usize,
}

impl Parser<'_> {
    fn error(&self, message: &str) -> FilterError {
        // Where the token in hand starts in the text, or its end when none is left.
        let at = self.offsets.get(self.pos).copied().unwrap_or(self.end);
        FilterError::new(at, message)
    }

    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }

    fn peek_keyword(&self, keyword: &str) -> bool {
        matches!(self.peek(), Some(Token::Name(n)) if n == keyword)
    }

    fn or(&mut self) -> Result<Expr, FilterError> {
        let mut left = self.and()?;
        while self.peek_keyword("or") {
            self.pos += 1;
            let right = self.and()?;
            left = Expr::Or(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Expr, FilterError> {
        let mut left = self.unary()?;
        while self.peek_keyword("and") {
            self.pos += 1;
            let right = self.unary()?;
            left = Expr::And(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn unary(&mut self) -> Result<Expr, FilterError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error("the filter is nested too deeply"));
        }
        let expr = if self.peek_keyword("not") {
            self.pos += 1;
            Expr::Not(Box::new(self.unary()?))
        } else {
            self.primary()?
        };
        self.depth -= 1;
        Ok(expr)
    }

    fn primary(&mut self) -> Result<Expr, FilterError> {
        if self.peek() == Some(&Token::Open) {
            self.pos += 1;
            let inner = self.or()?;
            if self.peek() != Some(&Token::Close) {
                return Err(self.error("expected `)`"));
            }
            self.pos += 1;
            return Ok(inner);
        }
        // A lone Boolean counts as a comparison too, which also bounds the tree's depth.
        self.comparisons += 1;
        if self.comparisons > MAX_COMPARISONS {
            return Err(self.error("a filter holds at most 15 comparisons"));
        }
        let left = self.operand()?;
        let Some(op) = self.operator() else {
            return Ok(Expr::Truthy(left));
        };
        self.pos += 1;
        let right = self.operand()?;
        Ok(Expr::Compare(left, op, right))
    }

    fn operand(&mut self) -> Result<Operand, FilterError> {
        let operand = match self.peek() {
            Some(Token::Literal(v)) => Operand::Literal(v.clone()),
            Some(Token::Name(n)) if !is_keyword(n) => Operand::Property(Property::new(n.clone())),
            Some(_) => return Err(self.error("expected a property name or a literal")),
            None => return Err(self.error("the filter ends where a value was expected")),
        };
        self.pos += 1;
        Ok(operand)
    }

    fn operator(&self) -> Option<Op> {
        let Some(Token::Name(name)) = self.peek() else {
            return None;
        };
        Some(match name.as_str() {
            "eq" => Op::Eq,
            "ne" => Op::Ne,
            "gt" => Op::Gt,
            "ge" => Op::Ge,
            "lt" => Op::Lt,
            "le" => Op::Le,
            _ => return None,
        })
    }
}

fn is_keyword(name: &str) -> bool {
    matches!(
        name,
        "and" | "or" | "not" | "eq" | "ne" | "gt" | "ge" | "lt" | "le"
    )
}

#[cfg(test)]
mod tests {
    use super::super::lexer::tokenize_at;
    use super::*;

    fn parse_text(text: &str) -> Result<Expr, FilterError> {
        let (tokens, offsets) = tokenize_at(text)?;
        parse(&tokens, &offsets, text.len())
    }

    #[test]
    fn and_binds_tighter_than_or() {
        let expr = parse_text("A eq 1 or B eq 2 and C eq 3").unwrap();
        assert!(matches!(expr, Expr::Or(_, right) if matches!(*right, Expr::And(_, _))));
    }

    #[test]
    fn malformed_filters_are_errors() {
        for text in [
            "",
            "A eq",
            "eq 1",
            "(A eq 1",
            "A eq 1)",
            "A eq 1 B eq 2",
            "startswith(A, 'x')",
            "not",
        ] {
            assert!(parse_text(text).is_err(), "{text}");
        }
    }

    #[test]
    fn nesting_and_comparisons_are_bounded() {
        let deep = format!("{}A eq 1{}", "(".repeat(10_000), ")".repeat(10_000));
        assert!(parse_text(&deep).is_err());
        let nots = format!("{}A", "not ".repeat(10_000));
        assert!(parse_text(&nots).is_err());
        let many = vec!["A eq 1"; 16].join(" and ");
        assert!(parse_text(&many).is_err());
        let fifteen = vec!["A eq 1"; 15].join(" and ");
        assert!(parse_text(&fifteen).is_ok());
    }
}
