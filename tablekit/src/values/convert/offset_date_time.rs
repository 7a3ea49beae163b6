//! `time::OffsetDateTime` (the `time` feature), stored like `chrono::DateTime<FixedOffset>`:
//! the instant in UTC to 100 ns, read back at offset `+00:00`.

use chrono::{DateTime, Utc};
use time::OffsetDateTime;

use super::{FromValue, IntoValue, ValueError};
use crate::values::value::Value;

impl IntoValue for OffsetDateTime {
    fn into_value(self) -> Option<Value> {
        let utc = self.to_offset(time::UtcOffset::UTC);
        let instant = DateTime::<Utc>::from_timestamp(utc.unix_timestamp(), utc.nanosecond());
        // Every `OffsetDateTime` (years -9999..=9999) is a chrono instant.
        instant.and_then(IntoValue::into_value)
    }
}

impl FromValue for OffsetDateTime {
    fn from_value(value: &Value) -> Result<Self, ValueError> {
        let t = DateTime::<Utc>::from_value(value)?;
        let nanos =
            i128::from(t.timestamp()) * 1_000_000_000 + i128::from(t.timestamp_subsec_nanos());
        OffsetDateTime::from_unix_timestamp_nanos(nanos).map_err(|_| ValueError::OutOfRange {
            value: t.to_rfc3339(),
            target: "OffsetDateTime",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instants_round_trip_at_utc() {
        let t = OffsetDateTime::from_unix_timestamp_nanos(1_764_112_200_123_456_700)
            .unwrap()
            .to_offset(time::UtcOffset::from_hms(5, 30, 0).unwrap());
        let back = OffsetDateTime::from_value(&t.into_value().unwrap()).unwrap();
        assert_eq!(back, t);
        assert_eq!(back.offset(), time::UtcOffset::UTC);
    }
}
