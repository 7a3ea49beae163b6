//! The eight EDM property types of the Table service and the [`Value`] that holds one of them.

use std::fmt;

use chrono::{DateTime, TimeZone, Utc};
use uuid::Uuid;

/// One property value: the eight EDM types the Table service stores.
///
/// There is no `Null`: the service never stores one, so an absent property is simply absent
/// (see [`DynamicEntity::set`](crate::DynamicEntity::set) with an `Option`).
///
/// ```
/// use tablekit::{EdmType, Value};
/// let v = Value::Int64(5);
/// assert_eq!(v.edm_type(), EdmType::Int64);
/// ```
///
/// Equality is "the same stored value": a NaN equals a NaN (so an entity holding one equals
/// itself and survives a round trip), and otherwise doubles compare as numbers.
///
/// ```
/// use tablekit::Value;
/// assert_eq!(Value::Double(f64::NAN), Value::Double(f64::NAN));
/// assert_ne!(Value::Int32(1), Value::Int64(1));
/// ```
#[derive(Clone, Debug)]
pub enum Value {
    /// `Edm.Boolean`.
    Bool(bool),
    /// `Edm.Int32`.
    Int32(i32),
    /// `Edm.Int64`: sent as a JSON string with an annotation.
    Int64(i64),
    /// `Edm.Double`: NaN and the infinities are allowed.
    Double(f64),
    /// `Edm.DateTime`: UTC, kept to the service's 100 ns precision.
    DateTime(DateTime<Utc>),
    /// `Edm.Guid`.
    Guid(Uuid),
    /// `Edm.String`: at most 32,767 UTF-16 code units.
    String(String),
    /// `Edm.Binary`: at most 64 KiB.
    Binary(Vec<u8>),
}

impl PartialEq for Value {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int32(a), Value::Int32(b)) => a == b,
            (Value::Int64(a), Value::Int64(b)) => a == b,
            (Value::Double(a), Value::Double(b)) => a == b || (a.is_nan() && b.is_nan()),
            (Value::DateTime(a), Value::DateTime(b)) => a == b,
            (Value::Guid(a), Value::Guid(b)) => a == b,
            (Value::String(a), Value::String(b)) => a == b,
            (Value::Binary(a), Value::Binary(b)) => a == b,
            _ => false,
        }
    }
}

/// The type of a [`Value`], named as in the `@odata.type` annotation.
///
/// ```
/// use tablekit::EdmType;
/// assert_eq!(EdmType::Guid.odata_name(), "Edm.Guid");
/// assert_eq!(EdmType::from_odata_name("Edm.Binary"), Some(EdmType::Binary));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EdmType {
    /// `Edm.Boolean`.
    Boolean,
    /// `Edm.Int32`.
    Int32,
    /// `Edm.Int64`.
    Int64,
    /// `Edm.Double`.
    Double,
    /// `Edm.DateTime`.
    DateTime,
    /// `Edm.Guid`.
    Guid,
    /// `Edm.String`.
    String,
    /// `Edm.Binary`.
    Binary,
}

impl EdmType {
    /// The annotation text, e.g. `Edm.Int64`.
    ///
    /// ```
    /// use tablekit::EdmType;
    /// assert_eq!(EdmType::Int64.odata_name(), "Edm.Int64");
    /// ```
    pub fn odata_name(self) -> &'static str {
        match self {
            EdmType::Boolean => "Edm.Boolean",
            EdmType::Int32 => "Edm.Int32",
            EdmType::Int64 => "Edm.Int64",
            EdmType::Double => "Edm.Double",
            EdmType::DateTime => "Edm.DateTime",
            EdmType::Guid => "Edm.Guid",
            EdmType::String => "Edm.String",
            EdmType::Binary => "Edm.Binary",
        }
    }

    /// Parses an annotation such as `Edm.DateTime`; `None` for anything else.
    ///
    /// ```
    /// use tablekit::EdmType;
    /// assert_eq!(EdmType::from_odata_name("Edm.DateTime"), Some(EdmType::DateTime));
    /// assert_eq!(EdmType::from_odata_name("Edm.Decimal"), None);
    /// ```
    pub fn from_odata_name(name: &str) -> Option<EdmType> {
        Some(match name {
            "Edm.Boolean" => EdmType::Boolean,
            "Edm.Int32" => EdmType::Int32,
            "Edm.Int64" => EdmType::Int64,
            "Edm.Double" => EdmType::Double,
            "Edm.DateTime" => EdmType::DateTime,
            "Edm.Guid" => EdmType::Guid,
            "Edm.String" => EdmType::String,
            "Edm.Binary" => EdmType::Binary,
            _ => return None,
        })
    }
}

impl fmt::Display for EdmType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.odata_name())
    }
}

impl Value {
    /// The EDM type of this value.
    ///
    /// ```
    /// use tablekit::{EdmType, Value};
    /// assert_eq!(Value::Binary(vec![1]).edm_type(), EdmType::Binary);
    /// ```
    pub fn edm_type(&self) -> EdmType {
        match self {
            Value::Bool(_) => EdmType::Boolean,
            Value::Int32(_) => EdmType::Int32,
            Value::Int64(_) => EdmType::Int64,
            Value::Double(_) => EdmType::Double,
            Value::DateTime(_) => EdmType::DateTime,
            Value::Guid(_) => EdmType::Guid,
            Value::String(_) => EdmType::String,
            Value::Binary(_) => EdmType::Binary,
        }
    }

