//! JSON response body to entities.

use base64::Engine;
use serde_json::{Map, Value as Json};

use super::datetime::parse_datetime;
use crate::entity::DynamicEntity;
use crate::error::{Error, Result};
use crate::etag::ETag;
use crate::value::{EdmType, Value};

/// Decodes one entity (a point query or an insert's echo) in any metadata level.
pub fn decode_entity(bytes: &[u8]) -> Result<DynamicEntity> {
    let json: Json =
        serde_json::from_slice(bytes).map_err(|e| Error::decode("entity", e.to_string()))?;
    match json {
        Json::Object(map) => entity_from_map(map),
        _ => Err(Error::decode("entity", "expected a JSON object")),
    }
}

/// Decodes a query page: `{"value": [entity, ...]}`.
pub fn decode_page(bytes: &[u8]) -> Result<Vec<DynamicEntity>> {
    let json: Json =
        serde_json::from_slice(bytes).map_err(|e| Error::decode("page", e.to_string()))?;
    let Json::Object(mut map) = json else {
        return Err(Error::decode("page", "expected a JSON object"));
    };
    match map.remove("value") {
        Some(Json::Array(items)) => items
            .into_iter()
            .map(|item| match item {
                Json::Object(map) => entity_from_map(map),
                _ => Err(Error::decode("page", "an entity is not a JSON object")),
            })
            .collect(),
        _ => Err(Error::decode("page", "missing the `value` array")),
    }
}

fn entity_from_map(mut map: Map<String, Json>) -> Result<DynamicEntity> {
    let mut entity = DynamicEntity::default();
    if let Some(Json::String(etag)) = map.get("odata.etag") {
        entity.set_etag(Some(ETag::new(etag.clone())));
    }
    let annotations: Vec<(String, String)> = map
        .iter()
        .filter_map(|(k, v)| {
            let name = k.strip_suffix("@odata.type")?;
            Some((name.to_owned(), v.as_str()?.to_owned()))
        })
        .collect();
    for (name, json) in std::mem::take(&mut map) {
        if name.starts_with("odata.") || name.ends_with("@odata.type") {
            continue;
        }
        let edm = annotations
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| t.as_str());
        match name.as_str() {
            "PartitionKey" => entity.set_partition_key(key_text(&name, json)?),
            "RowKey" => entity.set_row_key(key_text(&name, json)?),
            "Timestamp" => entity.set_timestamp(Some(timestamp(json)?)),
            _ => {
                if let Some(value) = property_value(&name, json, edm)? {
                    entity.push_unchecked(name, value);
                }
            }
        }
    }
    Ok(entity)
}

fn key_text(name: &str, json: Json) -> Result<String> {
    match json {
        Json::String(s) => Ok(s),
        _ => Err(Error::decode(format!("`{name}`"), "expected a string")),
    }
}

fn timestamp(json: Json) -> Result<chrono::DateTime<chrono::Utc>> {
    json.as_str()
        .and_then(parse_datetime)
        .ok_or_else(|| Error::decode("`Timestamp`", "expected an Edm.DateTime string"))
}

fn property_value(name: &str, json: Json, edm: Option<&str>) -> Result<Option<Value>> {
    let bad = |message: &str| Error::decode(format!("property `{name}`"), message);
    let edm = match edm {
        Some(t) => Some(EdmType::from_odata_name(t).ok_or_else(|| bad("unknown @odata.type"))?),
        None => None,
    };
    let value = match (json, edm) {
        (Json::Null, _) => return Ok(None),
        (Json::Bool(b), None | Some(EdmType::Boolean)) => Value::Bool(b),
        (Json::Number(n), Some(EdmType::Double)) => {
            Value::Double(n.as_f64().ok_or_else(|| bad("not a double"))?)
        }
        (Json::Number(n), None | Some(EdmType::Int32)) if n.is_i64() => {
            let wide = n.as_i64().unwrap_or_default();
            match i32::try_from(wide) {
                Ok(small) => Value::Int32(small),
                Err(_) if edm.is_none() => Value::Int64(wide),
                Err(_) => return Err(bad("Int32 out of range")),
            }
        }
        (Json::Number(n), None) => Value::Double(n.as_f64().ok_or_else(|| bad("not a number"))?),
        (Json::String(s), None | Some(EdmType::String)) => Value::String(s),
        (Json::String(s), Some(EdmType::Int64)) => {
            Value::Int64(s.parse().map_err(|_| bad("invalid Edm.Int64 text"))?)
        }
        (Json::String(s), Some(EdmType::Int32)) => {
            Value::Int32(s.parse().map_err(|_| bad("invalid Edm.Int32 text"))?)
        }
        (Json::String(s), Some(EdmType::Double)) => {
            Value::Double(parse_double(&s).ok_or_else(|| bad("invalid Edm.Double text"))?)
        }
        (Json::String(s), Some(EdmType::DateTime)) => {
            Value::DateTime(parse_datetime(&s).ok_or_else(|| bad("invalid Edm.DateTime text"))?)
        }
        (Json::String(s), Some(EdmType::Guid)) => {
            Value::Guid(s.parse().map_err(|_| bad("invalid Edm.Guid text"))?)
        }
        (Json::String(s), Some(EdmType::Binary)) => Value::Binary(
            base64::engine::general_purpose::STANDARD
                .decode(s)
                .map_err(|_| bad("invalid base64"))?,
        ),
        (Json::String(s), Some(EdmType::Boolean)) => {
            Value::Bool(s.parse().map_err(|_| bad("invalid Edm.Boolean text"))?)
        }
        (Json::Object(_) | Json::Array(_), _) => return Err(bad("nested values are not allowed")),
        (_, Some(t)) => return Err(bad(&format!("value does not match {t}"))),
    };
    Ok(Some(value))
}

fn parse_double(s: &str) -> Option<f64> {
    match s {
        "NaN" => Some(f64::NAN),
        "Infinity" | "INF" => Some(f64::INFINITY),
        "-Infinity" | "-INF" => Some(f64::NEG_INFINITY),
        other => other.parse().ok(),
    }
}
