//! Typed Parquet, for analytics engines (Spark, Databricks, DuckDB, pyarrow): a column per
//! property, typed from its EDM type, nullable where an entity lacks the property, written in
//! row groups of [`ROW_GROUP`] rows so memory stays flat.
//!
//! | EDM type | Parquet column |
//! |----------|----------------|
//! | String   | `BYTE_ARRAY` (String) |
//! | Binary   | `BYTE_ARRAY` |
//! | Int32    | `INT32` |
//! | Int64    | `INT64` |
//! | Double   | `DOUBLE` |
//! | Boolean  | `BOOLEAN` |
//! | DateTime | `INT64` (Timestamp, UTC, nanoseconds) |
//! | Guid     | `FIXED_LEN_BYTE_ARRAY(16)` (UUID) |
//!
//! `PartitionKey` and `RowKey` come first, required. A property stored with two types gets
//! two columns, `Name:Int32` and `Name:String` (as typed CSV names them), so nothing is lost.
//! Nanosecond timestamps hold 1677-09-21 to 2262-04-11: an export holding a DateTime outside
//! them is refused before anything is written.

use std::fs::File;
use std::io::Write;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use parquet::basic::{Compression, LogicalType, Repetition, TimeUnit, Type as Physical};
use parquet::data_type::{
    BoolType, ByteArray, ByteArrayType, DoubleType, FixedLenByteArray, FixedLenByteArrayType,
    Int32Type, Int64Type,
};
use parquet::file::properties::WriterProperties;
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::file::writer::{SerializedFileWriter, SerializedRowGroupWriter};
use parquet::record::reader::RowIter;
use parquet::record::Field;
use parquet::schema::types::{ColumnDescriptor, Type};
use tablekit::{DynamicEntity, EdmType, Value};
use uuid::Uuid;

use crate::cells::{parse_type_name, type_name};
use crate::exit::{Failure, Outcome};
use crate::typed_csv::Columns;

/// Rows per row group: a group is held in memory while it is written.
pub(crate) const ROW_GROUP: usize = 10_000;

/// The property columns of a Parquet file, learned from the entities before writing.
#[derive(Clone, Debug, Default)]
pub(crate) struct ParquetColumns {
    columns: Columns,
    /// The first DateTime nanosecond timestamps cannot hold, described.
    out_of_range: Option<String>,
}

impl ParquetColumns {
    /// Adds the columns of `entity`'s properties not seen yet, and notes a DateTime that
    /// Parquet's nanosecond timestamps cannot hold.
    pub(crate) fn learn(&mut self, entity: &DynamicEntity) {
        self.columns.learn(entity);
        for (name, value) in entity.properties() {
            if let Value::DateTime(t) = value {
                if t.timestamp_nanos_opt().is_none() && self.out_of_range.is_none() {
                    self.out_of_range = Some(format!(
                        "({:?}, {:?}) has `{name}` = {}",
                        entity.partition_key(),
                        entity.row_key(),
                        tablekit::codec::format_datetime(t)
                    ));
                }
            }
        }
    }

    /// Refuses columns Parquet cannot hold exactly.
    pub(crate) fn check(&self) -> Outcome {
        match &self.out_of_range {
            Some(which) => Err(Failure::bad_input(format!(
                "{which}, outside what Parquet's nanosecond timestamps hold (1677-09-21 to \
                 2262-04-11): nothing written; export it as jsonl or csv, which hold every \
                 DateTime"
            ))),
            None => Ok(()),
        }
    }

    /// The column names: the property's name, or `Name:Type` when it has several types.
    fn names(&self) -> Vec<String> {
        self.columns
            .iter()
            .map(|(name, edm)| {
                let typed = self.columns.iter().filter(|(n, _)| n == name).count() > 1;
                if typed {
                    format!("{name}:{}", type_name(*edm))
                } else {
                    name.clone()
                }
            })
            .collect()
    }

    fn schema(&self) -> Outcome<Type> {
        let mut fields = vec![
            Arc::new(string_column("PartitionKey", Repetition::REQUIRED)?),
            Arc::new(string_column("RowKey", Repetition::REQUIRED)?),
        ];
        for (name, (_, edm)) in self.names().into_iter().zip(self.columns.iter()) {
            fields.push(Arc::new(column(&name, *edm)?));
        }
        Type::group_type_builder("entity")
            .with_fields(fields)
            .build()
            .map_err(failed)
    }
}

