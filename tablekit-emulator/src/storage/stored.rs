//! A stored entity in a compact form: its minimal-metadata JSON text, where each value lies
//! in it, and its Timestamp.
//!
//! Reads far outnumber writes, and nearly every read asks for minimal metadata without
//! `$select` (every Azure SDK does). Stored entities never change (a write stores a new one),
//! so their members are written once, when the write is planned, and every later point get
//! or query page copies those bytes instead of formatting dates, numbers and escapes again.
//!
//! The text is also the only copy of the values: a filter reads a property straight from it
//! (its place is in the index, a few bytes per property), and the rare answer in another
//! metadata level, a `$select` or a merge decodes the entity from it. One text and one small
//! index per entity take about the JSON's size, where a decoded entity beside its text took
//! three times as much.

use std::borrow::Cow;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use chrono::{DateTime, Utc};
use tablekit::client::SignedIdentifier;
use tablekit::{codec, value, DynamicEntity, EdmType, Value};

use crate::format::minimal_json::{self, Placed};
use crate::query::filter::{
    compare_by_field, compare_field, utf16_cmp, Comparison, Field, Prefetch, Subject,
};
use crate::storage::prefetch::prefetch_bytes;

/// Where one value (the keys first, then the properties in order) lies in the text: its JSON
/// (quotes included) at `start..start + len`, right after `"name":`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Slot {
    start: u32,
    len: u32,
    /// The name's JSON length, just before the value's `":`.
    name_len: u16,
    /// The EDM type of the value: how its JSON reads back.
    kind: EdmType,
    /// Whether the name or the value holds a JSON escape: then it is decoded before use.
    escaped: bool,
}

impl Slot {
    /// Where a value the member writers `placed` lies in the text they wrote.
    pub(super) fn at(placed: &Placed) -> Slot {
        Slot {
            start: placed.span.start as u32,
            len: placed.span.len() as u32,
            name_len: placed.name_len as u16,
            kind: placed.kind,
            escaped: placed.escaped,
        }
    }

    /// Where its value's JSON starts, and its length.
    pub(super) fn span(self) -> (usize, usize) {
        (self.start as usize, self.len as usize)
    }

    /// The same slot in a text with `by` more (or, negative, fewer) bytes before it.
    pub(super) fn shifted(self, by: i64) -> Slot {
        Slot {
            start: (i64::from(self.start) + by) as u32,
            ..self
        }
    }
}

/// An entity as the store holds it.
#[derive(Clone, Debug)]
pub(crate) struct Stored {
    /// The members of its minimal-metadata JSON object, without the braces.
    text: Box<str>,
    /// The keys, then each property, in order.
    slots: Box<[Slot]>,
    /// The Timestamp, in ticks.
    ticks: i64,
}

/// Keys come first in the slots.
const KEYS: usize = 2;

impl Stored {
    /// Stores an entity; its Timestamp is the write's time (the epoch when unset).
    pub(crate) fn new(entity: DynamicEntity) -> Self {
        Self::from_entity(&entity)
    }

    /// [`new`](Self::new) from a borrowed entity.
    pub(crate) fn from_entity(entity: &DynamicEntity) -> Self {
        let timestamp = entity.timestamp().unwrap_or_default();
        let mut slots = Vec::with_capacity(KEYS + entity.len());
        let text = minimal_json::minimal_members_with(entity, |placed| {
            slots.push(Slot::at(&placed));
        });
        Self::from_parts(text, slots, &timestamp)
    }

    /// The entity whose members are `text`, its values where `slots` say.
    pub(super) fn from_parts(text: Vec<u8>, slots: Vec<Slot>, timestamp: &DateTime<Utc>) -> Self {
        Stored {
            // The writer writes UTF-8 only; this checks it once, at the write.
            text: String::from_utf8(text)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
                .into_boxed_str(),
            slots: slots.into_boxed_slice(),
            ticks: value::to_ticks(timestamp),
        }
    }

