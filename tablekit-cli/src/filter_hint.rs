//! Hints on filters that the service takes but that likely mean something else (a bare word
//! compared with a property is read as another property's name, so nothing matches), and on
//! OData functions, which the Table service does not support.

/// OData functions, none of which the Table service supports.
const FUNCTIONS: &[&str] = &[
    "substringof",
    "startswith",
    "endswith",
    "contains",
    "indexof",
    "length",
    "substring",
    "tolower",
    "toupper",
    "trim",
    "concat",
    "replace",
    "year",
    "month",
    "day",
    "hour",
    "minute",
    "second",
    "round",
    "floor",
    "ceiling",
    "isof",
    "cast",
];

const OPERATORS: &[&str] = &["eq", "ne", "gt", "ge", "lt", "le"];
const KEYWORDS: &[&str] = &["and", "or", "not", "true", "false"];
const SYSTEM_NAMES: &[&str] = &["PartitionKey", "RowKey", "Timestamp"];

/// A word of a filter, or something else (a literal, a parenthesis, a number).
#[derive(Debug, PartialEq)]
enum Token<'a> {
    Word(&'a str),
    Open,
    Other,
}

/// The filter's tokens, quoted text (and typed literals such as `guid'...'`) as `Other`.
fn tokens(filter: &str) -> Vec<Token<'_>> {
    let bytes = filter.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b.is_ascii_whitespace() {
            i += 1;
        } else if b == b'\'' {
            i = after_quoted(bytes, i);
            tokens.push(Token::Other);
        } else if b == b'(' {
            tokens.push(Token::Open);
            i += 1;
        } else if b.is_ascii_alphabetic() || b == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            if bytes.get(i) == Some(&b'\'') {
                // A typed literal: `datetime'...'`, `guid'...'`, `X'...'`.
                i = after_quoted(bytes, i);
                tokens.push(Token::Other);
            } else {
                tokens.push(Token::Word(&filter[start..i]));
            }
        } else {
            // Numbers (`5`, `5L`, `-1.5e3`), `)` and anything else.
            i += 1;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'.') {
                i += 1;
            }
            tokens.push(Token::Other);
        }
    }
    tokens
}

/// The index just after the quoted text starting at `open` (`''` is a quote inside).
fn after_quoted(bytes: &[u8], open: usize) -> usize {
    let mut i = open + 1;
    while i < bytes.len() {
        if bytes[i] == b'\'' {
            if bytes.get(i + 1) == Some(&b'\'') {
                i += 2;
                continue;
            }
            return i + 1;
        }
        i += 1;
    }
    i
}

/// The OData function the filter calls, if any: the service answers it with an error.
pub(crate) fn function_call(filter: &str) -> Option<&str> {
    tokens(filter).windows(2).find_map(|pair| match pair {
        [Token::Word(name), Token::Open]
            if FUNCTIONS.contains(&name.to_ascii_lowercase().as_str()) =>
        {
            Some(*name)
        }
        _ => None,
    })
}

/// The message for a filter calling `function`.
pub(crate) fn function_message(function: &str) -> String {
    format!(
        "the Table service supports no OData functions, so not `{function}`: a filter compares \
         properties with literals (eq, ne, gt, ge, lt, le), joined by and, or, not. For a \
         prefix, compare a range: `Name ge 'abc' and Name lt 'abd'`"
    )
}

/// Notes on bare words compared with a property (`PartitionKey eq p001`): the service reads
/// them as property names, so the comparison holds for no entity.
pub(crate) fn unquoted_notes(filter: &str) -> Vec<String> {
    let is_name = |word: &str| !OPERATORS.contains(&word) && !KEYWORDS.contains(&word);
    tokens(filter)
        .windows(3)
        .filter_map(|triple| match triple {
            [Token::Word(left), Token::Word(op), Token::Word(right)]
                if OPERATORS.contains(op) && is_name(left) && is_name(right) =>
            {
                // The side that is not a system name is the one meant as text.
                let bare = if SYSTEM_NAMES.contains(right) && !SYSTEM_NAMES.contains(left) {
                    left
                } else {
                    right
                };
                Some(format!(
                    "in `{left} {op} {right}`, `{bare}` is read as a property name (entities \
                     without it never match): write `'{bare}'` to compare with the text"
                ))
            }
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{function_call, unquoted_notes};

    #[test]
    fn functions_are_found_outside_quotes() {
        assert_eq!(
            function_call("substringof('ab', Name) and A eq 1"),
            Some("substringof")
        );
        assert_eq!(function_call("StartsWith (Name, 'x')"), Some("StartsWith"));
        assert_eq!(function_call("Name eq 'startswith(x)'"), None);
        assert_eq!(function_call("(A eq 1) or (B eq 2)"), None);
    }

    #[test]
    fn bare_words_compared_with_a_property_are_noted() {
        let notes = unquoted_notes("PartitionKey eq p001 and Score ge 10");
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains("`p001` is read as a property name"));
        assert!(unquoted_notes("p001 eq PartitionKey")[0].contains("`p001`"));
        for fine in [
            "PartitionKey eq 'p001'",
            "Active eq true",
            "Id eq guid'00000000-0000-0000-0000-000000000000'",
            "Score ge 10L and not Active",
            "Name eq 'it''s eq x'",
        ] {
            assert!(unquoted_notes(fine).is_empty(), "{fine}");
        }
    }
}
