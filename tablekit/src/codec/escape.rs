//! JSON strings written with exactly serde_json's bytes (so bodies stay byte for byte like
//! the service's), but faster for the strings entities are made of: names, keys and most
//! values need no escape at all, and that is found out eight bytes at a time.

use super::json::string_special;

/// What a byte needing an escape becomes inside a JSON string: the letter after the
/// backslash (`u` for `\u00XX`). serde_json's table: control characters, `"` and `\`.
const ESCAPE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = b'u';
        b += 1;
    }
    table[0x08] = b'b';
    table[0x09] = b't';
    table[0x0A] = b'n';
    table[0x0C] = b'f';
    table[0x0D] = b'r';
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table
};

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Appends `s` as a JSON string, quotes included, escaped exactly as serde_json escapes it.
///
/// ```
/// let mut out = Vec::new();
/// tablekit::codec::write_json_str(&mut out, "say \"hi\"\n");
/// assert_eq!(out, br#""say \"hi\"\n""#);
/// ```
pub fn write_json_str(out: &mut Vec<u8>, s: &str) {
    out.reserve(s.len() + 2);
    out.push(b'"');
    write_json_str_body(out, s);
    out.push(b'"');
}

/// Appends the escaped characters of `s` without quotes (to build a string from pieces).
///
/// ```
/// use tablekit::codec::write_json_str_body;
/// let mut out = b"\"".to_vec();
/// write_json_str_body(&mut out, "a\tb");
/// write_json_str_body(&mut out, "/c");
/// out.push(b'"');
/// assert_eq!(out, br#""a\tb/c""#);
/// ```
pub fn write_json_str_body(out: &mut Vec<u8>, s: &str) {
    let mut rest = s.as_bytes();
    // The reader's search for a string's end finds exactly the bytes that need an escape.
    while let Some(at) = string_special(rest) {
        let (plain, tail) = rest.split_at(at);
        out.extend_from_slice(plain);
        let Some((&b, after)) = tail.split_first() else {
            break; // Not reached: `at` is inside `rest`.
        };
        let escape = ESCAPE[usize::from(b)];
        out.push(b'\\');
        out.push(escape);
        if escape == b'u' {
            out.extend_from_slice(b"00");
            out.push(HEX[usize::from(b >> 4)]);
            out.push(HEX[usize::from(b & 0xF)]);
        }
        rest = after;
    }
    out.extend_from_slice(rest);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn strings_match_serde_json(s in "\\PC{0,40}|[\\x00-\\x7f]{0,40}") {
            let mut out = Vec::new();
            write_json_str(&mut out, &s);
            prop_assert_eq!(String::from_utf8(out).unwrap(), serde_json::to_string(&s).unwrap());
        }
    }

    #[test]
    fn an_escape_is_found_at_every_position_of_a_word() {
        for special in ['"', '\\', '\n', '\u{1F}', '\u{0}'] {
            for at in 0..24 {
                let mut s = "é".repeat(3) + &"a".repeat(24);
                s.insert(at + 6, special);
                let mut out = Vec::new();
                write_json_str(&mut out, &s);
                assert_eq!(out, serde_json::to_vec(&s).unwrap(), "{s:?}");
            }
        }
    }

    #[test]
    fn every_control_character_is_escaped() {
        let all: String = (0u8..0x80).map(char::from).collect();
        let mut out = Vec::new();
        write_json_str(&mut out, &all);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            serde_json::to_string(&all).unwrap()
        );
    }
}
