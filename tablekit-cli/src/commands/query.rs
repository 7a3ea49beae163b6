//! `query`: the entities matching a filter, as an aligned table, JSON, JSON lines or CSV.
//!
//! Every format streams, so memory stays flat whatever the result's size. The table form
//! sizes its columns from a window of rows (see [`TableWriter`]); the CSV form reads the
//! result twice, once for the header's columns and once for the rows, as `export` does.

use std::io::{IsTerminal, Write};

use futures::TryStreamExt;
use tablekit::client::Table;
use tablekit::codec::encode_entity_into;
use tablekit::{DynamicEntity, Query};
use unicode_width::UnicodeWidthStr;

use crate::cells::literal;
use crate::cli::{QueryArgs, QueryFormat};
use crate::common::{query, require_table};
use crate::connect::client;
use crate::exit::Outcome;
use crate::jsonl::{write_failed, JsonlWriter};
use crate::typed_csv::{Columns, CsvWriter};

/// Runs `query`.
pub(crate) async fn run(args: QueryArgs) -> Outcome {
    let query = query(&args.selection)?;
    let client = client(&args.connection)?;
    require_table(&client, &args.table).await?;
    let table = client.table_named::<DynamicEntity>(&args.table);
    if args.explain {
        let json = matches!(args.format, Some(QueryFormat::Json | QueryFormat::Jsonl));
        return super::explain::run(&table, query, args.selection.filter.as_deref(), json).await;
    }
    let format = args.format.unwrap_or(if std::io::stdout().is_terminal() {
        QueryFormat::Table
    } else {
        QueryFormat::Jsonl
    });
    let out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    match format {
        QueryFormat::Jsonl => {
            let mut entities = table.query(query).entities();
            let mut out = JsonlWriter::new(out);
            while let Some(entity) = entities.try_next().await? {
                out.write(&entity)?;
            }
            out.finish()
        }
        QueryFormat::Json => {
            let mut entities = table.query(query).entities();
            let mut out = out;
            let mut line = Vec::new();
            let mut first = true;
            out.write_all(b"[").map_err(write_failed)?;
            while let Some(entity) = entities.try_next().await? {
                line.clear();
                line.extend_from_slice(if first { b"\n" } else { b",\n" });
                encode_entity_into(&entity, &mut line);
                out.write_all(&line).map_err(write_failed)?;
                first = false;
            }
            out.write_all(b"\n]\n").map_err(write_failed)?;
            out.flush().map_err(write_failed)
        }
        QueryFormat::Csv => write_csv(&table, query, out).await,
        QueryFormat::Table => {
            let mut entities = table.query(query).entities();
            let mut out = TableWriter::new(out);
            while let Some(entity) = entities.try_next().await? {
                out.push(entity)?;
            }
            out.finish()
        }
    }
}

/// Typed CSV in two reads of the result: the first learns the header's columns, the second
/// writes the rows.
async fn write_csv(
    table: &Table<DynamicEntity>,
    query: Query<DynamicEntity>,
    out: impl Write,
) -> Outcome {
    let mut columns = Columns::default();
    let mut entities = table.query(query.clone()).entities();
    while let Some(entity) = entities.try_next().await? {
        columns.learn(&entity);
    }
    let mut out = CsvWriter::new(out, columns)?;
    let mut entities = table.query(query).entities();
    while let Some(entity) = entities.try_next().await? {
        out.write(&entity)?;
    }
    out.finish()
}

/// Rows held to size a block's columns.
const WINDOW: usize = 1000;

/// Writes rows as aligned columns: the keys, `Timestamp`, then every property by first
/// appearance, values as OData literals so types read apart (`5`, `5L`, `5.0`).
///
/// The columns are sized from a window of the first [`WINDOW`] rows, which are then printed;
/// the next rows follow at once in the same columns (a longer value pushes its line out). A
/// row with a property the header lacks starts a new block: a blank line, then a header
/// sized from the next window.
struct TableWriter<W: Write> {
    out: W,
    window: Vec<DynamicEntity>,
    /// The current block's column names and widths; empty while its window fills.
    names: Vec<String>,
    widths: Vec<usize>,
    rows: u64,
}

impl<W: Write> TableWriter<W> {
    fn new(out: W) -> Self {
        TableWriter {
            out,
            window: Vec::new(),
            names: Vec::new(),
            widths: Vec::new(),
            rows: 0,
        }
    }

