//! A write's entity drafted straight from its JSON body into the text the store keeps
//! ([`Stored`]), without decoding it into a [`DynamicEntity`](tablekit::DynamicEntity) and
//! writing it out again.
//!
//! Decoding a 1 KB entity allocates its property list, names and strings, only to free them
//! once its text is written: with the writing, over a third of what a transaction's entity
//! cost the emulator. Nearly every body is of one plain shape (what every SDK sends), and
//! for that shape the drafted text is byte for byte the one the general path writes: each
//! value is typed by the decoder's rules and written by the same member writers, strings
//! copied as they are.
//!
//! Anything else is not drafted ([`Draft::from_body`] answers `None`) and takes the general
//! path, which also words every error: escapes in a string or name, `null`, nested values,
//! `odata.*` and other annotations than `@odata.type` (whose value must be a known type),
//! the `Timestamp` member, a repeated member, Binary values and Doubles sent as text, any
//! name, key or value the service's limits refuse, and bodies over [`MAX_DRAFTED`].

use chrono::{DateTime, Utc};
use tablekit::codec::{self, DateTimeText};
use tablekit::limits::{self, Limits, MAX_PROPERTIES, MAX_STRING_UNITS};
use tablekit::{EdmType, KeyKind, Value};

use crate::format::minimal_json::{
    etag_member, timestamp_member, write_key, write_property, Placed, PropertyValue,
};
use crate::storage::stored::{Slot, Stored};

/// The largest body drafted. An entity's size by the service's formula is at most twice its
/// text plus a few bytes a property, so a body this small never exceeds the 1 MiB limit,
/// which the drafter therefore need not measure.
pub(crate) const MAX_DRAFTED: usize = 256 * 1024;

/// An entity's keys and properties written as the store keeps them, waiting for the
/// Timestamp its write gets.
///
/// ```text
/// {"PartitionKey":"p","RowKey":"r","N":1}  ->  "odata.etag":..,"PartitionKey":"p","RowKey":"r","N":1,
/// ```
#[derive(Clone, Debug)]
pub(crate) struct Draft {
    /// The stored text so far: an ETag member of a stand-in time, replaced in place once the
    /// write's time is known, then the keys' members and each property's, each followed by
    /// a comma. The text becomes the stored entity's: one large allocation per write, as
    /// on the general path (a second one, freed at once, fragments the heap enough to slow
    /// every later allocation, reads' included).
    text: Vec<u8>,
    /// The stand-in ETag member's length.
    etag_len: usize,
    /// Where each value lies in `text`: the keys, then the properties.
    slots: Vec<Slot>,
}

/// The time of the stand-in ETag member: the ETag of any time of a four-digit year is as
/// long.
const STAND_IN: DateTime<Utc> = DateTime::UNIX_EPOCH;

/// Room for the ETag and Timestamp members, and for values written longer than sent (a
/// Double's `.0`, an Int64's annotation).
fn text_capacity(body: &[u8]) -> usize {
    192 + body.len() + body.len() / 8
}

/// A member's value as the body holds it.
#[derive(Clone, Copy)]
enum Token<'a> {
    /// A string without escapes: its text.
    Text(&'a str),
    /// A number's text, and whether it has a fraction or an exponent.
    Number(&'a str, bool),
    Bool(bool),
}

impl<'a> Token<'a> {
    fn text(self) -> Option<&'a str> {
        match self {
            Token::Text(text) => Some(text),
            _ => None,
        }
    }
}

/// The members of a body's object, read but not yet typed.
struct Members<'a> {
    partition_key: Option<&'a str>,
    row_key: Option<&'a str>,
    properties: Vec<(&'a str, Token<'a>)>,
    annotations: Vec<(&'a str, EdmType)>,
}