fn string_column(name: &str, repetition: Repetition) -> Outcome<Type> {
    Type::primitive_type_builder(name, Physical::BYTE_ARRAY)
        .with_repetition(repetition)
        .with_logical_type(Some(LogicalType::String))
        .build()
        .map_err(failed)
}

/// The optional column of an EDM type.
fn column(name: &str, edm: EdmType) -> Outcome<Type> {
    let (physical, logical, length) = match edm {
        EdmType::String => return string_column(name, Repetition::OPTIONAL),
        EdmType::Binary => (Physical::BYTE_ARRAY, None, -1),
        EdmType::Int32 => (Physical::INT32, None, -1),
        EdmType::Int64 => (Physical::INT64, None, -1),
        EdmType::Double => (Physical::DOUBLE, None, -1),
        EdmType::Boolean => (Physical::BOOLEAN, None, -1),
        EdmType::DateTime => (
            Physical::INT64,
            Some(LogicalType::timestamp(true, TimeUnit::NANOS)),
            -1,
        ),
        EdmType::Guid => (Physical::FIXED_LEN_BYTE_ARRAY, Some(LogicalType::Uuid), 16),
    };
    Type::primitive_type_builder(name, physical)
        .with_repetition(Repetition::OPTIONAL)
        .with_logical_type(logical)
        .with_length(length)
        .build()
        .map_err(failed)
}

fn failed(e: parquet::errors::ParquetError) -> Failure {
    Failure::failed(format!("cannot write the Parquet file: {e}"))
}

/// Writes entities as Parquet rows, a row group at a time.
pub(crate) struct ParquetWriter<W: Write + Send> {
    out: SerializedFileWriter<W>,
    columns: ParquetColumns,
    rows: Vec<DynamicEntity>,
}

impl<W: Write + Send> ParquetWriter<W> {
    /// A writer of `columns` into `out`; refuses values Parquet cannot hold exactly.
    pub(crate) fn new(out: W, columns: ParquetColumns) -> Outcome<Self> {
        columns.check()?;
        let properties = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_max_row_group_row_count(Some(ROW_GROUP))
            .build();
        let out = SerializedFileWriter::new(out, Arc::new(columns.schema()?), properties.into())
            .map_err(failed)?;
        Ok(ParquetWriter {
            out,
            columns,
            rows: Vec::with_capacity(ROW_GROUP),
        })
    }

    /// Takes one entity; a full row group is written. A property the columns lack is an
    /// error (the table changed between the pass that learned the columns and this one).
    pub(crate) fn write(&mut self, entity: &DynamicEntity) -> Outcome {
        for (name, value) in entity.properties() {
            if self
                .columns
                .columns
                .position(name, value.edm_type())
                .is_none()
            {
                return Err(Failure::failed(format!(
                    "({:?}, {:?}) has `{name}:{}`, which appeared after the columns were \
                     read: the table changed during the export; export again",
                    entity.partition_key(),
                    entity.row_key(),
                    type_name(value.edm_type())
                )));
            }
        }
        self.rows.push(entity.clone());
        if self.rows.len() == ROW_GROUP {
            self.flush_group()?;
        }
        Ok(())
    }

    /// Writes the rows held and the file's footer.
    pub(crate) fn finish(mut self) -> Outcome {
        if !self.rows.is_empty() {
            self.flush_group()?;
        }
        let mut out = self.out.into_inner().map_err(failed)?;
        out.flush().map_err(|e| Failure::write_failed(&e))
    }

    fn flush_group(&mut self) -> Outcome {
        let rows = std::mem::take(&mut self.rows);
        let mut group = self.out.next_row_group().map_err(failed)?;
        let keys = |key: fn(&DynamicEntity) -> &str| {
            rows.iter()
                .map(|e| Some(ByteArray::from(key(e).as_bytes().to_vec())))
                .collect::<Vec<_>>()
        };
        write_column::<ByteArrayType>(&mut group, keys(|e| e.partition_key()), false)?;
        write_column::<ByteArrayType>(&mut group, keys(|e| e.row_key()), false)?;
        for (name, edm) in self.columns.columns.iter() {
            write_values(&mut group, &rows, name, *edm)?;
        }
        group.close().map_err(failed)?;
        Ok(())
    }
}

