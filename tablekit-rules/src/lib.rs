// The crate documentation is the README, so its example is tested.
#![doc = include_str!("../README.md")]
#![no_std]

mod date;
mod format;
mod key;
mod property;
mod spread;
mod table;

pub use date::{DateField, DatePattern, DatePatternError, DatePiece, DatePieces};
pub use format::{KeyFormat, PartInput, TimeRangeKind};
pub use key::{
    check_key, find_forbidden_key_char, is_forbidden_key_char, utf16_len, KeyError, MAX_KEY_UNITS,
};
pub use property::{
    check_property_name, PropertyNameError, MAX_PROPERTY_NAME_CHARS, SYSTEM_PROPERTY_NAMES,
};
pub use spread::{SPREAD_CHUNKS_PER_ROW, SPREAD_MAX_ROWS};
pub use table::{check_table_name, TableNameError, MAX_TABLE_NAME_LEN, MIN_TABLE_NAME_LEN};
