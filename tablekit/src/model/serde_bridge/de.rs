//! Deserializing a value from a [`DynamicEntity`]: the entity is a map of its keys, system
//! properties and properties; each property deserializes from its stored [`Value`].

use std::borrow::Cow;

use chrono::SecondsFormat;
use serde::de::{DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, Visitor};

use super::{datetime, guid, SerdeError, ETAG, PARTITION_KEY, ROW_KEY, TIMESTAMP};
use crate::values::convert::{FromValue, ValueError};
use crate::values::entity::{DynamicEntity, PropertyError};
use crate::values::value::{EdmType, Value};

/// Deserializes a struct or map from an entity.
pub(super) struct EntityDeserializer<'a> {
    entity: &'a DynamicEntity,
}

impl<'a> EntityDeserializer<'a> {
    pub(super) fn new(entity: &'a DynamicEntity) -> Self {
        EntityDeserializer { entity }
    }

    /// The entity's fields: the system ones `wanted` accepts, then every property.
    fn fields(&self, wanted: impl Fn(&str) -> bool) -> Vec<(&'a str, Cow<'a, Value>)> {
        let e = self.entity;
        let system = [
            (PARTITION_KEY, Some(Value::String(e.partition_key().into()))),
            (ROW_KEY, Some(Value::String(e.row_key().into()))),
            (TIMESTAMP, e.timestamp().map(Value::DateTime)),
            (ETAG, e.etag().map(|t| Value::String(t.as_str().into()))),
        ];
        let system = system
            .into_iter()
            .filter(|(name, _)| wanted(name))
            .filter_map(|(name, value)| Some((name, Cow::Owned(value?))));
        system
            .chain(e.properties().map(|(n, v)| (n, Cow::Borrowed(v))))
            .collect()
    }
}

impl<'de> Deserializer<'de> for EntityDeserializer<'_> {
    type Error = SerdeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        self.deserialize_map(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        visitor.visit_map(Fields::new(self.fields(|_| true)))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, SerdeError> {
        // A field not fetched by the query that read the entity is unknown, not absent: reading
        // it as `None` or its default would misreport what is stored.
        if let Some(field) = fields
            .iter()
            .find(|f| !self.entity.contains(f) && !self.entity.is_selected(f))
        {
            return Err(PropertyError::new(field, ValueError::NotSelected).into());
        }
        // System fields go only to a struct that names them, so `deny_unknown_fields` refuses
        // no struct for lacking them.
        visitor.visit_map(Fields::new(self.fields(|name| fields.contains(&name))))
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value, SerdeError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        visitor.visit_some(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct seq tuple tuple_struct enum identifier ignored_any
    }
}

/// The fields of an entity, as a serde map.
struct Fields<'a> {
    fields: std::vec::IntoIter<(&'a str, Cow<'a, Value>)>,
    /// The field whose name was given and whose value is next.
    current: Option<(&'a str, Cow<'a, Value>)>,
}

impl<'a> Fields<'a> {
    fn new(fields: Vec<(&'a str, Cow<'a, Value>)>) -> Self {
        Fields {
            fields: fields.into_iter(),
            current: None,
        }
    }
}

impl<'de> MapAccess<'de> for Fields<'_> {
    type Error = SerdeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, SerdeError> {
        let Some((name, value)) = self.fields.next() else {
            return Ok(None);
        };
        self.current = Some((name, value));
        seed.deserialize(name.into_deserializer()).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, SerdeError> {
        let (name, value) = self
            .current
            .take()
            .ok_or_else(|| SerdeError::Message("a map value was asked before its key".into()))?;
        seed.deserialize(ValueDeserializer {
            name,
            value: &value,
        })
        .map_err(|e| in_property(name, e))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.fields.len())
    }
}

/// An error of a field's `Deserialize` implementation, said of the property it read.
fn in_property(name: &str, error: SerdeError) -> SerdeError {
    match error {
        SerdeError::Message(message) => {
            PropertyError::new(name, ValueError::Invalid(message)).into()
        }
        other => other,
    }
}

/// Deserializes one field from its stored value.
struct ValueDeserializer<'a> {
    name: &'a str,
    value: &'a Value,
}

