//! Property names.

use core::fmt;

/// Longest property name, in characters.
///
/// ```
/// use tablekit_rules::{check_property_name, MAX_PROPERTY_NAME_CHARS};
/// assert!(check_property_name(&"é".repeat(MAX_PROPERTY_NAME_CHARS)).is_ok());
/// assert!(check_property_name(&"a".repeat(MAX_PROPERTY_NAME_CHARS + 1)).is_err());
/// ```
pub const MAX_PROPERTY_NAME_CHARS: usize = 255;

/// The properties the service keeps on every entity: no user property has their names
/// (which are case-sensitive: `timestamp` is a user property).
///
/// ```
/// use tablekit_rules::{check_property_name, SYSTEM_PROPERTY_NAMES};
/// for name in SYSTEM_PROPERTY_NAMES {
///     assert!(check_property_name(name).is_err());
/// }
/// assert!(check_property_name("timestamp").is_ok());
/// ```
pub const SYSTEM_PROPERTY_NAMES: [&str; 3] = ["PartitionKey", "RowKey", "Timestamp"];

/// Which property name rule a name breaks.
///
/// ```
/// use tablekit_rules::{check_property_name, PropertyNameError};
/// assert_eq!(check_property_name("High Score"), Err(PropertyNameError::Character));
/// assert_eq!(
///     PropertyNameError::Character.to_string(),
///     "a property name holds only letters, digits and `_`"
/// );
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PropertyNameError {
    /// The empty name.
    Empty,
    /// More than 255 characters.
    TooLong,
    /// A first character other than a letter or `_` (a digit, `½`, ...).
    FirstCharacter,
    /// A character other than a letter, a digit or `_`.
    Character,
    /// One of [`SYSTEM_PROPERTY_NAMES`].
    Reserved,
}

impl PropertyNameError {
    /// The rule, in words.
    ///
    /// ```
    /// use tablekit_rules::PropertyNameError;
    /// assert_eq!(PropertyNameError::Reserved.reason(), "this is a system property name");
    /// ```
    pub const fn reason(self) -> &'static str {
        match self {
            PropertyNameError::Empty => "a property name cannot be empty",
            PropertyNameError::TooLong => "a property name is at most 255 characters",
            PropertyNameError::FirstCharacter => "a property name starts with a letter or `_`",
            PropertyNameError::Character => "a property name holds only letters, digits and `_`",
            PropertyNameError::Reserved => "this is a system property name",
        }
    }
}

impl fmt::Display for PropertyNameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.reason())
    }
}

impl core::error::Error for PropertyNameError {}

/// Checks a user property name: letters, digits and `_` (Unicode letters and digits, as the
/// service's names are C# identifiers), starting with a letter or `_`, at most 255
/// characters, and none of the [`SYSTEM_PROPERTY_NAMES`]. The first rule broken, in this
/// order: empty, length, first character, characters, reserved.
///
/// ```
/// use tablekit_rules::{check_property_name, PropertyNameError};
/// assert!(check_property_name("_Score2").is_ok());
/// assert!(check_property_name("Größe").is_ok());
/// assert_eq!(check_property_name("2Score"), Err(PropertyNameError::FirstCharacter));
/// assert_eq!(check_property_name("RowKey"), Err(PropertyNameError::Reserved));
/// ```
pub fn check_property_name(name: &str) -> Result<(), PropertyNameError> {
    // Nearly every name is a well-formed ASCII name, which one pass over its bytes confirms;
    // entities are checked on every write, on both sides.
    let bytes = name.as_bytes();
    let well_formed_ascii = bytes.len() <= MAX_PROPERTY_NAME_CHARS
        && bytes.first().is_some_and(|b| !b.is_ascii_digit())
        && bytes
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || b == b'_');
    match well_formed_ascii && !SYSTEM_PROPERTY_NAMES.contains(&name) {
        true => Ok(()),
        false => check_other_name(name),
    }
}

/// [`check_property_name`] for a name that is not plain ASCII or breaks a rule: which rule,
/// in the documented order.
fn check_other_name(name: &str) -> Result<(), PropertyNameError> {
    // An ASCII name needs no character decoding.
    let (count, starts_well, all_allowed) = if name.is_ascii() {
        (
            name.len(),
            name.bytes()
                .next()
                .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_'),
            name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'),
        )
    } else {
        (
            name.chars().count(),
            name.chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_'),
            name.chars().all(|c| c.is_alphanumeric() || c == '_'),
        )
    };
    if count == 0 {
        return Err(PropertyNameError::Empty);
    }
    if count > MAX_PROPERTY_NAME_CHARS {
        return Err(PropertyNameError::TooLong);
    }
    if !starts_well {
        return Err(PropertyNameError::FirstCharacter);
    }
    if !all_allowed {
        return Err(PropertyNameError::Character);
    }
    if SYSTEM_PROPERTY_NAMES.contains(&name) {
        return Err(PropertyNameError::Reserved);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use std::string::{String, ToString};
    use std::vec::Vec;
    use std::{format, vec};

    /// Every name of up to three characters from a small alphabet, with the system names and
    /// the longest names: the one-pass check agrees with the full one on each.
    #[test]
    fn the_one_pass_check_agrees_with_the_full_check() {
        const ALPHABET: [&str; 7] = ["a", "Z", "0", "_", "-", " ", "é"];
        let mut names = vec![String::new()];
        for _ in 0..3 {
            let longer: Vec<String> = names
                .iter()
                .flat_map(|name| ALPHABET.iter().map(move |c| format!("{name}{c}")))
                .collect();
            names.extend(longer);
        }
        names.extend(SYSTEM_PROPERTY_NAMES.iter().map(|n| n.to_string()));
        names.push("a".repeat(MAX_PROPERTY_NAME_CHARS));
        names.push("a".repeat(MAX_PROPERTY_NAME_CHARS + 1));
        names.push(format!("1{}", "a".repeat(MAX_PROPERTY_NAME_CHARS)));
        for name in &names {
            assert_eq!(
                check_property_name(name),
                check_other_name(name),
                "{name:?}"
            );
        }
    }
}