    /// The members of the entity's minimal-metadata JSON object, without the braces.
    pub(crate) fn minimal_members(&self) -> &[u8] {
        self.text.as_bytes()
    }

    /// The entity's minimal-metadata JSON object, which [`codec::decode_entity`] reads back
    /// as the entity (its Timestamp included): the form it is kept in on disk, made without
    /// decoding it.
    pub(crate) fn object(&self) -> Vec<u8> {
        let members = self.minimal_members();
        let mut json = Vec::with_capacity(members.len() + 2);
        json.push(b'{');
        json.extend_from_slice(members);
        json.push(b'}');
        json
    }

    /// The Timestamp.
    pub(crate) fn timestamp(&self) -> DateTime<Utc> {
        value::from_ticks(self.ticks).unwrap_or_default()
    }

    /// The PartitionKey.
    pub(crate) fn partition_key(&self) -> Cow<'_, str> {
        self.text_of(self.slots[0])
    }

    /// The RowKey.
    pub(crate) fn row_key(&self) -> Cow<'_, str> {
        self.text_of(self.slots[1])
    }

    /// The entity, decoded, with its Timestamp (and no ETag: it is the Timestamp's).
    pub(crate) fn entity(&self) -> DynamicEntity {
        let mut entity = DynamicEntity::new(self.partition_key(), self.row_key());
        for slot in &self.slots[KEYS..] {
            if let Some(value) = self.value_of(*slot) {
                entity.set(self.name_of(*slot), value);
            }
        }
        entity.set_timestamp(Some(self.timestamp()));
        entity
    }

    fn json(&self, slot: Slot) -> &str {
        let start = slot.start as usize;
        self.text
            .get(start..start + slot.len as usize)
            .unwrap_or_default()
    }

    /// The property's name.
    fn name_of(&self, slot: Slot) -> Cow<'_, str> {
        let end = (slot.start as usize).saturating_sub(2);
        let raw = self
            .text
            .get(end.saturating_sub(slot.name_len.into())..end)
            .unwrap_or_default();
        match slot.escaped && raw.contains('\\') {
            false => Cow::Borrowed(raw),
            true => Cow::Owned(unescape(raw)),
        }
    }

    /// A string value's text (a key's, or a String property's).
    fn text_of(&self, slot: Slot) -> Cow<'_, str> {
        let json = self.json(slot);
        let body = json
            .get(1..json.len().saturating_sub(1))
            .unwrap_or_default();
        match slot.escaped && body.contains('\\') {
            false => Cow::Borrowed(body),
            true => Cow::Owned(unescape(body)),
        }
    }

    /// A property's value, read back from its JSON; `None` only if the text were not what
    /// [`from_entity`](Self::from_entity) wrote.
    fn value_of(&self, slot: Slot) -> Option<Value> {
        let json = self.json(slot);
        let quoted = || json.strip_prefix('"')?.strip_suffix('"');
        Some(match slot.kind {
            EdmType::Boolean => Value::Bool(json == "true"),
            EdmType::Int32 => Value::Int32(json.parse().ok()?),
            EdmType::Int64 => Value::Int64(quoted()?.parse().ok()?),
            EdmType::Double => Value::Double(match quoted() {
                Some("NaN") => f64::NAN,
                Some("Infinity") => f64::INFINITY,
                Some("-Infinity") => f64::NEG_INFINITY,
                Some(_) => return None,
                None => json.parse().ok()?,
            }),
            EdmType::DateTime => Value::DateTime(codec::parse_datetime(quoted()?)?),
            EdmType::Guid => Value::Guid(uuid::Uuid::parse_str(quoted()?).ok()?),
            EdmType::String => Value::String(self.text_of(slot).as_ref().into()),
            EdmType::Binary => Value::Binary(STANDARD.decode(quoted()?).ok()?),
        })
    }

    /// A property as a filter reads it: strings as text, without copying them when they
    /// hold no escape.
    fn field_of(&self, slot: Slot) -> Option<Field<'_>> {
        if slot.kind == EdmType::String {
            if let Cow::Borrowed(text) = self.text_of(slot) {
                return Some(Field::Text(text));
            }
        }
        self.value_of(slot).map(Field::Owned)
    }

    /// The slot of property `name`, looked for first at `hint` (where an earlier entity had
    /// it): a page of one table's entities mostly shares one shape.
    fn position(&self, name: &str, hint: usize) -> Option<usize> {
        let properties = &self.slots[KEYS..];
        if let Some(slot) = properties.get(hint) {
            if self.name_is(*slot, name) {
                return Some(hint);
            }
        }
        properties.iter().position(|slot| self.name_is(*slot, name))
    }

    fn name_is(&self, slot: Slot, name: &str) -> bool {
        // A name's JSON is the name unless it holds an escape: compare lengths first.
        match slot.escaped {
            false => usize::from(slot.name_len) == name.len() && self.name_of(slot) == name,
            true => self.name_of(slot) == name,
        }
    }
}

