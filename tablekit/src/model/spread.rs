//! Split values larger than one entity, spread over continuation rows of the same partition.
//!
//! One entity holds at most 1 MiB and 252 properties, so a [`split`] value stops there. A
//! field declared `#[tablekit(split(rows = n))]` or `records(rows = n)` goes further: the
//! main entity keeps the property `Name` (the split header and the first `65,536 - 11` bytes),
//! and the chunks after it go to up to `n` continuation rows of
//! [`CHUNKS_PER_ROW`] chunks each. In memory the value is the ordinary split layout (`Name`,
//! `Name__1`, ...), so reading and setting it work as for any split field; only where each
//! chunk is stored differs.
//!
//! [`Table`](crate::client::Table) writes the main entity and its continuation rows in one
//! entity group transaction, so they change together or not at all (which also bounds a value
//! by the transaction's 4 MiB body and 100 operations: a larger one is refused before anything
//! is sent). The split header in the main entity counts the chunks, and so the rows: a write
//! reads it, deletes the rows a smaller value no longer uses in the same transaction, and
//! makes that transaction conditional on the ETag read, so a concurrent writer cannot slip in
//! between. Every integrity rule of [`split`] applies: the header's count, length and CRC-32
//! decide what the value is, a row beyond its count is never read, and corruption is a
//! [`SplitError`].
//!
//! # Continuation keys
//!
//! Row `i` (from 1) of field `Name` of the entity with RowKey `rk` has the RowKey
//! `rk~Name~0i` ([`continuation_key`]). `~` sorts after every ASCII letter, digit and
//! punctuation, so every continuation row of `rk` lies in `[rk~, rk~~)`
//! ([`continuation_range`]), and one range query finds them. For it to find exactly them, the
//! main RowKeys of a model with such a field may not contain `~` ([`check_main_key`], checked
//! before anything is sent): were `rk~x` a main RowKey, it would lie in the range of `rk`.
//! Field names are ASCII identifiers here, so the suffix after `rk~` sorts below `~`.
//!
//! Continuation rows carry the String property [`AUXILIARY_PROPERTY`] (`TablekitRow`) and no
//! discriminator, so typed queries skip them, and a typed point read of their key is
//! [`Error::AuxiliaryRow`](crate::Error::AuxiliaryRow).
//!
//! # Cost
//!
//! A typed `get` of such a model is one query (the main row and its continuation rows). A
//! typed query reads its pages as usual, then one range query for each entity whose value
//! uses continuation rows. A write reads the main entity first (to learn how many rows the
//! stored value uses), then sends one transaction; an insert skips the read.
//!
//! ```
//! use tablekit::spread::{self, SpreadField};
//! use tablekit::{split, DynamicEntity};
//! const BLOB: SpreadField = SpreadField { property: "Blob", rows: 4 };
//! let mut e = DynamicEntity::new("p", "report");
//! let big = vec![7u8; 2_000_000];
//! split::write_split(&mut e, "Blob", &big, BLOB.max_properties())?;
//! let spread = spread::spread(&e, &[BLOB])?;
//! assert_eq!(spread.main.len(), 1); // the header and the first chunk
//! let keys: Vec<&str> = spread.rows.iter().map(|r| r.row_key()).collect();
//! assert_eq!(keys, ["report~Blob~01", "report~Blob~02", "report~Blob~03"]);
//!
//! // Read back: the rows join the main entity and the value reads as any split value.
//! let mut read = spread.main.clone();
//! spread::join(&mut read, spread.rows, &[BLOB]);
//! assert_eq!(split::read_split(&read, "Blob")?, Some(big));
//! # Ok::<(), tablekit::split::SplitError>(())
//! ```

use crate::model::split::{self, SplitError};
use crate::protocol::limits::{InvalidInput, MAX_BINARY_BYTES};
use crate::values::entity::DynamicEntity;
use crate::values::value::Value;

pub use crate::model::auxiliary::AUXILIARY_PROPERTY;

/// The character that starts a continuation row's suffix, refused in main RowKeys.
pub const KEY_MARK: char = '~';
/// How many 64 KiB chunks one continuation row holds: `tablekit_rules`'
/// [`SPREAD_CHUNKS_PER_ROW`](tablekit_rules::SPREAD_CHUNKS_PER_ROW), which the derive counts
/// with too (the reason for 11 is there).
pub const CHUNKS_PER_ROW: usize = tablekit_rules::SPREAD_CHUNKS_PER_ROW;
/// The most continuation rows a field may declare: `tablekit_rules`'
/// [`SPREAD_MAX_ROWS`](tablekit_rules::SPREAD_MAX_ROWS), the limit the derive checks.
pub const MAX_ROWS: usize = tablekit_rules::SPREAD_MAX_ROWS;
/// The value of [`AUXILIARY_PROPERTY`] on a continuation row.
pub const CONTINUATION: &str = "continuation";

