//! Versioned binary records: a collection of small structs stored in one byte-array property
//! (or, with [`split`](crate::split), in several).
//!
//! "Jeffrey Richter's Guide to Working with Azure Storage Tables via C# and other .NET
//! Languages" keeps a gamer's completed levels inside the gamer entity as bytes, because a
//! query then returns everything in one round trip. The serializer of its C# library read
//! records until the bytes ran out, never checked the version, and mixed character counts with
//! byte counts. Here the data says which version wrote it, every length is a byte length
//! checked before use, the record count is stored, and every malformed input ends in a typed
//! [`RecordError`].
//!
//! # Byte format
//!
//! | item | encoding |
//! |---|---|
//! | header | the record type's version, `u16` little-endian |
//! | count | number of records, a varint (LEB128: 7 bits a byte, low first) |
//! | records | each record's fields in declaration order, nothing between them |
//! | `u8`..`u64`, `i8`..`i64` | fixed width, little-endian, two's complement |
//! | `f32`, `f64` | IEEE 754 bits, little-endian |
//! | `bool` | one byte, `0` or `1` (anything else is an error) |
//! | `DateTime<Utc>` | .NET ticks (100 ns since 0001-01-01 UTC), `i64` little-endian |
//! | `Uuid` | 16 bytes, RFC 4122 order |
//! | `String`, `Vec<u8>` | the byte length (varint, never a character count), then the bytes |
//! | `Option<T>` | a tag byte `0` (absent) or `1`, then `T` |
//! | nested record | its own version (`u16`), then its fields |
//! | `Vec<T>` of records | the version once, the count (varint), then the records |
//! | `Vec<T>` of other values | the count (varint), then the values |
//!
//! Worked example: one version-1 `CompletedLevel { level: 1, completed: 1970-01-01, stars: 3 }`
//! encodes to 16 bytes:
//!
//! ```text
//! 01 00                      version 1
//! 01                         1 record
//! 01 00 00 00                level: i32 = 1
//! 00 80 b5 f7 f5 7f 9f 08    completed: 621,355,968,000,000,000 ticks
//! 03                         stars: u8 = 3 (added in version 1)
//! ```
//!
//! # Deriving
//!
//! `#[derive(Record)]` writes the fields in declaration order through [`RecordField`]; a
//! field type without that impl but convertible to a table value (a `#[derive(TableValue)]`
//! enum, say) is stored as a tagged [`Value`](crate::Value) instead.
//!
//! ```
//! use chrono::{DateTime, Utc};
//! use tablekit::record::{decode_records, encode_records};
//! use tablekit::Record;
//!
//! #[derive(Debug, PartialEq, Record)]
//! #[record(version = 2)]
//! struct CompletedLevel {
//!     level: i32,
//!     completed: DateTime<Utc>,
//!     #[record(since = 1)]               // absent before version 1: reads as 0
//!     stars: u8,
//!     #[record(since = 2, default = String::from("-"))]
//!     note: String,
//!     #[record(until = 2)]               // written by versions 0 and 1 only
//!     legacy_rank: u16,
//! }
//!
//! let level = CompletedLevel {
//!     level: 1, completed: DateTime::UNIX_EPOCH, stars: 3, note: "gg".into(), legacy_rank: 0,
//! };
//! let back: Vec<CompletedLevel> = decode_records(&encode_records(&[level])?)?;
//! assert_eq!(back[0].note, "gg");
//! # Ok::<(), tablekit::RecordError>(())
//! ```
//!
//! The derive checks at compile time that `since` and `until` are at most `version` and that
//! `until` is greater than `since`. A removed (`until`) field stays in the struct so data from
//! older versions can still be read into it; the current version no longer writes it.
//!
//! # Versioning
//!
//! [`Record::VERSION`] is the version the current code writes; [`Record::read`] receives the
//! version found in the data and reads the fields that version wrote. Data from a newer version
//! than the code knows is refused with [`RecordError::UnknownVersion`] rather than misread.
//! `#[derive(Record)]` does this from `#[record(version = N)]` and per-field
//! `#[record(since = K)]` (such a field reads as its `Default` from older data). Written by
//! hand, in the guide's style:
//!
//! ```
//! use chrono::{DateTime, Utc};
//! use tablekit::record::{decode_records, encode_records, RecordReader, RecordWriter};
//! use tablekit::{Record, RecordError};
//!
//! #[derive(Debug, PartialEq)]
//! struct CompletedLevel { level: i32, completed: DateTime<Utc>, stars: u8 }
//!
//! impl Record for CompletedLevel {
//!     const VERSION: u16 = 1;
//!     fn write(&self, w: &mut RecordWriter) {
//!         w.write_i32(self.level).write_datetime(&self.completed).write_u8(self.stars);
//!     }
//!     fn read(r: &mut RecordReader<'_>, version: u16) -> Result<Self, RecordError> {
//!         Ok(CompletedLevel {
//!             level: r.read_i32()?,
//!             completed: r.read_datetime()?,
//!             // Version 0 had no stars.
//!             stars: if version >= 1 { r.read_u8()? } else { 0 },
//!         })
//!     }
//! }
//!
//! let level = CompletedLevel { level: 1, completed: DateTime::UNIX_EPOCH, stars: 3 };
//! let bytes = encode_records(&[level])?;
//! assert_eq!(bytes, [1, 0, 1, 1, 0, 0, 0, 0, 0x80, 0xb5, 0xf7, 0xf5, 0x7f, 0x9f, 0x08, 3]);
//!
//! // Bytes a version-0 writer produced read with version-1 code: stars default to 0.
//! let v0 = [0, 0, 1, 1, 0, 0, 0, 0, 0x80, 0xb5, 0xf7, 0xf5, 0x7f, 0x9f, 0x08];
//! let levels: Vec<CompletedLevel> = decode_records(&v0)?;
//! assert_eq!(levels[0].stars, 0);
//! # Ok::<(), RecordError>(())
//! ```