/// The text of a JSON string's body; the writer's own output always reads back.
fn unescape(body: &str) -> String {
    serde_json::from_str(&format!("\"{body}\"")).unwrap_or_else(|_| body.to_owned())
}

impl Stored {
    /// Starts loading the index of where each value lies, which
    /// [`prefetch`](Prefetch::prefetch) reads: a scan asks for it a few entities before.
    pub(crate) fn prefetch_index(&self) {
        prefetch_bytes(
            self.slots.as_ptr().cast(),
            std::mem::size_of_val(&*self.slots),
        );
    }
}

impl Prefetch for Stored {
    /// Starts loading the value the property at `hint` had in an earlier entity, so a filter
    /// reading it a little later finds it in cache. Reads the index: it should be loading
    /// already ([`prefetch_index`](Stored::prefetch_index)).
    fn prefetch(&self, hint: usize) {
        if let Some(slot) = self.slots.get(KEYS + hint) {
            let start = self.text.as_ptr().wrapping_add(slot.start as usize);
            prefetch_bytes(start, (slot.len as usize).min(64));
        }
    }
}

impl Subject for Stored {
    fn field(&self, name: &str) -> Option<Field<'_>> {
        self.field_near(name, 0).map(|(field, _)| field)
    }

    fn field_near(&self, name: &str, hint: usize) -> Option<(Field<'_>, usize)> {
        let key = |slot: Slot| match self.text_of(slot) {
            Cow::Borrowed(text) => Field::Text(text),
            Cow::Owned(text) => Field::Owned(Value::String(text.into())),
        };
        let system = match name {
            "PartitionKey" => key(self.slots[0]),
            "RowKey" => key(self.slots[1]),
            "Timestamp" => Field::Time(self.timestamp()),
            _ => {
                let at = self.position(name, hint)?;
                return Some((self.field_of(self.slots[KEYS + at])?, at));
            }
        };
        Some((system, hint))
    }

    fn compare_near(
        &self,
        name: &str,
        hint: usize,
        literal: &Value,
    ) -> Option<(Comparison, usize)> {
        if matches!(name, "PartitionKey" | "RowKey" | "Timestamp") {
            return compare_by_field(self, name, hint, literal);
        }
        let at = self.position(name, hint)?;
        Some((self.compare_slot(self.slots[KEYS + at], literal), at))
    }
}