/// A field whose split value may spread over continuation rows: its property name and how
/// many continuation rows it may use, from `#[tablekit(split(rows = n))]`.
///
/// ```
/// use tablekit::spread::SpreadField;
/// let blob = SpreadField { property: "Blob", rows: 3 };
/// assert_eq!(blob.max_properties(), 34);
/// assert_eq!(blob.max_bytes(), 34 * 65_536 - 11);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SpreadField {
    /// The stored property name of the value (its first chunk, in the main entity).
    pub property: &'static str,
    /// The most continuation rows the value may use.
    pub rows: usize,
}

impl SpreadField {
    /// How many chunks the value may have in all (the first one in the main entity).
    pub const fn max_properties(&self) -> usize {
        max_properties(self.rows)
    }

    /// The largest value that fits, in bytes.
    pub fn max_bytes(&self) -> usize {
        split::max_bytes(self.max_properties())
    }
}

/// How many chunks a value spread over `rows` continuation rows may have in all.
pub const fn max_properties(rows: usize) -> usize {
    1 + rows * CHUNKS_PER_ROW
}

/// The RowKey of continuation row `index` (from 1) of field `property` of the entity
/// `row_key`.
///
/// ```
/// assert_eq!(tablekit::spread::continuation_key("r-1", "Blob", 2), "r-1~Blob~02");
/// ```
pub fn continuation_key(row_key: &str, property: &str, index: usize) -> String {
    format!("{row_key}{KEY_MARK}{property}{KEY_MARK}{index:02}")
}

/// The RowKeys `[start, end)` every continuation row of the entity `row_key` lies in, and no
/// other row of a model whose main RowKeys pass [`check_main_key`].
///
/// ```
/// let (start, end) = tablekit::spread::continuation_range("r-1");
/// assert_eq!((start.as_str(), end.as_str()), ("r-1~", "r-1~~"));
/// assert!(start.as_str() <= "r-1~Blob~01" && "r-1~Blob~01" < end.as_str());
/// ```
pub fn continuation_range(row_key: &str) -> (String, String) {
    (
        format!("{row_key}{KEY_MARK}"),
        format!("{row_key}{KEY_MARK}{KEY_MARK}"),
    )
}

/// Refuses a main RowKey in the continuation key space: one holding [`KEY_MARK`].
///
/// ```
/// use tablekit::spread::check_main_key;
/// assert!(check_main_key("report-7").is_ok());
/// let err = check_main_key("report~7").unwrap_err();
/// assert!(err.to_string().contains("`~`"));
/// ```
pub fn check_main_key(row_key: &str) -> Result<(), InvalidInput> {
    if row_key.contains(KEY_MARK) {
        return Err(InvalidInput::Other(format!(
            "row key `{row_key}` holds `{KEY_MARK}`, which marks continuation rows of a value spread over rows"
        )));
    }
    Ok(())
}

/// How many continuation rows the value of `property` in `entity` uses, by its header: 0
/// when absent, not a split value, or within the main entity.
///
/// ```
/// use tablekit::{spread, split, DynamicEntity};
/// let mut e = DynamicEntity::new("p", "r");
/// assert_eq!(spread::rows_used(&e, "Blob"), 0);
/// split::write_split(&mut e, "Blob", &vec![0; 1_100_000], 31)?;
/// assert_eq!(spread::rows_used(&e, "Blob"), 2); // 17 chunks: 1 in the main entity, 16 after
/// # Ok::<(), tablekit::split::SplitError>(())
/// ```
pub fn rows_used(entity: &DynamicEntity, property: &str) -> usize {
    rows_for(split::used_chunks(entity, property))
}

/// How many continuation rows `chunks` chunks take.
fn rows_for(chunks: usize) -> usize {
    chunks.saturating_sub(1).div_ceil(CHUNKS_PER_ROW)
}

/// Whether any of `fields` in `entity` uses continuation rows, so a read must fetch them.
pub fn has_rows(entity: &DynamicEntity, fields: &[SpreadField]) -> bool {
    fields.iter().any(|f| rows_used(entity, f.property) > 0)
}

