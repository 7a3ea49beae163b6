//! What several commands share: checking a filter before it is sent, checking that a table
//! exists, and opening the input and output.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::Path;

use tablekit::client::TableServiceClient;
use tablekit::{DynamicEntity, Query};
use unicode_width::UnicodeWidthStr;

use crate::cli::Selection;
use crate::exit::{Failure, Kind, Outcome};
use crate::filter_hint;

/// Checks an OData filter with the emulator's parser before any request is sent; the error
/// shows where it goes wrong, under the filter.
///
/// A filter calling an OData function is refused with a message saying the service has none;
/// a bare word compared with a property (`PartitionKey eq p001`) gets a note on stderr, as
/// it is read as a property name and so matches nothing.
pub(crate) fn check_filter(filter: &str) -> Outcome {
    if let Some(function) = filter_hint::function_call(filter) {
        return Err(Failure::bad_input(filter_hint::function_message(function)));
    }
    for note in filter_hint::unquoted_notes(filter) {
        eprintln!("tablekit: note: {note}");
    }
    tablekit_emulator::filter::ParsedFilter::parse(filter)
        .map(drop)
        .map_err(|e| {
            let at = e.position();
            let before = filter.get(..at);
            let column = before.map_or(at, |s| s.chars().count());
            // The caret goes under the character on a terminal, where CJK takes two columns.
            let indent = before.map_or(at, UnicodeWidthStr::width);
            Failure::bad_input(format!(
                "malformed filter at character {}: {}\n  {filter}\n  {}^",
                column + 1,
                e.message(),
                " ".repeat(indent)
            ))
        })
}

/// The query of `--filter`, `--select` and `--top`, checked.
pub(crate) fn query(selection: &Selection) -> Outcome<Query<DynamicEntity>> {
    // An operator's command reads what it is told to, scans included.
    let mut query = Query::new().allow_table_scan();
    if let Some(filter) = &selection.filter {
        check_filter(filter)?;
        query = query.filter_raw(filter.clone());
    }
    if !selection.select.is_empty() {
        query = query.select_names(selection.select.iter().cloned());
    }
    if let Some(top) = selection.top {
        query = query.take(top);
        if let Ok(n) = u32::try_from(top) {
            if n > 0 && n < 1000 {
                query = query
                    .top(n)
                    .map_err(|e| Failure::bad_input(e.to_string()))?;
            }
        }
    }
    Ok(query)
}

/// Fails with exit code 3 when `table` does not exist, before anything is written. A table
/// SAS cannot list tables (403): the check is left to the operation then.
pub(crate) async fn require_table(client: &TableServiceClient, table: &str) -> Outcome {
    match client.table_exists(table).await {
        Ok(true) => Ok(()),
        Ok(false) => Err(Failure::new(
            Kind::NotFound,
            format!("table `{table}` does not exist"),
        )),
        Err(e) if e.status() == Some(403) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// A buffered writer to `path`, or to stdout without one.
pub(crate) fn output(path: Option<&Path>) -> Outcome<Box<dyn Write + Send>> {
    Ok(match path {
        Some(path) => Box::new(BufWriter::with_capacity(
            1 << 16,
            File::create(path).map_err(|e| {
                Failure::bad_input(format!("cannot create `{}`: {e}", path.display()))
            })?,
        )),
        None => Box::new(BufWriter::with_capacity(1 << 16, std::io::stdout())),
    })
}

/// A buffered reader of `path`, or of stdin without one (or with `-`).
pub(crate) fn input(path: Option<&Path>) -> Outcome<Box<dyn BufRead>> {
    Ok(match path.filter(|p| p.as_os_str() != "-") {
        Some(path) => Box::new(BufReader::with_capacity(
            1 << 16,
            File::open(path).map_err(|e| {
                Failure::bad_input(format!("cannot open `{}`: {e}", path.display()))
            })?,
        )),
        None => Box::new(BufReader::with_capacity(1 << 16, std::io::stdin())),
    })
}

#[cfg(test)]
mod tests {
    use super::check_filter;

    #[test]
    fn the_caret_stands_under_the_error_after_wide_characters() {
        let filter = "Name eq '東京' and and";
        let message = check_filter(filter).unwrap_err().to_string();
        let mut lines = message.lines().skip_while(|l| !l.contains(filter));
        let (text, caret) = (lines.next().unwrap(), lines.next().unwrap());
        let column = caret.find('^').unwrap();
        // The caret's column counts the two-column characters as two.
        let at = text.find(" and and").unwrap() + " and ".len();
        let width = unicode_width::UnicodeWidthStr::width(&text[..at]);
        assert_eq!(column, width, "{message}");
    }
}