//!
//! # Rolling deploys: newer data, older code
//!
//! While a new version of a service rolls out, old and new code run side by side, and the old
//! code meets records the new code wrote with a version it does not know. Reading them is safe:
//! the plain getter of a `records` field answers its default (`[]`), and its `try_` getter says
//! why ([`RecordError::UnknownVersion`]). Writing them back is where data would be lost: a
//! read-modify-write (`items()`, push, `set_items`, merge) would replace the newer records with
//! the old code's idea of them. So a typed setter that replaces a stored value its code could
//! not read notes it, and every write of that entity (insert, merge, replace, upserts,
//! transactions) is refused before sending with
//! [`InvalidInput::UnreadableOverwrite`](crate::InvalidInput::UnreadableOverwrite), naming the
//! property and why it was unreadable. The same holds for any field, not only records: a value
//! of a changed type, a JSON text that no longer parses.
//!
//! A safe rolling deploy then goes:
//! 1. Ship the code that reads the new version first (`#[record(version = 2)]` with the new
//!    field `#[record(since = 2)]`), but keep writing version 1 until every instance runs it.
//!    Readers of version 1 data get the new field's default.
//! 2. Then write version 2. An instance still on the old code refuses to overwrite what it
//!    cannot read rather than wiping it: retry that request later, or route it to new code.
//! 3. Where discarding unreadable data is really meant (a reset, a migration that rebuilds the
//!    value), say so: `entity.allow_overwrite(Order::ITEMS)` on the generated wrapper (or
//!    [`DynamicEntity::allow_overwrite`](crate::DynamicEntity::allow_overwrite) by name).
//!
//! ```
//! use tablekit::prelude::*;
//! use tablekit::InvalidInput;
//!
//! #[derive(Debug, Clone, PartialEq, Record)]
//! #[record(version = 1)]
//! pub struct LineItem { pub sku: String, pub quantity: u32 }
//!
//! #[derive(TableEntity)]
//! pub struct Order {
//!     #[tablekit(partition_key)] pub customer: String,
//!     #[tablekit(row_key)] pub id: String,
//!     #[tablekit(records(max_properties = 4))] pub items: Vec<LineItem>,
//! }
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let emulator = tablekit_testing::Emulator::start().await?;
//! # let client = emulator.client();
//! let orders = client.table_named::<Order>("Orders");
//! # orders.create().await?;
//! # // Items written by newer code: version 2 of the record.
//! # #[derive(Record)]
//! # #[record(version = 2)]
//! # pub struct LineItemV2 { pub sku: String, pub quantity: u32, #[record(since = 2)] pub gift: bool }
//! # let mut newer = DynamicEntity::new("alice", "o-1");
//! # let gift = LineItemV2 { sku: "tea".into(), quantity: 2, gift: true };
//! # tablekit::split::write_records(&mut newer, "Items", &[gift], 4)?;
//! # client.table_named::<DynamicEntity>("Orders").insert(&mut newer).await?;
//! // This code knows version 1; the stored items were written by version 2.
//! let mut order = orders.get("alice", "o-1").await?.expect("stored");
//! assert!(order.items().is_empty()); // the default...
//! let why = order.try_items().unwrap_err(); // ...and why
//! assert!(matches!(why, Error::Record(tablekit::RecordError::UnknownVersion { .. })));
//! let mut items = order.items();
//! items.push(LineItem { sku: "cup".into(), quantity: 1 });
//! order.set_items(&items)?;
//! let err = orders.merge(&mut order).await.unwrap_err(); // refused: nothing sent
//! assert!(matches!(err, Error::InvalidInput(InvalidInput::UnreadableOverwrite { .. })));
//! order.allow_overwrite(Order::ITEMS); // only where discarding them is meant
//! orders.merge(&mut order).await?;
//! # Ok(()) }
//! ```

