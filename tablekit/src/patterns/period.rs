//! Time-sliced tables and partitions: the "Table Name Key Pattern" (of the series "Windows
//! Azure Table Design Patterns") and the dynamic partition granularity of Microsoft's
//! "Windows Azure Table" whitepaper.
//!
//! Short-lived data (logs, diagnostics) is cheapest to drop a table at a time: one table per
//! day (`Log20240131`) turns "delete everything older than a week" into a few table deletes
//! instead of reading and deleting every entity. [`TableFamily`] names those tables, parses
//! names back to their periods, and picks the tables a time range or a retention cutoff touches.
//! The naming is pure; [`PeriodTables`] puts it on a service: create on first use (cached),
//! list the family, query across a time range, drop tables older than a cutoff.
//!
//! ```
//! use chrono::{TimeZone, Utc};
//! use tablekit::patterns::period::{Period, TableFamily};
//!
//! let logs = TableFamily::new("Log", Period::Day)?;
//! let t = Utc.with_ymd_and_hms(2010, 6, 1, 15, 30, 0).unwrap();
//! assert_eq!(logs.name_for(t), "Log20100601");
//! assert_eq!(logs.parse("Log20100601"), Some(Utc.with_ymd_and_hms(2010, 6, 1, 0, 0, 0).unwrap()));
//! assert_eq!(logs.parse("Log20100631"), None); // not a date
//! assert_eq!(logs.parse("Logger2010"), None);  // not a member of the family
//!
//! let from = Utc.with_ymd_and_hms(2010, 6, 1, 22, 0, 0).unwrap();
//! let to = Utc.with_ymd_and_hms(2010, 6, 3, 1, 0, 0).unwrap();
//! assert_eq!(logs.names_between(from, to), ["Log20100601", "Log20100602", "Log20100603"]);
//! # Ok::<(), tablekit::InvalidInput>(())
//! ```

use chrono::{
    DateTime, Datelike, Duration, NaiveDate, NaiveDateTime, TimeZone, Timelike, Utc, Weekday,
};

use std::collections::HashSet;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex};

use futures::stream::{self, BoxStream};
use futures::{StreamExt, TryStreamExt};

use crate::client::error::{Error, Result};
use crate::client::{Table, TableServiceClient};
use crate::model::table_model::TableModel;
use crate::protocol::limits::{validate_table_name, InvalidInput};
use crate::query::builder::Query;
use crate::values::entity::DynamicEntity;

/// The length of time one table (or partition) covers.
///
/// | period | suffix | example |
/// |---|---|---|
/// | `Hour` | `yyyyMMddHH` | `2024013115` |
/// | `Day` | `yyyyMMdd` | `20240131` |
/// | `Week` | ISO week, `yyyyWww` | `2024W05` |
/// | `Month` | `yyyyMM` | `202401` |
/// | `Year` | `yyyy` | `2024` |
///
/// Suffixes sort in time order, so a listing of a family's tables is already chronological.
///
/// ```
/// use chrono::{TimeZone, Utc};
/// use tablekit::patterns::period::Period;
/// let t = Utc.with_ymd_and_hms(2024, 1, 31, 15, 0, 0).unwrap();
/// assert_eq!(Period::Week.suffix(t), "2024W05");
/// assert_eq!(Period::Month.start(t), Utc.with_ymd_and_hms(2024, 1, 1, 0, 0, 0).unwrap());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Period {
    /// One hour.
    Hour,
    /// One UTC day.
    Day,
    /// One ISO week, Monday to Sunday.
    Week,
    /// One calendar month.
    Month,
    /// One calendar year.
    Year,
}

impl Period {
    /// The suffix naming the period that contains `time`.
    ///
    /// ```
    /// use chrono::{TimeZone, Utc};
    /// use tablekit::patterns::period::Period;
    /// let t = Utc.with_ymd_and_hms(2024, 12, 30, 15, 0, 0).unwrap();
    /// assert_eq!(Period::Hour.suffix(t), "2024123015");
    /// assert_eq!(Period::Day.suffix(t), "20241230");
    /// assert_eq!(Period::Week.suffix(t), "2025W01"); // the ISO week year, not the calendar year
    /// assert_eq!(Period::Year.suffix(t), "2024");
    /// ```
    pub fn suffix(self, time: DateTime<Utc>) -> String {
        match self {
            Period::Hour => time.format("%Y%m%d%H").to_string(),
            Period::Day => time.format("%Y%m%d").to_string(),
            Period::Week => {
                let week = time.iso_week();
                format!("{:04}W{:02}", week.year(), week.week())
            }
            Period::Month => time.format("%Y%m").to_string(),
            Period::Year => time.format("%Y").to_string(),
        }
    }