impl Stored {
    /// How the value in `slot` compares with `literal`. Int32s, Booleans and strings, which
    /// most filters compare, are read in place; a value whose text does not read back (never
    /// what [`from_entity`](Self::from_entity) wrote) matches nothing.
    fn compare_slot(&self, slot: Slot, literal: &Value) -> Comparison {
        if slot.kind != literal.edm_type() {
            return Comparison::Mismatched;
        }
        let ord = match literal {
            Value::Int32(b) => match self.json(slot).parse::<i32>() {
                Ok(a) => a.cmp(b),
                Err(_) => return Comparison::Mismatched,
            },
            Value::Bool(b) => (self.json(slot) == "true").cmp(b),
            Value::String(b) => utf16_cmp(&self.text_of(slot), b),
            _ => match self.field_of(slot) {
                Some(field) => return compare_field(&field, literal),
                None => return Comparison::Mismatched,
            },
        };
        Comparison::Ordered(ord)
    }
}

/// A table as read from disk: its account, its name as created and its entities.
#[derive(Debug)]
pub(crate) struct TableData {
    pub(crate) account: String,
    pub(crate) name: String,
    pub(crate) entities: Vec<Stored>,
    /// Its stored access policies.
    pub(crate) policies: Vec<SignedIdentifier>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn at_epoch(mut e: DynamicEntity) -> DynamicEntity {
        e.set_timestamp(Some(chrono::DateTime::from_timestamp(0, 0).unwrap()));
        e
    }

    #[test]
    fn the_text_is_the_minimal_members() {
        let mut e = DynamicEntity::new("p", "r");
        e.set("N", 1);
        let stored = Stored::new(at_epoch(e));
        assert_eq!(
            String::from_utf8_lossy(stored.minimal_members()),
            "\"odata.etag\":\"W/\\\"datetime'1970-01-01T00%3A00%3A00.0000000Z'\\\"\",\
             \"PartitionKey\":\"p\",\"RowKey\":\"r\",\"N\":1,\
             \"Timestamp\":\"1970-01-01T00:00:00.0000000Z\""
        );
    }

    #[test]
    fn escaped_keys_names_and_strings_read_back() {
        let mut e = DynamicEntity::new("a\"b\\c", "tab\there");
        e.set("Say", "line\nbreak \"quoted\" \u{1}");
        e.set("Plain", "text");
        let stored = Stored::new(at_epoch(e.clone()));
        assert_eq!(stored.partition_key(), "a\"b\\c");
        assert_eq!(stored.row_key(), "tab\there");
        assert_eq!(stored.entity(), at_epoch(e));
        assert!(matches!(
            stored.field("Say"),
            Some(Field::Owned(Value::String(s))) if s == "line\nbreak \"quoted\" \u{1}"
        ));
        assert!(matches!(stored.field("Plain"), Some(Field::Text("text"))));
        assert!(matches!(
            stored.field("PartitionKey"),
            Some(Field::Owned(_))
        ));
        assert!(stored.field("plain").is_none());
    }

    #[test]
    fn a_stale_hint_still_finds_the_property() {
        let mut e = DynamicEntity::new("p", "r");
        e.set("A", 1);
        e.set("B", 2i64);
        let stored = Stored::new(at_epoch(e));
        let (field, at) = stored.field_near("B", 0).unwrap();
        assert!(matches!(field, Field::Owned(Value::Int64(2))));
        assert_eq!(at, 1);
        assert!(stored.field_near("C", 1).is_none());
        assert!(matches!(
            stored.field_near("Timestamp", 5),
            Some((Field::Time(_), 5))
        ));
    }

    #[test]
    fn filters_match_a_stored_entity_as_they_match_the_entity() {
        let mut e = DynamicEntity::new("p", "r");
        e.set("N", 7);
        e.set("Big", 7i64);
        e.set("S", "a\"b");
        e.set("B", true);
        e.set("D", 2.5);
        let stored = Stored::new(at_epoch(e.clone()));
        let e = at_epoch(e);
        let cases = [
            ("N gt 5", true),
            ("5 lt N", true),
            ("7 le N", true),
            ("8 le N", false),
            ("N eq 7L", false),
            ("Big eq 7L", true),
            ("7L eq Big", true),
            ("'b' gt S", true),
            ("S eq 'a\"b'", true),
            ("B", true),
            ("not B", false),
            ("true eq B", true),
            ("B eq 1", false),
            ("2.0 lt D", true),
            ("Missing lt 1", false),
            ("not (1 lt Missing)", true),
            ("'p' eq PartitionKey and RowKey ge 'r'", true),
        ];
        for (text, expected) in cases {
            let filter = crate::query::filter::ParsedFilter::parse(text).unwrap();
            assert_eq!(
                filter.matches(&stored),
                expected,
                "{text} on the stored entity"
            );
            assert_eq!(filter.matches(&e), expected, "{text} on the entity");
        }
    }