    /// Takes one row: held while the window fills, printed at once after.
    fn push(&mut self, row: DynamicEntity) -> Outcome {
        self.rows += 1;
        if !self.names.is_empty() {
            if row
                .properties()
                .all(|(name, _)| self.names.iter().any(|n| n == name))
            {
                let cells = cells(&self.names, &row);
                return self.line(&cells);
            }
            // A new property: the next block gets its own header.
            self.names.clear();
            writeln!(self.out).map_err(write_failed)?;
        }
        self.window.push(row);
        if self.window.len() == WINDOW {
            self.print_window()?;
        }
        Ok(())
    }

    /// Sizes the columns from the window and prints it.
    fn print_window(&mut self) -> Outcome {
        let window = std::mem::take(&mut self.window);
        let mut names: Vec<String> =
            vec!["PartitionKey".into(), "RowKey".into(), "Timestamp".into()];
        for row in &window {
            for (name, _) in row.properties() {
                if !names.iter().any(|n| n == name) {
                    names.push(name.to_owned());
                }
            }
        }
        let rows: Vec<Vec<String>> = window.iter().map(|row| cells(&names, row)).collect();
        self.widths = (0..names.len())
            .map(|i| {
                rows.iter()
                    .map(|row| row[i].width())
                    .chain([names[i].width()])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        self.line(&names)?;
        self.names = names;
        for row in &rows {
            self.line(row)?;
        }
        Ok(())
    }

    fn line(&mut self, cells: &[String]) -> Outcome {
        let mut line = String::new();
        // Padded by terminal columns, not chars: CJK and most emoji take two.
        for (cell, &width) in cells.iter().zip(&self.widths) {
            line.push_str(cell);
            let pad = width.saturating_sub(cell.width()) + 2;
            line.extend(std::iter::repeat_n(' ', pad));
        }
        writeln!(self.out, "{}", line.trim_end()).map_err(write_failed)
    }

    /// Prints the rows still held, and the count.
    fn finish(mut self) -> Outcome {
        if !self.window.is_empty() || self.rows == 0 {
            self.print_window()?;
        }
        writeln!(self.out, "({} entities)", self.rows).map_err(write_failed)?;
        self.out.flush().map_err(write_failed)
    }
}

/// A row's cells under `names`.
fn cells(names: &[String], row: &DynamicEntity) -> Vec<String> {
    names
        .iter()
        .map(|name| match name.as_str() {
            "PartitionKey" => printable(row.partition_key()),
            "RowKey" => printable(row.row_key()),
            "Timestamp" => row
                .timestamp()
                .map(|t| tablekit::codec::format_datetime(&t))
                .unwrap_or_default(),
            name => row
                .value(name)
                .map(|v| printable(&literal(v)))
                .unwrap_or_default(),
        })
        .collect()
}

/// Control characters escaped, so a value cannot break the table's lines.
fn printable(text: &str) -> String {
    text.chars()
        .flat_map(char::escape_debug)
        .collect::<String>()
        .replace("\\\"", "\"")
        .replace("\\'", "'")
}

#[cfg(test)]
mod tests {
    use tablekit::DynamicEntity;
    use unicode_width::UnicodeWidthStr;

    use super::TableWriter;

    /// The terminal column where each space-separated word of `line` starts.
    fn starts(line: &str) -> Vec<usize> {
        let mut starts = Vec::new();
        let mut previous = ' ';
        for (i, c) in line.char_indices() {
            if c != ' ' && previous == ' ' {
                starts.push(line[..i].width());
            }
            previous = c;
        }
        starts
    }

    #[test]
    fn cjk_and_emoji_cells_keep_the_columns_aligned() {
        let rows = [
            ("p", "東京", "日本語"),
            ("p", "a", "abc"),
            ("😀", "🎉🎉", "x"),
        ];
        let mut out = Vec::new();
        let mut writer = TableWriter::new(&mut out);
        for (partition_key, row_key, name) in rows {
            let mut entity = DynamicEntity::new(partition_key, row_key);
            entity.set("Name", name);
            writer.push(entity).unwrap();
        }
        writer.finish().unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 5, "{text}");
        // The header has a Timestamp column the rows leave empty.
        let header = starts(lines[0]);
        assert_eq!(header.len(), 4, "{text}");
        for line in &lines[1..4] {
            let row = starts(line);
            assert_eq!(row, [header[0], header[1], header[3]], "{text}");
        }
    }
}
