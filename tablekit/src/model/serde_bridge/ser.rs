//! Serializing a value into a [`DynamicEntity`]: the entity level (a struct or map of fields)
//! and the property level (one value per field).

use chrono::{DateTime, Utc};
use serde::ser::{Impossible, Serialize, SerializeMap, SerializeStruct, Serializer};
use uuid::Uuid;

use super::{datetime, guid, SerdeError, ETAG, PARTITION_KEY, ROW_KEY, TIMESTAMP};
use crate::values::convert::IntoValue;
use crate::values::entity::DynamicEntity;
use crate::values::etag::ETag;
use crate::values::value::{EdmType, Value};

/// Serializes a struct or map into an entity; anything else is [`SerdeError::NotAnEntity`].
pub(super) struct EntitySerializer {
    /// The entity the fields are written onto: its other properties stay.
    base: DynamicEntity,
    /// Whether replacing a stored value of a type the model cannot read is recorded (see
    /// [`DynamicEntity::mark_unreadable_replaced`]).
    guard: bool,
}

impl EntitySerializer {
    /// A serializer of a new entity.
    pub(super) fn new() -> Self {
        EntitySerializer {
            base: DynamicEntity::default(),
            guard: false,
        }
    }

    /// A serializer onto `base`, recording replaced values the model could not have read.
    pub(super) fn onto(base: DynamicEntity) -> Self {
        EntitySerializer { base, guard: true }
    }
}

fn not_an_entity<T>(found: &'static str) -> Result<T, SerdeError> {
    Err(SerdeError::NotAnEntity { found })
}

impl Serializer for EntitySerializer {
    type Ok = DynamicEntity;
    type Error = SerdeError;
    type SerializeSeq = Impossible<DynamicEntity, SerdeError>;
    type SerializeTuple = Impossible<DynamicEntity, SerdeError>;
    type SerializeTupleStruct = Impossible<DynamicEntity, SerdeError>;
    type SerializeTupleVariant = Impossible<DynamicEntity, SerdeError>;
    type SerializeMap = EntityBuilder;
    type SerializeStruct = EntityBuilder;
    type SerializeStructVariant = Impossible<DynamicEntity, SerdeError>;

