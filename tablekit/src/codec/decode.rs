//! JSON response bodies straight to entities.
//!
//! No intermediate tree is built: the [`JsonReader`] hands out member names and values
//! borrowed from the input, typed values (`Edm.Int64`, `Edm.DateTime`, `Edm.Guid`) are parsed
//! from borrowed text, and only names and string/binary values are allocated. An
//! `@odata.type` annotation may come before its value (minimalmetadata and fullmetadata
//! responses) or after it (SDK request bodies): a value read before its annotation is typed
//! again when it arrives.

use std::borrow::Cow;

use smol_str::SmolStr;

use super::datetime::parse_datetime;
use super::json::{bytes_equal, JsonReader, SyntaxError};
use super::property::{retype, to_value, Reason, Scalar};
use crate::values::entity::DynamicEntity;
use crate::values::etag::ETag;
use crate::values::value::{smol_str, EdmType};

/// Why a body from the service (or a file) could not be decoded: what was being decoded and
/// what was wrong. It converts into [`Error::Decode`](crate::Error::Decode).
///
/// ```
/// use tablekit::codec::{decode_entity, DecodeError};
/// let err = decode_entity(br#"{"PartitionKey":"p","RowKey":"r","N@odata.type":"Edm.Int64","N":"x"}"#)
///     .unwrap_err();
/// assert_eq!(err.what, "property `N`");
/// assert!(err.to_string().starts_with("cannot decode property `N`: "));
/// let err = DecodeError::new("backup header", "wrong magic bytes");
/// assert_eq!(err.to_string(), "cannot decode backup header: wrong magic bytes");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot decode {what}: {message}")]
#[non_exhaustive]
pub struct DecodeError {
    /// What was being decoded, e.g. `property \`Age\``.
    pub what: String,
    /// What was wrong.
    pub message: String,
}

impl DecodeError {
    /// A decode error about `what`.
    pub fn new(what: impl Into<String>, message: impl Into<String>) -> Self {
        DecodeError {
            what: what.into(),
            message: message.into(),
        }
    }
}

/// A `Result` of the codec.
type Result<T, E = DecodeError> = std::result::Result<T, E>;

/// Decodes one entity (a point query or an insert's echo) in any metadata level.
///
/// Null properties are dropped (Azure answers a `$select` of a missing property with null);
/// in nometadata, values that need annotations come back as strings and stay strings.
///
/// ```
/// let body = br#"{"odata.etag":"W/\"1\"","PartitionKey":"p","RowKey":"r",
///     "Big@odata.type":"Edm.Int64","Big":"9223372036854775807","Gone":null}"#;
/// let e = tablekit::codec::decode_entity(body)?;
/// assert_eq!(e.get::<i64>("Big"), Some(i64::MAX));
/// assert!(!e.contains("Gone"));
/// assert_eq!(e.etag().unwrap().as_str(), r#"W/"1""#);
/// # Ok::<(), tablekit::codec::DecodeError>(())
/// ```
pub fn decode_entity(bytes: &[u8]) -> Result<DynamicEntity> {
    // Room for every property at once, as growing costs more: no more members than commas
    // plus one (a comma inside a string only adds room). A guess from the body's length
    // would hold twice the room a typical entity needs, which a server decoding a batch's
    // hundred entities pays for in memory.
    let members = memchr::memchr_iter(b',', bytes).count() + 1;
    let capacity = members.clamp(4, 255);
    decode(bytes, "entity", |json| {
        let entity = EntityReader::with_capacity(capacity).entity(json, None, capacity)?;
        json.end()?;
        Ok(entity)
    })
}

/// Decodes a query page: `{"value": [entity, ...]}` (other members such as
/// `odata.metadata` are ignored).
///
/// ```
/// let page = br#"{"odata.metadata":"x","value":[{"PartitionKey":"p","RowKey":"1","N":1},
///                                             {"PartitionKey":"p","RowKey":"2","N":2.5}]}"#;
/// let entities = tablekit::codec::decode_page(page)?;
/// assert_eq!(entities.len(), 2);
/// assert_eq!(entities[1].get::<f64>("N"), Some(2.5));
/// # Ok::<(), tablekit::codec::DecodeError>(())
/// ```
pub fn decode_page(bytes: &[u8]) -> Result<Vec<DynamicEntity>> {
    decode(bytes, "page", |json| {
        let entities = page(json)?;
        json.end()?;
        Ok(entities)
    })
}

