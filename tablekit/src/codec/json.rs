//! A pull reader for JSON response bodies: the decoder asks for the next member name or value
//! and gets it borrowed from the input.
//!
//! Entity pages are the client's hottest path, and their shape is simple: objects of scalars
//! inside one array. A general-purpose deserializer pays for its generality at every value
//! (a visitor call, a dispatch on the value's kind, a check per string that the input is
//! UTF-8); this reader checks the whole input once, finds string ends eight bytes at a time
//! (long texts with a vectorized search), and hands out `&str` slices of the input for every
//! name and string that holds no escape. It accepts exactly the JSON grammar (RFC 8259),
//! nesting at most [`MAX_DEPTH`] deep, and reports every other input as a [`SyntaxError`]
//! with its line and column; no input makes it panic or recurse.

use std::borrow::Cow;
use std::fmt;

use super::property::Scalar;

/// The deepest nesting of objects and arrays accepted (serde_json's limit too).
pub(super) const MAX_DEPTH: usize = 128;

/// Why the input is not JSON, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct SyntaxError {
    what: &'static str,
    line: usize,
    column: usize,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at line {} column {}",
            self.what, self.line, self.column
        )
    }
}

impl std::error::Error for SyntaxError {}

/// A position in one JSON text.
pub(super) struct JsonReader<'a> {
    text: &'a str,
    pos: usize,
}

type Result<T> = std::result::Result<T, SyntaxError>;

impl<'a> JsonReader<'a> {
    /// A reader at the start of `bytes`, which must be UTF-8 (checked here, once).
    pub(super) fn new(bytes: &'a [u8]) -> Result<Self> {
        // The vectorized check is several times faster on a large page; the standard one
        // says where invalid input starts.
        if let Ok(text) = simdutf8::basic::from_utf8(bytes) {
            return Ok(JsonReader { text, pos: 0 });
        }
        match std::str::from_utf8(bytes) {
            Ok(text) => Ok(JsonReader { text, pos: 0 }),
            Err(e) => Err(JsonReader::at(bytes, e.valid_up_to(), "invalid UTF-8")),
        }
    }

    /// An error at byte `pos` of `bytes`, with 1-based line and column (in bytes).
    fn at(bytes: &[u8], pos: usize, what: &'static str) -> SyntaxError {
        let before = &bytes[..pos.min(bytes.len())];
        let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        SyntaxError {
            what,
            line,
            column: 1 + before.len() - line_start,
        }
    }

    /// How many bytes have been read, and how many are left.
    pub(super) fn progress(&self) -> (usize, usize) {
        (self.pos, self.text.len() - self.pos)
    }

    fn error(&self, what: &'static str) -> SyntaxError {
        JsonReader::at(self.text.as_bytes(), self.pos, what)
    }

    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    /// The next byte after whitespace, without taking it.
    #[inline]
    fn peek(&mut self) -> Option<u8> {
        let b = *self.bytes().get(self.pos)?;
        // Every JSON whitespace byte is at most a space; the service sends none between
        // tokens, so one test usually settles it.
        if b > b' ' {
            return Some(b);
        }
        self.skip_whitespace()
    }

