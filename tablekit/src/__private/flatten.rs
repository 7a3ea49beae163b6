//! What `#[derive(TableFields)]` and a `#[tablekit(flatten)]` field generate code against.
//!
//! A flattened field's properties are named `{prefix}_{Field}`. The names are `&'static str`
//! built at compile time: a prefix is a type whose `NAME` is a constant ([`Segment`] picks a
//! stored name out of a model's list, [`Join`] joins two with `_`), so every accessor and
//! column of a nested field names its property without allocating, and the constant checks
//! ([`check_flattened`]) see every full name.

use core::marker::PhantomData;

use tablekit_rules::MAX_PROPERTY_NAME_CHARS;

use super::{
    set_json, set_property_value, set_records, set_split, DynamicEntity, Error, IntoValue,
    JsonField, PropertyField, RecordsField, SplitField,
};
use crate::model::split;
use crate::values::const_text::str_eq;

/// A stored name known at compile time: a flattened field's prefix.
pub trait Prefix {
    /// The name (`Address`, `Address_Geo`).
    const NAME: &'static str;
}

/// A type whose stored names [`Segment`] picks from: a `#[derive(TableFields)]` struct (its
/// fields' names, then their `rename_from` names) or a model with flattened fields.
pub trait Names {
    /// The stored names, by the index the derive gave each.
    const NAMES: &'static [&'static str];
}

/// Stored name number `I` of `T`.
pub struct Segment<T, const I: usize>(PhantomData<T>);

impl<T: Names, const I: usize> Prefix for Segment<T, I> {
    const NAME: &'static str = T::NAMES[I];
}

/// `A::NAME`, `_`, `B::NAME`.
pub struct Join<A, B>(PhantomData<(A, B)>);

/// The longest full name in bytes a flattened property may have: 255 characters of up to
/// four bytes each.
const MAX_NAME_BYTES: usize = 1024;

/// A name built at compile time.
#[derive(Clone, Copy)]
struct NameBuf {
    bytes: [u8; MAX_NAME_BYTES],
    len: usize,
}

impl NameBuf {
    const EMPTY: NameBuf = NameBuf {
        bytes: [0; MAX_NAME_BYTES],
        len: 0,
    };

    const fn push(mut self, text: &str) -> NameBuf {
        let text = text.as_bytes();
        if self.len + text.len() > MAX_NAME_BYTES {
            panic!("a flattened property name is over 255 characters");
        }
        let mut i = 0;
        while i < text.len() {
            self.bytes[self.len + i] = text[i];
            i += 1;
        }
        self.len += text.len();
        self
    }

    const fn join(self, segment: &str) -> NameBuf {
        match self.len {
            0 => self.push(segment),
            _ => self.push("_").push(segment),
        }
    }

    const fn as_str(&self) -> &str {
        match core::str::from_utf8(self.bytes.split_at(self.len).0) {
            Ok(text) => text,
            Err(_) => panic!("a flattened property name is not UTF-8"),
        }
    }

    /// The first `SHORT_NAME_BYTES` bytes.
    const fn head(&self) -> [u8; SHORT_NAME_BYTES] {
        let mut out = [0; SHORT_NAME_BYTES];
        let mut i = 0;
        while i < SHORT_NAME_BYTES {
            out[i] = self.bytes[i];
            i += 1;
        }
        out
    }

    /// The name's length in characters (UTF-8 lead bytes).
    const fn chars(&self) -> usize {
        let (mut i, mut n) = (0, 0);
        while i < self.len {
            if self.bytes[i] & 0xC0 != 0x80 {
                n += 1;
            }
            i += 1;
        }
        n
    }
}

/// Most names fit this many bytes: they are kept in a buffer of this size, not the largest.
const SHORT_NAME_BYTES: usize = 64;

impl<A: Prefix, B: Prefix> Join<A, B> {
    const BUF: NameBuf = NameBuf::EMPTY.join(A::NAME).join(B::NAME);
    const SHORT: [u8; SHORT_NAME_BYTES] = Self::BUF.head();
}

impl<A: Prefix, B: Prefix> Prefix for Join<A, B> {
    // Only the buffer the name is read from is kept in the binary.
    const NAME: &'static str = {
        let len = Self::BUF.len;
        if len <= SHORT_NAME_BYTES {
            let short: &'static [u8; SHORT_NAME_BYTES] = &Self::SHORT;
            match core::str::from_utf8(short.split_at(len).0) {
                Ok(text) => text,
                Err(_) => panic!("a flattened property name is not UTF-8"),
            }
        } else {
            let buf: &'static NameBuf = &Self::BUF;
            buf.as_str()
        }
    };
}