/// Runs `read` over the input, naming `what` in the errors of malformed JSON.
fn decode<'de, T>(
    bytes: &'de [u8],
    what: &str,
    read: impl FnOnce(&mut JsonReader<'de>) -> Result<T, Failed<'de>>,
) -> Result<T> {
    let result = JsonReader::new(bytes)
        .map_err(Failed::Syntax)
        .and_then(|mut json| read(&mut json));
    result.map_err(|failed| failed.into_error(what))
}

/// Why decoding stopped.
enum Failed<'de> {
    /// The input is not JSON.
    Syntax(SyntaxError),
    /// The JSON is not a page or an entity (a missing or repeated `value`, say).
    Shape(&'static str),
    /// A property's value is not valid: its name, why, and its entity's place in the page.
    Property {
        name: Cow<'de, str>,
        reason: Reason,
        index: Option<usize>,
    },
}

impl From<SyntaxError> for Failed<'_> {
    fn from(e: SyntaxError) -> Self {
        Failed::Syntax(e)
    }
}

impl Failed<'_> {
    fn into_error(self, what: &str) -> DecodeError {
        match self {
            Failed::Syntax(e) => DecodeError::new(what, e.to_string()),
            Failed::Shape(reason) => DecodeError::new(what, reason),
            Failed::Property {
                name,
                reason,
                index: Some(i),
            } => DecodeError::new(
                format!("property `{name}` of entity {i} in the page"),
                reason,
            ),
            Failed::Property { name, reason, .. } => {
                DecodeError::new(format!("property `{name}`"), reason)
            }
        }
    }
}

/// The top-level object of a page: its `value` array is the entities.
fn page<'de>(json: &mut JsonReader<'de>) -> Result<Vec<DynamicEntity>, Failed<'de>> {
    json.begin_object()?;
    let mut entities = None;
    let mut first = true;
    while let Some(key) = json.next_key(first)? {
        first = false;
        if key != "value" {
            json.skip_value()?;
        } else if entities.is_some() {
            return Err(Failed::Shape("duplicate field `value`"));
        } else {
            entities = Some(EntityReader::default().entities(json)?);
        }
    }
    entities.ok_or(Failed::Shape("missing field `value`"))
}

/// The most entities the service answers in one page.
const MAX_PAGE: usize = 1000;

/// The most members an entity object may have. The service keeps at most 255 properties, each
/// with at most one annotation, and adds a handful of metadata members: about 520 in all.
/// Some of the searches for repeated names run over the members read so far: unbounded, a
/// megabyte of tiny members would cost their count squared (a second of CPU).
const MAX_MEMBERS: usize = 2048;

/// Reads entities, keeping what one entity teaches about the next (names, sizes).
#[derive(Default)]
struct EntityReader<'de> {
    /// The `@odata.type` annotations seen in the current entity so far.
    annotations: Vec<(Cow<'de, str>, EdmType)>,
    /// Property names already made, shared by the entities of a page.
    names: Names,
    /// What the member names at each place of the last entity meant.
    members: Members,
}

impl<'de> EntityReader<'de> {
    /// A reader with room for `properties` names and some annotations, allocated once
    /// instead of growing step by step (a single entity's reader lives for one entity).
    fn with_capacity(properties: usize) -> Self {
        EntityReader {
            annotations: Vec::with_capacity(properties.min(8)),
            names: Names {
                known: Vec::with_capacity(properties),
                seen: NameSet::default(),
            },
            members: Members::single(),
        }
    }

