//! Instants, dates and durations.
//!
//! The service has one time type, `DateTime`: a UTC instant to 100 ns. Every chrono instant is
//! stored as that instant in UTC; what the stored form cannot hold is said per type:
//!
//! | Rust type | stored as | reads back |
//! |---|---|---|
//! | `DateTime<Utc>` | `DateTime` | the same instant (below 100 ns dropped) |
//! | `DateTime<FixedOffset>` | `DateTime`, the instant in UTC | the same instant, at offset `+00:00`: the offset is not stored |
//! | `NaiveDateTime` | `DateTime`, read as UTC | the same wall-clock time |
//! | `NaiveDate` | `DateTime` at midnight UTC | the date; a stored time of day is an error, not dropped |
//! | `TimeDelta`, `std::time::Duration` | `Int64` nanoseconds | exactly |
//!
//! Durations are nanoseconds rather than .NET's 100 ns ticks because ticks would cut every
//! duration that is not a whole number of them; an `Int64` of nanoseconds holds ±292 years
//! exactly. A longer duration (which no timeout or interval needs) is stored as exact text,
//! `"S.NNNNNNNNN"` seconds, so nothing is lost; as text it would not compare with the numbers,
//! so duration columns offer `eq` and `ne` but no ordering.
//!
//! ```
//! use chrono::{NaiveDate, TimeDelta};
//! use tablekit::{FromValue, IntoValue, Value};
//! let day = NaiveDate::from_ymd_opt(2026, 11, 25).unwrap();
//! let Some(Value::DateTime(stored)) = day.into_value() else { unreachable!() };
//! assert_eq!(stored.to_rfc3339(), "2026-11-25T00:00:00+00:00");
//! assert_eq!(TimeDelta::milliseconds(1500).into_value(), Some(Value::Int64(1_500_000_000)));
//! ```

use std::time::Duration;

use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime, NaiveTime, TimeDelta, Utc};

use super::{FromValue, IntoValue, ValueError};
use crate::values::value::{truncate_to_tick, Value};

/// Stored to the service's precision: anything below 100 ns is dropped.
impl IntoValue for DateTime<Utc> {
    fn into_value(self) -> Option<Value> {
        Some(Value::DateTime(truncate_to_tick(self)))
    }
}

impl FromValue for DateTime<Utc> {
    fn from_value(value: &Value) -> Result<Self, ValueError> {
        match value {
            Value::DateTime(t) => Ok(*t),
            other => Err(ValueError::mismatch("Edm.DateTime", other)),
        }
    }
}

/// Stored as the same instant in UTC; the offset is not stored, so it reads back as `+00:00`.
impl IntoValue for DateTime<FixedOffset> {
    fn into_value(self) -> Option<Value> {
        self.with_timezone(&Utc).into_value()
    }
}

impl FromValue for DateTime<FixedOffset> {
    fn from_value(value: &Value) -> Result<Self, ValueError> {
        DateTime::<Utc>::from_value(value).map(|t| t.fixed_offset())
    }
}

/// A wall-clock time without a zone is taken to be UTC.
impl IntoValue for NaiveDateTime {
    fn into_value(self) -> Option<Value> {
        self.and_utc().into_value()
    }
}

impl FromValue for NaiveDateTime {
    fn from_value(value: &Value) -> Result<Self, ValueError> {
        DateTime::<Utc>::from_value(value).map(|t| t.naive_utc())
    }
}

/// Stored as midnight UTC of the date.
impl IntoValue for NaiveDate {
    fn into_value(self) -> Option<Value> {
        self.and_time(NaiveTime::MIN).into_value()
    }
}

/// A stored instant that is not midnight UTC is not a date: reading it as one would drop its
/// time of day, so it is an error.
impl FromValue for NaiveDate {
    fn from_value(value: &Value) -> Result<Self, ValueError> {
        let t = DateTime::<Utc>::from_value(value)?;
        if t.time() != NaiveTime::MIN {
            return Err(ValueError::Invalid(format!(
                "`{}` has a time of day: it is not a `NaiveDate`",
                t.to_rfc3339()
            )));
        }
        Ok(t.date_naive())
    }
}

/// `Int64` nanoseconds, or exact text beyond ±292 years.
impl IntoValue for TimeDelta {
    fn into_value(self) -> Option<Value> {
        Some(match self.num_nanoseconds() {
            Some(n) => Value::Int64(n),
            None => {
                let sign = if self < TimeDelta::zero() { "-" } else { "" };
                let magnitude = self.abs();
                let text = format!(
                    "{sign}{}.{:09}",
                    magnitude.num_seconds(),
                    magnitude.subsec_nanos()
                );
                Value::String(text.into())
            }
        })
    }
}

impl FromValue for TimeDelta {
    fn from_value(value: &Value) -> Result<Self, ValueError> {
        match stored_duration(value, "TimeDelta")? {
            Stored::Nanos(n) => Ok(TimeDelta::nanoseconds(n)),
            Stored::Text {
                negative,
                secs,
                nanos,
            } => {
                let out_of_range = || ValueError::OutOfRange {
                    value: value_text(value),
                    target: "TimeDelta",
                };
                let secs = i64::try_from(secs).map_err(|_| out_of_range())?;
                let magnitude = TimeDelta::new(secs, nanos).ok_or_else(out_of_range)?;
                Ok(if negative { -magnitude } else { magnitude })
            }
        }
    }
}