    fn any_value() -> impl Strategy<Value = Value> {
        prop_oneof![
            any::<bool>().prop_map(Value::Bool),
            any::<i32>().prop_map(Value::Int32),
            any::<i64>().prop_map(Value::Int64),
            any::<f64>().prop_map(Value::Double),
            Just(Value::Double(f64::NAN)),
            Just(Value::Double(f64::NEG_INFINITY)),
            Just(Value::Double(-0.0)),
            (0i64..3_155_378_975_999_999_999)
                .prop_map(|t| Value::DateTime(value::from_ticks(t).unwrap())),
            any::<u128>().prop_map(|g| Value::Guid(uuid::Uuid::from_u128(g))),
            ".{0,40}".prop_map(|s| Value::String(s.into())),
            proptest::collection::vec(any::<u8>(), 0..40).prop_map(Value::Binary),
        ]
    }

    proptest! {
        #[test]
        fn every_entity_reads_back_as_written(
            pk in ".{0,10}",
            rk in ".{0,10}",
            properties in proptest::collection::vec(("[A-Za-z_][A-Za-z0-9_]{0,8}", any_value()), 0..12),
            ticks in 0i64..3_155_378_975_999_999_999,
        ) {
            let mut e = DynamicEntity::new(pk.as_str(), rk.as_str());
            for (name, value) in properties {
                e.set(name.as_str(), value);
            }
            e.set_timestamp(value::from_ticks(ticks));
            let stored = Stored::new(e.clone());
            prop_assert_eq!(stored.entity(), e.clone());
            let reference = crate::format::entity_json::minimal_members(&e);
            prop_assert_eq!(stored.minimal_members(), reference.as_slice());
            let mut kept = codec::decode_entity(&stored.object()).unwrap();
            kept.set_etag(None);
            prop_assert_eq!(kept, e.clone());
            for (name, value) in e.properties() {
                let field = stored.field(name);
                let same = match (field, value) {
                    (Some(Field::Text(t)), Value::String(s)) => t == s.as_str(),
                    (Some(Field::Owned(v)), value) => &v == value,
                    _ => false,
                };
                prop_assert!(same, "{name}");
            }
        }

        #[test]
        fn comparing_in_place_agrees_with_comparing_the_value(
            properties in proptest::collection::vec(("[A-Z][a-z]{0,3}", any_value()), 1..6),
            literals in proptest::collection::vec(any_value(), 1..6),
        ) {
            let mut e = DynamicEntity::new("p", "r");
            for (name, value) in &properties {
                e.set(name.as_str(), value.clone());
            }
            let stored = Stored::new(at_epoch(e.clone()));
            // Each property also against its own value, so that equality is tried too.
            let own = properties.iter().map(|(_, value)| value.clone());
            for literal in literals.into_iter().chain(own) {
                for (name, _) in &properties {
                    let expected = e.compare_near(name, 0, &literal).map(|(ord, _)| ord);
                    let found = stored.compare_near(name, 0, &literal).map(|(ord, _)| ord);
                    prop_assert_eq!(found, expected, "{} against {:?}", name, literal);
                }
                let expected = e.compare_near("Missing", 0, &literal);
                prop_assert!(expected.is_none());
                prop_assert!(stored.compare_near("Missing", 0, &literal).is_none());
            }
        }
    }
}