    /// The length of every suffix of this period.
    ///
    /// ```
    /// use chrono::{TimeZone, Utc};
    /// use tablekit::patterns::period::Period;
    /// let t = Utc.with_ymd_and_hms(2024, 1, 31, 15, 0, 0).unwrap();
    /// for p in [Period::Hour, Period::Day, Period::Week, Period::Month, Period::Year] {
    ///     assert_eq!(p.suffix(t).len(), p.suffix_len());
    /// }
    /// assert_eq!(Period::Week.suffix_len(), 7); // "2024W05"
    /// ```
    pub fn suffix_len(self) -> usize {
        match self {
            Period::Hour => 10,
            Period::Day => 8,
            Period::Week => 7,
            Period::Month => 6,
            Period::Year => 4,
        }
    }

    /// The start of the period that contains `time`.
    ///
    /// ```
    /// use chrono::{TimeZone, Utc};
    /// use tablekit::patterns::period::Period;
    /// let wednesday = Utc.with_ymd_and_hms(2024, 1, 31, 15, 45, 0).unwrap();
    /// let at = |d, h| Utc.with_ymd_and_hms(2024, 1, d, h, 0, 0).unwrap();
    /// assert_eq!(Period::Hour.start(wednesday), at(31, 15));
    /// assert_eq!(Period::Day.start(wednesday), at(31, 0));
    /// assert_eq!(Period::Week.start(wednesday), at(29, 0)); // Monday
    /// ```
    pub fn start(self, time: DateTime<Utc>) -> DateTime<Utc> {
        let date = time.date_naive();
        let start = match self {
            Period::Hour => date.and_hms_opt(time.hour(), 0, 0),
            Period::Day => date.and_hms_opt(0, 0, 0),
            Period::Week => {
                let week = date.iso_week();
                NaiveDate::from_isoywd_opt(week.year(), week.week(), Weekday::Mon)
                    .and_then(|d| d.and_hms_opt(0, 0, 0))
            }
            Period::Month => date.with_day(1).and_then(|d| d.and_hms_opt(0, 0, 0)),
            Period::Year => date.with_ordinal(1).and_then(|d| d.and_hms_opt(0, 0, 0)),
        };
        // Every branch is a valid date and time; `time` itself is the unreachable fallback.
        start.map_or(time, |naive| Utc.from_utc_datetime(&naive))
    }

    /// The start of the period after the one that contains `time`.
    ///
    /// ```
    /// use chrono::{TimeZone, Utc};
    /// use tablekit::patterns::period::Period;
    /// let t = Utc.with_ymd_and_hms(2024, 12, 31, 23, 0, 0).unwrap();
    /// assert_eq!(Period::Month.next_start(t), Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap());
    /// ```
    pub fn next_start(self, time: DateTime<Utc>) -> DateTime<Utc> {
        let start = self.start(time);
        let next = match self {
            Period::Hour => start.checked_add_signed(Duration::hours(1)),
            Period::Day => start.checked_add_signed(Duration::days(1)),
            Period::Week => start.checked_add_signed(Duration::weeks(1)),
            Period::Month => start.checked_add_months(chrono::Months::new(1)),
            Period::Year => start.checked_add_months(chrono::Months::new(12)),
        };
        next.unwrap_or(DateTime::<Utc>::MAX_UTC)
    }

    /// Parses a suffix back to the start of its period; `None` unless formatting that start
    /// gives exactly `suffix` (so `20240230` and `2024W54` are refused).
    ///
    /// ```
    /// use tablekit::patterns::period::Period;
    /// assert!(Period::Week.parse_suffix("2024W05").is_some());
    /// assert!(Period::Day.parse_suffix("20240230").is_none());
    /// ```
    pub fn parse_suffix(self, suffix: &str) -> Option<DateTime<Utc>> {
        if suffix.len() != self.suffix_len() {
            return None;
        }
        let naive = match self {
            Period::Hour => {
                NaiveDateTime::parse_from_str(&format!("{suffix}00"), "%Y%m%d%H%M").ok()
            }
            Period::Day => NaiveDate::parse_from_str(suffix, "%Y%m%d")
                .ok()
                .and_then(|d| d.and_hms_opt(0, 0, 0)),
            Period::Week => {
                let (year, week) = suffix.split_once('W')?;
                NaiveDate::from_isoywd_opt(year.parse().ok()?, week.parse().ok()?, Weekday::Mon)
                    .and_then(|d| d.and_hms_opt(0, 0, 0))
            }
            Period::Month => NaiveDate::parse_from_str(&format!("{suffix}01"), "%Y%m%d")
                .ok()
                .and_then(|d| d.and_hms_opt(0, 0, 0)),
            Period::Year => NaiveDate::parse_from_str(&format!("{suffix}0101"), "%Y%m%d")
                .ok()
                .and_then(|d| d.and_hms_opt(0, 0, 0)),
        }?;
        let start = Utc.from_utc_datetime(&naive);
        // Round trip: refuses signs, padding variants and out-of-range fields.
        (self.suffix(start) == suffix).then_some(start)
    }
}

