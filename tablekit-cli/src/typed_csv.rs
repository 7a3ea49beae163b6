//! Typed CSV: a header row `PartitionKey,RowKey,Name:Type,...` whose columns carry the EDM
//! types (`Score:Int32`, `Joined:DateTime`), then one entity a row, each cell as
//! [`cells::csv_cell`](crate::cells::csv_cell) writes it. An empty cell is a property the entity
//! does not have. A property stored with two types in one table gets two columns
//! (`Score:Int32,Score:String`), so nothing is lost.

use std::collections::HashMap;
use std::io::{Read, Write};

use tablekit::{DynamicEntity, EdmType, Value};

use crate::cells::{csv_cell, parse_csv_cell, parse_type_name, type_name};
use crate::exit::{Failure, Outcome};

/// The property columns of a CSV or Parquet file, in order: one per property name and type.
#[derive(Clone, Debug, Default)]
pub(crate) struct Columns {
    columns: Vec<(String, EdmType)>,
    index: HashMap<(String, EdmType), usize>,
}

impl Columns {
    /// Adds the columns of `entity`'s properties not seen yet, in its order.
    pub(crate) fn learn(&mut self, entity: &DynamicEntity) {
        for (name, value) in entity.properties() {
            let key = (name.to_owned(), value.edm_type());
            if !self.index.contains_key(&key) {
                self.index.insert(key.clone(), self.columns.len());
                self.columns.push(key);
            }
        }
    }

    /// Each column's property name and type, in order.
    pub(crate) fn iter(&self) -> std::slice::Iter<'_, (String, EdmType)> {
        self.columns.iter()
    }

    /// Where the column of `name` holding `edm` values stands, if it was learned.
    pub(crate) fn position(&self, name: &str, edm: EdmType) -> Option<usize> {
        self.index.get(&(name.to_owned(), edm)).copied()
    }

    /// The header row.
    fn header(&self) -> Vec<String> {
        let mut header = vec!["PartitionKey".to_owned(), "RowKey".to_owned()];
        for (name, edm) in &self.columns {
            header.push(format!("{name}:{}", type_name(*edm)));
        }
        header
    }
}

/// Writes typed CSV rows under a header of known columns.
pub(crate) struct CsvWriter<W: Write> {
    out: csv::Writer<W>,
    columns: Columns,
    row: Vec<String>,
}

impl<W: Write> CsvWriter<W> {
    /// Writes the header of `columns` to `out`.
    pub(crate) fn new(out: W, columns: Columns) -> Outcome<Self> {
        let mut out = csv::Writer::from_writer(out);
        out.write_record(columns.header())
            .map_err(csv_write_failed)?;
        Ok(CsvWriter {
            out,
            row: Vec::with_capacity(columns.columns.len() + 2),
            columns,
        })
    }

    /// Writes one entity's row; a property the header lacks is an error (the table changed
    /// between the pass that learned the columns and this one).
    pub(crate) fn write(&mut self, entity: &DynamicEntity) -> Outcome {
        self.row.clear();
        self.row
            .resize(self.columns.columns.len() + 2, String::new());
        self.row[0] = entity.partition_key().to_owned();
        self.row[1] = entity.row_key().to_owned();
        for (name, value) in entity.properties() {
            let Some(at) = self.columns.position(name, value.edm_type()) else {
                return Err(Failure::failed(format!(
                    "({:?}, {:?}) has `{name}:{}`, which appeared after the columns were \
                     read: the table changed during the export; export again",
                    entity.partition_key(),
                    entity.row_key(),
                    type_name(value.edm_type())
                )));
            };
            self.row[at + 2] = csv_cell(value);
        }
        self.out.write_record(&self.row).map_err(csv_write_failed)
    }

    /// Flushes the output.
    pub(crate) fn finish(mut self) -> Outcome {
        self.out.flush().map_err(|e| Failure::write_failed(&e))
    }
}

fn csv_write_failed(e: csv::Error) -> Failure {
    match e.kind() {
        csv::ErrorKind::Io(io) => Failure::write_failed(io),
        _ => Failure::failed(format!("cannot write the output: {e}")),
    }
}

/// Reads typed CSV rows as entities.
pub(crate) struct CsvReader<R: Read> {
    input: csv::Reader<R>,
    columns: Vec<(String, EdmType)>,
    record: csv::StringRecord,
}

impl<R: Read> CsvReader<R> {
    /// Reads the header of `input`; an error names the column that is not `Name:Type`.
    pub(crate) fn new(input: R) -> Outcome<Self> {
        let mut input = csv::ReaderBuilder::new()
            .has_headers(true)
            .from_reader(input);
        let header = input.headers().map_err(csv_read_failed)?.clone();
        let mut cells = header.iter();
        if cells.next() != Some("PartitionKey") || cells.next() != Some("RowKey") {
            return Err(Failure::bad_input(
                "line 1: the header must start with `PartitionKey,RowKey`",
            ));
        }
        let mut columns = Vec::new();
        for (i, cell) in cells.enumerate() {
            let column = i + 3;
            let typed = cell
                .rsplit_once(':')
                .and_then(|(name, edm)| Some((name, parse_type_name(edm)?)))
                .filter(|(name, _)| !name.is_empty());
            let Some((name, edm)) = typed else {
                return Err(Failure::bad_input(format!(
                    "line 1, column {column}: `{cell}` is not `Name:Type` (a type such as \
                     `String`, `Int32`, `Int64`, `Double`, `Boolean`, `DateTime`, `Guid`, `Binary`)"
                )));
            };
            columns.push((name.to_owned(), edm));
        }
        Ok(CsvReader {
            input,
            columns,
            record: csv::StringRecord::new(),
        })
    }

    /// The bytes read so far.
    pub(crate) fn bytes(&self) -> u64 {
        self.input.position().byte()
    }

    /// Up to `n` entities; fewer only at the end. An error names the line and column.
    pub(crate) fn next_chunk(&mut self, n: usize) -> Outcome<Vec<DynamicEntity>> {
        let mut chunk = Vec::with_capacity(n);
        while chunk.len() < n {
            if !self
                .input
                .read_record(&mut self.record)
                .map_err(csv_read_failed)?
            {
                break;
            }
            chunk.push(self.entity()?);
        }
        Ok(chunk)
    }

    fn entity(&self) -> Outcome<DynamicEntity> {
        let line = self.record.position().map_or(0, |p| p.line());
        let mut entity = DynamicEntity::new(&self.record[0], &self.record[1]);
        for (i, (name, edm)) in self.columns.iter().enumerate() {
            let text = &self.record[i + 2];
            if text.is_empty() {
                continue;
            }
            let at = |message: String| {
                Failure::bad_input(format!(
                    "line {line}, column {} (`{name}:{}`): {message}",
                    i + 3,
                    type_name(*edm)
                ))
            };
            let value: Value = parse_csv_cell(*edm, text).map_err(at)?;
            if entity.contains(name) {
                return Err(at(format!(
                    "`{name}` has a value in another column already"
                )));
            }
            entity.set(name.clone(), value);
        }
        Ok(entity)
    }
}

fn csv_read_failed(e: csv::Error) -> Failure {
    // The csv crate's message names the line (and the field counts when they differ).
    Failure::bad_input(format!("cannot read the CSV: {e}"))
}
