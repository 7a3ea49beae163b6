//! Values larger than one property, split across several: `Name`, `Name__1`, `Name__2`, ...
//!
//! A binary property holds at most 64 KiB. The C# library that accompanies "Jeffrey Richter's
//! Guide to Working with Azure Storage Tables via C# and other .NET Languages" splits larger
//! arrays across up to 16 properties, but reuses one buffer (values of 128 KiB and more come
//! back corrupted), leaves stale chunks behind when a value shrinks, and silently cuts what does
//! not fit. Here the first property starts with a small self-describing header, so the header
//! alone decides which chunks belong to the value:
//!
//! | bytes | field |
//! |---|---|
//! | 1 | format version, `1` |
//! | 2 | chunk count including the first property, `u16` little-endian |
//! | 4 | total value length in bytes, `u32` little-endian |
//! | 4 | CRC-32 (IEEE) of the whole value, `u32` little-endian |
//!
//! The rest of `Name` holds the first `65,536 - 11` bytes of the value; `Name__1` up to
//! `Name__{count-1}` hold 64 KiB each (the last one less). A value that fits stays in one
//! property, header included. At most `max_properties x 65,536 - 11` bytes fit; writing more is
//! [`SplitError::TooLarge`] before anything is sent.
//!
//! A value larger than one entity spreads over continuation rows of the same partition: see
//! [`spread`](crate::spread).
//!
//! Every function here answers a [`SplitError`]; it converts into the crate's
//! [`Error`](crate::Error) with `?`, as [`Error::Split`](crate::Error::Split) or, for an invalid
//! name, unreadable records or an unfetched property, as the error those are everywhere else.
//!
//! # Shrinking, Merge and stale chunks
//!
//! [`write_split`] removes the chunks a smaller value no longer uses from the local entity, so
//! a Replace (update or upsert-replace) deletes them on the service. A Merge leaves them on the
//! service, but they are never read: the header written by the same Merge says how many chunks
//! belong to the value, and the checksum catches any mix-up. To clean them later, read the
//! entity, call [`remove_stale_chunks`] and write it back with Replace.
//!
//! ```
//! use tablekit::{split, DynamicEntity};
//! let mut e = DynamicEntity::new("p", "r");
//! let big = vec![7u8; 200_000];
//! split::write_split(&mut e, "Blob", &big, 16)?;
//! assert_eq!(e.len(), 4); // Blob, Blob__1, Blob__2, Blob__3
//! assert_eq!(split::read_split(&e, "Blob")?, Some(big));
//!
//! // A later, smaller value: the local entity drops the unused chunks.
//! split::write_split(&mut e, "Blob", b"small", 16)?;
//! assert_eq!(e.len(), 1);
//! assert_eq!(split::read_split(&e, "Blob")?.as_deref(), Some(&b"small"[..]));
//! # Ok::<(), tablekit::split::SplitError>(())
//! ```

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::model::record::{decode_records, encode_records, Record, RecordError};
use crate::protocol::limits::{
    validate_property_name, InvalidInput, MAX_BINARY_BYTES, MAX_PROPERTIES, MAX_STRING_UNITS,
};
use crate::values::convert::ValueError;
use crate::values::entity::{DynamicEntity, PropertyError};
use crate::values::value::{utf16_len, EdmType, Value};

/// The header's format version.
const FORMAT_VERSION: u8 = 1;
/// The header's size in bytes.
///
/// The first property holds the header and the first `65,536 - HEADER_LEN` bytes of the
/// value; one byte more takes a second property.
///
/// ```
/// use tablekit::split::{self, HEADER_LEN};
/// use tablekit::DynamicEntity;
/// let mut e = DynamicEntity::new("p", "r");
/// split::write_split(&mut e, "Blob", &vec![1; 65_536 - HEADER_LEN], 16)?;
/// assert_eq!(e.len(), 1);
/// split::write_split(&mut e, "Blob", &vec![1; 65_536 - HEADER_LEN + 1], 16)?;
/// assert_eq!(e.len(), 2);
/// # Ok::<(), tablekit::split::SplitError>(())
/// ```
pub const HEADER_LEN: usize = 11;
/// Separates a split value's name from its chunk numbers: `Name__1`.
const CHUNK_SEPARATOR: &str = "__";