/// A family of tables, one per period: a prefix and a [`Period`] (`Log` + `Day` gives
/// `Log20240131`). Table names hold only letters and digits, so the suffix follows the prefix
/// directly.
///
/// ```
/// use chrono::{TimeZone, Utc};
/// use tablekit::patterns::period::{Period, TableFamily};
/// let metrics = TableFamily::new("Metrics", Period::Hour)?;
/// let t = Utc.with_ymd_and_hms(2024, 1, 31, 15, 30, 0).unwrap();
/// assert_eq!(metrics.name_for(t), "Metrics2024013115");
/// let hour_start = Utc.with_ymd_and_hms(2024, 1, 31, 15, 0, 0).unwrap();
/// assert_eq!(metrics.parse("Metrics2024013115"), Some(hour_start));
/// # Ok::<(), tablekit::InvalidInput>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TableFamily {
    prefix: String,
    period: Period,
}

impl TableFamily {
    /// A family; the prefix must make valid table names with every suffix (it starts with a
    /// letter, holds only ASCII letters and digits, and prefix plus suffix is at most 63
    /// characters).
    ///
    /// ```
    /// use tablekit::patterns::period::{Period, TableFamily};
    /// assert!(TableFamily::new("Log", Period::Hour).is_ok());
    /// assert!(TableFamily::new("Log_", Period::Day).is_err());
    /// assert!(TableFamily::new("9Log", Period::Day).is_err());
    /// ```
    pub fn new(prefix: impl Into<String>, period: Period) -> Result<Self, InvalidInput> {
        let prefix = prefix.into();
        if prefix.is_empty() {
            return Err(InvalidInput::TableName {
                name: prefix,
                reason: "a table family needs a prefix that starts with a letter",
            });
        }
        // Check a real member name: it carries every rule (characters, first letter, length).
        let sample = format!("{prefix}{}", period.suffix(DateTime::<Utc>::UNIX_EPOCH));
        validate_table_name(&sample)?;
        Ok(TableFamily { prefix, period })
    }

    /// The prefix.
    ///
    /// ```
    /// use tablekit::patterns::period::{Period, TableFamily};
    /// assert_eq!(TableFamily::new("Log", Period::Day)?.prefix(), "Log");
    /// # Ok::<(), tablekit::InvalidInput>(())
    /// ```
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The period one table covers.
    ///
    /// ```
    /// use tablekit::patterns::period::{Period, TableFamily};
    /// assert_eq!(TableFamily::new("Log", Period::Week)?.period(), Period::Week);
    /// # Ok::<(), tablekit::InvalidInput>(())
    /// ```
    pub fn period(&self) -> Period {
        self.period
    }

    /// The table holding entities of `time`.
    ///
    /// ```
    /// use chrono::{TimeZone, Utc};
    /// use tablekit::patterns::period::{Period, TableFamily};
    /// let logs = TableFamily::new("Log", Period::Month)?;
    /// let t = Utc.with_ymd_and_hms(2024, 1, 31, 23, 59, 59).unwrap();
    /// assert_eq!(logs.name_for(t), "Log202401");
    /// assert_eq!(logs.name_for(t + chrono::Duration::seconds(1)), "Log202402");
    /// # Ok::<(), tablekit::InvalidInput>(())
    /// ```
    pub fn name_for(&self, time: DateTime<Utc>) -> String {
        format!("{}{}", self.prefix, self.period.suffix(time))
    }

    /// The start of the period table `name` covers, or `None` when `name` is not a member.
    /// The prefix is matched case-insensitively, as the service compares table names.
    ///
    /// ```
    /// use chrono::{TimeZone, Utc};
    /// use tablekit::patterns::period::{Period, TableFamily};
    /// let logs = TableFamily::new("Log", Period::Month)?;
    /// let january = Utc.with_ymd_and_hms(2024, 1, 1, 0, 0, 0).unwrap();
    /// assert_eq!(logs.parse("Log202401"), Some(january));
    /// assert_eq!(logs.parse("LOG202401"), Some(january));
    /// assert_eq!(logs.parse("Log202413"), None); // no 13th month
    /// assert_eq!(logs.parse("Users"), None);
    /// # Ok::<(), tablekit::InvalidInput>(())
    /// ```
    pub fn parse(&self, name: &str) -> Option<DateTime<Utc>> {
        let head = name.get(..self.prefix.len())?;
        if !head.eq_ignore_ascii_case(&self.prefix) {
            return None;
        }
        self.period.parse_suffix(name.get(self.prefix.len()..)?)
    }

    /// Whether `name` belongs to the family.
    ///
    /// ```
    /// use tablekit::patterns::period::{Period, TableFamily};
    /// let f = TableFamily::new("Log", Period::Month)?;
    /// assert!(f.contains("log202401"));
    /// assert!(!f.contains("Log2024"));
    /// # Ok::<(), tablekit::InvalidInput>(())
    /// ```
    pub fn contains(&self, name: &str) -> bool {
        self.parse(name).is_some()
    }