/// An entity divided for storage: the main entity and its continuation rows.
///
/// ```
/// use tablekit::spread::{self, SpreadField};
/// use tablekit::DynamicEntity;
/// let mut e = DynamicEntity::new("p", "r");
/// e.set("Title", "small");
/// let spread = spread::spread(&e, &[SpreadField { property: "Blob", rows: 2 }])?;
/// assert_eq!(spread.main, e); // no spread value: nothing moves
/// assert!(spread.rows.is_empty());
/// # Ok::<(), tablekit::split::SplitError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Spread {
    /// The entity without the chunks that moved to continuation rows.
    pub main: DynamicEntity,
    /// The continuation rows, in field then row order.
    pub rows: Vec<DynamicEntity>,
}

/// Divides `entity` (a split value of each field in the ordinary layout, `Name__1` and on)
/// into the main entity and continuation rows. A value needing more rows than its field
/// declares is [`SplitError::TooManyRows`]; a chunk its header counts but `entity` lacks is
/// [`SplitError::MissingChunk`]. A field absent from `entity` gets no rows.
///
/// ```
/// use tablekit::spread::{self, SpreadField};
/// use tablekit::split::{self, SplitError};
/// use tablekit::DynamicEntity;
/// let mut e = DynamicEntity::new("p", "r");
/// split::write_split(&mut e, "Blob", &vec![1; 1_500_000], 40)?;
/// let err = spread::spread(&e, &[SpreadField { property: "Blob", rows: 1 }]).unwrap_err();
/// assert!(matches!(err, SplitError::TooManyRows { rows: 2, max_rows: 1, .. }));
/// # Ok::<(), tablekit::split::SplitError>(())
/// ```
pub fn spread(entity: &DynamicEntity, fields: &[SpreadField]) -> Result<Spread, SplitError> {
    let mut main = entity.clone();
    let mut rows = Vec::new();
    for field in fields {
        let name = field.property;
        let chunks = split::used_chunks(entity, name);
        let needed = rows_for(chunks);
        if needed > field.rows {
            return Err(SplitError::TooManyRows {
                property: name.to_owned(),
                rows: needed,
                max_rows: field.rows,
            });
        }
        for index in 1..=needed {
            rows.push(continuation_row(entity, name, index, chunks)?);
        }
        main.retain(|property, _| split::chunk_index(name, property).is_none());
    }
    Ok(Spread { main, rows })
}

/// The chunk indexes continuation row `index` holds, for a value of `chunks` chunks.
fn row_chunks(index: usize, chunks: usize) -> std::ops::Range<usize> {
    let first = (index - 1) * CHUNKS_PER_ROW + 1;
    first..(first + CHUNKS_PER_ROW).min(chunks)
}

/// Continuation row `index` of `name`, holding its chunks taken from `entity`.
fn continuation_row(
    entity: &DynamicEntity,
    name: &str,
    index: usize,
    chunks: usize,
) -> Result<DynamicEntity, SplitError> {
    let key = continuation_key(entity.row_key(), name, index);
    let mut row = DynamicEntity::new(entity.partition_key(), key);
    row.set(AUXILIARY_PROPERTY, CONTINUATION);
    for chunk in row_chunks(index, chunks) {
        let chunk_name = split::chunk_name(name, chunk);
        match entity.value(&chunk_name) {
            Some(Value::Binary(bytes)) if bytes.len() <= MAX_BINARY_BYTES => {
                row.set(chunk_name, Value::Binary(bytes.clone()));
            }
            _ => {
                return Err(SplitError::MissingChunk {
                    property: name.to_owned(),
                    chunk: chunk_name,
                })
            }
        }
    }
    Ok(row)
}

/// Moves the chunks of `rows` (continuation rows read back) into `main`: for each field, only
/// the rows its header counts and only the chunks each row should hold, so a stale row or a
/// stray property never becomes part of the value. What is missing is left missing, for
/// [`split::read_split`] to report.
pub fn join(
    main: &mut DynamicEntity,
    rows: impl IntoIterator<Item = DynamicEntity>,
    fields: &[SpreadField],
) {
    let mut rows: Vec<DynamicEntity> = rows.into_iter().collect();
    for field in fields {
        let name = field.property;
        let chunks = split::used_chunks(main, name);
        for index in 1..=rows_for(chunks).min(field.rows) {
            let key = continuation_key(main.row_key(), name, index);
            let Some(row) = rows
                .iter_mut()
                .find(|r| r.row_key() == key && crate::model::auxiliary::is_auxiliary(r))
            else {
                continue;
            };
            for chunk in row_chunks(index, chunks) {
                let chunk_name = split::chunk_name(name, chunk);
                if let Some(value) = row.remove(&chunk_name) {
                    main.set(chunk_name, value);
                }
            }
        }
    }
}

