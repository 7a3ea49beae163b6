//! Splits a `$filter` string into tokens: names, typed literals, parentheses.

use base64::Engine as _;
use tablekit::codec::parse_datetime;
use tablekit::{EdmType, Value};

use super::FilterError;

/// One lexical element of a filter.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Token {
    /// A property name or a keyword (`and`, `eq`, ...): the parser tells them apart.
    Name(String),
    /// A typed literal.
    Literal(Value),
    /// `(`.
    Open,
    /// `)`.
    Close,
}

/// Tokenizes the whole filter, or names the first thing that is not a token.
#[cfg(test)]
pub(crate) fn tokenize(text: &str) -> Result<Vec<Token>, FilterError> {
    tokenize_at(text).map(|(tokens, _)| tokens)
}

/// Tokenizes the whole filter, with the byte offset each token starts at (so a parse error
/// can say where it is), or names the first thing that is not a token.
pub(crate) fn tokenize_at(text: &str) -> Result<(Vec<Token>, Vec<usize>), FilterError> {
    let mut lexer = Lexer { text, pos: 0 };
    let mut tokens = Vec::new();
    let mut offsets = Vec::new();
    loop {
        lexer.skip_whitespace();
        let start = lexer.pos;
        let Some(token) = lexer.next_token()? else {
            return Ok((tokens, offsets));
        };
        tokens.push(token);
        offsets.push(start);
    }
}

struct Lexer<'a> {
    text: &'a str,
    pos: usize,
}

impl Lexer<'_> {
    fn rest(&self) -> &str {
        self.text.get(self.pos..).unwrap_or_default()
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn error(&self, message: impl Into<String>) -> FilterError {
        FilterError::new(self.pos, message)
    }

    fn skip_whitespace(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.bump();
        }
    }

    fn next_token(&mut self) -> Result<Option<Token>, FilterError> {
        self.skip_whitespace();
        let Some(c) = self.peek() else {
            return Ok(None);
        };
        let token = match c {
            '(' => {
                self.bump();
                Token::Open
            }
            ')' => {
                self.bump();
                Token::Close
            }
            '\'' | '"' => Token::Literal(Value::String(self.quoted(c)?.into())),
            '-' | '0'..='9' => Token::Literal(self.number()?),
            c if c.is_alphabetic() || c == '_' => self.word()?,
            other => return Err(self.error(format!("unexpected character {other:?}"))),
        };
        Ok(Some(token))
    }

    fn bump(&mut self) {
        if let Some(c) = self.peek() {
            self.pos += c.len_utf8();
        }
    }

    /// A quoted text; the quote character is escaped by doubling it (`'it''s'`).
    fn quoted(&mut self, quote: char) -> Result<String, FilterError> {
        let start = self.pos;
        self.bump();
        let mut out = String::new();
        loop {
            match self.peek() {
                None => return Err(FilterError::new(start, "unterminated string literal")),
                Some(c) if c == quote => {
                    self.bump();
                    if self.peek() == Some(quote) {
                        self.bump();
                        out.push(quote);
                    } else {
                        return Ok(out);
                    }
                }
                Some(c) => {
                    self.bump();
                    out.push(c);
                }
            }
        }
    }

    /// `123` (Int32), `123L` (Int64), `1.5`, `1e3`, `2.0d` (Double), `-INF`. As on the
    /// service, a number must fit the type its text gives it: `5000000000` is refused (an
    /// Int32; Int64 is written `5000000000L`), and so is `1e999` (infinity is written `INF`).
    fn number(&mut self) -> Result<Value, FilterError> {
        let start = self.pos;
        if self.peek() == Some('-') {
            self.bump();
            if self.rest().starts_with("INF") {
                self.pos += "INF".len();
                return self.number_ends(Value::Double(f64::NEG_INFINITY));
            }
            if !self.peek().is_some_and(|c| c.is_ascii_digit()) {
                return Err(self.error("expected a digit after `-`"));
            }
        }
        let mut is_double = false;
        while let Some(c) = self.peek() {
            match c {
                '0'..='9' => {}
                '.' => is_double = true,
                'e' | 'E' => {
                    is_double = true;
                    let after = self.rest().get(1..).unwrap_or_default();
                    if after.starts_with(['+', '-']) {
                        self.bump();
                    }
                }
                _ => break,
            }
            self.bump();
        }
        let digits = self.text.get(start..self.pos).unwrap_or_default();
        let (edm_type, value) = match self.peek() {
            Some('L' | 'l') if !is_double => {
                self.bump();
                (EdmType::Int64, digits.parse().ok().map(Value::Int64))
            }
            Some('d' | 'D' | 'm' | 'M' | 'f' | 'F') => {
                self.bump();
                (EdmType::Double, finite(digits))
            }
            _ if is_double => (EdmType::Double, finite(digits)),
            _ => (EdmType::Int32, digits.parse().ok().map(Value::Int32)),
        };
        let written = self.text.get(start..self.pos).unwrap_or_default();
        let value =
            value.ok_or_else(|| FilterError::unrecognized_literal(start, edm_type, written))?;
        self.number_ends(value)
    }

    /// `value`, when the number's text ends here.
    fn number_ends(&self, value: Value) -> Result<Value, FilterError> {
        if self.peek().is_some_and(|c| c.is_alphanumeric() || c == '_') {
            return Err(self.error("a number runs into a name"));
        }
        Ok(value)
    }

    /// A name, a keyword, `true`/`false`, or a prefixed literal such as `datetime'...'`.
    fn word(&mut self) -> Result<Token, FilterError> {
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_alphanumeric() || c == '_') {
            self.bump();
        }
        let word = self
            .text
            .get(start..self.pos)
            .unwrap_or_default()
            .to_owned();
        if self.peek() == Some('\'') {
            let Some(edm_type) = prefix_type(&word) else {
                return Err(FilterError::new(
                    start,
                    format!("unknown literal prefix `{word}`"),
                ));
            };
            let body = self.quoted('\'')?;
            let written = self.text.get(start..self.pos).unwrap_or_default();
            return typed_literal(&word, &body)
                .map(Token::Literal)
                .ok_or_else(|| FilterError::unrecognized_literal(start, edm_type, written));
        }
        Ok(match word.as_str() {
            "true" => Token::Literal(Value::Bool(true)),
            "false" => Token::Literal(Value::Bool(false)),
            // The service reads these words as Doubles, not as property names.
            "NaN" => Token::Literal(Value::Double(f64::NAN)),
            "INF" => Token::Literal(Value::Double(f64::INFINITY)),
            _ => Token::Name(word),
        })
    }
}