pub(crate) mod dispatch;
mod error;
mod field;
mod reader;
mod varint;
mod writer;

pub use error::RecordError;
pub use field::RecordField;
pub use reader::RecordReader;
pub use writer::RecordWriter;

/// A record with a format version, stored in a byte array.
///
/// Derive it with `#[derive(Record)]`, or write it by hand for full control; see the
/// [module documentation](self) for the format and a hand-written example.
///
/// ```
/// use tablekit::record::{RecordReader, RecordWriter};
/// use tablekit::{Record, RecordError};
///
/// struct Tag(String);
/// impl Record for Tag {
///     const VERSION: u16 = 0;
///     fn write(&self, w: &mut RecordWriter) { w.write_str(&self.0); }
///     fn read(r: &mut RecordReader<'_>, _version: u16) -> Result<Self, RecordError> {
///         Ok(Tag(r.read_string()?))
///     }
/// }
/// let bytes = tablekit::record::encode_records(&[Tag("é".into())])?;
/// assert_eq!(bytes, [0, 0, 1, 2, 0xc3, 0xa9]);
/// # Ok::<(), RecordError>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a record",
    note = "add `#[derive(Record)]` with `#[record(version = N)]`, or implement `tablekit::Record` by hand"
)]
pub trait Record: Sized {
    /// The version this code writes. Reading data with a higher version is an error.
    const VERSION: u16;

    /// Writes the fields of [`Self::VERSION`]. Each record must write at least one byte (the
    /// reader bounds record counts by the bytes left).
    ///
    /// ```
    /// use tablekit::record::RecordWriter;
    /// use tablekit::Record;
    /// # #[derive(Record)]
    /// # #[record(version = 1)]
    /// # struct Score {
    /// #     level: u16,
    /// #     #[record(since = 1)]
    /// #     stars: u8,
    /// # }
    /// let mut w = RecordWriter::new();
    /// Score { level: 300, stars: 3 }.write(&mut w);
    /// // `level` (a little-endian `u16`), then `stars`; no version header
    /// assert_eq!(w.as_bytes(), [0x2c, 0x01, 3]);
    /// ```
    fn write(&self, writer: &mut RecordWriter);

