//! PartitionKey and RowKey values.

use core::fmt;

/// Longest PartitionKey or RowKey, in UTF-16 units (1 KiB).
///
/// ```
/// use tablekit_rules::{check_key, MAX_KEY_UNITS};
/// assert!(check_key(&"k".repeat(MAX_KEY_UNITS)).is_ok());
/// assert!(check_key(&"k".repeat(MAX_KEY_UNITS + 1)).is_err());
/// ```
pub const MAX_KEY_UNITS: usize = 512;

/// Whether the service forbids `c` in a key: `/`, `\`, `#`, `?` and the control characters
/// U+0000 to U+001F and U+007F to U+009F.
///
/// ```
/// use tablekit_rules::is_forbidden_key_char;
/// assert!(is_forbidden_key_char('#') && is_forbidden_key_char('\u{85}'));
/// assert!(!is_forbidden_key_char('%') && !is_forbidden_key_char('\u{a0}'));
/// ```
pub const fn is_forbidden_key_char(c: char) -> bool {
    matches!(c, '/' | '\\' | '#' | '?' | '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}')
}

/// The first character of `key` the service forbids, with its byte offset.
///
/// ```
/// use tablekit_rules::find_forbidden_key_char;
/// assert_eq!(find_forbidden_key_char("2024/01"), Some((4, '/')));
/// assert_eq!(find_forbidden_key_char("2024_01"), None);
/// ```
pub fn find_forbidden_key_char(key: &str) -> Option<(usize, char)> {
    // Every forbidden character is below U+00A0, so its first UTF-8 byte is below 0x20, one of
    // `/ \ # ?`, 0x7F or 0xC2: a key without such bytes needs no decoding.
    let suspect = |b: &u8| *b < 0x20 || matches!(b, b'/' | b'\\' | b'#' | b'?' | 0x7f | 0xc2);
    if !key.as_bytes().iter().any(suspect) {
        return None;
    }
    key.char_indices().find(|(_, c)| is_forbidden_key_char(*c))
}

/// The length of `s` in UTF-16 code units, the unit of the service's key and string limits.
///
/// ```
/// assert_eq!(tablekit_rules::utf16_len("a\u{1F600}"), 3);
/// ```
pub fn utf16_len(s: &str) -> usize {
    // Every byte but a continuation byte starts one unit, and a 4-byte character (lead byte
    // 0xF0 or above) needs a second: counted over bytes, which vectorizes.
    s.bytes()
        .map(|b| usize::from(b & 0xC0 != 0x80) + usize::from(b >= 0xF0))
        .sum()
}

/// Which key rule a key breaks.
///
/// ```
/// use tablekit_rules::{check_key, KeyError};
/// let err = check_key("a?b").unwrap_err();
/// assert_eq!(err, KeyError::Character { position: 1, character: '?' });
/// assert_eq!(err.to_string(), "a key cannot hold '?' (at byte 1)");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KeyError {
    /// A character the service forbids in keys ([`is_forbidden_key_char`]).
    Character {
        /// Its byte offset in the key.
        position: usize,
        /// The character.
        character: char,
    },
    /// Longer than [`MAX_KEY_UNITS`] UTF-16 units.
    TooLong {
        /// The key's length in UTF-16 units.
        units: usize,
    },
}

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyError::Character {
                position,
                character,
            } => write!(f, "a key cannot hold {character:?} (at byte {position})"),
            KeyError::TooLong { units } => write!(
                f,
                "a key is at most {MAX_KEY_UNITS} UTF-16 units long, this one is {units}"
            ),
        }
    }
}

impl core::error::Error for KeyError {}

/// Checks a PartitionKey or RowKey: no forbidden character, at most 512 UTF-16 units (the
/// characters first).
///
/// ```
/// use tablekit_rules::{check_key, KeyError};
/// assert!(check_key("2024_01").is_ok());
/// assert!(check_key("").is_ok());
/// assert_eq!(check_key(&"k".repeat(513)), Err(KeyError::TooLong { units: 513 }));
/// ```
pub fn check_key(key: &str) -> Result<(), KeyError> {
    if let Some((position, character)) = find_forbidden_key_char(key) {
        return Err(KeyError::Character {
            position,
            character,
        });
    }
    let units = utf16_len(key);
    if units > MAX_KEY_UNITS {
        return Err(KeyError::TooLong { units });
    }
    Ok(())
}