    /// The first byte from here that is not whitespace, the whitespace taken.
    #[cold]
    fn skip_whitespace(&mut self) -> Option<u8> {
        while let Some(&b) = self.bytes().get(self.pos) {
            if !matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
                return Some(b);
            }
            self.pos += 1;
        }
        None
    }

    /// Takes `expected` (after whitespace), or fails with `what`.
    #[inline]
    fn expect(&mut self, expected: u8, what: &'static str) -> Result<()> {
        match self.peek() {
            Some(b) if b == expected => {
                self.pos += 1;
                Ok(())
            }
            Some(_) => Err(self.error(what)),
            None => Err(self.error("unexpected end of input")),
        }
    }

    /// Enters an object: `{`.
    pub(super) fn begin_object(&mut self) -> Result<()> {
        self.expect(b'{', "expected an object")
    }

    /// Enters an array: `[`.
    pub(super) fn begin_array(&mut self) -> Result<()> {
        self.expect(b'[', "expected an array")
    }

    /// The next member name of the object being read (its `:` taken), or `None` at its end.
    /// `first` says whether no member has been read yet (no `,` is due).
    #[inline(always)]
    pub(super) fn next_key(&mut self, first: bool) -> Result<Option<Cow<'a, str>>> {
        if !self.next_item(b'}', first, "expected `,` or `}`")? {
            return Ok(None);
        }
        if self.peek() != Some(b'"') {
            return Err(self.error("expected a member name"));
        }
        self.pos += 1;
        let key = self.string_body()?;
        self.expect(b':', "expected `:`")?;
        Ok(Some(key))
    }

    /// Whether the array being read has another element (its `,` taken).
    #[inline]
    pub(super) fn next_element(&mut self, first: bool) -> Result<bool> {
        self.next_item(b']', first, "expected `,` or `]`")
    }

    /// Takes `close` (and answers false) or, unless `first`, a `,` (and answers true).
    #[inline(always)]
    fn next_item(&mut self, close: u8, first: bool, what: &'static str) -> Result<bool> {
        match self.peek() {
            Some(b) if b == close => {
                self.pos += 1;
                Ok(false)
            }
            Some(_) if first => Ok(true),
            Some(b',') => {
                self.pos += 1;
                // A trailing comma is not JSON.
                match self.peek() {
                    Some(b) if b == close => Err(self.error("trailing comma")),
                    _ => Ok(true),
                }
            }
            Some(_) => Err(self.error(what)),
            None => Err(self.error("unexpected end of input")),
        }
    }

    /// The next value: a scalar, or [`Scalar::Nested`] for an object or array (skipped).
    #[inline(always)]
    pub(super) fn scalar(&mut self) -> Result<Scalar<'a>> {
        let Some(b) = self.peek() else {
            return Err(self.error("unexpected end of input"));
        };
        match b {
            b'"' => {
                self.pos += 1;
                self.string_body().map(Scalar::Str)
            }
            b'-' | b'0'..=b'9' => self.number(),
            b't' => self.literal("true", Scalar::Bool(true)),
            b'f' => self.literal("false", Scalar::Bool(false)),
            b'n' => self.literal("null", Scalar::Null),
            b'{' | b'[' => self.skip_nested().map(|()| Scalar::Nested),
            _ => Err(self.error("expected a value")),
        }
    }

    /// Skips the next value, whatever it is.
    pub(super) fn skip_value(&mut self) -> Result<()> {
        self.scalar().map(drop)
    }

    /// Checks that only whitespace is left.
    pub(super) fn end(&mut self) -> Result<()> {
        match self.peek() {
            None => Ok(()),
            Some(_) => Err(self.error("trailing characters")),
        }
    }

    // Inlined, so that each word is compared as the constant it is.
    #[inline(always)]
    fn literal(&mut self, word: &'static str, value: Scalar<'a>) -> Result<Scalar<'a>> {
        if self.bytes()[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(self.error("expected a value"))
        }
    }

    /// An object or array, skipped without recursion: a bit per open level says which it is.
    fn skip_nested(&mut self) -> Result<()> {
        // Bit i set: level i is an object. Levels past MAX_DEPTH are refused.
        let mut objects: u128 = 0;
        let mut depth = 0usize;
        let mut first = true;
        loop {
            if first {
                // At a value position: open a container, or read a scalar.
                match self.peek() {
                    Some(open @ (b'{' | b'[')) => {
                        if depth == MAX_DEPTH {
                            return Err(self.error("nesting too deep"));
                        }
                        self.pos += 1;
                        objects = (objects & !(1 << depth)) | (u128::from(open == b'{') << depth);
                        depth += 1;
                    }
                    _ => {
                        self.scalar()?;
                        first = false;
                        continue;
                    }
                }
            }
            // Just opened (first) or after a value: the next item of the innermost container.
            let in_object = objects & (1 << (depth - 1)) != 0;
            let more = match in_object {
                true => self.next_key(first)?.is_some(),
                false => self.next_element(first)?,
            };
            if more {
                first = true;
                continue;
            }
            depth -= 1;
            if depth == 0 {
                return Ok(());
            }
            first = false;
        }
    }

    /// The rest of a string whose opening quote is taken: borrowed when it holds no escape.
    #[inline(always)]
    fn string_body(&mut self) -> Result<Cow<'a, str>> {
        let start = self.pos;
        let end = self.special(start)?;
        if self.bytes()[end] == b'"' {
            self.pos = end + 1;
            // Both ends are ASCII, so the slice lies on character boundaries.
            return Ok(Cow::Borrowed(&self.text[start..end]));
        }
        // Room for more than the text before the first escape: escaped strings (ETags) go on.
        let mut owned = String::with_capacity(end - start + 64);
        owned.push_str(&self.text[start..end]);
        self.pos = end;
        self.escaped_string(owned).map(Cow::Owned)
    }

    /// A string from its first backslash on, appended to `owned`.
    fn escaped_string(&mut self, mut owned: String) -> Result<String> {
        // At a backslash or the closing quote.
        while self.bytes()[self.pos] == b'\\' {
            self.pos += 1;
            self.escape(&mut owned)?;
            let start = self.pos;
            let end = self.special(start)?;
            owned.push_str(&self.text[start..end]);
            self.pos = end;
        }
        self.pos += 1;
        Ok(owned)
    }

    /// The position of the first `"` or `\` from `start` in a string; a control character
    /// (which must be escaped) or the end of the input first is an error.
    #[inline(always)]
    fn special(&mut self, start: usize) -> Result<usize> {
        let rest = self.bytes().get(start..).unwrap_or_default();
        // Most names and many values are short: their end is in the first two words.
        let word_at = |at: usize| rest.get(at..).and_then(|r| r.first_chunk::<8>().copied());
        let found = match word_at(0).map(word_special) {
            Some(Some(at)) => Some(at),
            // Eight plain bytes: the search goes on after them.
            Some(None) => match word_at(8).map(word_special) {
                Some(Some(at)) => Some(8 + at),
                Some(None) => string_special(&rest[16..]).map(|at| at + 16),
                None => string_special(&rest[8..]).map(|at| at + 8),
            },
            None => string_special(rest),
        };
        match found {
            Some(at) if rest[at] >= 0x20 => Ok(start + at),
            Some(at) => {
                self.pos = start + at;
                Err(self.error("control character in string"))
            }
            None => {
                self.pos = self.text.len();
                Err(self.error("unterminated string"))
            }
        }
    }

    /// One escape, its backslash taken.
    fn escape(&mut self, out: &mut String) -> Result<()> {
        let Some(&b) = self.bytes().get(self.pos) else {
            return Err(self.error("unterminated string"));
        };
        self.pos += 1;
        let c = match b {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => self.unicode_escape()?,
            _ => {
                self.pos -= 1;
                return Err(self.error("invalid escape"));
            }
        };
        out.push(c);
        Ok(())
    }

    /// `XXXX` after `\u`, with a following `\uXXXX` when it starts a surrogate pair.
    fn unicode_escape(&mut self) -> Result<char> {
        let first = self.hex4()?;
        let code = match first {
            0xD800..=0xDBFF => {
                if !self.bytes()[self.pos..].starts_with(b"\\u") {
                    return Err(self.error("lone leading surrogate in hex escape"));
                }
                self.pos += 2;
                let second = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&second) {
                    return Err(self.error("invalid surrogate pair in hex escape"));
                }
                0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
            }
            0xDC00..=0xDFFF => return Err(self.error("lone trailing surrogate in hex escape")),
            code => code,
        };
        char::from_u32(code).ok_or_else(|| self.error("invalid hex escape"))
    }

    fn hex4(&mut self) -> Result<u32> {
        let Some(digits) = self.bytes().get(self.pos..self.pos + 4) else {
            return Err(self.error("unterminated string"));
        };
        let mut code = 0;
        for &d in digits {
            let Some(v) = char::from(d).to_digit(16) else {
                return Err(self.error("invalid hex escape"));
            };
            code = code * 16 + v;
        }
        self.pos += 4;
        Ok(code)
    }

    /// A number: an integer that fits `i64` or `u64`, else a finite double.
    fn number(&mut self) -> Result<Scalar<'a>> {
        let start = self.pos;
        let bytes = self.bytes();
        let mut pos = start;
        let negative = bytes[pos] == b'-';
        pos += usize::from(negative);
        // Integer part: `0`, or a non-zero digit and more digits.
        let int_start = pos;
        let mut magnitude = Magnitude::default();
        pos = magnitude.read(bytes, pos);
        let digits = pos - int_start;
        if digits == 0 || (digits > 1 && bytes[int_start] == b'0') {
            self.pos = int_start;
            return Err(self.error("invalid number"));
        }
        let mut fraction_digits = None;
        if bytes.get(pos) == Some(&b'.') {
            let end = magnitude.read(bytes, pos + 1);
            if end == pos + 1 {
                self.pos = end;
                return Err(self.error("invalid number"));
            }
            fraction_digits = Some(end - pos - 1);
            pos = end;
        }
        let mut exponent = false;
        if let Some(b'e' | b'E') = bytes.get(pos) {
            pos += 1;
            if let Some(b'+' | b'-') = bytes.get(pos) {
                pos += 1;
            }
            pos = self.digits(pos)?;
            exponent = true;
        }
        self.pos = pos;
        if let Some(value) = magnitude.exact(negative, fraction_digits, exponent) {
            return Ok(value);
        }
        // The grammar is checked, and Rust's parser rounds correctly.
        match self.text[start..pos].parse::<f64>() {
            Ok(f) if f.is_finite() => Ok(Scalar::Float(f)),
            _ => {
                self.pos = start;
                Err(self.error("number out of range"))
            }
        }
    }

    /// One or more digits from `pos`: the position after them.
    fn digits(&mut self, pos: usize) -> Result<usize> {
        let count = self.bytes()[pos.min(self.text.len())..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if count == 0 {
            self.pos = pos;
            return Err(self.error("invalid number"));
        }
        Ok(pos + count)
    }
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `word` (eight bytes, little-endian) that equals `byte`. Only
/// the lowest set bit is sure to be a match (a borrow can mark a byte above it), which is all
/// a search for the first one needs.
#[inline(always)]
pub(super) fn bytes_equal(word: u64, byte: u8) -> u64 {
    let x = word ^ (ONES * u64::from(byte));
    x.wrapping_sub(ONES) & !x & HIGHS
}

/// The offset of the first `"`, `\` or control character among eight bytes.
#[inline]
fn word_special(chunk: [u8; 8]) -> Option<usize> {
    let word = u64::from_le_bytes(chunk);
    let control = word.wrapping_sub(ONES * 0x20) & !word & HIGHS;
    let found = bytes_equal(word, b'"') | bytes_equal(word, b'\\') | control;
    (found != 0).then(|| (found.trailing_zeros() / 8) as usize)
}

/// The digits of a number read as one integer, and whether they overflowed `u64`.
#[derive(Default)]
struct Magnitude {
    value: u64,
    overflow: bool,
}

impl Magnitude {
    /// Appends the digits from `pos` on; the position after them.
    #[inline(always)]
    fn read(&mut self, bytes: &[u8], mut pos: usize) -> usize {
        while let Some(&d @ b'0'..=b'9') = bytes.get(pos) {
            let digit = u64::from(d - b'0');
            // Below 10^18 one more digit always fits: two additions and shifts then do, where
            // a checked multiplication would chain three times the latency per digit.
            if self.value < 1_000_000_000_000_000_000 {
                self.value = self.value * 10 + digit;
            } else {
                match self
                    .value
                    .checked_mul(10)
                    .and_then(|m| m.checked_add(digit))
                {
                    Some(m) => self.value = m,
                    None => self.overflow = true,
                }
            }
            pos += 1;
        }
        pos
    }

    /// The number's value when the digits give it without the full float parser: an integer,
    /// or a short decimal (see [`exact_quotient`]).
    #[inline(always)]
    fn exact(
        &self,
        negative: bool,
        fraction_digits: Option<usize>,
        exponent: bool,
    ) -> Option<Scalar<'static>> {
        if self.overflow || exponent {
            return None;
        }
        let magnitude = self.value;
        match fraction_digits {
            Some(fraction) => {
                let f = exact_quotient(magnitude, fraction)?;
                Some(Scalar::Float(if negative { -f } else { f }))
            }
            None if !negative => {
                Some(i64::try_from(magnitude).map_or(Scalar::UInt(magnitude), Scalar::Int))
            }
            // `-0` is the double -0.0 (as serde_json reads it), so its sign survives.
            None => 0i64
                .checked_sub_unsigned(magnitude)
                .filter(|&n| n != 0)
                .map(Scalar::Int),
        }
    }
}