    /// The family's members among `names`, with their period starts, oldest first.
    ///
    /// ```
    /// use tablekit::patterns::period::{Period, TableFamily};
    /// let f = TableFamily::new("Log", Period::Day)?;
    /// let names = ["Log20240102", "Users", "Log20240101", "LogArchive"];
    /// let members: Vec<String> = f.members(names).into_iter().map(|(n, _)| n).collect();
    /// assert_eq!(members, ["Log20240101", "Log20240102"]);
    /// # Ok::<(), tablekit::InvalidInput>(())
    /// ```
    pub fn members<S: AsRef<str>>(
        &self,
        names: impl IntoIterator<Item = S>,
    ) -> Vec<(String, DateTime<Utc>)> {
        let mut members: Vec<(String, DateTime<Utc>)> = names
            .into_iter()
            .filter_map(|n| {
                let name = n.as_ref();
                self.parse(name).map(|start| (name.to_owned(), start))
            })
            .collect();
        members.sort_by(|a, b| a.1.cmp(&b.1).then_with(|| a.0.cmp(&b.0)));
        members
    }

    /// The members among `names` whose whole period ends at or before `cutoff`: the tables a
    /// retention policy drops. A table still covering `cutoff` is kept.
    ///
    /// ```
    /// use chrono::{TimeZone, Utc};
    /// use tablekit::patterns::period::{Period, TableFamily};
    /// let f = TableFamily::new("Log", Period::Day)?;
    /// let names = ["Log20240101", "Log20240102", "Log20240103"];
    /// let cutoff = Utc.with_ymd_and_hms(2024, 1, 3, 0, 0, 0).unwrap();
    /// assert_eq!(f.older_than(names, cutoff), ["Log20240101", "Log20240102"]);
    /// let midday = Utc.with_ymd_and_hms(2024, 1, 2, 12, 0, 0).unwrap();
    /// assert_eq!(f.older_than(names, midday), ["Log20240101"]);
    /// # Ok::<(), tablekit::InvalidInput>(())
    /// ```
    pub fn older_than<S: AsRef<str>>(
        &self,
        names: impl IntoIterator<Item = S>,
        cutoff: DateTime<Utc>,
    ) -> Vec<String> {
        self.members(names)
            .into_iter()
            .filter(|(_, start)| self.period.next_start(*start) <= cutoff)
            .map(|(name, _)| name)
            .collect()
    }

    /// The tables that may hold entities in `[from, to)`, oldest first (empty when `to <= from`).
    ///
    /// ```
    /// use chrono::{TimeZone, Utc};
    /// use tablekit::patterns::period::{Period, TableFamily};
    /// let logs = TableFamily::new("Log", Period::Month)?;
    /// let from = Utc.with_ymd_and_hms(2023, 11, 15, 0, 0, 0).unwrap();
    /// let to = Utc.with_ymd_and_hms(2024, 2, 1, 0, 0, 0).unwrap(); // February excluded
    /// assert_eq!(logs.names_between(from, to), ["Log202311", "Log202312", "Log202401"]);
    /// assert!(logs.names_between(to, from).is_empty());
    /// # Ok::<(), tablekit::InvalidInput>(())
    /// ```
    pub fn names_between(&self, from: DateTime<Utc>, to: DateTime<Utc>) -> Vec<String> {
        let mut names = Vec::new();
        let mut at = self.period.start(from);
        while at < to {
            names.push(self.name_for(at));
            let next = self.period.next_start(at);
            if next <= at {
                break; // the end of chrono's range
            }
            at = next;
        }
        names
    }
}

/// A [`TableFamily`] on a service: tables created on first use (once, then cached), listed,
/// queried across a time range, and dropped by age.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let emulator = tablekit_testing::Emulator::start().await?;
/// use chrono::{Duration, Utc};
/// use futures::TryStreamExt;
/// use tablekit::patterns::period::{Period, PeriodTables, TableFamily};
/// use tablekit::{DynamicEntity, Query};
/// # let client = emulator.client();
/// let logs: PeriodTables = PeriodTables::new(&client, TableFamily::new("Log", Period::Day)?);
/// let now = Utc::now();
/// let mut line = DynamicEntity::new("worker1", "0001");
/// line.set("Message", "started");
/// logs.table_for_write(now).await?.insert(&mut line).await?; // creates Log{today} once
/// let long_ago = now - Duration::days(40);
/// let mut old = DynamicEntity::new("worker1", "0000");
/// logs.table_for_write(long_ago).await?.insert(&mut old).await?;
/// let week: Vec<DynamicEntity> = logs
///     .query_between(now - Duration::days(7), now, Query::new())
///     .try_collect()
///     .await?;
/// assert_eq!(week.len(), 1); // the old table is outside the range
/// assert_eq!(week[0].get::<String>("Message").as_deref(), Some("started"));
/// let dropped = logs.drop_older_than(now - Duration::days(30)).await?;
/// assert_eq!(dropped, [logs.family().name_for(long_ago)]);
/// let left: Vec<String> = logs.list().await?.into_iter().map(|(name, _)| name).collect();
/// assert_eq!(left, [logs.family().name_for(now)]);
/// # Ok(()) }
/// ```
pub struct PeriodTables<M: TableModel = DynamicEntity> {
    client: TableServiceClient,
    family: TableFamily,
    created: Arc<Mutex<HashSet<String>>>,
    model: PhantomData<fn() -> M>,
}

impl<M: TableModel> Clone for PeriodTables<M> {
    fn clone(&self) -> Self {
        PeriodTables {
            client: self.client.clone(),
            family: self.family.clone(),
            created: Arc::clone(&self.created),
            model: PhantomData,
        }
    }
}