impl ValueDeserializer<'_> {
    /// The stored value as `T`, with the service's tolerances (see [`FromValue`]).
    fn read<T: FromValue>(&self) -> Result<T, SerdeError> {
        T::from_value(self.value).map_err(|e| self.error(e))
    }

    fn error(&self, source: ValueError) -> SerdeError {
        PropertyError::new(self.name, source).into()
    }

    fn mismatch(&self, expected: &'static str) -> SerdeError {
        self.error(ValueError::mismatch(expected, self.value))
    }

    fn nested(&self, kind: &'static str) -> SerdeError {
        SerdeError::Nested {
            field: self.name.to_owned(),
            kind,
        }
    }

    /// Text of a value that has a lossless text form (strings, DateTimes, GUIDs).
    fn text(&self) -> Option<Cow<'_, str>> {
        match self.value {
            Value::String(s) => Some(Cow::Borrowed(s.as_str())),
            Value::DateTime(t) => Some(Cow::Owned(t.to_rfc3339_opts(SecondsFormat::AutoSi, true))),
            Value::Guid(g) => Some(Cow::Owned(g.hyphenated().to_string())),
            _ => None,
        }
    }
}

impl<'de> Deserializer<'de> for ValueDeserializer<'_> {
    type Error = SerdeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        match self.value {
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Int32(n) => visitor.visit_i32(*n),
            Value::Int64(n) => visitor.visit_i64(*n),
            Value::Double(d) => visitor.visit_f64(*d),
            Value::Binary(b) => visitor.visit_bytes(b),
            Value::String(s) => visitor.visit_str(s),
            Value::DateTime(_) | Value::Guid(_) => self.deserialize_str(visitor),
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        visitor.visit_bool(self.read()?)
    }
    fn deserialize_i8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        visitor.visit_i8(self.read()?)
    }
    fn deserialize_i16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        visitor.visit_i16(self.read()?)
    }
    fn deserialize_i32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        visitor.visit_i32(self.read()?)
    }
    fn deserialize_i64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        visitor.visit_i64(self.read()?)
    }
    fn deserialize_u8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        visitor.visit_u8(self.read()?)
    }
    fn deserialize_u16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        visitor.visit_u16(self.read()?)
    }
    fn deserialize_u32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        visitor.visit_u32(self.read()?)
    }
    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        visitor.visit_u64(self.read()?)
    }
    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        visitor.visit_f32(self.read()?)
    }
    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        visitor.visit_f64(self.read()?)
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        let text: String = self.read()?;
        let mut chars = text.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => visitor.visit_char(c),
            _ => Err(self.error(ValueError::Invalid(format!(
                "expected one character, found {} characters",
                text.chars().count()
            )))),
        }
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        match self.text() {
            Some(text) => visitor.visit_str(&text),
            None => Err(self.mismatch("Edm.String")),
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        match self.value {
            Value::Binary(b) => visitor.visit_bytes(b),
            _ => Err(self.mismatch("Edm.Binary")),
        }
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        // A stored property is never null: an absent one is `None`, and never reaches here.
        visitor.visit_some(self)
    }

    fn deserialize_unit<V: Visitor<'de>>(self, _: V) -> Result<V::Value, SerdeError> {
        Err(self.error(ValueError::Invalid(
            "a unit stores nothing, but a value is stored".to_owned(),
        )))
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value, SerdeError> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, SerdeError> {
        // The `datetime` and `guid` helpers read text; the stored type must be theirs (or
        // text, which their visitors parse).
        let (edm, expected) = match name {
            datetime::MARKER => (EdmType::DateTime, "Edm.DateTime"),
            guid::MARKER => (EdmType::Guid, "Edm.Guid"),
            _ => return visitor.visit_newtype_struct(self),
        };
        if self.value.edm_type() == edm || matches!(self.value, Value::String(_)) {
            self.deserialize_str(visitor)
        } else {
            Err(self.mismatch(expected))
        }
    }

    fn deserialize_seq<V: Visitor<'de>>(self, _: V) -> Result<V::Value, SerdeError> {
        Err(self.nested("a sequence"))
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _: usize, _: V) -> Result<V::Value, SerdeError> {
        Err(self.nested("a tuple"))
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: usize,
        _: V,
    ) -> Result<V::Value, SerdeError> {
        Err(self.nested("a tuple struct"))
    }

    fn deserialize_map<V: Visitor<'de>>(self, _: V) -> Result<V::Value, SerdeError> {
        Err(self.nested("a map"))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, SerdeError> {
        Err(self.nested("a struct"))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, SerdeError> {
        // Unit variants are stored by name; a variant with data was refused when written.
        match self.value {
            Value::String(s) => visitor.visit_enum(s.as_str().into_deserializer()),
            _ => Err(self.mismatch("Edm.String")),
        }
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, SerdeError> {
        visitor.visit_unit()
    }
}
