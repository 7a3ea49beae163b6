//! Unsigned LEB128 integers: the byte-length and count prefixes of the record format.
//!
//! A prefix is a byte length, never a character count (the `PropertySerializer` of the C#
//! library that accompanies "Jeffrey Richter's Guide to Working with Azure Storage Tables via
//! C# and other .NET Languages" mixed the two and corrupted multi-byte text), and a varint has
//! no sign bit to misread at 32,768.

/// Appends `value` as LEB128: 7 bits per byte, low bits first, high bit set on all but the last.
#[inline]
pub(crate) fn write(buf: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        buf.push((value as u8 & 0x7f) | 0x80);
        value >>= 7;
    }
    buf.push(value as u8);
}

/// Reads a LEB128 value from the start of `bytes`: the value and the bytes used, or `None` when
/// it is unterminated, longer than 10 bytes or above `u64::MAX`.
#[inline]
pub(crate) fn read(bytes: &[u8]) -> Option<(u64, usize)> {
    let mut value: u64 = 0;
    for (index, &byte) in bytes.iter().take(10).enumerate() {
        let bits = u64::from(byte & 0x7f);
        let shift = 7 * index as u32;
        // The tenth byte may only carry the single top bit of a u64.
        if index == 9 && bits > 1 {
            return None;
        }
        value |= bits << shift;
        if byte & 0x80 == 0 {
            return Some((value, index + 1));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_the_edges() {
        for value in [
            0,
            1,
            127,
            128,
            16_383,
            16_384,
            u64::from(u32::MAX),
            u64::MAX,
        ] {
            let mut buf = Vec::new();
            write(&mut buf, value);
            assert_eq!(read(&buf), Some((value, buf.len())));
        }
    }

    #[test]
    fn known_encodings() {
        let mut buf = Vec::new();
        write(&mut buf, 300);
        assert_eq!(buf, [0xac, 0x02]);
    }

    #[test]
    fn rejects_unterminated_and_overlong() {
        assert_eq!(read(&[0x80]), None);
        assert_eq!(read(&[]), None);
        assert_eq!(read(&[0xff; 10]), None);
        assert_eq!(
            read(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02]),
            None
        );
    }
}