impl<M: TableModel> std::fmt::Debug for PeriodTables<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PeriodTables")
            .field("family", &self.family)
            .finish_non_exhaustive()
    }
}

impl<M: TableModel> PeriodTables<M> {
    /// The family `family` on the service behind `client`.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// use chrono::{TimeZone, Utc};
    /// use tablekit::patterns::period::{Period, PeriodTables, TableFamily};
    /// use tablekit::DynamicEntity;
    /// # let client = emulator.client();
    /// let logs: PeriodTables = PeriodTables::new(&client, TableFamily::new("Log", Period::Day)?);
    /// let t = Utc.with_ymd_and_hms(2024, 1, 31, 12, 0, 0).unwrap();
    /// let mut line = DynamicEntity::new("worker1", "0001");
    /// logs.table_for_write(t).await?.insert(&mut line).await?;
    /// assert_eq!(client.list_table_names(None).await?, ["Log20240131"]);
    /// # Ok(()) }
    /// ```
    pub fn new(client: &TableServiceClient, family: TableFamily) -> Self {
        PeriodTables {
            client: client.clone(),
            family,
            created: Arc::new(Mutex::new(HashSet::new())),
            model: PhantomData,
        }
    }

    /// The family's naming.
    ///
    /// ```
    /// use chrono::{TimeZone, Utc};
    /// use tablekit::client::TableServiceClient;
    /// use tablekit::patterns::period::{Period, PeriodTables, TableFamily};
    /// # let client = TableServiceClient::from_connection_string("UseDevelopmentStorage=true")?;
    /// let logs: PeriodTables = PeriodTables::new(&client, TableFamily::new("Log", Period::Day)?);
    /// let t = Utc.with_ymd_and_hms(2024, 1, 31, 12, 0, 0).unwrap();
    /// assert_eq!(logs.family().name_for(t), "Log20240131");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn family(&self) -> &TableFamily {
        &self.family
    }

    /// The handle of the table for `time`, without creating it (for reads).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// use chrono::{TimeZone, Utc};
    /// use tablekit::patterns::period::{Period, PeriodTables, TableFamily};
    /// # let client = emulator.client();
    /// # let logs: PeriodTables = PeriodTables::new(&client, TableFamily::new("Log", Period::Day)?);
    /// let t = Utc.with_ymd_and_hms(2024, 1, 31, 12, 0, 0).unwrap();
    /// let table = logs.table_for(t);
    /// assert_eq!(table.name(), "Log20240131");
    /// assert!(!table.exists().await?); // not created by `table_for`
    /// logs.table_for_write(t).await?;
    /// assert!(table.exists().await?);
    /// # Ok(()) }
    /// ```
    pub fn table_for(&self, time: DateTime<Utc>) -> Table<M> {
        self.client.table_named(&self.family.name_for(time))
    }

    /// The handle of the table for `time`, created if this handle (or a clone) has not
    /// created or seen it yet: one create request per table, not one per write.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// use chrono::{TimeZone, Utc};
    /// use tablekit::patterns::period::{Period, PeriodTables, TableFamily};
    /// use tablekit::DynamicEntity;
    /// use tablekit_testing::Operation;
    /// # let client = emulator.client();
    /// # let logs: PeriodTables = PeriodTables::new(&client, TableFamily::new("Log", Period::Day)?);
    /// let t = Utc.with_ymd_and_hms(2024, 1, 31, 12, 0, 0).unwrap();
    /// for row in ["1", "2", "3"] {
    ///     let mut line = DynamicEntity::new("worker1", row);
    ///     logs.table_for_write(t).await?.insert(&mut line).await?;
    /// }
    /// assert_eq!(emulator.requests().count(Operation::CreateTable), 1);
    /// assert_eq!(emulator.requests().count(Operation::Insert), 3);
    /// # Ok(()) }
    /// ```
    pub async fn table_for_write(&self, time: DateTime<Utc>) -> Result<Table<M>> {
        let name = self.family.name_for(time);
        let table: Table<M> = self.client.table_named(&name);
        if !self.is_known(&name) {
            table.create_if_not_exists().await?;
            self.remember(name);
        }
        Ok(table)
    }

    /// Forgets that a table exists, so the next [`table_for_write`](Self::table_for_write)
    /// creates it again (after someone else deleted it).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// use chrono::{TimeZone, Utc};
    /// use tablekit::patterns::period::{Period, PeriodTables, TableFamily};
    /// # let client = emulator.client();
    /// # let logs: PeriodTables = PeriodTables::new(&client, TableFamily::new("Log", Period::Day)?);
    /// let t = Utc.with_ymd_and_hms(2024, 1, 31, 12, 0, 0).unwrap();
    /// let table = logs.table_for_write(t).await?;
    /// client.delete_table(table.name()).await?; // dropped behind the handle's back
    /// logs.forget(table.name());
    /// logs.table_for_write(t).await?; // creates it again
    /// assert!(table.exists().await?);
    /// # Ok(()) }
    /// ```
    pub fn forget(&self, name: &str) {
        if let Ok(mut known) = self.created.lock() {
            known.remove(&name.to_ascii_lowercase());
        }
    }

    fn is_known(&self, name: &str) -> bool {
        self.created
            .lock()
            .map(|known| known.contains(&name.to_ascii_lowercase()))
            .unwrap_or(false)
    }

    fn remember(&self, name: String) {
        if let Ok(mut known) = self.created.lock() {
            known.insert(name.to_ascii_lowercase());
        }
    }

    /// The family's existing tables with their period starts, oldest first.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// use chrono::{TimeZone, Utc};
    /// use tablekit::patterns::period::{Period, PeriodTables, TableFamily};
    /// # let client = emulator.client();
    /// # let logs: PeriodTables = PeriodTables::new(&client, TableFamily::new("Log", Period::Day)?);
    /// let day = |d| Utc.with_ymd_and_hms(2024, 1, d, 12, 0, 0).unwrap();
    /// logs.table_for_write(day(2)).await?;
    /// logs.table_for_write(day(1)).await?;
    /// client.create_table("Logbook").await?; // the prefix, but not a member
    /// let tables = logs.list().await?;
    /// let names: Vec<&str> = tables.iter().map(|(name, _)| name.as_str()).collect();
    /// assert_eq!(names, ["Log20240101", "Log20240102"]);
    /// assert_eq!(tables[0].1, Utc.with_ymd_and_hms(2024, 1, 1, 0, 0, 0).unwrap());
    /// # Ok(()) }
    /// ```
    pub async fn list(&self) -> Result<Vec<(String, DateTime<Utc>)>> {
        let names = self
            .client
            .list_table_names(Some(self.family.prefix()))
            .await?;
        Ok(self.family.members(names))
    }

    /// Every entity matching `query` in the existing tables that cover `[from, to)`, table by
    /// table, oldest first. The filter applies inside each table: add a time condition to
    /// trim the periods at the ends of the range.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// use chrono::{TimeZone, Utc};
    /// use tablekit::patterns::period::{Period, PeriodTables, TableFamily};
    /// use futures::TryStreamExt;
    /// use tablekit::{DynamicEntity, Query};
    /// # let client = emulator.client();
    /// # let logs: PeriodTables = PeriodTables::new(&client, TableFamily::new("Log", Period::Day)?);
    /// let day = |d| Utc.with_ymd_and_hms(2024, 1, d, 12, 0, 0).unwrap();
    /// for d in 1..=3 {
    ///     let mut line = DynamicEntity::new("worker1", "0001");
    ///     line.set("Day", d as i32);
    ///     logs.table_for_write(day(d)).await?.insert(&mut line).await?;
    /// }
    /// // Noon to noon touches two days' tables; both are read whole.
    /// let found: Vec<DynamicEntity> =
    ///     logs.query_between(day(2), day(3), Query::new()).try_collect().await?;
    /// let days: Vec<i32> = found.iter().map(|e| e.get_or("Day", 0)).collect();
    /// assert_eq!(days, [2, 3]);
    /// # Ok(()) }
    /// ```
    pub fn query_between(
        &self,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
        query: Query<M>,
    ) -> BoxStream<'static, Result<M::Entity>> {
        let this = self.clone();
        stream::once(async move {
            let wanted: HashSet<String> = this
                .family
                .names_between(from, to)
                .into_iter()
                .map(|n| n.to_ascii_lowercase())
                .collect();
            let tables: Vec<Table<M>> = this
                .list()
                .await?
                .into_iter()
                .filter(|(name, _)| wanted.contains(&name.to_ascii_lowercase()))
                .map(|(name, _)| this.client.table_named(&name))
                .collect();
            let pages = stream::iter(tables)
                .map(move |table| Ok::<_, Error>(table.query(query.clone()).entities()));
            Ok::<_, Error>(pages.try_flatten())
        })
        .try_flatten()
        .boxed()
    }

    /// Deletes the family's tables whose whole period ends at or before `cutoff` (see
    /// [`TableFamily::older_than`]); returns their names, oldest first.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// use chrono::{TimeZone, Utc};
    /// use tablekit::patterns::period::{Period, PeriodTables, TableFamily};
    /// # let client = emulator.client();
    /// # let logs: PeriodTables = PeriodTables::new(&client, TableFamily::new("Log", Period::Day)?);
    /// let day = |d| Utc.with_ymd_and_hms(2024, 1, d, 12, 0, 0).unwrap();
    /// for d in 1..=3 {
    ///     logs.table_for_write(day(d)).await?;
    /// }
    /// // Noon of day 3: days 1 and 2 are over, day 3 is not.
    /// let dropped = logs.drop_older_than(day(3)).await?;
    /// assert_eq!(dropped, ["Log20240101", "Log20240102"]);
    /// assert_eq!(client.list_table_names(None).await?, ["Log20240103"]);
    /// # Ok(()) }
    /// ```
    pub async fn drop_older_than(&self, cutoff: DateTime<Utc>) -> Result<Vec<String>> {
        let names: Vec<String> = self.list().await?.into_iter().map(|(n, _)| n).collect();
        let old = self.family.older_than(names, cutoff);
        for name in &old {
            self.client.delete_table_if_exists(name).await?;
            self.forget(name);
        }
        Ok(old)
    }
}