/// Writes the column of property `name` as `edm` of `rows`.
fn write_values<W: Write + Send>(
    group: &mut SerializedRowGroupWriter<'_, W>,
    rows: &[DynamicEntity],
    name: &str,
    edm: EdmType,
) -> Outcome {
    let values = rows
        .iter()
        .map(|e| e.value(name).filter(|v| v.edm_type() == edm));
    match edm {
        EdmType::String | EdmType::Binary => {
            let cells = values.map(|v| match v {
                Some(Value::String(s)) => Some(ByteArray::from(s.as_bytes().to_vec())),
                Some(Value::Binary(b)) => Some(ByteArray::from(b.clone())),
                _ => None,
            });
            write_column::<ByteArrayType>(group, cells.collect(), true)
        }
        EdmType::Int32 => {
            let cells = values.map(|v| match v {
                Some(Value::Int32(n)) => Some(*n),
                _ => None,
            });
            write_column::<Int32Type>(group, cells.collect(), true)
        }
        EdmType::Int64 | EdmType::DateTime => {
            let cells = values.map(|v| match v {
                Some(Value::Int64(n)) => Some(*n),
                // Checked before the first row group: every DateTime here fits.
                Some(Value::DateTime(t)) => t.timestamp_nanos_opt(),
                _ => None,
            });
            write_column::<Int64Type>(group, cells.collect(), true)
        }
        EdmType::Double => {
            let cells = values.map(|v| match v {
                Some(Value::Double(d)) => Some(*d),
                _ => None,
            });
            write_column::<DoubleType>(group, cells.collect(), true)
        }
        EdmType::Boolean => {
            let cells = values.map(|v| match v {
                Some(Value::Bool(b)) => Some(*b),
                _ => None,
            });
            write_column::<BoolType>(group, cells.collect(), true)
        }
        EdmType::Guid => {
            let cells = values.map(|v| match v {
                Some(Value::Guid(g)) => Some(FixedLenByteArray::from(g.as_bytes().to_vec())),
                _ => None,
            });
            write_column::<FixedLenByteArrayType>(group, cells.collect(), true)
        }
    }
}

/// Writes the next column: the values present, and (when `optional`) a definition level per
/// row, 0 where the row has none.
fn write_column<T: parquet::data_type::DataType>(
    group: &mut SerializedRowGroupWriter<'_, impl Write + Send>,
    cells: Vec<Option<T::T>>,
    optional: bool,
) -> Outcome {
    let Some(mut column) = group.next_column().map_err(failed)? else {
        return Err(Failure::failed(
            "the Parquet schema has fewer columns than written",
        ));
    };
    let levels: Vec<i16> = cells.iter().map(|c| i16::from(c.is_some())).collect();
    let values: Vec<T::T> = cells.into_iter().flatten().collect();
    column
        .typed::<T>()
        .write_batch(&values, optional.then_some(&levels[..]), None)
        .map_err(failed)?;
    column.close().map_err(failed)
}

/// Reads Parquet rows as entities: typed CSV's rules, from the columns' types.
pub(crate) struct ParquetReader {
    rows: RowIter<'static>,
    /// The EDM type and property name of each column after the keys.
    columns: Vec<(String, EdmType)>,
    read: u64,
}

impl ParquetReader {
    /// Opens `file`; an error names a column without an EDM type.
    pub(crate) fn open(file: File) -> Outcome<Self> {
        let reader = SerializedFileReader::new(file)
            .map_err(|e| Failure::bad_input(format!("not a Parquet file: {e}")))?;
        let schema = reader.metadata().file_metadata().schema_descr_ptr();
        let names: Vec<&str> = schema.columns().iter().map(|c| c.name()).collect();
        if names.len() < 2 || names[0] != "PartitionKey" || names[1] != "RowKey" {
            return Err(Failure::bad_input(
                "the Parquet file's first columns must be `PartitionKey` and `RowKey`",
            ));
        }
        let mut columns = Vec::new();
        for descriptor in &schema.columns()[2..] {
            columns.push(edm_column(descriptor)?);
        }
        Ok(ParquetReader {
            rows: RowIter::from_file_into(Box::new(reader)),
            columns,
            read: 0,
        })
    }