/// One stored name of a `#[derive(TableFields)]` struct, for the compile-time checks: a
/// property, or a flattened field and its own names.
#[derive(Clone, Copy)]
pub struct Node {
    /// The stored name (the prefix, for a flattened field).
    pub name: &'static str,
    /// The nested struct's names, for a flattened field.
    pub nested: Option<&'static [Node]>,
}

/// A `#[derive(TableFields)]` struct: stored as properties named after a prefix.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be flattened: it does not derive `TableFields`",
    label = "`#[tablekit(flatten)]` needs a type with `#[derive(TableFields)]`",
    note = "add `#[derive(TableFields)]` to `{Self}`, or store it with `#[tablekit(json)]`"
)]
pub trait Flatten: Sized {
    /// Every stored name, nested ones included, for the compile-time checks.
    const NODES: &'static [Node];
    /// The typed columns of the fields under prefix `P`, tied to model `M`.
    type Columns<M, P: Prefix>: FlattenColumns;
    /// The fields under prefix `P`, or the first one that cannot be read.
    fn try_get<P: Prefix>(entity: &DynamicEntity) -> Result<Self, Error>;
    /// The fields under prefix `P`, each its default when missing or unreadable.
    fn get<P: Prefix>(entity: &DynamicEntity) -> Self;
    /// Whether any property of the fields under prefix `P` is present.
    fn present<P: Prefix>(entity: &DynamicEntity) -> bool;
    /// Sets the fields under prefix `P` (as their setters do).
    fn set<P: Prefix>(self, entity: &mut DynamicEntity) -> Result<(), Error>;
    /// Sets the fields under prefix `P` of an entity being built.
    fn init<P: Prefix>(self, entity: &mut DynamicEntity) -> Result<(), Error>;
    /// Sets the fields under prefix `P` that `new` stores to their defaults.
    fn init_default<P: Prefix>(entity: &mut DynamicEntity);
    /// Removes every property of the fields under prefix `P`.
    fn remove<P: Prefix>(entity: &mut DynamicEntity);
}

/// A columns struct `#[derive(TableFields)]` generates.
pub trait FlattenColumns: Copy {
    /// The columns (they hold nothing: the names are in the type).
    const NEW: Self;
}

/// A flattened field of a model or of a `#[derive(TableFields)]` struct.
pub trait FlattenField {
    /// The field's type without `Option`.
    type Value: Flatten;
    /// Its prefix.
    type Prefix: Prefix;
    /// The nested type's names: through the field, so a type that cannot be flattened is
    /// reported once, at the field.
    const NODES: &'static [Node] = <Self::Value as Flatten>::NODES;
}

/// A flattened field, or the first nested field that cannot be read.
pub fn try_get_flatten<F: FlattenField>(entity: &DynamicEntity) -> Result<F::Value, Error> {
    F::Value::try_get::<F::Prefix>(entity)
}

/// A flattened field, each nested field its default when missing or unreadable.
pub fn get_flatten<F: FlattenField>(entity: &DynamicEntity) -> F::Value {
    F::Value::get::<F::Prefix>(entity)
}

/// An optional flattened field: `None` when none of its properties is present.
pub fn try_get_flatten_option<F: FlattenField>(
    entity: &DynamicEntity,
) -> Result<Option<F::Value>, Error> {
    match F::Value::present::<F::Prefix>(entity) {
        true => F::Value::try_get::<F::Prefix>(entity).map(Some),
        false => Ok(None),
    }
}

/// An optional flattened field: `None` when none of its properties is present.
pub fn get_flatten_option<F: FlattenField>(entity: &DynamicEntity) -> Option<F::Value> {
    F::Value::present::<F::Prefix>(entity).then(|| F::Value::get::<F::Prefix>(entity))
}

/// A flattened field's setter.
pub fn set_flatten<F: FlattenField>(
    entity: &mut DynamicEntity,
    value: F::Value,
) -> Result<(), Error> {
    value.set::<F::Prefix>(entity)
}

/// An optional flattened field's setter: `None` removes all its properties.
pub fn set_flatten_option<F: FlattenField>(
    entity: &mut DynamicEntity,
    value: Option<F::Value>,
) -> Result<(), Error> {
    match value {
        Some(value) => value.set::<F::Prefix>(entity),
        None => {
            F::Value::remove::<F::Prefix>(entity);
            Ok(())
        }
    }
}