    /// The bytes this value counts for in the service's entity size formula
    /// (strings `4 + 2 x UTF-16 units`, binary `4 + bytes`).
    ///
    /// ```
    /// use tablekit::Value;
    /// assert_eq!(Value::String("ab".into()).stored_size(), 8);
    /// assert_eq!(Value::Int64(1).stored_size(), 8);
    /// ```
    pub fn stored_size(&self) -> usize {
        match self {
            Value::Bool(_) => 1,
            Value::Int32(_) => 4,
            Value::Int64(_) | Value::Double(_) | Value::DateTime(_) => 8,
            Value::Guid(_) => 16,
            Value::String(s) => 4 + 2 * utf16_len(s),
            Value::Binary(b) => 4 + b.len(),
        }
    }
}

/// The length of `s` in UTF-16 code units, the unit every service string limit is measured in.
///
/// ```
/// assert_eq!(tablekit::value::utf16_len("a\u{1F600}"), 3);
/// ```
pub fn utf16_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

/// .NET ticks (100 ns units) between 0001-01-01 and the Unix epoch.
const UNIX_EPOCH_TICKS: i64 = 621_355_968_000_000_000;

/// The smallest DateTime the service stores: 1601-01-01T00:00:00Z.
///
/// ```
/// assert_eq!(tablekit::value::min_datetime().to_rfc3339(), "1601-01-01T00:00:00+00:00");
/// ```
pub fn min_datetime() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(1601, 1, 1, 0, 0, 0)
        .single()
        .unwrap_or_default()
}

/// The largest DateTime the service stores: the last tick of 9999-12-31.
///
/// ```
/// use chrono::Datelike;
/// assert_eq!(tablekit::value::max_datetime().year(), 9999);
/// ```
pub fn max_datetime() -> DateTime<Utc> {
    from_ticks(MAX_TICKS).unwrap_or_default()
}

/// The ticks of .NET's `DateTime.MaxValue` (9999-12-31T23:59:59.9999999).
///
/// ```
/// use tablekit::value::{from_ticks, max_datetime, MAX_TICKS};
/// assert_eq!(from_ticks(MAX_TICKS), Some(max_datetime()));
/// ```
pub const MAX_TICKS: i64 = 3_155_378_975_999_999_999;

/// .NET ticks (100 ns since 0001-01-01 UTC) of a time, the unit of `inverted_ticks` keys.
///
/// ```
/// use chrono::{TimeZone, Utc};
/// let t = Utc.with_ymd_and_hms(1970, 1, 1, 0, 0, 0).unwrap();
/// assert_eq!(tablekit::value::to_ticks(&t), 621_355_968_000_000_000);
/// ```
pub fn to_ticks(time: &DateTime<Utc>) -> i64 {
    let secs = time.timestamp();
    let sub = i64::from(time.timestamp_subsec_nanos() / 100);
    secs.saturating_mul(10_000_000)
        .saturating_add(sub)
        .saturating_add(UNIX_EPOCH_TICKS)
}

/// The time at `ticks` (.NET ticks), or `None` outside chrono's range.
///
/// ```
/// let t = tablekit::value::from_ticks(621_355_968_000_000_001).unwrap();
/// assert_eq!(t.timestamp_subsec_nanos(), 100);
/// ```
pub fn from_ticks(ticks: i64) -> Option<DateTime<Utc>> {
    let since_epoch = ticks.checked_sub(UNIX_EPOCH_TICKS)?;
    let secs = since_epoch.div_euclid(10_000_000);
    let nanos = (since_epoch.rem_euclid(10_000_000) * 100) as u32;
    DateTime::from_timestamp(secs, nanos)
}

/// Drops precision below the service's 100 ns tick, so a value reads back exactly as written.
///
/// ```
/// use chrono::DateTime;
/// let t = DateTime::from_timestamp(0, 123_456_789).unwrap();
/// assert_eq!(tablekit::value::truncate_to_tick(t).timestamp_subsec_nanos(), 123_456_700);
/// ```
pub fn truncate_to_tick(time: DateTime<Utc>) -> DateTime<Utc> {
    let nanos = time.timestamp_subsec_nanos();
    DateTime::from_timestamp(time.timestamp(), nanos - nanos % 100).unwrap_or(time)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_round_trip_at_the_range_ends() {
        for t in [min_datetime(), max_datetime()] {
            assert_eq!(from_ticks(to_ticks(&t)), Some(t));
        }
        assert_eq!(to_ticks(&max_datetime()), MAX_TICKS);
    }

    #[test]
    fn edm_names_round_trip() {
        for t in [
            EdmType::Boolean,
            EdmType::Int32,
            EdmType::Int64,
            EdmType::Double,
            EdmType::DateTime,
            EdmType::Guid,
            EdmType::String,
            EdmType::Binary,
        ] {
            assert_eq!(EdmType::from_odata_name(t.odata_name()), Some(t));
        }
        assert_eq!(EdmType::from_odata_name("Edm.Single"), None);
    }
}
