//! The numbers of hand-written filter text that the service cannot read as their type, found
//! before the filter is sent.
//!
//! The service types a number by its text: without a suffix it is an Int32, with `L` an
//! Int64, with a `.`, an exponent or `d` a Double. One out of its type's range is refused with
//! 400 InvalidInput "Unrecognized 'Edm.Int32' literal '…'" (as quoted in public Azure Storage
//! Explorer and azure-storage-node issue threads), the usual slip being an Int64 written
//! without its `L`.

use crate::filter::params::ParamError;
use crate::values::value::EdmType;

/// Checks every number of `segment`: filter text outside its string literals and
/// placeholders, starting at byte `offset` of the filter.
pub(crate) fn check_numbers(segment: &str, offset: usize) -> Result<(), ParamError> {
    let bytes = segment.as_bytes();
    let mut at = 0;
    // Whether the character before `at` continues a name: `Field1` holds no number.
    let mut in_name = false;
    while let Some(c) = segment[at..].chars().next() {
        let digit_at = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_digit);
        if !in_name && (digit_at(at) || (c == '-' && digit_at(at + 1))) {
            let len = number_len(&segment[at..]);
            // A number running into a name is a syntax error, the service's to refuse.
            let runs_on = segment[at + len..]
                .chars()
                .next()
                .is_some_and(|c| c.is_alphanumeric() || c == '_');
            if !runs_on {
                check_number(&segment[at..at + len], offset + at)?;
            }
            at += len;
            in_name = runs_on;
            continue;
        }
        in_name = c.is_alphanumeric() || c == '_';
        at += c.len_utf8();
    }
    Ok(())
}

/// The length of the number `text` starts with: a sign, digits, `.` and an exponent, then a
/// type suffix, as the emulator's lexer reads it.
fn number_len(text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut len = usize::from(bytes.first() == Some(&b'-'));
    let mut is_double = false;
    while let Some(&b) = bytes.get(len) {
        match b {
            b'0'..=b'9' => {}
            b'.' => is_double = true,
            b'e' | b'E' => {
                is_double = true;
                if matches!(bytes.get(len + 1), Some(b'+' | b'-')) {
                    len += 1;
                }
            }
            _ => break,
        }
        len += 1;
    }
    match bytes.get(len) {
        Some(b'L' | b'l') if !is_double => len + 1,
        Some(b'd' | b'D' | b'm' | b'M' | b'f' | b'F') => len + 1,
        _ => len,
    }
}

/// Refuses `number` (at byte `position`) when it does not read as the type its text gives it.
fn check_number(number: &str, position: usize) -> Result<(), ParamError> {
    let (edm_type, valid) = match number.as_bytes().last() {
        Some(b'L' | b'l') => (
            EdmType::Int64,
            number[..number.len() - 1].parse::<i64>().is_ok(),
        ),
        Some(b'd' | b'D' | b'm' | b'M' | b'f' | b'F') => {
            (EdmType::Double, is_finite(&number[..number.len() - 1]))
        }
        _ if number.contains(['.', 'e', 'E']) => (EdmType::Double, is_finite(number)),
        _ => (EdmType::Int32, number.parse::<i32>().is_ok()),
    };
    if valid {
        return Ok(());
    }
    Err(ParamError::UnrecognizedLiteral {
        literal: number.to_owned(),
        edm_type,
        position,
    })
}

/// A finite Double: `1e999` reads as infinity, which filter text writes as `INF`.
fn is_finite(text: &str) -> bool {
    text.parse::<f64>().is_ok_and(f64::is_finite)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(text: &str) -> Option<(String, EdmType, usize)> {
        match check_numbers(text, 0) {
            Ok(()) => None,
            Err(ParamError::UnrecognizedLiteral {
                literal,
                edm_type,
                position,
            }) => Some((literal, edm_type, position)),
            Err(other) => panic!("{text}: {other:?}"),
        }
    }

    #[test]
    fn numbers_within_their_types_range_pass() {
        for text in [
            "N eq 2147483647 and M eq -2147483648",
            "L eq 5454161346626L and L ne -9223372036854775808L",
            "D eq 1.5 and D lt 1e308 and D gt -2.5E-7 and D ne 2d and D ne -0.0",
            "Field1 eq 1 and Área9 eq 2 and _9 eq 3",
            "D eq INF or D eq -INF or D eq NaN",
        ] {
            assert_eq!(refused(text), None, "{text}");
        }
    }

    #[test]
    fn numbers_out_of_their_types_range_are_refused_where_they_stand() {
        let cases = [
            ("L eq 5454161346626", "5454161346626", EdmType::Int32, 5),
            ("N gt -2147483649", "-2147483649", EdmType::Int32, 5),
            (
                "N eq 1 or N eq 99999999999999999999",
                "99999999999999999999",
                EdmType::Int32,
                15,
            ),
            (
                "L eq 9223372036854775808L",
                "9223372036854775808L",
                EdmType::Int64,
                5,
            ),
            ("D eq 1e999", "1e999", EdmType::Double, 5),
            ("D eq -1E400d", "-1E400d", EdmType::Double, 5),
            ("D eq 1.2.3", "1.2.3", EdmType::Double, 5),
        ];
        for (text, literal, edm_type, position) in cases {
            let expected = Some((literal.to_owned(), edm_type, position));
            assert_eq!(refused(text), expected, "{text}");
        }
    }

    #[test]
    fn what_is_no_number_is_left_to_the_service() {
        // Names with digits, and numbers running into names, are not for this check.
        for text in [
            "N9999999999 eq 1",
            "N eq 9999999999x",
            "N eq 1.5L",
            "N eq -x",
        ] {
            assert_eq!(refused(text), None, "{text}");
        }
    }

    #[test]
    fn positions_count_from_the_segments_offset() {
        let err = check_numbers("eq 3000000000", 40).unwrap_err();
        assert!(matches!(
            err,
            ParamError::UnrecognizedLiteral { position: 43, .. }
        ));
    }
}