    /// The `value` array of a page.
    fn entities(&mut self, json: &mut JsonReader<'de>) -> Result<Vec<DynamicEntity>, Failed<'de>> {
        json.begin_array()?;
        let mut entities: Vec<DynamicEntity> = Vec::new();
        while json.next_element(entities.is_empty())? {
            // Entities of one page usually share a shape: size the next like the last.
            let capacity = entities.last().map_or(0, DynamicEntity::len);
            let (start, _) = json.progress();
            let entity = self.entity(json, Some(entities.len()), capacity)?;
            if entities.is_empty() {
                // Room for as many more as the rest of the input holds at this entity's size,
                // up to a service page (a tiny first entity must not reserve a fortune).
                let (end, left) = json.progress();
                entities.reserve((1 + left / (end - start).max(1)).min(MAX_PAGE));
            }
            entities.push(entity);
        }
        Ok(entities)
    }

    /// One entity object; `index` is its place in a page, for errors.
    fn entity(
        &mut self,
        json: &mut JsonReader<'de>,
        index: Option<usize>,
        capacity: usize,
    ) -> Result<DynamicEntity, Failed<'de>> {
        json.begin_object()?;
        let mut entity = DynamicEntity::with_capacity(capacity);
        self.annotations.clear();
        self.names.next_entity();
        let mut place = 0;
        while let Some(key) = json.next_key(place == 0)? {
            if place == MAX_MEMBERS {
                return Err(Failed::Shape("an entity of more than 2048 members"));
            }
            let kind = self.key_kind(place, &key, entity.len());
            place += 1;
            let step = match kind {
                Key::Ignored => {
                    json.skip_value()?;
                    Ok(())
                }
                Key::System(system) => set_system(&mut entity, system, json.scalar()?),
                Key::Property(number) => self.property(&mut entity, key, number, json.scalar()?),
                Key::Annotation(target) => {
                    let name = annotated_name(key, target.at);
                    self.annotation(&mut entity, name, target, json.scalar()?)
                }
            };
            if let Err((name, reason)) = step {
                return Err(Failed::Property {
                    name,
                    reason,
                    index,
                });
            }
        }
        Ok(entity)
    }

    /// What member name `key`, at `place` in its entity, means: learned from the last entity
    /// when it had the same name there (one comparison), else classified and remembered.
    /// `position` is where the entity's next property goes.
    #[inline(always)]
    fn key_kind(&mut self, place: usize, key: &str, position: usize) -> Key {
        if let Some(kind) = self.members.at(place, key) {
            return kind;
        }
        let kind = Key::classify(key, &mut self.names, position);
        self.members.learn(place, key, kind);
        kind
    }
}

/// A failed property: its name and why.
type BadProperty<'de> = (Cow<'de, str>, Reason);

impl<'de> EntityReader<'de> {
    /// A user property's value, typed by an annotation seen before it (if any).
    fn property(
        &mut self,
        entity: &mut DynamicEntity,
        name: Cow<'de, str>,
        number: Option<usize>,
        value: Scalar<'de>,
    ) -> Result<(), BadProperty<'de>> {
        // An annotation usually comes right before its value: look from the end.
        let edm = self
            .annotations
            .iter()
            .rev()
            .find(|(n, _)| same(n, &name))
            .map(|(_, edm)| *edm);
        let value = match to_value(value, edm) {
            Ok(Some(value)) => value,
            Ok(None) => return Ok(()),
            Err(reason) => return Err((name, reason)),
        };
        // A remembered name has a number: a repeat is one bit test, not a search. The name
        // goes straight from where it is kept into the entity: passed back through an
        // `Option`, it would be copied piecewise on the stack, which costs more than reading
        // the value.
        match number {
            Some(number) if self.names.seen.insert(number) => {
                entity.push_shared(self.names.shared(number), value)
            }
            None if !entity.contains(&name) => entity.push_shared(smol_str(&name), value),
            _ => return Err((name, "the property appears twice".into())),
        }
        Ok(())
    }

    /// `Name@odata.type`: remembered for a value still to come, or applied to one already read.
    fn annotation(
        &mut self,
        entity: &mut DynamicEntity,
        name: Cow<'de, str>,
        target: Target,
        value: Scalar<'de>,
    ) -> Result<(), BadProperty<'de>> {
        let edm = match &value {
            Scalar::Str(text) => EdmType::from_odata_name(text),
            _ => None,
        };
        let Some(edm) = edm else {
            let reason = format!("unknown @odata.type {value:?}");
            return Err((name, reason.into()));
        };
        if let Some(expected) = target.system {
            return match edm == expected {
                true => Ok(()),
                false => Err((name, format!("a system property cannot be {edm}").into())),
            };
        }
        if self.annotations.iter().any(|(n, _)| same(n, &name)) {
            return Err((name, "the @odata.type annotation appears twice".into()));
        }
        // In the service's answers an annotation comes right before its value: the entity
        // cannot have the property yet, and the search below is skipped.
        let read_before = !self.names.is_next_and_new(&name, entity.len());
        if let Some(slot) = read_before.then(|| entity.value_mut(&name)).flatten() {
            let untyped = std::mem::replace(slot, crate::values::value::Value::Bool(false));
            match retype(untyped, edm) {
                Ok(typed) => *slot = typed,
                Err(reason) => return Err((name, reason)),
            }
        }
        self.annotations.push((name, edm));
        Ok(())
    }
}

