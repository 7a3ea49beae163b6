//! JSON text written straight into an answer's buffer, with exactly the bytes serde_json
//! writes (so answers stay byte for byte like the captures) but without a serializer per
//! value: a page of 1000 entities writes some 10,000 strings and numbers.

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

/// Appends `s` as a JSON string, quotes included.
pub(crate) fn write_str(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    write_str_body(out, s);
    out.push(b'"');
}

/// Appends the escaped characters of `s` without quotes.
pub(crate) fn write_str_body(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escape = ESCAPE[usize::from(b)];
        if escape == 0 {
            continue;
        }
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
    out.extend_from_slice(bytes.get(start..).unwrap_or_default());
}

/// `"name":"value"`.
pub(crate) fn write_member(out: &mut Vec<u8>, name: &str, value: &str) {
    write_str(out, name);
    out.push(b':');
    write_str(out, value);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn strings_match_serde_json(s in "\\PC{0,20}|[\\x00-\\x7f]{0,20}") {
            let mut out = Vec::new();
            write_str(&mut out, &s);
            prop_assert_eq!(String::from_utf8(out).unwrap(), serde_json::to_string(&s).unwrap());
        }
    }

    #[test]
    fn every_control_character_is_escaped() {
        let all: String = (0u8..0x80).map(char::from).collect();
        let mut out = Vec::new();
        write_str(&mut out, &all);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            serde_json::to_string(&all).unwrap()
        );
    }
}
