//! The models the tests share, each defined once: the READMEs' gamer (after the gamers of
//! "Jeffrey Richter's Guide to Working with Azure Storage Tables via C# and other .NET
//! Languages"), the `microblog` example's blog, the derive README's expense item and the
//! employees of its secondary indexes.
//!
//! Tests that need a model of another shape (a record at version 0, a key layout of their own)
//! define it next to the test and name it after what it shows.

use chrono::{DateTime, Utc};
use tablekit::prelude::*;
use tablekit::{Record, TableValue};
use uuid::Uuid;

/// A game level, stored as its number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, TableValue)]
#[repr(i32)]
pub enum Level {
    #[default]
    Dungeon = 0,
    Castle = 1,
    Forest = 2,
}

/// A gamer's mood, stored by name (one name renamed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, TableValue)]
#[tablekit(as_name)]
pub enum Mood {
    #[default]
    Calm,
    #[tablekit(rename = "Angry!")]
    Angry,
}

/// A level a gamer completed: a versioned record (version 1 added the stars).
#[derive(Debug, Clone, PartialEq, Record)]
#[record(version = 1)]
pub struct CompletedLevel {
    pub level: Level,
    pub completed: DateTime<Utc>,
    #[record(since = 1)]
    pub stars: u8,
}

/// The READMEs' gamer: one row per gamer, the tag (lowercased) as PartitionKey; defaults,
/// renames, enums, a skipped field, records spread over up to 4 properties and a split blob.
#[derive(Debug, Clone, PartialEq, Default, TableEntity)]
#[tablekit(table = "Gamers")]
pub struct Gamer {
    #[tablekit(partition_key, transform = lowercase)]
    #[tablekit(rename = "GamerTag")]
    pub tag: String,
    #[tablekit(default = 0)]
    pub score: i32,
    pub level: Level,
    pub mood: Mood,
    #[tablekit(rename_from = "Nick")]
    pub nickname: Option<String>,
    pub active: bool,
    #[tablekit(default = 3)]
    pub lives: u32,
    #[tablekit(skip)]
    pub cache: Vec<String>,
    #[tablekit(records(max_properties = 4))]
    pub completed_levels: Vec<CompletedLevel>,
    #[tablekit(split(max_properties = 16))]
    pub avatar: Vec<u8>,
}

/// The `microblog` example's blog: partitioned by channel and month (newest first), the row
/// key newest first too.
#[derive(Debug, Clone, PartialEq, TableEntity)]
#[tablekit(table = "Blogs")]
pub struct Blog {
    #[tablekit(partition_key(order = 0))]
    pub channel: String,
    #[tablekit(partition_key(order = 1, format = "inverted_year_month"))]
    #[tablekit(row_key(inverted_ticks))]
    pub posted: DateTime<Utc>,
    pub text: String,
    pub rating: i32,
}

/// The derive README's expense item: a user's partition, the row key the expense then the item.
#[derive(Debug, Clone, PartialEq, TableEntity)]
pub struct ExpenseItem {
    #[tablekit(partition_key)]
    pub user: String,
    #[tablekit(row_key(order = 0))]
    pub expense_id: Uuid,
    #[tablekit(row_key(order = 1))]
    pub item_id: Uuid,
    pub amount: f64,
}

/// An employee with a unique index on the email and a non-unique one on the last name, as
/// in the derive README.
#[derive(TableEntity)]
#[tablekit(table = "Employees")]
pub struct Employee {
    #[tablekit(partition_key)]
    pub department: String,
    #[tablekit(row_key)]
    pub id: String,
    #[tablekit(index(unique))]
    pub email: String,
    #[tablekit(index)]
    pub last_name: String,
    pub salary: i64,
}
