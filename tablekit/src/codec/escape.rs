//! JSON strings written with exactly serde_json's bytes (so bodies stay byte for byte like
//! the service's), but faster for the strings entities are made of: names, keys and most
//! values need no escape at all, and that is found out eight bytes at a time.

/// What a byte becomes inside a JSON string: 0 for itself, else the letter after the
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
/// let mut out = b"\"a".to_vec();
/// tablekit::codec::write_json_str_body(&mut out, "\tb");
/// out.push(b'"');
/// assert_eq!(out, br#""a\tb""#);
/// ```
pub fn write_json_str_body(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    let mut start = 0;
    let mut i = plain_prefix(bytes);
    while let Some(&b) = bytes.get(i) {
        let escape = ESCAPE[usize::from(b)];
        if escape != 0 {
            out.extend_from_slice(bytes.get(start..i).unwrap_or_default());
            out.push(b'\\');
            out.push(escape);
            if escape == b'u' {
                out.extend_from_slice(b"00");
                out.push(HEX[usize::from(b >> 4)]);
                out.push(HEX[usize::from(b & 0xF)]);
            }
            start = i + 1;
        }
        i += 1;
    }
    out.extend_from_slice(bytes.get(start..).unwrap_or_default());
}

/// How many leading bytes of `bytes` need no escape: all of them, or a multiple of eight
/// at or before the first that does.
fn plain_prefix(bytes: &[u8]) -> usize {
    let Some(last) = bytes.last_chunk::<8>() else {
        // Fewer than eight bytes: a plain search is as quick.
        let needs_escape = |&b: &u8| ESCAPE[usize::from(b)] != 0;
        return bytes.iter().position(needs_escape).unwrap_or(bytes.len());
    };
    let mut chunks = bytes.chunks_exact(8);
    let mut done = 0;
    for chunk in &mut chunks {
        if !is_plain(chunk.try_into().unwrap_or([0; 8])) {
            return done;
        }
        done += 8;
    }
    // The last few bytes, as the last eight (the others among them are known to be plain).
    if chunks.remainder().is_empty() || is_plain(*last) {
        bytes.len()
    } else {
        done
    }
}

/// Whether none of eight bytes needs an escape, tested all at once.
fn is_plain(word: [u8; 8]) -> bool {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    // Whether some byte of `word` is zero (the classic bit trick; exact for "any").
    let has_zero = |word: u64| word.wrapping_sub(ONES) & !word & HIGHS != 0;
    let word = u64::from_ne_bytes(word);
    // A control character is a byte below 0x20: all of its bits above 0x1F are zero.
    let control = has_zero(word & u64::from_ne_bytes([0xE0; 8]));
    let quote = has_zero(word ^ u64::from_ne_bytes([b'"'; 8]));
    let backslash = has_zero(word ^ u64::from_ne_bytes([b'\\'; 8]));
    !(control || quote || backslash)
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