/// Sets a flattened field of an entity being built.
pub fn init_flatten<F: FlattenField>(
    entity: &mut DynamicEntity,
    value: F::Value,
) -> Result<(), Error> {
    value.init::<F::Prefix>(entity)
}

/// Sets an optional flattened field of an entity being built (`None` stores nothing).
pub fn init_flatten_option<F: FlattenField>(
    entity: &mut DynamicEntity,
    value: Option<F::Value>,
) -> Result<(), Error> {
    match value {
        Some(value) => value.init::<F::Prefix>(entity),
        None => Ok(()),
    }
}

/// Sets a flattened field of an entity being built to its fields' defaults.
pub fn init_flatten_default<F: FlattenField>(entity: &mut DynamicEntity) {
    F::Value::init_default::<F::Prefix>(entity);
}

/// Whether a flattened field's properties are present.
pub fn present_flatten<F: FlattenField>(entity: &DynamicEntity) -> bool {
    F::Value::present::<F::Prefix>(entity)
}

/// Removes a flattened field's properties.
pub fn remove_flatten<F: FlattenField>(entity: &mut DynamicEntity) {
    F::Value::remove::<F::Prefix>(entity);
}

/// Whether a nested setter leaves a field alone: the entity was read by a select that fetched
/// neither `name` nor an `old` one, so its getter read the default, and the value being set
/// is that default (`unchanged`). Writing it would replace, in a merge, a stored value the
/// code never read; a changed value is what the code means to store.
fn keep_unread(
    entity: &DynamicEntity,
    name: &str,
    old: &[&str],
    unchanged: impl FnOnce() -> bool,
) -> bool {
    let fetched = entity.is_selected(name) || old.iter().any(|o| entity.is_selected(o));
    !fetched && unchanged()
}

/// A nested property field's setter: [`set_property`](super::set_property), except that a
/// property the select did not fetch is left alone while its value is the default its getter
/// read.
pub fn set_nested_property<F: PropertyField>(entity: &mut DynamicEntity, value: F::Value) {
    let value = value.into_value();
    let unchanged = || value == F::default().into_value();
    if !keep_unread(entity, F::NAME, F::OLD_NAMES, unchanged) {
        set_property_value::<F>(entity, value);
    }
}

/// A nested JSON field's setter: [`set_json`], except as [`set_nested_property`].
pub fn set_nested_json<F: JsonField>(
    entity: &mut DynamicEntity,
    value: &F::Value,
) -> Result<(), Error> {
    let unchanged = || serde_json::to_value(value).ok() == serde_json::to_value(F::default()).ok();
    match keep_unread(entity, F::NAME, &[], unchanged) {
        true => Ok(()),
        false => set_json::<F>(entity, value),
    }
}

/// A nested records field's setter: [`set_records`], except as [`set_nested_property`].
pub fn set_nested_records<F: RecordsField>(
    entity: &mut DynamicEntity,
    records: &[F::Record],
) -> Result<(), Error> {
    match keep_unread(entity, F::NAME, &[], || records.is_empty()) {
        true => Ok(()),
        false => set_records::<F>(entity, records),
    }
}

/// A nested split field's setter: [`set_split`], except as [`set_nested_property`].
pub fn set_nested_split<F: SplitField>(
    entity: &mut DynamicEntity,
    bytes: &[u8],
) -> Result<(), Error> {
    match keep_unread(entity, F::NAME, &[], || bytes.is_empty()) {
        true => Ok(()),
        false => set_split::<F>(entity, bytes),
    }
}

/// Whether a property field (under its stored or an old name) is present.
pub fn present_property<F: PropertyField>(entity: &DynamicEntity) -> bool {
    entity.contains(F::NAME) || F::OLD_NAMES.iter().any(|old| entity.contains(old))
}

/// Removes a property field (under its stored and old names).
pub fn remove_property<F: PropertyField>(entity: &mut DynamicEntity) {
    entity.remove(F::NAME);
    for old in F::OLD_NAMES {
        entity.remove(old);
    }
}

/// Whether a value split across properties (records, split, JSON) named `name` is present.
pub fn present_split(entity: &DynamicEntity, name: &str) -> bool {
    entity.contains(name)
}

/// Removes a value split across properties named `name`, every chunk included.
pub fn remove_split(entity: &mut DynamicEntity, name: &str) {
    split::remove_split(entity, name);
}