/// The property names met so far in a page. Entities of one page mostly share one shape, so
/// the name at position `i` of the last entity is tried first; making each name once per page
/// instead of once per property is one of the decoder's largest savings.
#[derive(Default)]
struct Names {
    known: Vec<SmolStr>,
    /// The remembered names the entity being read already has.
    seen: NameSet,
}

impl Names {
    /// Past this many distinct names, new ones are no longer remembered (bounds the search).
    const MAX: usize = NameSet::CAPACITY;

    /// Starts the next entity: it has no names yet.
    fn next_entity(&mut self) {
        self.seen.clear();
    }

    /// Remembered name number `number`, shared.
    fn shared(&self, number: usize) -> SmolStr {
        self.known.get(number).cloned().unwrap_or_default()
    }

    /// Whether `name` is the remembered name at `position` (where the last entity had it)
    /// and the entity being read does not have it yet.
    fn is_next_and_new(&self, name: &str, position: usize) -> bool {
        self.is_at(name, position) && !self.seen.contains(position)
    }

    /// Whether `name` is the remembered name at `position`.
    fn is_at(&self, name: &str, position: usize) -> bool {
        self.known.get(position).is_some_and(|n| same(n, name))
    }

    /// The name's number, remembering it if it is new; `None` once [`Self::MAX`] names are
    /// remembered (equal names get equal numbers).
    fn intern(&mut self, name: &str, position: usize) -> Option<usize> {
        if self.is_at(name, position) {
            return Some(position);
        }
        if let Some(index) = self.known.iter().position(|n| same(n, name)) {
            return Some(index);
        }
        if self.known.len() < Self::MAX {
            self.known.push(smol_str(name));
            return Some(self.known.len() - 1);
        }
        None
    }
}

/// Which remembered names an entity already has: its duplicate check.
#[derive(Default)]
struct NameSet {
    bits: [u64; 4],
}

impl NameSet {
    /// How many name numbers the set holds.
    const CAPACITY: usize = 256;

    fn clear(&mut self) {
        self.bits = [0; 4];
    }

    /// The word and bit of name `index` (below [`Self::CAPACITY`]).
    fn slot(index: usize) -> (usize, u64) {
        (index / 64 % 4, 1u64 << (index % 64))
    }

    /// Whether name `index` is in the set.
    fn contains(&self, index: usize) -> bool {
        let (word, bit) = Self::slot(index);
        index < Self::CAPACITY && self.bits[word] & bit != 0
    }

    /// Adds name `index` (below [`Self::CAPACITY`]): `false` when it was already there.
    fn insert(&mut self, index: usize) -> bool {
        let (word, bit) = Self::slot(index);
        let fresh = self.bits[word] & bit == 0;
        self.bits[word] |= bit;
        fresh
    }
}