/// A finite Double: `1e999` reads as infinity, which a literal writes as `INF`.
fn finite(digits: &str) -> Option<Value> {
    digits
        .parse::<f64>()
        .ok()
        .filter(|d| d.is_finite())
        .map(Value::Double)
}

/// The EDM type of the literals a prefix introduces (`datetime'..'` is a DateTime).
fn prefix_type(prefix: &str) -> Option<EdmType> {
    match prefix {
        "datetime" => Some(EdmType::DateTime),
        "guid" => Some(EdmType::Guid),
        "X" | "binary" | "base64" => Some(EdmType::Binary),
        _ => None,
    }
}

/// `datetime'..'`, `guid'..'`, `X'..'` / `binary'..'`; `None` for an unknown prefix or bad text.
fn typed_literal(prefix: &str, body: &str) -> Option<Value> {
    match prefix {
        "datetime" => parse_datetime(body).map(Value::DateTime),
        "guid" => body.parse().ok().map(Value::Guid),
        "X" | "binary" => decode_hex(body).map(Value::Binary),
        // Not an OData literal, but a convenient way to write base64 in tests.
        "base64" => base64::engine::general_purpose::STANDARD
            .decode(body)
            .ok()
            .map(Value::Binary),
        _ => None,
    }
}

fn decode_hex(text: &str) -> Option<Vec<u8>> {
    if text.len() % 2 != 0 {
        return None;
    }
    text.as_bytes()
        .chunks(2)
        .map(|pair| {
            let pair = std::str::from_utf8(pair).ok()?;
            u8::from_str_radix(pair, 16).ok()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(text: &str) -> Value {
        match tokenize(text).unwrap().as_slice() {
            [Token::Literal(v)] => v.clone(),
            other => panic!("not one literal: {other:?}"),
        }
    }

    #[test]
    fn numbers_take_their_edm_type_from_the_text() {
        assert_eq!(lit("5"), Value::Int32(5));
        assert_eq!(lit("5L"), Value::Int64(5));
        assert_eq!(lit("-5"), Value::Int32(-5));
        assert_eq!(lit("2147483647"), Value::Int32(i32::MAX));
        assert_eq!(lit("-2147483648"), Value::Int32(i32::MIN));
        assert_eq!(lit("5000000000L"), Value::Int64(5_000_000_000));
        assert_eq!(lit("-9223372036854775808L"), Value::Int64(i64::MIN));
        assert_eq!(lit("1.5"), Value::Double(1.5));
        assert_eq!(lit("2.0"), Value::Double(2.0));
        assert_eq!(lit("1e3"), Value::Double(1000.0));
        assert_eq!(lit("1e300"), Value::Double(1e300));
        assert!(matches!(lit("-0.0"), Value::Double(d) if d == 0.0 && d.is_sign_negative()));
        assert!(tokenize("5x").is_err());
        assert!(tokenize("1.5L").is_err());
        assert!(tokenize("- 5").is_err());
    }

    #[test]
    fn the_infinities_and_nan_are_double_words() {
        assert_eq!(lit("INF"), Value::Double(f64::INFINITY));
        assert_eq!(lit("-INF"), Value::Double(f64::NEG_INFINITY));
        assert!(matches!(lit("NaN"), Value::Double(d) if d.is_nan()));
        // Other spellings are names, as on the service.
        for name in ["nan", "Inf", "INFINITY"] {
            assert_eq!(tokenize(name).unwrap(), [Token::Name(name.into())]);
        }
        assert!(tokenize("-INFINITY").is_err());
    }

    /// The error, and that it is worded as the service words it.
    fn unrecognized(text: &str) -> String {
        let err = tokenize(text).unwrap_err();
        assert_eq!(err.position(), 0, "{text}");
        err.to_string()
    }

    #[test]
    fn literals_out_of_their_types_range_are_refused_as_on_the_service() {
        for (text, message) in [
            (
                "5454161346626",
                "Unrecognized 'Edm.Int32' literal '5454161346626'",
            ),
            (
                "2147483648",
                "Unrecognized 'Edm.Int32' literal '2147483648'",
            ),
            (
                "-2147483649",
                "Unrecognized 'Edm.Int32' literal '-2147483649'",
            ),
            (
                "99999999999999999999",
                "Unrecognized 'Edm.Int32' literal '99999999999999999999'",
            ),
            (
                "9223372036854775808L",
                "Unrecognized 'Edm.Int64' literal '9223372036854775808L'",
            ),
            ("1e999", "Unrecognized 'Edm.Double' literal '1e999'"),
            ("-1e999", "Unrecognized 'Edm.Double' literal '-1e999'"),
            ("1e999d", "Unrecognized 'Edm.Double' literal '1e999d'"),
            ("1E400", "Unrecognized 'Edm.Double' literal '1E400'"),
            ("1.2.3", "Unrecognized 'Edm.Double' literal '1.2.3'"),
            ("1e", "Unrecognized 'Edm.Double' literal '1e'"),
            (
                "datetime'yesterday'",
                "Unrecognized 'Edm.DateTime' literal 'datetime'yesterday''",
            ),
            ("guid'1234'", "Unrecognized 'Edm.Guid' literal 'guid'1234''"),
            ("X'0'", "Unrecognized 'Edm.Binary' literal 'X'0''"),
        ] {
            assert_eq!(unrecognized(text), message);
        }
    }

    #[test]
    fn strings_unescape_doubled_quotes() {
        assert_eq!(lit("'it''s'"), Value::String("it's".into()));
        assert_eq!(lit("''"), Value::String("".into()));
        assert!(tokenize("'open").is_err());
    }

    #[test]
    fn prefixed_literals() {
        assert_eq!(lit("X'0102ff'"), Value::Binary(vec![1, 2, 255]));
        assert_eq!(lit("binary'0102'"), Value::Binary(vec![1, 2]));
        assert!(matches!(
            lit("datetime'2020-01-01T00:00:00Z'"),
            Value::DateTime(_)
        ));
        assert!(matches!(
            lit("guid'c9da6455-213d-42c9-9a79-3e9149a57833'"),
            Value::Guid(_)
        ));
        let unknown = tokenize("nope'x'").unwrap_err();
        assert_eq!(unknown.message(), "unknown literal prefix `nope`");
    }
}