impl Draft {
    /// Drafts the entity of an insert's or replace's `body` (with the URL's keys when the
    /// URL names them), checked against `limits`; `None` when the body is not of the plain
    /// shape, to be read the general way.
    pub(crate) fn from_body(
        body: &[u8],
        url_keys: Option<(&str, &str)>,
        limits: &Limits,
    ) -> Option<Draft> {
        if body.len() > MAX_DRAFTED {
            return None;
        }
        let members = Members::read(std::str::from_utf8(body).ok()?)?;
        let (partition_key, row_key) = match url_keys {
            Some(keys) => keys,
            None => (members.partition_key?, members.row_key?),
        };
        limits
            .validate_key(KeyKind::PartitionKey, partition_key)
            .ok()?;
        limits.validate_key(KeyKind::RowKey, row_key).ok()?;
        let properties = &members.properties;
        let annotated = |name: &str| properties.iter().any(|(n, _)| *n == name);
        if !members.annotations.iter().all(|(n, _)| annotated(n)) {
            return None;
        }
        let mut text = Vec::with_capacity(text_capacity(body));
        etag_member(&mut text, &DateTimeText::new(&STAND_IN));
        let mut draft = Draft {
            etag_len: text.len(),
            text,
            slots: Vec::with_capacity(2 + properties.len()),
        };
        draft.place(|text| write_key(text, "PartitionKey", partition_key))?;
        draft.place(|text| write_key(text, "RowKey", row_key))?;
        for &(name, token) in properties {
            limits.validate_property_name(name).ok()?;
            let edm = members.annotations.iter().find(|(n, _)| *n == name);
            let value = typed(token, edm.map(|(_, edm)| *edm))?;
            let value = match &value {
                Typed::Text(text) if text.len() <= MAX_STRING_UNITS => PropertyValue::Text(text),
                Typed::Text(_) => return None,
                Typed::Value(value) => {
                    limits::validate_value(name, value).ok()?;
                    PropertyValue::Value(value)
                }
            };
            draft.place(|text| write_property(text, name, value))?;
        }
        Some(draft)
    }

    /// Writes a member with `write`, keeping where its value lies; `None` should its name or
    /// text have needed an escape. The scanner lets through no character the writer escapes,
    /// so this only guards what [`keys`](Self::keys) relies on: a key's text between quotes.
    fn place(&mut self, write: impl FnOnce(&mut Vec<u8>) -> Placed) -> Option<()> {
        let placed = write(&mut self.text);
        if placed.escaped {
            return None;
        }
        self.slots.push(Slot::at(&placed));
        Some(())
    }

    /// The PartitionKey and the RowKey.
    pub(crate) fn keys(&self) -> (&str, &str) {
        (self.key(0), self.key(1))
    }

    fn key(&self, index: usize) -> &str {
        // A drafted key's JSON holds no escape: its text is between the quotes.
        let (start, len) = self.slots[index].span();
        let text = self.text.get(start + 1..start + len - 1);
        std::str::from_utf8(text.unwrap_or_default()).unwrap_or_default()
    }

    /// The entity as stored by a write at `timestamp`.
    pub(crate) fn into_stored(self, timestamp: DateTime<Utc>) -> Stored {
        let time = DateTimeText::new(&timestamp);
        let Draft {
            mut text,
            etag_len,
            mut slots,
        } = self;
        let members_end = text.len();
        etag_member(&mut text, &time);
        let etag = members_end..text.len();
        if etag.len() == etag_len {
            text.copy_within(etag, 0);
            text.truncate(members_end);
        } else {
            // A year of other than four digits: the members move.
            let shift = etag.len() as i64 - etag_len as i64;
            let mut moved = text[etag].to_vec();
            moved.extend_from_slice(&text[etag_len..members_end]);
            text = moved;
            for slot in &mut slots {
                *slot = slot.shifted(shift);
            }
        }
        timestamp_member(&mut text, &time);
        Stored::from_parts(text, slots, &timestamp)
    }
}

/// A property's value once typed: a string's text as the body holds it, or another value.
enum Typed<'a> {
    Text(&'a str),
    Value(Value),
}

