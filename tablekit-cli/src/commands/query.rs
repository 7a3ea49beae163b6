//! `query`: the entities matching a filter, as an aligned table, JSON, JSON lines or CSV.
//!
//! JSON and JSON lines stream; the table and CSV forms need every row's columns first, so
//! they hold the result (bound it with `--top`, or use `export` for whole tables).

use std::io::{IsTerminal, Write};

use futures::TryStreamExt;
use tablekit::codec::encode_entity_into;
use tablekit::DynamicEntity;

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
    let format = args.format.unwrap_or(if std::io::stdout().is_terminal() {
        QueryFormat::Table
    } else {
        QueryFormat::Jsonl
    });
    let mut entities = table.query(query).entities();
    let out = std::io::stdout().lock();
    match format {
        QueryFormat::Jsonl => {
            let mut out = JsonlWriter::new(std::io::BufWriter::new(out));
            while let Some(entity) = entities.try_next().await? {
                out.write(&entity)?;
            }
            out.finish()
        }
        QueryFormat::Json => {
            let mut out = std::io::BufWriter::new(out);
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
        QueryFormat::Csv => {
            let rows: Vec<DynamicEntity> = entities.try_collect().await?;
            let mut columns = Columns::default();
            rows.iter().for_each(|e| columns.learn(e));
            let mut out = CsvWriter::new(out, columns)?;
            for row in &rows {
                out.write(row)?;
            }
            out.finish()
        }
        QueryFormat::Table => {
            let rows: Vec<DynamicEntity> = entities.try_collect().await?;
            write_table(out, &rows)
        }
    }
}

/// Writes rows as aligned columns: the keys, `Timestamp`, then every property by first
/// appearance, values as OData literals so types read apart (`5`, `5L`, `5.0`).
fn write_table(mut out: impl Write, rows: &[DynamicEntity]) -> Outcome {
    let mut names: Vec<String> = vec!["PartitionKey".into(), "RowKey".into(), "Timestamp".into()];
    for row in rows {
        for (name, _) in row.properties() {
            if !names.iter().any(|n| n == name) {
                names.push(name.to_owned());
            }
        }
    }
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|row| {
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
        })
        .collect();
    let widths: Vec<usize> = (0..names.len())
        .map(|i| {
            cells
                .iter()
                .map(|row| row[i].chars().count())
                .chain([names[i].chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: &[String]| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(cell, width)| format!("{cell:<width$}"))
            .collect();
        padded.join("  ").trim_end().to_owned()
    };
    writeln!(out, "{}", line(&names)).map_err(write_failed)?;
    for row in &cells {
        writeln!(out, "{}", line(row)).map_err(write_failed)?;
    }
    writeln!(out, "({} entities)", rows.len()).map_err(write_failed)
}

/// Control characters escaped, so a value cannot break the table's lines.
fn printable(text: &str) -> String {
    text.chars()
        .flat_map(char::escape_debug)
        .collect::<String>()
        .replace("\\\"", "\"")
        .replace("\\'", "'")
}