/// Whether every field's value in `entity` reads back intact (or is absent): what tells a
/// read that met a concurrent write (main and rows of different versions) from a good one.
pub(crate) fn reads_back(entity: &DynamicEntity, fields: &[SpreadField]) -> bool {
    fields
        .iter()
        .all(|f| split::read_split(entity, f.property).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    const BLOB: SpreadField = SpreadField {
        property: "Blob",
        rows: 4,
    };

    fn with_value(len: usize) -> DynamicEntity {
        let mut e = DynamicEntity::new("p", "r");
        let value: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
        split::write_split(&mut e, "Blob", &value, BLOB.max_properties()).unwrap();
        e
    }

    #[test]
    fn continuation_keys_sort_inside_their_range_and_nothing_else_does() {
        let (start, end) = continuation_range("r");
        for index in 1..=MAX_ROWS {
            let key = continuation_key("r", "Blob_9", index);
            assert!(start <= key && key < end, "{key}");
        }
        // Main keys without the mark, even sharing the prefix, sort outside.
        for other in ["r", "r0", "rA", "r_", "r}", "s", "q"] {
            assert!(
                !(start.as_str() <= other && other < end.as_str()),
                "{other}"
            );
        }
        // Continuation rows of a neighbour whose key extends this one, too.
        let neighbour = continuation_key("r0", "Blob", 1);
        assert!(!(start <= neighbour && neighbour < end));
        assert!(check_main_key("r~").is_err());
    }

    #[test]
    fn rows_follow_the_chunk_count() {
        assert_eq!(rows_for(0), 0);
        assert_eq!(rows_for(1), 0);
        assert_eq!(rows_for(2), 1);
        assert_eq!(rows_for(12), 1);
        assert_eq!(rows_for(13), 2);
        assert_eq!(row_chunks(1, 13), 1..12);
        assert_eq!(row_chunks(2, 13), 12..13);
        assert_eq!(max_properties(MAX_ROWS), 177);
    }

    #[test]
    fn a_value_divides_and_joins_back_bit_exact() {
        for len in [0, 65_525, 65_526, 1_048_576, BLOB.max_bytes()] {
            let e = with_value(len);
            let spread = spread(&e, &[BLOB]).unwrap();
            assert_eq!(spread.rows.len(), rows_used(&e, "Blob"));
            for row in &spread.rows {
                assert!(
                    crate::protocol::limits::validate_entity(row).is_ok(),
                    "{len}"
                );
                assert!(crate::model::auxiliary::is_auxiliary(row));
            }
            crate::protocol::limits::validate_entity(&spread.main).unwrap();
            let mut read = spread.main.clone();
            join(&mut read, spread.rows.clone(), &[BLOB]);
            assert_eq!(read, e, "{len}");
        }
    }

    #[test]
    fn stale_rows_and_stray_chunks_are_never_joined() {
        let big = spread(&with_value(2_500_000), &[BLOB]).unwrap();
        let small = spread(&with_value(100_000), &[BLOB]).unwrap();
        // The small value's main entity with every row of the big one: only row 1 is read,
        // and from it only chunk 1.
        let mut read = small.main.clone();
        join(&mut read, big.rows.clone(), &[BLOB]);
        assert_eq!(split::used_chunks(&read, "Blob"), 2);
        assert_eq!(read.len(), 2);
        // Row 1 of the big value holds other bytes: the header tells.
        assert!(matches!(
            split::read_split(&read, "Blob"),
            Err(SplitError::Length { .. } | SplitError::Checksum { .. })
        ));
        assert!(!reads_back(&read, &[BLOB]));
        // A row without the marker is not a continuation row.
        let mut unmarked = small.rows.clone();
        unmarked[0].remove(AUXILIARY_PROPERTY);
        let mut read = small.main.clone();
        join(&mut read, unmarked, &[BLOB]);
        assert!(matches!(
            split::read_split(&read, "Blob"),
            Err(SplitError::MissingChunk { .. })
        ));
    }

    #[test]
    fn a_missing_chunk_is_refused_before_anything_is_sent() {
        let mut e = with_value(200_000);
        e.remove("Blob__2");
        assert!(matches!(
            spread(&e, &[BLOB]),
            Err(SplitError::MissingChunk { .. })
        ));
    }
}