/// Whether two names are equal. Names are short: up to 16 bytes they are compared as one or
/// two overlapping words (or halves, or pairs of bytes) in place, instead of through a call
/// to the C library's `memcmp`.
#[inline(always)]
fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let word = |s: &[u8], at: usize| s.get(at..).and_then(|w| w.first_chunk::<8>().copied());
    let half = |s: &[u8], at: usize| s.get(at..).and_then(|w| w.first_chunk::<4>().copied());
    let pair = |s: &[u8], at: usize| s.get(at..).and_then(|w| w.first_chunk::<2>().copied());
    match n {
        8..=16 => word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8),
        4..=7 => half(a, 0) == half(b, 0) && half(a, n - 4) == half(b, n - 4),
        2..=3 => pair(a, 0) == pair(b, 0) && pair(a, n - 2) == pair(b, n - 2),
        0..=1 => a.first() == b.first(),
        _ => a == b,
    }
}

/// Where the first `@` of `key` is. Keys of 8 bytes or more are read a word at a time, each
/// word tested for the byte at once.
#[inline(always)]
fn first_at_sign(key: &[u8]) -> Option<usize> {
    let in_word = |start: usize, word: &[u8; 8]| {
        let found = bytes_equal(u64::from_le_bytes(*word), b'@');
        (found != 0).then(|| start + (found.trailing_zeros() / 8) as usize)
    };
    let Some(tail) = key.last_chunk::<8>() else {
        return key.iter().position(|&b| b == b'@');
    };
    // Whole words from the start, then the last eight bytes (overlapping the word before,
    // which held none).
    key.chunks_exact(8)
        .enumerate()
        .find_map(|(i, word)| in_word(i * 8, word.first_chunk::<8>()?))
        .or_else(|| in_word(key.len() - 8, tail))
}

/// The EDM type of a system property, `None` for a user property.
fn system_type(name: &str) -> Option<EdmType> {
    match name {
        "PartitionKey" | "RowKey" => Some(EdmType::String),
        "Timestamp" => Some(EdmType::DateTime),
        _ => None,
    }
}

/// The keys and versions the entity carries outside its property list.
#[derive(Clone, Copy)]
enum System {
    PartitionKey,
    RowKey,
    Timestamp,
    ETag,
}

fn set_system<'de>(
    entity: &mut DynamicEntity,
    system: System,
    value: Scalar<'de>,
) -> Result<(), BadProperty<'de>> {
    let name = match system {
        System::PartitionKey => "PartitionKey",
        System::RowKey => "RowKey",
        System::Timestamp => "Timestamp",
        System::ETag => "odata.etag",
    };
    let text = match value {
        Scalar::Str(text) => text,
        // A `$select` without the key may answer null: the key is then unknown.
        Scalar::Null => return Ok(()),
        _ => return Err((Cow::Borrowed(name), "expected a string".into())),
    };
    match system {
        System::PartitionKey => entity.set_partition_key(&*text),
        System::RowKey => entity.set_row_key(&*text),
        System::ETag => entity.set_etag(Some(ETag::new(text.into_owned()))),
        System::Timestamp => match parse_datetime(&text) {
            Some(time) => entity.set_timestamp(Some(time)),
            None => return Err((Cow::Borrowed(name), "invalid Edm.DateTime text".into())),
        },
    }
    Ok(())
}

/// What a member name of an entity object means.
#[derive(Clone, Copy)]
enum Key {
    /// OData control information other than the ETag (`odata.type`, `odata.id`, ...) or an
    /// annotation other than `@odata.type`.
    Ignored,
    System(System),
    /// `Name@odata.type`.
    Annotation(Target),
    /// A user property and its number among the remembered names (`None` past them).
    Property(Option<usize>),
}

impl Key {
    /// What `key` means; a property name is remembered in `names` (`position` is where the
    /// entity's next property goes, where the name most likely already is).
    fn classify(key: &str, names: &mut Names, position: usize) -> Self {
        // Property names cannot hold `@`, so the first one starts an annotation.
        if let Some(at) = first_at_sign(key.as_bytes()) {
            if key.get(at + 1..) != Some("odata.type") || at == 0 {
                return Key::Ignored;
            }
            let system = system_type(key.get(..at).unwrap_or_default());
            return Key::Annotation(Target { at, system });
        }
        // Compared in place (`same`), not through the C library's `memcmp` a `match` calls:
        // a single entity classifies every member name.
        let system = [
            ("PartitionKey", System::PartitionKey),
            ("RowKey", System::RowKey),
            ("Timestamp", System::Timestamp),
            ("odata.etag", System::ETag),
        ]
        .into_iter()
        .find(|(name, _)| same(key, name));
        match system {
            Some((_, system)) => Key::System(system),
            None if key.starts_with("odata.") => Key::Ignored,
            None => Key::Property(names.intern(key, position)),
        }
    }
}