/// `token` typed by its annotation as the decoder types it; `None` for what the decoder
/// refuses and for the rare forms left to it (Binary, a Double sent as text).
fn typed(token: Token<'_>, edm: Option<EdmType>) -> Option<Typed<'_>> {
    let value = match (token, edm) {
        (Token::Text(text), None | Some(EdmType::String)) => return Some(Typed::Text(text)),
        (Token::Text(text), Some(EdmType::Int64)) => Value::Int64(text.parse().ok()?),
        (Token::Text(text), Some(EdmType::Int32)) => Value::Int32(text.parse().ok()?),
        (Token::Text(text), Some(EdmType::DateTime)) => {
            Value::DateTime(codec::parse_datetime(text)?)
        }
        (Token::Text(text), Some(EdmType::Guid)) => Value::Guid(uuid::Uuid::try_parse(text).ok()?),
        (Token::Text("true"), Some(EdmType::Boolean)) => Value::Bool(true),
        (Token::Text("false"), Some(EdmType::Boolean)) => Value::Bool(false),
        (Token::Bool(b), None | Some(EdmType::Boolean)) => Value::Bool(b),
        (Token::Number(text, true), None | Some(EdmType::Double)) => {
            Value::Double(text.parse().ok().filter(|f: &f64| f.is_finite())?)
        }
        // The decoder reads `-0` as the Double -0.0, which an integer cannot hold.
        (Token::Number("-0", false), _) => return None,
        (Token::Number(text, false), edm) => {
            let n: i64 = text.parse().ok()?;
            match edm {
                None => i32::try_from(n).map_or(Value::Int64(n), Value::Int32),
                Some(EdmType::Int32) => Value::Int32(i32::try_from(n).ok()?),
                Some(EdmType::Double) => Value::Double(n as f64),
                Some(_) => return None,
            }
        }
        _ => return None,
    };
    Some(Typed::Value(value))
}

impl<'a> Members<'a> {
    /// The members of `text`, a JSON object of scalar members; `None` for anything else.
    fn read(text: &'a str) -> Option<Self> {
        let mut scan = Scan { text, pos: 0 };
        let mut members = Members {
            partition_key: None,
            row_key: None,
            properties: Vec::with_capacity(16),
            annotations: Vec::new(),
        };
        scan.expect(b'{')?;
        if !scan.eat(b'}') {
            loop {
                let name = scan.string()?;
                scan.expect(b':')?;
                members.add(name, scan.token()?)?;
                if !scan.eat(b',') {
                    scan.expect(b'}')?;
                    break;
                }
            }
        }
        scan.skip_whitespace();
        (scan.pos == text.len()).then_some(members)
    }

    /// Takes member `name`; `None` when it repeats one, is not a plain member, or is one
    /// property or annotation more than an entity may have (which also bounds the searches
    /// for repeats, each over the members taken).
    fn add(&mut self, name: &'a str, token: Token<'a>) -> Option<()> {
        let key = match name {
            "PartitionKey" => &mut self.partition_key,
            "RowKey" => &mut self.row_key,
            // The Python SDK annotates the keys; the decoder checks and then ignores it.
            "PartitionKey@odata.type" | "RowKey@odata.type" => {
                return (token.text()? == "Edm.String").then_some(());
            }
            _ => {
                if let Some(property) = name.strip_suffix("@odata.type") {
                    let edm = EdmType::from_odata_name(token.text()?)?;
                    return add_new(&mut self.annotations, property, edm);
                }
                return add_new(&mut self.properties, name, token);
            }
        };
        key.replace(token.text()?).is_none().then_some(())
    }
}

/// Adds `name`'s member to `members`; `None` when it is there already or makes one more
/// than [`MAX_PROPERTIES`].
fn add_new<'a, T>(members: &mut Vec<(&'a str, T)>, name: &'a str, member: T) -> Option<()> {
    if members.len() == MAX_PROPERTIES || members.iter().any(|(n, _)| *n == name) {
        return None;
    }
    members.push((name, member));
    Some(())
}

/// A cursor over a body's JSON text.
struct Scan<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Scan<'a> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    /// Whether `byte` comes next (after whitespace), taking it if so.
    fn eat(&mut self, byte: u8) -> bool {
        self.skip_whitespace();
        let next = self.peek() == Some(byte);
        self.pos += usize::from(next);
        next
    }

    fn expect(&mut self, byte: u8) -> Option<()> {
        self.eat(byte).then_some(())
    }

    /// A string without escapes or control characters: its text.
    fn string(&mut self) -> Option<&'a str> {
        self.expect(b'"')?;
        let rest = self.text.as_bytes().get(self.pos..)?;
        // The first quote, backslash or control character (which JSON allows no string to
        // hold raw): the closing quote in a string of the plain shape.
        let end = self.pos + codec::string_special(rest)?;
        if self.text.as_bytes()[end] != b'"' {
            return None;
        }
        let text = self.text.get(self.pos..end)?;
        self.pos = end + 1;
        Some(text)
    }

    fn token(&mut self) -> Option<Token<'a>> {
        self.skip_whitespace();
        match self.peek()? {
            b'"' => self.string().map(Token::Text),
            b't' => self.literal("true").then_some(Token::Bool(true)),
            b'f' => self.literal("false").then_some(Token::Bool(false)),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    fn literal(&mut self, word: &str) -> bool {
        let found = self
            .text
            .get(self.pos..)
            .is_some_and(|rest| rest.starts_with(word));
        self.pos += if found { word.len() } else { 0 };
        found
    }

    /// A number by JSON's grammar: its text, and whether it has a fraction or an exponent.
    fn number(&mut self) -> Option<Token<'a>> {
        let start = self.pos;
        self.pos += usize::from(self.peek() == Some(b'-'));
        match self.peek()? {
            b'0' => self.pos += 1,
            b'1'..=b'9' => self.digits(),
            _ => return None,
        }
        let mut float = false;
        if self.peek() == Some(b'.') {
            self.pos += 1;
            self.required_digits()?;
            float = true;
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            self.required_digits()?;
            float = true;
        }
        Some(Token::Number(self.text.get(start..self.pos)?, float))
    }

    fn digits(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
    }

    fn required_digits(&mut self) -> Option<()> {
        let start = self.pos;
        self.digits();
        (self.pos > start).then_some(())
    }
}