    /// Reads the fields as written by `version`, which is at most [`Self::VERSION`].
    ///
    /// ```
    /// use tablekit::record::RecordReader;
    /// use tablekit::{Record, RecordError};
    /// # #[derive(Debug, PartialEq, Record)]
    /// # #[record(version = 1)]
    /// # struct Score {
    /// #     level: u16,
    /// #     #[record(since = 1)]
    /// #     stars: u8,
    /// # }
    /// let now = Score::read(&mut RecordReader::new(&[0x2c, 0x01, 3]), 1)?;
    /// assert_eq!(now, Score { level: 300, stars: 3 });
    /// // Version 0 had no `stars`: the field reads as its default.
    /// let old = Score::read(&mut RecordReader::new(&[0x2c, 0x01]), 0)?;
    /// assert_eq!(old, Score { level: 300, stars: 0 });
    /// # Ok::<(), RecordError>(())
    /// ```
    fn read(reader: &mut RecordReader<'_>, version: u16) -> Result<Self, RecordError>;
}

/// Encodes records: the 2-byte version header, the record count, then the records.
///
/// A record that writes no bytes is [`RecordError::EmptyValue`]: its data could not be read
/// back, since a reader bounds the count by the bytes left.
///
/// ```
/// # use tablekit::record::{RecordReader, RecordWriter};
/// # use tablekit::{Record, RecordError};
/// # struct Id(u32);
/// # impl Record for Id {
/// #     const VERSION: u16 = 2;
/// #     fn write(&self, w: &mut RecordWriter) { w.write_u32(self.0); }
/// #     fn read(r: &mut RecordReader<'_>, _: u16) -> Result<Self, RecordError> { Ok(Id(r.read_u32()?)) }
/// # }
/// let bytes = tablekit::record::encode_records(&[Id(1)])?;
/// assert_eq!(bytes, [2, 0, 1, 1, 0, 0, 0]);
/// # Ok::<(), RecordError>(())
/// ```
pub fn encode_records<R: Record>(records: &[R]) -> Result<Vec<u8>, RecordError> {
    // A guess of 8 bytes a record saves most of the buffer's regrowth copies.
    let mut writer = RecordWriter::with_capacity(records.len().saturating_mul(8) + 16);
    writer.write_records(records);
    writer.finish()
}

/// Decodes what [`encode_records`] wrote. Unknown versions, truncation, lengths past the end,
/// invalid values and trailing bytes are each a [`RecordError`].
///
/// ```
/// # use tablekit::record::{RecordReader, RecordWriter};
/// # use tablekit::{Record, RecordError};
/// # #[derive(Debug, PartialEq)] struct Id(u32);
/// # impl Record for Id {
/// #     const VERSION: u16 = 2;
/// #     fn write(&self, w: &mut RecordWriter) { w.write_u32(self.0); }
/// #     fn read(r: &mut RecordReader<'_>, _: u16) -> Result<Self, RecordError> { Ok(Id(r.read_u32()?)) }
/// # }
/// use tablekit::record::decode_records;
/// assert_eq!(decode_records::<Id>(&[2, 0, 1, 1, 0, 0, 0])?, [Id(1)]);
/// assert!(matches!(decode_records::<Id>(&[2, 0, 1, 1, 0]), Err(RecordError::Truncated { .. })));
/// assert!(matches!(decode_records::<Id>(&[2, 0, 0, 9]), Err(RecordError::TrailingBytes { .. })));
/// # Ok::<(), RecordError>(())
/// ```
pub fn decode_records<R: Record>(bytes: &[u8]) -> Result<Vec<R>, RecordError> {
    let mut reader = RecordReader::new(bytes);
    let records = reader.read_records()?;
    reader.finish()?;
    Ok(records)
}