/// `digits / 10^fraction` when both are exact doubles: IEEE division then rounds the true
/// quotient once, correctly (Clinger's fast path). Most doubles the service sends are short
/// enough; the others go to the full parser.
fn exact_quotient(digits: u64, fraction: usize) -> Option<f64> {
    const POWERS: [f64; 23] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ];
    let power = POWERS.get(fraction)?;
    // Every integer up to 2^53 is a double; 10^22 is the largest exact power of ten.
    (digits <= 1 << 53).then(|| digits as f64 / power)
}

/// The offset of the first byte of `bytes` that ends a plain run of string text: a `"`, a
/// `\` or a control character. In the text of a JSON string, the string's end when it holds
/// neither an escape nor a character JSON forbids raw.
///
/// ```
/// use tablekit::codec::string_special;
/// assert_eq!(string_special(br#"plain text", "next""#), Some(10));
/// assert_eq!(string_special(b"tab\there\""), Some(3));
/// assert_eq!(string_special(b"line\nbreak"), Some(4));
/// assert_eq!(string_special(b"no end"), None);
/// ```
#[inline]
pub fn string_special(bytes: &[u8]) -> Option<usize> {
    // Runs that end within a few more words (dates, GUIDs) are tested in place, eight bytes
    // at a time: a call to the vectorized search costs more than it saves on them.
    const WORDS: usize = 3;
    for (index, chunk) in bytes.chunks_exact(8).take(WORDS).enumerate() {
        let Ok(chunk) = <[u8; 8]>::try_from(chunk) else {
            break; // Not reached: every chunk has 8 bytes.
        };
        if let Some(at) = word_special(chunk) {
            return Some(index * 8 + at);
        }
    }
    let skipped = (bytes.len() / 8).min(WORDS) * 8;
    let rest = bytes.get(skipped..).unwrap_or_default();
    long_special(rest).map(|at| skipped + at)
}