/// How many flattened properties one model may have: more than an entity holds.
const MAX_FLATTENED: usize = 512;
/// How many bytes their names may take together.
const MAX_FLATTENED_BYTES: usize = 65536;

/// Every full name of a model's flattened fields, gathered at compile time.
struct Collected {
    bytes: [u8; MAX_FLATTENED_BYTES],
    len: usize,
    /// Each name's start, length and flattened field.
    names: [(usize, usize, usize); MAX_FLATTENED],
    count: usize,
}

impl Collected {
    const fn push(&mut self, name: &NameBuf, field: usize) {
        if self.count == MAX_FLATTENED || self.len + name.len > MAX_FLATTENED_BYTES {
            panic!("a model's flattened fields store more properties than an entity holds");
        }
        let mut i = 0;
        while i < name.len {
            self.bytes[self.len + i] = name.bytes[i];
            i += 1;
        }
        self.names[self.count] = (self.len, name.len, field);
        self.len += name.len;
        self.count += 1;
    }

    const fn walk(&mut self, nodes: &[Node], prefix: &NameBuf, field: usize) {
        let mut i = 0;
        while i < nodes.len() {
            let name = prefix.join(nodes[i].name);
            match nodes[i].nested {
                Some(nested) => self.walk(nested, &name, field),
                None => self.push(&name, field),
            }
            i += 1;
        }
    }

    const fn name(&self, i: usize) -> &str {
        let (start, len, _) = self.names[i];
        let tail = self.bytes.split_at(start).1;
        match core::str::from_utf8(tail.split_at(len).0) {
            Ok(text) => text,
            Err(_) => panic!("a flattened property name is not UTF-8"),
        }
    }
}

/// A compile-time error message.
struct Message([u8; 4 * MAX_NAME_BYTES], usize);

impl Message {
    const fn new(parts: &[&str]) -> Message {
        let mut out = Message([0; 4 * MAX_NAME_BYTES], 0);
        let mut p = 0;
        while p < parts.len() {
            let part = parts[p].as_bytes();
            let mut i = 0;
            while i < part.len() && out.1 < out.0.len() {
                out.0[out.1] = part[i];
                out.1 += 1;
                i += 1;
            }
            p += 1;
        }
        out
    }

    const fn text(&self) -> &str {
        match core::str::from_utf8(self.0.split_at(self.1).0) {
            Ok(text) => text,
            Err(_) => "a flattened property name is invalid",
        }
    }
}

/// Refuses, at compile time, a model whose flattened properties clash with another stored
/// name or with each other, or whose full names are over the service's 255 characters.
/// `plain` holds the model's other stored names and their fields (an empty field for the
/// kind's property), `flattened` each flattened field's prefix, names and field.
pub const fn check_flattened(plain: &[(&str, &str)], flattened: &[(&str, &'static [Node], &str)]) {
    let mut names = Collected {
        bytes: [0; MAX_FLATTENED_BYTES],
        len: 0,
        names: [(0, 0, 0); MAX_FLATTENED],
        count: 0,
    };
    let mut f = 0;
    while f < flattened.len() {
        let prefix = NameBuf::EMPTY.join(flattened[f].0);
        names.walk(flattened[f].1, &prefix, f);
        f += 1;
    }
    let mut i = 0;
    while i < names.count {
        let name = names.name(i);
        let field = flattened[names.names[i].2].2;
        if NameBuf::EMPTY.push(name).chars() > MAX_PROPERTY_NAME_CHARS {
            let message = Message::new(&[
                "field `",
                field,
                "` stores the property `",
                name,
                "`, whose name is over 255 characters",
            ]);
            panic!("{}", message.text());
        }
        let mut j = 0;
        while j < plain.len() {
            if str_eq(name, plain[j].0) {
                clash(name, field, plain[j].1);
            }
            j += 1;
        }
        let mut j = 0;
        while j < i {
            if str_eq(name, names.name(j)) {
                clash(name, field, flattened[names.names[j].2].2);
            }
            j += 1;
        }
        i += 1;
    }
}

/// `other` is empty for the property holding the model's kind.
const fn clash(name: &str, field: &str, other: &str) {
    if other.is_empty() {
        let message = Message::new(&[
            "field `",
            field,
            "` stores `",
            name,
            "`, the property that holds the kind: set `kind_property` or another prefix",
        ]);
        panic!("{}", message.text());
    }
    let message = Message::new(&[
        "fields `",
        other,
        "` and `",
        field,
        "` are both stored as `",
        name,
        "`",
    ]);
    panic!("{}", message.text());
}