/// How finely a [`PeriodPartitionKey`] slices time at a given moment.
///
/// ```
/// use chrono::{TimeZone, Utc};
/// use tablekit::patterns::period::{Granularity, PeriodPartitionKey};
/// let by_month = PeriodPartitionKey::new("News", |_| Granularity::Month);
/// let t = Utc.with_ymd_and_hms(2008, 10, 3, 0, 0, 0).unwrap();
/// assert_eq!(by_month.key_for(t), "News_7991_03");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Granularity {
    /// One partition per month: `{prefix}_{9999 - year}_{13 - month}`.
    Month,
    /// One partition per week of the month (days 1-7, 8-14, 15-21, 22-28, 29-31):
    /// `{prefix}_{9999 - year}_{13 - month}_{5 - week}`.
    WeekOfMonth,
}

/// PartitionKeys whose granularity changes with time: the whitepaper's microblog, where a
/// channel's blogs are partitioned by month off-season and by week in the hot months.
///
/// The key is `{prefix}_{9999 - year:04}_{13 - month:02}`, plus `_{5 - week:02}` when the rule
/// picks [`Granularity::WeekOfMonth`]; the inverted numbers sort the newest partitions first.
/// The rule is a function of the time (the documented hook): any schedule works, as long as
/// writers and readers use the same one. [`keys_between`](Self::keys_between) gives the
/// partitions a time range touches, so a query can address exactly those.
///
/// ```
/// use chrono::{Datelike, TimeZone, Utc};
/// use tablekit::patterns::period::{Granularity, PeriodPartitionKey};
///
/// // Off season (March to July) by month, the football season by week.
/// let blogs = PeriodPartitionKey::new("Football", |t: chrono::DateTime<Utc>| {
///     if (3..=7).contains(&t.month()) { Granularity::Month } else { Granularity::WeekOfMonth }
/// });
/// let july = Utc.with_ymd_and_hms(2008, 7, 3, 12, 0, 0).unwrap();
/// let october = Utc.with_ymd_and_hms(2008, 10, 3, 12, 0, 0).unwrap();
/// assert_eq!(blogs.key_for(july), "Football_7991_06");
/// assert_eq!(blogs.key_for(october), "Football_7991_03_04");
/// let day_end = Utc.with_ymd_and_hms(2008, 10, 9, 0, 0, 0).unwrap();
/// assert_eq!(blogs.keys_between(october, day_end), ["Football_7991_03_04", "Football_7991_03_03"]);
/// ```
pub struct PeriodPartitionKey<F> {
    prefix: String,
    rule: F,
}