/// Why a split value cannot be written or read.
///
/// ```
/// use tablekit::split::{write_split, SplitError};
/// use tablekit::{DynamicEntity, Error};
/// let mut e = DynamicEntity::new("p", "r");
/// let err = write_split(&mut e, "Blob", &vec![0; 70_000], 1).unwrap_err();
/// assert!(matches!(err, SplitError::TooLarge { bytes: 70_000, max_bytes: 65_525, .. }));
/// assert!(e.is_empty()); // nothing written
/// assert!(matches!(Error::from(err), Error::Split(SplitError::TooLarge { .. })));
/// // an invalid name is invalid input, here as everywhere
/// let err = write_split(&mut e, "my blob", b"x", 1).unwrap_err();
/// assert!(matches!(err, SplitError::InvalidInput(_)));
/// assert!(Error::from(err).is_invalid_input());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SplitError {
    /// The value is larger than `max_properties` properties hold.
    #[error("property `{property}`: a value of {bytes} bytes does not fit in {max_properties} properties (at most {max_bytes} bytes)")]
    TooLarge {
        /// The value's property name.
        property: String,
        /// The value's size.
        bytes: usize,
        /// The most that fits.
        max_bytes: usize,
        /// The property budget given.
        max_properties: usize,
    },
    /// A property budget of 0 or above the service's 252 user properties.
    #[error("property `{property}`: max_properties is {max_properties}, expected 1 to 252")]
    MaxProperties {
        /// The value's property name.
        property: String,
        /// The budget given.
        max_properties: usize,
    },
    /// The first property is not `Edm.Binary`, so it holds no split value.
    #[error("property `{property}` is {found}, a split value is Edm.Binary")]
    NotBinary {
        /// The value's property name.
        property: String,
        /// What is stored.
        found: EdmType,
    },
    /// The header is malformed or of an unknown format version.
    #[error("property `{property}`: corrupt split header: {reason}")]
    Header {
        /// The value's property name.
        property: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A chunk the header counts is missing or not binary.
    #[error("property `{property}`: chunk `{chunk}` is missing or not Edm.Binary")]
    MissingChunk {
        /// The value's property name.
        property: String,
        /// The chunk's property name.
        chunk: String,
    },
    /// The chunks hold a different number of bytes than the header says.
    #[error("property `{property}`: the header says {expected} bytes, the chunks hold {found}")]
    Length {
        /// The value's property name.
        property: String,
        /// The length in the header.
        expected: usize,
        /// The length of the chunks.
        found: usize,
    },
    /// The joined bytes do not match the header's checksum.
    #[error(
        "property `{property}`: checksum mismatch (header {expected:#010x}, data {found:#010x})"
    )]
    Checksum {
        /// The value's property name.
        property: String,
        /// The CRC-32 in the header.
        expected: u32,
        /// The CRC-32 of the data.
        found: u32,
    },
    /// A value that needs more continuation rows than its field declares (see
    /// [`spread`](crate::spread)).
    #[error("property `{property}`: the value needs {rows} continuation rows, at most {max_rows} are declared")]
    TooManyRows {
        /// The value's property name.
        property: String,
        /// The continuation rows the value needs.
        rows: usize,
        /// The continuation rows declared.
        max_rows: usize,
    },
    /// A name the service refuses, or a value it cannot hold: converts into
    /// [`Error::InvalidInput`](crate::Error::InvalidInput).
    #[error(transparent)]
    InvalidInput(#[from] InvalidInput),
    /// The property cannot be read: the query did not fetch it, or its JSON does not parse as
    /// the type asked for. Converts into [`Error::Property`](crate::Error::Property).
    #[error(transparent)]
    Property(#[from] PropertyError),
    /// The records in the value cannot be read or written. Converts into
    /// [`Error::Record`](crate::Error::Record).
    #[error(transparent)]
    Record(#[from] RecordError),
}

/// The property name of chunk `index` of the split value `name` (`0` is `name` itself).
pub fn chunk_name(name: &str, index: usize) -> String {
    if index == 0 {
        name.to_owned()
    } else {
        format!("{name}{CHUNK_SEPARATOR}{index}")
    }
}

/// Every property name a split value named `name` may use with this budget: the names to
/// `$select` for it.
///
/// ```
/// assert_eq!(tablekit::split::chunk_names("Blob", 3), ["Blob", "Blob__1", "Blob__2"]);
/// ```
pub fn chunk_names(name: &str, max_properties: usize) -> Vec<String> {
    (0..max_properties.max(1))
        .map(|index| chunk_name(name, index))
        .collect()
}

/// The chunk index when `property` is a chunk (`Name__N`, N >= 1) of the split value `name`.
pub(crate) fn chunk_index(name: &str, property: &str) -> Option<usize> {
    let digits = property.strip_prefix(name)?.strip_prefix(CHUNK_SEPARATOR)?;
    // Only the canonical spelling `chunk_name` produces: digits, no leading zero.
    if digits.is_empty() || digits.starts_with('0') || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The most bytes `max_properties` properties hold, header included.
pub fn max_bytes(max_properties: usize) -> usize {
    max_properties
        .saturating_mul(MAX_BINARY_BYTES)
        .saturating_sub(HEADER_LEN)
}

/// How many properties a value of `len` bytes takes.
fn chunk_count(len: usize) -> usize {
    let first = MAX_BINARY_BYTES - HEADER_LEN;
    1 + len.saturating_sub(first).div_ceil(MAX_BINARY_BYTES)
}

/// Checks the budget, the property names and the size before anything is changed.
fn check_write(name: &str, len: usize, max_properties: usize) -> Result<usize, SplitError> {
    if max_properties == 0 || max_properties > MAX_PROPERTIES {
        return Err(SplitError::MaxProperties {
            property: name.to_owned(),
            max_properties,
        });
    }
    validate_property_name(name)?;
    // The longest chunk name must be valid too (255 characters at most).
    validate_property_name(&chunk_name(name, max_properties - 1))?;
    let max = max_bytes(max_properties);
    if len > max {
        return Err(SplitError::TooLarge {
            property: name.to_owned(),
            bytes: len,
            max_bytes: max,
            max_properties,
        });
    }
    Ok(chunk_count(len))
}

/// Stores `bytes` in property `name` and as many chunk properties as needed (at most
/// `max_properties` in all), and removes chunks of an earlier, larger value from `entity`.
///
/// A value larger than [`max_bytes`]`(max_properties)` is [`SplitError::TooLarge`]; invalid
/// names are [`InvalidInput`]. On error the entity is unchanged.
///
/// ```
/// use tablekit::{split, DynamicEntity, Value};
/// let mut e = DynamicEntity::new("p", "r");
/// split::write_split(&mut e, "Levels", &[1, 2, 3], 4)?;
/// // One property: the 11-byte header, then the value.
/// let Some(Value::Binary(stored)) = e.value("Levels") else { panic!() };
/// assert_eq!(stored.len(), 11 + 3);
/// # Ok::<(), tablekit::split::SplitError>(())
/// ```
pub fn write_split(
    entity: &mut DynamicEntity,
    name: &str,
    bytes: &[u8],
    max_properties: usize,
) -> Result<(), SplitError> {
    let count = check_write(name, bytes.len(), max_properties)?;
    let first_len = bytes.len().min(MAX_BINARY_BYTES - HEADER_LEN);
    let (first, rest) = bytes.split_at(first_len);
    let mut header = [0u8; HEADER_LEN];
    header[0] = FORMAT_VERSION;
    // check_write bounds count by 252 and the length by 252 x 64 KiB: both fit.
    header[1..3].copy_from_slice(&(count as u16).to_le_bytes());
    header[3..7].copy_from_slice(&(bytes.len() as u32).to_le_bytes());
    header[7..].copy_from_slice(&crc32fast::hash(bytes).to_le_bytes());
    store_binary(entity, name, &[&header, first]);
    for (index, chunk) in rest.chunks(MAX_BINARY_BYTES).enumerate() {
        store_binary(entity, &chunk_name(name, index + 1), &[chunk]);
    }
    entity.retain(|property, _| chunk_index(name, property).is_none_or(|i| i < count));
    Ok(())
}

/// Stores `parts`, joined, as the binary property `property`. A binary value already there
/// (a split value being rewritten) lends its buffer, so a rewrite copies but allocates nothing.
fn store_binary(entity: &mut DynamicEntity, property: &str, parts: &[&[u8]]) {
    let len = parts.iter().map(|part| part.len()).sum();
    if let Some(Value::Binary(buffer)) = entity.value_mut(property) {
        buffer.clear();
        buffer.reserve_exact(len);
        parts.iter().for_each(|part| buffer.extend_from_slice(part));
        return;
    }
    // Each chunk is its own allocation: nothing is shared between properties.
    let mut buffer = Vec::with_capacity(len);
    parts.iter().for_each(|part| buffer.extend_from_slice(part));
    entity.set(property, Value::Binary(buffer));
}

/// The parsed header of a split value.
struct Header {
    count: usize,
    len: usize,
    checksum: u32,
}

/// Reads the header at the start of the first property.
fn parse_header(name: &str, head: &[u8]) -> Result<Header, SplitError> {
    let corrupt = |reason: String| SplitError::Header {
        property: name.to_owned(),
        reason,
    };
    let Some((fixed, _)) = head.split_first_chunk::<HEADER_LEN>() else {
        return Err(corrupt(format!(
            "{} bytes, a header is {HEADER_LEN}",
            head.len()
        )));
    };
    let [version, c0, c1, l0, l1, l2, l3, s0, s1, s2, s3] = *fixed;
    if version != FORMAT_VERSION {
        return Err(corrupt(format!("unknown format version {version}")));
    }
    let count = usize::from(u16::from_le_bytes([c0, c1]));
    if count == 0 || count > MAX_PROPERTIES {
        return Err(corrupt(format!("chunk count {count} is not 1 to 252")));
    }
    Ok(Header {
        count,
        len: u32::from_le_bytes([l0, l1, l2, l3]) as usize,
        checksum: u32::from_le_bytes([s0, s1, s2, s3]),
    })
}

/// The binary value of `property`, or `None` when absent or of another type.
fn binary<'e>(entity: &'e DynamicEntity, property: &str) -> Option<&'e [u8]> {
    match entity.value(property) {
        Some(Value::Binary(bytes)) => Some(bytes),
        _ => None,
    }
}

/// Reads what [`write_split`] stored: `Ok(None)` when `name` is absent.
///
/// Only the chunks the header counts are read, so chunks left by a larger value written
/// earlier never are; missing chunks, a wrong length and a checksum mismatch are each a
/// [`SplitError`].
///
/// ```
/// use tablekit::{split, DynamicEntity};
/// let mut e = DynamicEntity::new("p", "r");
/// assert_eq!(split::read_split(&e, "Blob")?, None);
/// split::write_split(&mut e, "Blob", &[], 1)?;
/// assert_eq!(split::read_split(&e, "Blob")?, Some(vec![]));
/// # Ok::<(), tablekit::split::SplitError>(())
/// ```
pub fn read_split(entity: &DynamicEntity, name: &str) -> Result<Option<Vec<u8>>, SplitError> {
    let head = match entity.value(name) {
        None => return Ok(entity.check_fetched(name).map(|()| None)?),
        Some(Value::Binary(bytes)) => bytes.as_slice(),
        Some(other) => {
            return Err(SplitError::NotBinary {
                property: name.to_owned(),
                found: other.edm_type(),
            })
        }
    };
    let header = parse_header(name, head)?;
    let mut parts = Vec::with_capacity(header.count);
    parts.push(head.get(HEADER_LEN..).unwrap_or_default());
    for index in 1..header.count {
        let chunk = chunk_name(name, index);
        let part = binary(entity, &chunk).ok_or_else(|| SplitError::MissingChunk {
            property: name.to_owned(),
            chunk,
        })?;
        parts.push(part);
    }
    let found: usize = parts.iter().map(|p| p.len()).sum();
    if found != header.len {
        return Err(SplitError::Length {
            property: name.to_owned(),
            expected: header.len,
            found,
        });
    }
    let value = parts.concat();
    let checksum = crc32fast::hash(&value);
    if checksum != header.checksum {
        return Err(SplitError::Checksum {
            property: name.to_owned(),
            expected: header.checksum,
            found: checksum,
        });
    }
    Ok(Some(value))
}

/// Removes `name` and all its chunk properties (whatever budget wrote them).
pub fn remove_split(entity: &mut DynamicEntity, name: &str) {
    entity.retain(|property, _| property != name && chunk_index(name, property).is_none());
}

/// The chunk properties of `name` present in `entity` that its header does not count: what a
/// Merge of a smaller value leaves behind. All chunks are stale when `name` is absent or not a
/// split value.
///
/// ```
/// use tablekit::{split, DynamicEntity};
/// let mut stored = DynamicEntity::new("p", "r");
/// split::write_split(&mut stored, "Blob", &vec![1; 100_000], 4)?;
/// // What the service holds after a Merge of a one-property value:
/// let mut small = DynamicEntity::new("p", "r");
/// split::write_split(&mut small, "Blob", b"tiny", 4)?;
/// stored.set("Blob", small.value("Blob").cloned());
/// assert_eq!(split::stale_chunks(&stored, "Blob"), ["Blob__1"]);
/// assert_eq!(split::read_split(&stored, "Blob")?.as_deref(), Some(&b"tiny"[..]));
/// # Ok::<(), tablekit::split::SplitError>(())
/// ```
pub fn stale_chunks(entity: &DynamicEntity, name: &str) -> Vec<String> {
    let used = used_chunks(entity, name);
    entity
        .properties()
        .filter(|(property, _)| chunk_index(name, property).is_some_and(|i| i >= used))
        .map(|(property, _)| property.to_owned())
        .collect()
}

/// How many properties the header of `name` counts (0 when there is no valid header).
pub(crate) fn used_chunks(entity: &DynamicEntity, name: &str) -> usize {
    binary(entity, name)
        .and_then(|head| parse_header(name, head).ok())
        .map_or(0, |header| header.count)
}

/// Removes the [`stale_chunks`] of `name` from `entity` and returns how many there were.
/// Write the entity back with Replace (not Merge) to delete them on the service.
///
/// ```
/// use tablekit::{split, DynamicEntity};
/// let mut e = DynamicEntity::new("p", "r");
/// split::write_split(&mut e, "Blob", b"tiny", 4)?;
/// e.set("Blob__1", vec![0u8; 10]); // left over by an earlier, larger value
/// assert_eq!(split::remove_stale_chunks(&mut e, "Blob"), 1);
/// assert_eq!(e.len(), 1);
/// # Ok::<(), tablekit::split::SplitError>(())
/// ```
pub fn remove_stale_chunks(entity: &mut DynamicEntity, name: &str) -> usize {
    let used = used_chunks(entity, name);
    let before = entity.len();
    entity.retain(|property, _| chunk_index(name, property).is_none_or(|i| i < used));
    before - entity.len()
}

/// Stores records as by [`encode_records`], split as by [`write_split`]: what
/// `#[tablekit(records(max_properties = N))]` fields do, and the guide's `SetCompletedLevels`.
/// Too many records for the budget is [`SplitError::TooLarge`]: none is ever dropped.
///
/// ```
/// # use tablekit::record::{RecordReader, RecordWriter};
/// # use tablekit::{Record, RecordError};
/// # #[derive(Debug, PartialEq)] struct Id(u32);
/// # impl Record for Id {
/// #     const VERSION: u16 = 0;
/// #     fn write(&self, w: &mut RecordWriter) { w.write_u32(self.0); }
/// #     fn read(r: &mut RecordReader<'_>, _: u16) -> Result<Self, RecordError> { Ok(Id(r.read_u32()?)) }
/// # }
/// use tablekit::{split, DynamicEntity};
/// let mut e = DynamicEntity::new("p", "r");
/// split::write_records(&mut e, "Ids", &[Id(1), Id(2)], 4)?;
/// assert_eq!(split::read_records::<Id>(&e, "Ids")?, [Id(1), Id(2)]);
/// assert!(split::write_records(&mut e, "Ids", &(0..20_000).map(Id).collect::<Vec<_>>(), 1).is_err());
/// # Ok::<(), tablekit::split::SplitError>(())
/// ```
pub fn write_records<R: Record>(
    entity: &mut DynamicEntity,
    name: &str,
    records: &[R],
    max_properties: usize,
) -> Result<(), SplitError> {
    write_split(entity, name, &encode_records(records)?, max_properties)
}

/// Reads what [`write_records`] stored; no property reads as no records.
pub fn read_records<R: Record>(entity: &DynamicEntity, name: &str) -> Result<Vec<R>, SplitError> {
    match read_split(entity, name)? {
        Some(bytes) => Ok(decode_records(&bytes)?),
        None => Ok(Vec::new()),
    }
}

/// Stores `value` as JSON: a string property when the text fits one (32,767 UTF-16 units),
/// otherwise its UTF-8 bytes split as by [`write_split`]. For complex values without a binary
/// format; the derive uses it for `#[tablekit(json)]` fields.
///
/// ```
/// use tablekit::{split, DynamicEntity};
/// let mut e = DynamicEntity::new("p", "r");
/// split::write_json(&mut e, "Tags", &vec!["a", "b"], 4)?;
/// assert_eq!(e.get::<String>("Tags").as_deref(), Some(r#"["a","b"]"#));
/// assert_eq!(split::read_json::<Vec<String>>(&e, "Tags")?, Some(vec!["a".into(), "b".into()]));
/// # Ok::<(), tablekit::split::SplitError>(())
/// ```
pub fn write_json<T: Serialize + ?Sized>(
    entity: &mut DynamicEntity,
    name: &str,
    value: &T,
    max_properties: usize,
) -> Result<(), SplitError> {
    let text = serde_json::to_string(value).map_err(|e| {
        InvalidInput::Other(format!("property `{name}` cannot be written as JSON: {e}"))
    })?;
    if utf16_len(&text) <= MAX_STRING_UNITS {
        check_write(name, 0, max_properties)?;
        remove_split(entity, name);
        entity.set(name, Value::String(text.into()));
        Ok(())
    } else {
        write_split(entity, name, text.as_bytes(), max_properties)
    }
}

/// Reads what [`write_json`] stored: `Ok(None)` when `name` is absent.
pub fn read_json<T: DeserializeOwned>(
    entity: &DynamicEntity,
    name: &str,
) -> Result<Option<T>, SplitError> {
    let parsed = match entity.value(name) {
        None => return Ok(entity.check_fetched(name).map(|()| None)?),
        Some(Value::String(text)) => serde_json::from_str(text),
        Some(_) => match read_split(entity, name)? {
            Some(bytes) => serde_json::from_slice(&bytes),
            None => return Ok(None),
        },
    };
    parsed.map(Some).map_err(|e| {
        let reason = ValueError::Invalid(format!("invalid JSON: {e}"));
        PropertyError::new(name, reason).into()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunk_index_accepts_only_canonical_names() {
        assert_eq!(chunk_index("Blob", "Blob__1"), Some(1));
        assert_eq!(chunk_index("Blob", "Blob__251"), Some(251));
        assert_eq!(chunk_index("Blob", "Blob"), None);
        assert_eq!(chunk_index("Blob", "Blob__01"), None);
        assert_eq!(chunk_index("Blob", "Blob__+1"), None);
        assert_eq!(chunk_index("Blob", "Blob__"), None);
        assert_eq!(chunk_index("Blob", "Blob_1"), None);
        assert_eq!(chunk_index("Blob", "Blobby__1"), None);
    }

    #[test]
    fn chunk_counts_at_the_boundaries() {
        let first = MAX_BINARY_BYTES - HEADER_LEN;
        assert_eq!(chunk_count(0), 1);
        assert_eq!(chunk_count(first), 1);
        assert_eq!(chunk_count(first + 1), 2);
        assert_eq!(chunk_count(first + MAX_BINARY_BYTES), 2);
        assert_eq!(chunk_count(first + MAX_BINARY_BYTES + 1), 3);
        assert_eq!(chunk_count(max_bytes(16)), 16);
    }
}
