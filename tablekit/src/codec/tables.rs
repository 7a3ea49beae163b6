//! Table-service bodies: the table list page and a created table's echo.

use serde::Deserialize;

use super::decode::run;
use crate::error::Result;

/// `{"value":[{"TableName":"x"}, ...]}`; other members are ignored.
#[derive(Deserialize)]
struct TablePage {
    value: Vec<TableItem>,
}

/// One table: `{"TableName":"x"}` plus ignored OData control information.
#[derive(Deserialize)]
struct TableItem {
    #[serde(rename = "TableName")]
    name: String,
}

/// Decodes a table-list page (`GET /Tables`) into the table names, in order.
///
/// ```
/// let body = br#"{"odata.metadata":"x","value":[{"TableName":"Gamers"},{"TableName":"Logs"}]}"#;
/// assert_eq!(tablekit::codec::decode_table_names(body)?, ["Gamers", "Logs"]);
/// # Ok::<(), tablekit::Error>(())
/// ```
pub fn decode_table_names(bytes: &[u8]) -> Result<Vec<String>> {
    let page: TablePage = run(bytes, "table list", std::marker::PhantomData)?;
    Ok(page.value.into_iter().map(|t| t.name).collect())
}

/// Decodes one table (the body of a create-table response) into its name.
///
/// ```
/// let body = br#"{"odata.metadata":"x","TableName":"Gamers"}"#;
/// assert_eq!(tablekit::codec::decode_table_name(body)?, "Gamers");
/// # Ok::<(), tablekit::Error>(())
/// ```
pub fn decode_table_name(bytes: &[u8]) -> Result<String> {
    let table: TableItem = run(bytes, "table", std::marker::PhantomData)?;
    Ok(table.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_names_are_errors() {
        assert!(decode_table_names(br#"{"value":[{}]}"#).is_err());
        assert!(decode_table_names(br#"{"value":[{"TableName":1}]}"#).is_err());
        assert!(decode_table_names(br#"{}"#).is_err());
        assert_eq!(decode_table_names(br#"{"value":[]}"#).unwrap().len(), 0);
    }
}