/// [`string_special`] for long runs (text): the quote or backslash that ends the run by a
/// vectorized search, then a control character before it (JSON forbids them unescaped),
/// which the run's smallest byte, a reduction the compiler vectorizes too, rules out.
fn long_special(bytes: &[u8]) -> Option<usize> {
    let end = memchr::memchr2(b'"', b'\\', bytes);
    let run = bytes.get(..end.unwrap_or(bytes.len())).unwrap_or_default();
    match run.iter().copied().min() {
        Some(least) if least < 0x20 => run.iter().position(|&b| b < 0x20),
        _ => end,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Reads one whole value member by member, into a `serde_json::Value` for comparison.
    fn read_value(r: &mut JsonReader<'_>) -> Result<serde_json::Value> {
        use serde_json::Value as J;
        match r.peek() {
            Some(b'{') => {
                r.begin_object()?;
                let mut map = serde_json::Map::new();
                let mut first = true;
                while let Some(key) = r.next_key(first)? {
                    first = false;
                    let value = read_value(r)?;
                    map.insert(key.into_owned(), value);
                }
                Ok(J::Object(map))
            }
            Some(b'[') => {
                r.begin_array()?;
                let mut items = Vec::new();
                let mut first = true;
                while r.next_element(first)? {
                    first = false;
                    items.push(read_value(r)?);
                }
                Ok(J::Array(items))
            }
            _ => Ok(match r.scalar()? {
                Scalar::Null | Scalar::Nested => J::Null,
                Scalar::Bool(b) => J::Bool(b),
                Scalar::Int(n) => J::from(n),
                Scalar::UInt(n) => J::from(n),
                Scalar::Float(f) => J::from(f),
                Scalar::Str(s) => J::String(s.into_owned()),
            }),
        }
    }

    fn parse(text: &[u8]) -> Result<serde_json::Value> {
        let mut r = JsonReader::new(text)?;
        let value = read_value(&mut r)?;
        r.end().map(|()| value)
    }

    fn agree(text: &[u8]) {
        let ours = parse(text);
        let theirs = serde_json::from_slice::<serde_json::Value>(text);
        match (&ours, &theirs) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "{}", String::from_utf8_lossy(text)),
            (Err(_), Err(_)) => {}
            _ => panic!(
                "disagree on {:?}: ours {ours:?}, serde_json {theirs:?}",
                String::from_utf8_lossy(text)
            ),
        }
    }

    #[test]
    fn agrees_with_serde_json_on_the_corner_cases() {
        let cases: &[&[u8]] = &[
            b"0",
            b"-0",
            b"01",
            b"-",
            b"1.",
            b".5",
            b"1e",
            b"1e+",
            b"1E-2",
            b"1.5e300",
            b"1e400",
            b"-1e400",
            b"9223372036854775807",
            b"9223372036854775808",
            b"-9223372036854775808",
            b"-9223372036854775809",
            b"18446744073709551615",
            b"18446744073709551616",
            b"123456789012345678901234567890",
            b"0.1",
            b"2.2250738585072011e-308",
            b"\"\\ud83d\\ude00\"",
            b"\"\\ud83d\"",
            b"\"\\ude00\"",
            b"\"\\ud83dx\"",
            b"\"\\u00e9\"",
            b"\"\\x\"",
            b"\"a\nb\"",
            b"\"a\\nb\"",
            b"\"\\/\\b\\f\\r\\t\"",
            b"\"unterminated",
            b"\"\\u12\"",
            b"\"\\uzzzz\"",
            b"[1,]",
            b"{\"a\":1,}",
            b"[,1]",
            b"{,}",
            b"[]",
            b"{}",
            b"[[[]]]",
            b"{\"a\":{\"b\":[1,{\"c\":null}]}}",
            b"{\"a\" 1}",
            b"{1:2}",
            b"tru",
            b"true ",
            b" null",
            b"nul",
            b"[1 2]",
            b"{\"a\":1 \"b\":2}",
            b"",
            b"   ",
            b"1 2",
            b"\xff",
            b"\"\xc3\xa9\"",
            b"[\"a\",\"b\\\"c\"]",
            b"{\"a\":1}{",
            b"\"\\u0000\"",
        ];
        for case in cases {
            agree(case);
        }
    }

    #[test]
    fn nesting_past_the_limit_is_refused_without_recursion() {
        let deep = |n: usize| [vec![b'['; n], vec![b']'; n]].concat();
        assert!(JsonReader::new(&deep(MAX_DEPTH))
            .unwrap()
            .skip_value()
            .is_ok());
        let too_deep = deep(MAX_DEPTH + 1);
        let err = JsonReader::new(&too_deep)
            .unwrap()
            .skip_value()
            .unwrap_err();
        assert_eq!(err.what, "nesting too deep");
        // Far deeper input fails the same way, without exhausting the stack.
        assert!(JsonReader::new(&deep(1_000_000))
            .unwrap()
            .skip_value()
            .is_err());
    }

    proptest! {
        #[test]
        fn string_special_finds_the_first_special_byte(
            bytes in proptest::collection::vec(prop_oneof![
                4 => 0x20u8..0x7f, 1 => Just(b'"'), 1 => Just(b'\\'), 1 => 0u8..0x20, 1 => 0x80u8..
            ], 0..40),
            plain in 0usize..300,
        ) {
            // A plain run first puts the special bytes at every place of the words, and past
            // the words, in the vectorized search.
            let bytes = [vec![b'a'; plain], bytes].concat();
            let naive = bytes.iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20);
            prop_assert_eq!(string_special(&bytes), naive);
        }
    }

    #[test]
    fn errors_say_where() {
        let err = parse(b"{\n  \"a\": tru\n}").unwrap_err();
        assert_eq!(err.to_string(), "expected a value at line 2 column 8");
        let err = parse(b"[1,\xff]").unwrap_err();
        assert_eq!(err.to_string(), "invalid UTF-8 at line 1 column 4");
    }

    /// JSON-like text: mostly valid pieces, glued with occasional damage.
    fn jsonish() -> impl Strategy<Value = Vec<u8>> {
        let atom = prop_oneof![
            Just(b"{".to_vec()),
            Just(b"}".to_vec()),
            Just(b"[".to_vec()),
            Just(b"]".to_vec()),
            Just(b",".to_vec()),
            Just(b":".to_vec()),
            Just(b" ".to_vec()),
            Just(b"null".to_vec()),
            Just(b"true".to_vec()),
            "\"[a-z\\\\\"é\\u{1F600}]{0,6}\"".prop_map(String::into_bytes),
            "-?[0-9]{1,22}(\\.[0-9]{1,5})?([eE][+-]?[0-9]{1,3})?".prop_map(String::into_bytes),
            "\\\\u[0-9a-fA-FdD]{4}".prop_map(String::into_bytes),
            any::<u8>().prop_map(|b| vec![b]),
        ];
        proptest::collection::vec(atom, 0..24).prop_map(|parts| parts.concat())
    }

    proptest! {
        #[test]
        fn accepts_and_reads_exactly_what_serde_json_does(text in jsonish()) {
            agree(&text);
        }

        #[test]
        fn reads_any_value_serde_json_writes(value in any_json()) {
            let text = serde_json::to_vec(&value).unwrap();
            prop_assert_eq!(parse(&text).unwrap(), value);
        }
    }

    /// A decimal with a fraction, read by the reader and by Rust's parser.
    fn both_readings(text: &str) -> (f64, f64) {
        let mut reader = JsonReader::new(text.as_bytes()).unwrap();
        let Ok(Scalar::Float(ours)) = reader.scalar() else {
            panic!("{text} is not read as a double");
        };
        (ours, text.parse().unwrap())
    }

    #[test]
    fn short_decimals_read_exactly_as_rusts_parser_reads_them() {
        let edges = [
            "0.0",
            "-0.0",
            "0.1",
            "123.5",
            "-7.25",
            "9007199254740992.0",
            "9007199254740993.0",
            "0.3333333333333333",
            "1.0000000000000000000001",
            "18446744073709551615.5",
            "0.0000000000000000000001",
            "0.00000000000000000000001",
        ];
        for text in edges {
            let (ours, rust) = both_readings(text);
            assert_eq!(ours.to_bits(), rust.to_bits(), "{text}");
        }
    }

    proptest! {
        #[test]
        fn decimals_read_exactly_as_rusts_parser_reads_them(
            digits in 0u64..=(1 << 54),
            fraction in 1usize..26,
            negative in any::<bool>(),
        ) {
            let padded = format!("{digits:0>width$}", width = fraction + 1);
            let (int, frac) = padded.split_at(padded.len() - fraction);
            let text = format!("{}{int}.{frac}", if negative { "-" } else { "" });
            let (ours, rust) = both_readings(&text);
            prop_assert_eq!(ours.to_bits(), rust.to_bits(), "{}", text);
        }
    }

    fn any_json() -> impl Strategy<Value = serde_json::Value> {
        use serde_json::Value as J;
        let leaf = prop_oneof![
            Just(J::Null),
            any::<bool>().prop_map(J::Bool),
            any::<i64>().prop_map(J::from),
            any::<u64>().prop_map(J::from),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(J::from),
            any::<String>().prop_map(J::String),
        ];
        leaf.prop_recursive(4, 32, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..6).prop_map(J::Array),
                proptest::collection::btree_map(any::<String>(), inner, 0..6)
                    .prop_map(|m| J::Object(m.into_iter().collect())),
            ]
        })
    }
}