    fn serialize_bool(self, _: bool) -> Result<DynamicEntity, SerdeError> {
        not_an_entity("a boolean")
    }
    fn serialize_i8(self, _: i8) -> Result<DynamicEntity, SerdeError> {
        not_an_entity("an integer")
    }
    fn serialize_i16(self, _: i16) -> Result<DynamicEntity, SerdeError> {
        not_an_entity("an integer")
    }
    fn serialize_i32(self, _: i32) -> Result<DynamicEntity, SerdeError> {
        not_an_entity("an integer")
    }
    fn serialize_i64(self, _: i64) -> Result<DynamicEntity, SerdeError> {
        not_an_entity("an integer")
    }
    fn serialize_u8(self, _: u8) -> Result<DynamicEntity, SerdeError> {
        not_an_entity("an integer")
    }
    fn serialize_u16(self, _: u16) -> Result<DynamicEntity, SerdeError> {
        not_an_entity("an integer")
    }
    fn serialize_u32(self, _: u32) -> Result<DynamicEntity, SerdeError> {
        not_an_entity("an integer")
    }
    fn serialize_u64(self, _: u64) -> Result<DynamicEntity, SerdeError> {
        not_an_entity("an integer")
    }
    fn serialize_f32(self, _: f32) -> Result<DynamicEntity, SerdeError> {
        not_an_entity("a number")
    }
    fn serialize_f64(self, _: f64) -> Result<DynamicEntity, SerdeError> {
        not_an_entity("a number")
    }
    fn serialize_char(self, _: char) -> Result<DynamicEntity, SerdeError> {
        not_an_entity("a character")
    }
    fn serialize_str(self, _: &str) -> Result<DynamicEntity, SerdeError> {
        not_an_entity("a string")
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<DynamicEntity, SerdeError> {
        not_an_entity("bytes")
    }
    fn serialize_none(self) -> Result<DynamicEntity, SerdeError> {
        not_an_entity("`None`")
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<DynamicEntity, SerdeError> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<DynamicEntity, SerdeError> {
        not_an_entity("a unit")
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<DynamicEntity, SerdeError> {
        not_an_entity("a unit struct")
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
    ) -> Result<DynamicEntity, SerdeError> {
        not_an_entity("an enum variant")
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<DynamicEntity, SerdeError> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<DynamicEntity, SerdeError> {
        not_an_entity("an enum variant")
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, SerdeError> {
        not_an_entity("a sequence")
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, SerdeError> {
        not_an_entity("a tuple")
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, SerdeError> {
        not_an_entity("a tuple struct")
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, SerdeError> {
        not_an_entity("an enum variant")
    }
    fn serialize_map(self, _: Option<usize>) -> Result<EntityBuilder, SerdeError> {
        Ok(EntityBuilder::new(self))
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<EntityBuilder, SerdeError> {
        Ok(EntityBuilder::new(self))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, SerdeError> {
        not_an_entity("an enum variant")
    }
}

/// The entity being built, field by field.
pub(super) struct EntityBuilder {
    entity: DynamicEntity,
    guard: bool,
    partition_key: Option<String>,
    row_key: Option<String>,
    /// A map's key, waiting for its value.
    pending: Option<String>,
}

impl EntityBuilder {
    fn new(serializer: EntitySerializer) -> Self {
        EntityBuilder {
            entity: serializer.base,
            guard: serializer.guard,
            partition_key: None,
            row_key: None,
            pending: None,
        }
    }

    fn field<T: Serialize + ?Sized>(&mut self, name: &str, value: &T) -> Result<(), SerdeError> {
        let value = value.serialize(ValueSerializer { field: name })?;
        match name {
            PARTITION_KEY => self.partition_key = Some(key_text(PARTITION_KEY, value)?),
            ROW_KEY => self.row_key = Some(key_text(ROW_KEY, value)?),
            // The service sets these: a model without them keeps what the entity holds.
            TIMESTAMP => {
                if let Some(t) = timestamp(value)? {
                    self.entity.set_timestamp(Some(t));
                }
            }
            ETAG => {
                if let Some(tag) = etag(value)? {
                    self.entity.set_etag(Some(tag));
                }
            }
            _ => match value {
                Some(value) => {
                    if self.guard {
                        self.guard_replace(name, &value);
                    }
                    self.entity.set(name, value);
                }
                // A `None` stores nothing, and removes what an earlier field of the name set.
                None => drop(self.entity.remove(name)),
            },
        }
        Ok(())
    }

    /// Records replacing a stored value that a field of the type written could not have read.
    fn guard_replace(&mut self, name: &str, new: &Value) {
        let Some(old) = self.entity.value(name) else {
            return;
        };
        let (old, new) = (old.edm_type(), new.edm_type());
        if !readable_as(old, new) {
            self.entity.mark_unreadable_replaced(
                name,
                format_args!("stored {old}, the model writes {new}"),
            );
        }
    }

    fn finish(mut self) -> Result<DynamicEntity, SerdeError> {
        let partition_key = self
            .partition_key
            .ok_or(SerdeError::MissingKey { key: PARTITION_KEY })?;
        let row_key = self
            .row_key
            .ok_or(SerdeError::MissingKey { key: ROW_KEY })?;
        self.entity.set_partition_key(partition_key);
        self.entity.set_row_key(row_key);
        Ok(self.entity)
    }
}

/// Whether a field whose type writes `new` reads a stored `old` (the tolerances of
/// [`FromValue`](crate::FromValue) and of the bridge's reads).
pub(super) fn readable_as(old: EdmType, new: EdmType) -> bool {
    use EdmType::{DateTime, Double, Guid, Int32, Int64, String};
    old == new
        || matches!(
            (old, new),
            (Int32 | Int64, Int32 | Int64)
                | (Int32, Double)
                | (DateTime | Guid, String)
                | (String, DateTime | Guid)
        )
}

/// What a value is, for errors about system fields.
fn described(value: &Option<Value>) -> String {
    match value {
        Some(v) => v.edm_type().to_string(),
        None => "nothing".to_owned(),
    }
}

fn key_text(field: &'static str, value: Option<Value>) -> Result<String, SerdeError> {
    match value {
        Some(Value::String(s)) => Ok(s.into()),
        other => Err(SerdeError::SystemField {
            field,
            expected: "a string",
            found: described(&other),
        }),
    }
}

/// The Timestamp field: the service sets it, but a value read earlier may travel back.
fn timestamp(value: Option<Value>) -> Result<Option<DateTime<Utc>>, SerdeError> {
    match value {
        None => Ok(None),
        Some(Value::DateTime(t)) => Ok(Some(t)),
        Some(Value::String(s)) => match DateTime::parse_from_rfc3339(&s) {
            Ok(t) => Ok(Some(t.with_timezone(&Utc))),
            Err(_) => Err(SerdeError::Unparsable {
                field: TIMESTAMP.to_owned(),
                text: s.into(),
                expected: datetime::EXPECTED,
            }),
        },
        other => Err(SerdeError::SystemField {
            field: TIMESTAMP,
            expected: "a date and time",
            found: described(&other),
        }),
    }
}

/// The ETag field: the version a conditional write checks.
fn etag(value: Option<Value>) -> Result<Option<ETag>, SerdeError> {
    match value {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(ETag::new(s.as_str()))),
        other => Err(SerdeError::SystemField {
            field: ETAG,
            expected: "a string",
            found: described(&other),
        }),
    }
}

impl SerializeStruct for EntityBuilder {
    type Ok = DynamicEntity;
    type Error = SerdeError;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), SerdeError> {
        self.field(key, value)
    }

    fn end(self) -> Result<DynamicEntity, SerdeError> {
        self.finish()
    }
}

impl SerializeMap for EntityBuilder {
    type Ok = DynamicEntity;
    type Error = SerdeError;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), SerdeError> {
        let name = match key.serialize(ValueSerializer { field: "" }) {
            Ok(Some(Value::String(s))) => s.into(),
            Ok(Some(other)) => {
                return Err(SerdeError::FieldName {
                    found: other.edm_type().odata_name(),
                })
            }
            Ok(None) => return Err(SerdeError::FieldName { found: "nothing" }),
            Err(_) => {
                return Err(SerdeError::FieldName {
                    found: "a compound value",
                })
            }
        };
        self.pending = Some(name);
        Ok(())
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), SerdeError> {
        let name = self
            .pending
            .take()
            .ok_or_else(|| SerdeError::Message("a map value came without its key".to_owned()))?;
        self.field(&name, value)
    }

    fn end(self) -> Result<DynamicEntity, SerdeError> {
        self.finish()
    }
}

/// Serializes one field's value: `None` when it stores nothing.
struct ValueSerializer<'a> {
    field: &'a str,
}

impl ValueSerializer<'_> {
    fn nested<T>(&self, kind: &'static str) -> Result<T, SerdeError> {
        Err(SerdeError::Nested {
            field: self.field.to_owned(),
            kind,
        })
    }

    /// The text a `datetime` or `guid` helper wrote, parsed into the value it marks.
    fn marked<T: Serialize + ?Sized>(
        &self,
        value: &T,
        expected: &'static str,
        parse: impl FnOnce(&str) -> Option<Value>,
    ) -> Result<Option<Value>, SerdeError> {
        match value.serialize(ValueSerializer { field: self.field })? {
            Some(Value::String(text)) => parse(&text).map(Some).ok_or(SerdeError::Unparsable {
                field: self.field.to_owned(),
                text: text.into(),
                expected,
            }),
            other => Ok(other),
        }
    }
}

type Stored = Result<Option<Value>, SerdeError>;

impl Serializer for ValueSerializer<'_> {
    type Ok = Option<Value>;
    type Error = SerdeError;
    type SerializeSeq = Impossible<Option<Value>, SerdeError>;
    type SerializeTuple = Impossible<Option<Value>, SerdeError>;
    type SerializeTupleStruct = Impossible<Option<Value>, SerdeError>;
    type SerializeTupleVariant = Impossible<Option<Value>, SerdeError>;
    type SerializeMap = Impossible<Option<Value>, SerdeError>;
    type SerializeStruct = Impossible<Option<Value>, SerdeError>;
    type SerializeStructVariant = Impossible<Option<Value>, SerdeError>;

    fn serialize_bool(self, v: bool) -> Stored {
        Ok(v.into_value())
    }
    fn serialize_i8(self, v: i8) -> Stored {
        Ok(v.into_value())
    }
    fn serialize_i16(self, v: i16) -> Stored {
        Ok(v.into_value())
    }
    fn serialize_i32(self, v: i32) -> Stored {
        Ok(v.into_value())
    }
    fn serialize_i64(self, v: i64) -> Stored {
        Ok(v.into_value())
    }
    fn serialize_u8(self, v: u8) -> Stored {
        Ok(v.into_value())
    }
    fn serialize_u16(self, v: u16) -> Stored {
        Ok(v.into_value())
    }
    fn serialize_u32(self, v: u32) -> Stored {
        Ok(v.into_value())
    }
    fn serialize_u64(self, v: u64) -> Stored {
        Ok(v.into_value())
    }
    fn serialize_f32(self, v: f32) -> Stored {
        Ok(v.into_value())
    }
    fn serialize_f64(self, v: f64) -> Stored {
        Ok(v.into_value())
    }
    fn serialize_char(self, v: char) -> Stored {
        Ok(v.to_string().into_value())
    }
    fn serialize_str(self, v: &str) -> Stored {
        Ok(v.into_value())
    }
    fn serialize_bytes(self, v: &[u8]) -> Stored {
        Ok(v.into_value())
    }
    fn serialize_none(self) -> Stored {
        Ok(None)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Stored {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Stored {
        Ok(None)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Stored {
        Ok(None)
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Stored {
        Ok(variant.into_value())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Stored {
        match name {
            datetime::MARKER => self.marked(value, datetime::EXPECTED, |text| {
                DateTime::parse_from_rfc3339(text)
                    .ok()
                    .and_then(|t| t.with_timezone(&Utc).into_value())
            }),
            guid::MARKER => self.marked(value, guid::EXPECTED, |text| {
                Uuid::parse_str(text).ok().and_then(IntoValue::into_value)
            }),
            _ => value.serialize(self),
        }
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Stored {
        self.nested("an enum variant with data")
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, SerdeError> {
        self.nested("a sequence")
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, SerdeError> {
        self.nested("a tuple")
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, SerdeError> {
        self.nested("a tuple struct")
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, SerdeError> {
        self.nested("an enum variant with data")
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, SerdeError> {
        self.nested("a map")
    }
    fn serialize_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStruct, SerdeError> {
        self.nested("a struct")
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, SerdeError> {
        self.nested("an enum variant with data")
    }
}