impl<F: Fn(DateTime<Utc>) -> Granularity> PeriodPartitionKey<F> {
    /// Keys starting with `prefix`, sliced as `rule` says for each moment.
    ///
    /// ```
    /// use chrono::{TimeZone, Utc};
    /// use tablekit::patterns::period::{Granularity, PeriodPartitionKey};
    /// let weekly = PeriodPartitionKey::new("News", |_| Granularity::WeekOfMonth);
    /// let t = Utc.with_ymd_and_hms(2008, 10, 3, 0, 0, 0).unwrap();
    /// assert_eq!(weekly.key_for(t), "News_7991_03_04"); // 9999 - 2008, 13 - 10, 5 - 1
    /// ```
    pub fn new(prefix: impl Into<String>, rule: F) -> Self {
        PeriodPartitionKey {
            prefix: prefix.into(),
            rule,
        }
    }

    /// The PartitionKey for an entity of `time`.
    ///
    /// ```
    /// use chrono::{TimeZone, Utc};
    /// use tablekit::patterns::period::{Granularity, PeriodPartitionKey};
    /// let monthly = PeriodPartitionKey::new("News", |_| Granularity::Month);
    /// let older = monthly.key_for(Utc.with_ymd_and_hms(2008, 9, 30, 0, 0, 0).unwrap());
    /// let newer = monthly.key_for(Utc.with_ymd_and_hms(2008, 10, 1, 0, 0, 0).unwrap());
    /// assert_eq!((older.as_str(), newer.as_str()), ("News_7991_04", "News_7991_03"));
    /// assert!(newer < older); // the newest partition sorts first
    /// ```
    pub fn key_for(&self, time: DateTime<Utc>) -> String {
        let year = 9999 - time.year();
        let month = 13 - time.month();
        match (self.rule)(time) {
            Granularity::Month => format!("{}_{year:04}_{month:02}", self.prefix),
            Granularity::WeekOfMonth => {
                let week = (time.day() - 1) / 7 + 1;
                format!("{}_{year:04}_{month:02}_{:02}", self.prefix, 5 - week)
            }
        }
    }

