//! Table names.

use core::fmt;

/// Shortest table name, in characters.
///
/// ```
/// use tablekit_rules::{check_table_name, MIN_TABLE_NAME_LEN};
/// assert!(check_table_name(&"a".repeat(MIN_TABLE_NAME_LEN)).is_ok());
/// assert!(check_table_name(&"a".repeat(MIN_TABLE_NAME_LEN - 1)).is_err());
/// ```
pub const MIN_TABLE_NAME_LEN: usize = 3;

/// Longest table name, in characters.
///
/// ```
/// use tablekit_rules::{check_table_name, MAX_TABLE_NAME_LEN};
/// assert!(check_table_name(&"a".repeat(MAX_TABLE_NAME_LEN)).is_ok());
/// assert!(check_table_name(&"a".repeat(MAX_TABLE_NAME_LEN + 1)).is_err());
/// ```
pub const MAX_TABLE_NAME_LEN: usize = 63;

/// Which table name rule a name breaks.
///
/// ```
/// use tablekit_rules::{check_table_name, TableNameError};
/// assert_eq!(check_table_name("my-gamers"), Err(TableNameError::Character));
/// assert_eq!(
///     TableNameError::Character.to_string(),
///     "a table name holds only ASCII letters and digits"
/// );
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TableNameError {
    /// Shorter than 3 or longer than 63 characters.
    Length,
    /// A character other than an ASCII letter or digit.
    Character,
    /// A first character other than a letter.
    FirstCharacter,
    /// `tables`, in any case: the service's own table of tables.
    Reserved,
}

impl TableNameError {
    /// The rule, in words.
    ///
    /// ```
    /// use tablekit_rules::TableNameError;
    /// assert_eq!(TableNameError::Reserved.reason(), "`tables` is reserved");
    /// ```
    pub const fn reason(self) -> &'static str {
        match self {
            TableNameError::Length => "a table name is 3 to 63 characters long",
            TableNameError::Character => "a table name holds only ASCII letters and digits",
            TableNameError::FirstCharacter => "a table name starts with a letter",
            TableNameError::Reserved => "`tables` is reserved",
        }
    }
}

impl fmt::Display for TableNameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.reason())
    }
}

impl core::error::Error for TableNameError {}

/// Checks a table name: `^[A-Za-z][A-Za-z0-9]{2,62}$` and not `tables` (in any case). The
/// first rule broken, in this order: length, characters, first character, reserved.
///
/// ```
/// use tablekit_rules::{check_table_name, TableNameError};
/// assert!(check_table_name("Gamers2").is_ok());
/// assert_eq!(check_table_name("ab"), Err(TableNameError::Length));
/// assert_eq!(check_table_name("1st"), Err(TableNameError::FirstCharacter));
/// assert_eq!(check_table_name("Tables"), Err(TableNameError::Reserved));
/// ```
pub fn check_table_name(name: &str) -> Result<(), TableNameError> {
    // Every allowed character is one byte: a length in bytes outside the range is either
    // too long/short or holds a character that is not allowed, which the length reports.
    if !(MIN_TABLE_NAME_LEN..=MAX_TABLE_NAME_LEN).contains(&name.len()) {
        return Err(TableNameError::Length);
    }
    if !name.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return Err(TableNameError::Character);
    }
    if !name.bytes().next().is_some_and(|b| b.is_ascii_alphabetic()) {
        return Err(TableNameError::FirstCharacter);
    }
    if name.eq_ignore_ascii_case("tables") {
        return Err(TableNameError::Reserved);
    }
    Ok(())
}