/// The property an `Name@odata.type` member annotates.
#[derive(Clone, Copy)]
struct Target {
    /// Where the `@` is in the member name.
    at: usize,
    /// The type the service gives `Name` when it is a system property.
    system: Option<EdmType>,
}

/// `Name` of the member name `Name@odata.type`, whose `@` is at `at`.
fn annotated_name(key: Cow<'_, str>, at: usize) -> Cow<'_, str> {
    match key {
        Cow::Borrowed(k) => Cow::Borrowed(k.get(..at).unwrap_or_default()),
        Cow::Owned(mut k) => {
            k.truncate(at);
            Cow::Owned(k)
        }
    }
}

/// The member names at each place of the last entity read, with what they mean. Entities of
/// a page share a shape, so one comparison with the name met at the same place usually
/// replaces classifying a name and looking it up among the remembered ones.
#[derive(Default)]
struct Members {
    learned: Vec<(Box<str>, Key)>,
    /// Set when reading a single entity: no entity follows to use what is learned.
    single: bool,
}

impl Members {
    /// Places past this are not remembered (bounds the memory a hostile entity can claim).
    const MAX: usize = 1024;

    /// Members that learn nothing (for a single entity).
    fn single() -> Self {
        Members {
            learned: Vec::new(),
            single: true,
        }
    }

    /// What `key` meant when the last entity had it at `place`.
    #[inline(always)]
    fn at(&self, place: usize, key: &str) -> Option<Key> {
        let (name, kind) = self.learned.get(place)?;
        same(name, key).then_some(*kind)
    }

    /// Remembers that `key` at `place` means `kind`.
    fn learn(&mut self, place: usize, key: &str, kind: Key) {
        if self.single {
            return;
        }
        let len = self.learned.len();
        match self.learned.get_mut(place) {
            Some(slot) => *slot = (key.into(), kind),
            None if place == len && place < Self::MAX => self.learned.push((key.into(), kind)),
            None => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::value::Value;

    #[test]
    fn annotations_apply_before_and_after_their_value() {
        let before = br#"{"X@odata.type":"Edm.Int64","X":"5"}"#;
        let after = br#"{"X":"5","X@odata.type":"Edm.Int64"}"#;
        for body in [&before[..], &after[..]] {
            let e = decode_entity(body).unwrap();
            assert_eq!(e.value("X"), Some(&Value::Int64(5)));
        }
    }

    #[test]
    fn a_late_annotation_finds_its_value_where_the_last_entity_had_another_shape() {
        // The first entity puts `A` second; the second reads `A` first, then its annotation
        // arrives where the first entity had `A`: the value read earlier must be retyped.
        let page = br#"{"value":[{"X":1,"A":"1"},
            {"A":"7","A@odata.type":"Edm.Int64","X":1}]}"#;
        let entities = decode_page(page).unwrap();
        assert_eq!(entities[1].value("A"), Some(&Value::Int64(7)));
        assert_eq!(entities[0].value("A"), Some(&Value::String("1".into())));
    }

    /// Member names, each with a value it may have, from which pages of entities of varied
    /// shapes are drawn: system names, control information, annotations and properties.
    const MEMBERS: [(&str, &str); 14] = [
        ("PartitionKey", r#""p""#),
        ("RowKey", r#""r""#),
        ("Timestamp", r#""2024-01-02T03:04:05.0000001Z""#),
        ("odata.etag", r#""W/\"datetime'2024'\"""#),
        ("odata.id", r#""x""#),
        ("A", "1"),
        ("A", r#""text""#),
        ("A@odata.type", r#""Edm.Double""#),
        ("B@odata.type", r#""Edm.Int64""#),
        ("B", r#""5""#),
        ("C", "2.5"),
        ("D", "null"),
        ("Property_name_longer_than_sixteen", "true"),
        ("Timestamp@odata.type", r#""Edm.DateTime""#),
    ];

    fn entity_text(members: &[usize]) -> String {
        let members: Vec<String> = members
            .iter()
            .map(|&i| format!(r#""{}":{}"#, MEMBERS[i].0, MEMBERS[i].1))
            .collect();
        format!("{{{}}}", members.join(","))
    }

    proptest::proptest! {
        /// What the reader learns from one entity of a page (what the member name at each place
        /// means, each name's number) never changes how the next is read: a page reads as its
        /// entities do one by one, errors included.
        #[test]
        fn a_page_reads_as_its_entities_do_alone(
            shapes in proptest::collection::vec(
                proptest::collection::vec(0..MEMBERS.len(), 0..9), 1..6),
        ) {
            let texts: Vec<String> = shapes.iter().map(|m| entity_text(m)).collect();
            let text = format!(r#"{{"value":[{}]}}"#, texts.join(","));
            let alone: Result<Vec<DynamicEntity>> =
                texts.iter().map(|t| decode_entity(t.as_bytes())).collect();
            match (decode_page(text.as_bytes()), alone) {
                (Ok(page), Ok(alone)) => proptest::prop_assert_eq!(page, alone),
                (Err(_), Err(_)) => {}
                (page, alone) => proptest::prop_assert!(false, "{page:?} vs {alone:?} in {text}"),
            }
        }
    }

    #[test]
    fn entities_past_the_remembered_places_and_names_read_whole() {
        // More members than places are remembered (1024) and names numbered (256).
        let entity = |repeat: Option<usize>| {
            let mut members: Vec<String> = (0..1100).map(|i| format!(r#""P{i}":{i}"#)).collect();
            if let Some(i) = repeat {
                members[1050] = format!(r#""P{i}":0"#);
            }
            format!("{{{}}}", members.join(","))
        };
        let page = format!(r#"{{"value":[{},{}]}}"#, entity(None), entity(None));
        let entities = decode_page(page.as_bytes()).unwrap();
        for e in &entities {
            assert_eq!(e.len(), 1100);
            assert_eq!(e.get::<i32>("P1099"), Some(1099));
            assert_eq!(e.property_at(1050).map(|(n, _)| n), Some("P1050"));
        }
        // A repeat among the names past both limits, and among the numbered ones.
        for repeat in [1070, 3] {
            let page = format!(r#"{{"value":[{},{}]}}"#, entity(None), entity(Some(repeat)));
            let err = decode_page(page.as_bytes()).unwrap_err().to_string();
            assert!(err.contains(&format!("`P{repeat}` of entity 1")), "{err}");
        }
    }

    #[test]
    fn entities_of_more_members_than_any_service_sends_are_refused() {
        let entity = |members: usize| {
            let members: Vec<String> = (0..members).map(|i| format!(r#""P{i}":{i}"#)).collect();
            format!("{{{}}}", members.join(","))
        };
        assert_eq!(
            decode_entity(entity(MAX_MEMBERS).as_bytes()).unwrap().len(),
            2048
        );
        let page = format!(r#"{{"value":[{{}},{}]}}"#, entity(30_000));
        for err in [
            decode_entity(entity(MAX_MEMBERS + 1).as_bytes()).unwrap_err(),
            decode_page(page.as_bytes()).unwrap_err(),
        ] {
            assert!(err.to_string().contains("more than 2048 members"), "{err}");
        }
    }

    #[test]
    fn at_signs_are_found_at_every_place_of_every_length() {
        for n in 0..=24 {
            let plain = vec![b'a'; n];
            assert_eq!(first_at_sign(&plain), None, "{n}");
            for at in 0..n {
                let mut key = plain.clone();
                key[at] = b'@';
                assert_eq!(first_at_sign(&key), Some(at), "{n} {at}");
                // The first of two, wherever the second is.
                for later in at + 1..n {
                    let mut two = key.clone();
                    two[later] = b'@';
                    assert_eq!(first_at_sign(&two), Some(at), "{n} {at} {later}");
                }
                // Neighbours of `@` in value (`?`, `A`) and bytes it borrows through are not it.
                for other in [b'?', b'A', 0x80 | b'@', 0] {
                    key[at] = other;
                    assert_eq!(first_at_sign(&key), None, "{n} {at} {other}");
                }
            }
        }
    }

    #[test]
    fn names_compare_whole_at_every_length() {
        let names = [
            "",
            "a",
            "ab",
            "abc",
            "abcd",
            "abcdefg",
            "abcdefgh",
            "abcdefghijklmnop",
            "abcdefghijklmnopq",
        ];
        for a in names {
            assert!(same(a, a));
            for (at, _) in a.char_indices() {
                let mut other = a.to_owned();
                other.replace_range(at..=at, "Z");
                assert!(!same(a, &other), "{a} vs {other}");
            }
            for b in names.iter().filter(|b| **b != a) {
                assert!(!same(a, b));
            }
        }
    }

    #[test]
    fn errors_name_the_property() {
        let err = decode_entity(br#"{"X@odata.type":"Edm.Guid","X":"zzz"}"#).unwrap_err();
        assert!(err.what.contains("`X`"), "{err}");
        let err = decode_page(br#"{"value":[{},{"Y":[1]}]}"#).unwrap_err();
        assert!(err.to_string().contains("`Y` of entity 1"), "{err}");
    }

    #[test]
    fn doubles_read_back_to_the_same_bits() {
        // Found by the round-trip property test: needs serde_json's `float_roundtrip`.
        for d in [
            -1.052839344531938e277_f64,
            1.5530342776331871e187,
            -2.4415562328327633e301,
        ] {
            let mut e = DynamicEntity::new("p", "r");
            e.set("D", d);
            let back = decode_entity(&crate::codec::encode_entity(&e)).unwrap();
            assert_eq!(back.get::<f64>("D").map(f64::to_bits), Some(d.to_bits()));
        }
    }

    #[test]
    fn repeated_properties_and_annotations_are_errors() {
        let bodies: [&[u8]; 3] = [
            br#"{"A":1,"A":2}"#,
            br#"{"A@odata.type":"Edm.Int64","A@odata.type":"Edm.Int64","A":"1"}"#,
            br#"{"value":[{"A":1},{"B":1,"A":1,"B":2}]}"#,
        ];
        for body in bodies {
            let err = decode_page(body).or_else(|_| decode_entity(body).map(|e| vec![e]));
            assert!(err.is_err(), "{}", String::from_utf8_lossy(body));
        }
        let err = decode_page(bodies[2]).unwrap_err();
        assert!(err.to_string().contains("`B` of entity 1"), "{err}");
    }

    #[test]
    fn escaped_names_are_read() {
        let e = decode_entity(br#"{"\u0041@odata.type":"Edm.Int64","A":"1"}"#).unwrap();
        assert_eq!(e.value("A"), Some(&Value::Int64(1)));
    }

    #[test]
    fn invalid_utf8_is_reported_where_it_is() {
        // Not valid UTF-8: the error says where the bad byte is.
        let err = decode_page(b"{\"value\":[{\"A\":\"x\xff\"}]}").unwrap_err();
        let text = err.to_string();
        assert!(!err.what.is_empty(), "{text}");
        assert!(text.contains("column"), "{text}");
        // The same page in valid UTF-8 reads, escapes included.
        let e = decode_page("{\"value\":[{\"A\":\"x\u{ff}\\u00e9\"}]}".as_bytes()).unwrap();
        assert_eq!(e[0].get::<String>("A").as_deref(), Some("x\u{ff}\u{e9}"));
    }

    #[test]
    fn malformed_json_is_a_decode_error() {
        for body in [&b""[..], b"{", b"[]", b"{} x", b"{\"value\":{}}", b"\xff"] {
            assert!(decode_page(body).is_err());
        }
    }
}