    /// Up to `n` entities; fewer only at the end. An error names the row.
    pub(crate) fn next_chunk(&mut self, n: usize) -> Outcome<Vec<DynamicEntity>> {
        let mut chunk = Vec::with_capacity(n);
        while chunk.len() < n {
            let Some(row) = self.rows.next() else {
                break;
            };
            self.read += 1;
            let at = |message: String| Failure::bad_input(format!("row {}: {message}", self.read));
            let row = row.map_err(|e| at(e.to_string()))?;
            let mut fields = row.get_column_iter().map(|(_, field)| field);
            let key = |field: Option<&Field>| match field {
                Some(Field::Str(s)) => Ok(s.clone()),
                _ => Err(at("`PartitionKey` and `RowKey` must be strings".to_owned())),
            };
            let partition_key = key(fields.next())?;
            let row_key = key(fields.next())?;
            let mut entity = DynamicEntity::new(partition_key, row_key);
            for ((name, edm), field) in self.columns.iter().zip(fields) {
                let Some(value) = value(*edm, field).map_err(|m| at(format!("`{name}`: {m}")))?
                else {
                    continue;
                };
                if entity.contains(name) {
                    return Err(at(format!(
                        "`{name}` has a value in another column already"
                    )));
                }
                entity.set(name.clone(), value);
            }
            chunk.push(entity);
        }
        Ok(chunk)
    }
}

/// A column's property name and EDM type, from its Parquet types.
fn edm_column(descriptor: &ColumnDescriptor) -> Outcome<(String, EdmType)> {
    let logical = descriptor.logical_type_ref();
    let edm = match descriptor.physical_type() {
        Physical::BYTE_ARRAY if logical == Some(&LogicalType::String) => Some(EdmType::String),
        Physical::BYTE_ARRAY if logical.is_none() => Some(EdmType::Binary),
        Physical::INT32 if logical.is_none() => Some(EdmType::Int32),
        Physical::INT64 => match logical {
            None => Some(EdmType::Int64),
            Some(LogicalType::Timestamp(_)) => Some(EdmType::DateTime),
            _ => None,
        },
        Physical::DOUBLE => Some(EdmType::Double),
        Physical::BOOLEAN => Some(EdmType::Boolean),
        Physical::FIXED_LEN_BYTE_ARRAY if logical == Some(&LogicalType::Uuid) => {
            Some(EdmType::Guid)
        }
        _ => None,
    };
    let name = descriptor.name();
    let Some(edm) = edm else {
        return Err(Failure::bad_input(format!(
            "the Parquet column `{name}` ({:?}, {logical:?}) has no EDM type",
            descriptor.physical_type()
        )));
    };
    // `Name:Type`: a property stored with several types.
    let name = match name.rsplit_once(':') {
        Some((property, typed)) if parse_type_name(typed) == Some(edm) => property,
        _ => name,
    };
    Ok((name.to_owned(), edm))
}

/// A field as a value of `edm`; `None` for a missing one (null).
fn value(edm: EdmType, field: &Field) -> Result<Option<Value>, String> {
    Ok(Some(match (edm, field) {
        (_, Field::Null) => return Ok(None),
        (EdmType::String, Field::Str(s)) => Value::String(s.as_str().into()),
        (EdmType::Binary, Field::Bytes(b)) => Value::Binary(b.data().to_vec()),
        (EdmType::Int32, Field::Int(n)) => Value::Int32(*n),
        (EdmType::Int64, Field::Long(n)) => Value::Int64(*n),
        (EdmType::Double, Field::Double(d)) => Value::Double(*d),
        (EdmType::Boolean, Field::Bool(b)) => Value::Bool(*b),
        (EdmType::DateTime, Field::Long(nanos)) => {
            Value::DateTime(DateTime::<Utc>::from_timestamp_nanos(*nanos))
        }
        (EdmType::DateTime, Field::TimestampMicros(us)) => Value::DateTime(
            DateTime::<Utc>::from_timestamp_micros(*us).ok_or("a timestamp out of range")?,
        ),
        (EdmType::DateTime, Field::TimestampMillis(ms)) => Value::DateTime(
            DateTime::<Utc>::from_timestamp_millis(*ms).ok_or("a timestamp out of range")?,
        ),
        (EdmType::Guid, Field::Bytes(b)) => {
            Value::Guid(Uuid::from_slice(b.data()).map_err(|_| "a UUID of 16 bytes expected")?)
        }
        (edm, field) => return Err(format!("{field} is not {}", type_name(edm))),
    }))
}