/// `Int64` nanoseconds, or exact text beyond 292 years.
impl IntoValue for Duration {
    fn into_value(self) -> Option<Value> {
        Some(match i64::try_from(self.as_nanos()) {
            Ok(n) => Value::Int64(n),
            Err(_) => {
                Value::String(format!("{}.{:09}", self.as_secs(), self.subsec_nanos()).into())
            }
        })
    }
}

impl FromValue for Duration {
    fn from_value(value: &Value) -> Result<Self, ValueError> {
        let negative = || ValueError::OutOfRange {
            value: value_text(value),
            target: "Duration",
        };
        match stored_duration(value, "Duration")? {
            Stored::Nanos(n) => u64::try_from(n)
                .map(Duration::from_nanos)
                .map_err(|_| negative()),
            Stored::Text { negative: true, .. } => Err(negative()),
            Stored::Text { secs, nanos, .. } => Ok(Duration::new(secs, nanos)),
        }
    }
}

/// A duration as stored: nanoseconds, or the text form's parts.
enum Stored {
    Nanos(i64),
    Text {
        negative: bool,
        secs: u64,
        nanos: u32,
    },
}

fn stored_duration(value: &Value, target: &'static str) -> Result<Stored, ValueError> {
    match value {
        Value::Int64(n) => Ok(Stored::Nanos(*n)),
        Value::Int32(n) => Ok(Stored::Nanos(i64::from(*n))),
        Value::String(text) => parse_seconds(text).ok_or_else(|| {
            ValueError::Invalid(format!(
                "`{text}` is not a duration: expected nanoseconds or `S.NNNNNNNNN` seconds for `{target}`"
            ))
        }),
        other => Err(ValueError::mismatch("Edm.Int64", other)),
    }
}

/// `[-]S.NNNNNNNNN`, exactly nine fraction digits: the form written above.
fn parse_seconds(text: &str) -> Option<Stored> {
    let (negative, unsigned) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (secs, fraction) = unsigned.split_once('.')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(secs) || fraction.len() != 9 || !digits(fraction) {
        return None;
    }
    Some(Stored::Text {
        negative,
        secs: secs.parse().ok()?,
        nanos: fraction.parse().ok()?,
    })
}

fn value_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.to_string(),
        Value::Int64(n) => n.to_string(),
        Value::Int32(n) => n.to_string(),
        other => format!("{other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip<T: IntoValue + FromValue + Clone>(value: T) -> T {
        T::from_value(&value.into_value().expect("a value")).expect("reads back")
    }

    #[test]
    fn instants_keep_the_instant_and_say_what_they_drop() {
        let paris = DateTime::parse_from_rfc3339("2026-11-25T23:10:00.1234567+01:00").unwrap();
        let back = round_trip(paris);
        assert_eq!(back, paris); // the same instant
        assert_eq!(back.offset().local_minus_utc(), 0); // read at +00:00
        let naive = paris.naive_utc();
        assert_eq!(round_trip(naive), naive);
    }

    #[test]
    fn a_date_is_midnight_and_a_time_of_day_is_refused() {
        let day = NaiveDate::from_ymd_opt(1601, 1, 1).unwrap();
        assert_eq!(round_trip(day), day);
        let noon = "2026-11-25T12:00:00Z".parse::<DateTime<Utc>>().unwrap();
        let err = NaiveDate::from_value(&Value::DateTime(noon)).unwrap_err();
        assert!(err.to_string().contains("has a time of day"), "{err}");
    }

    #[test]
    fn durations_round_trip_exactly_at_every_size() {
        for d in [
            TimeDelta::zero(),
            TimeDelta::nanoseconds(1),
            TimeDelta::nanoseconds(-1),
            TimeDelta::nanoseconds(i64::MAX),
            TimeDelta::nanoseconds(i64::MIN),
            TimeDelta::MAX,
            TimeDelta::MIN,
            TimeDelta::MIN + TimeDelta::nanoseconds(1),
        ] {
            assert_eq!(round_trip(d), d, "{d}");
        }
        for d in [
            Duration::ZERO,
            Duration::from_nanos(1),
            Duration::from_nanos(i64::MAX as u64),
            Duration::from_nanos(i64::MAX as u64 + 1),
            Duration::MAX,
        ] {
            assert_eq!(round_trip(d), d, "{d:?}");
        }
        assert!(matches!(
            Duration::from_value(&Value::Int64(-1)),
            Err(ValueError::OutOfRange {
                target: "Duration",
                ..
            })
        ));
        assert!(matches!(
            TimeDelta::from_value(&Value::String("1.5".into())),
            Err(ValueError::Invalid(_))
        ));
        assert!(matches!(
            TimeDelta::from_value(&Value::String("99999999999999999999.000000000".into())),
            Err(ValueError::Invalid(_) | ValueError::OutOfRange { .. })
        ));
    }
}