    /// The distinct PartitionKeys of `[from, to)`, in time order (the rule is asked once per
    /// day, so it may switch granularity at any day boundary).
    ///
    /// ```
    /// use chrono::{TimeZone, Utc};
    /// use tablekit::patterns::period::{Granularity, PeriodPartitionKey};
    /// let weekly = PeriodPartitionKey::new("News", |_| Granularity::WeekOfMonth);
    /// let from = Utc.with_ymd_and_hms(2008, 10, 20, 0, 0, 0).unwrap();
    /// let to = Utc.with_ymd_and_hms(2008, 11, 2, 0, 0, 0).unwrap();
    /// assert_eq!(
    ///     weekly.keys_between(from, to),
    ///     ["News_7991_03_02", "News_7991_03_01", "News_7991_03_00", "News_7991_02_04"]
    /// );
    /// ```
    pub fn keys_between(&self, from: DateTime<Utc>, to: DateTime<Utc>) -> Vec<String> {
        let mut keys: Vec<String> = Vec::new();
        let mut at = from;
        while at < to {
            let key = self.key_for(at);
            if keys.last() != Some(&key) {
                keys.push(key);
            }
            let next = Period::Day.next_start(at);
            if next <= at {
                break;
            }
            at = next;
        }
        keys
    }
}

impl<F> std::fmt::Debug for PeriodPartitionKey<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PeriodPartitionKey")
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const ALL: [Period; 5] = [
        Period::Hour,
        Period::Day,
        Period::Week,
        Period::Month,
        Period::Year,
    ];

    fn time() -> impl Strategy<Value = DateTime<Utc>> {
        // 1601 to 9998: the service's DateTime range, leaving room for "next period".
        (-11_644_473_600i64..253_370_764_800)
            .prop_map(|s| DateTime::from_timestamp(s, 0).unwrap_or_default())
    }

    proptest! {
        #[test]
        fn names_parse_back_to_their_period(t in time(), p in 0usize..5) {
            let period = ALL[p];
            let family = TableFamily::new("Log", period).unwrap();
            let name = family.name_for(t);
            prop_assert!(validate_table_name(&name).is_ok());
            let start = family.parse(&name).unwrap();
            prop_assert_eq!(start, period.start(t));
            prop_assert!(start <= t && t < period.next_start(t));
            prop_assert_eq!(family.name_for(start), name);
        }

        #[test]
        fn names_sort_in_time_order(a in time(), b in time(), p in 0usize..5) {
            let period = ALL[p];
            let (a, b) = if a <= b { (a, b) } else { (b, a) };
            prop_assert!(period.suffix(a) <= period.suffix(b));
        }

        #[test]
        fn a_range_lists_every_table_holding_its_times(a in time(), len in 0i64..90 * 86_400, p in 0usize..5) {
            let period = ALL[p];
            let family = TableFamily::new("Log", period).unwrap();
            let b = a + Duration::seconds(len);
            let names = family.names_between(a, b);
            // Every time in the range maps to a listed table, and the list has no repeats.
            for step in 0..20 {
                let t = a + Duration::seconds(len * step / 20);
                if t < b {
                    prop_assert!(names.contains(&family.name_for(t)));
                }
            }
            let mut sorted = names.clone();
            sorted.dedup();
            prop_assert_eq!(sorted.len(), names.len());
        }

        #[test]
        fn parse_never_panics(s in "\\PC{0,20}") {
            for p in ALL {
                let _ = TableFamily::new("Log", p).unwrap().parse(&s);
            }
        }
    }

    #[test]
    fn too_long_prefixes_are_refused() {
        let prefix = "L".repeat(56);
        assert!(TableFamily::new(prefix.clone(), Period::Year).is_ok());
        assert!(TableFamily::new(prefix, Period::Hour).is_err());
    }

    #[test]
    fn iso_weeks_cross_years() {
        // 2021-01-03 is a Sunday in ISO week 53 of 2020.
        let t = Utc.with_ymd_and_hms(2021, 1, 3, 0, 0, 0).unwrap();
        assert_eq!(Period::Week.suffix(t), "2020W53");
        assert_eq!(
            Period::Week.parse_suffix("2020W53"),
            Some(Utc.with_ymd_and_hms(2020, 12, 28, 0, 0, 0).unwrap())
        );
        assert_eq!(Period::Week.parse_suffix("2021W53"), None);
    }

    #[test]
    fn empty_or_reversed_ranges_list_nothing() {
        let f = TableFamily::new("Log", Period::Day).unwrap();
        let t = Utc.with_ymd_and_hms(2024, 1, 1, 0, 0, 0).unwrap();
        assert!(f.names_between(t, t).is_empty());
        assert!(f.names_between(t, t - Duration::days(3)).is_empty());
    }

    #[test]
    fn week_of_month_keys_follow_the_whitepaper() {
        let k = PeriodPartitionKey::new("Football", |_| Granularity::WeekOfMonth);
        let day = |d| Utc.with_ymd_and_hms(2008, 10, d, 0, 0, 0).unwrap();
        assert_eq!(k.key_for(day(1)), "Football_7991_03_04");
        assert_eq!(k.key_for(day(8)), "Football_7991_03_03");
        assert_eq!(k.key_for(day(31)), "Football_7991_03_00");
    }
}
