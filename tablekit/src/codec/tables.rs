//! Table-service bodies: the table list page and a created table's echo.

use serde::de::DeserializeOwned;
use serde::Deserialize;

use super::decode::DecodeError;

/// A `Result` of the codec.
type Result<T, E = DecodeError> = std::result::Result<T, E>;

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
/// # Ok::<(), tablekit::codec::DecodeError>(())
/// ```
pub fn decode_table_names(bytes: &[u8]) -> Result<Vec<String>> {
    let page: TablePage = read(bytes, "table list")?;
    Ok(page.value.into_iter().map(|t| t.name).collect())
}

/// Decodes one table (the body of a create-table response) into its name.
pub fn decode_table_name(bytes: &[u8]) -> Result<String> {
    let table: TableItem = read(bytes, "table")?;
    Ok(table.name)
}

/// One JSON value of type `T`, naming `what` in the error.
fn read<T: DeserializeOwned>(bytes: &[u8], what: &str) -> Result<T> {
    serde_json::from_slice(bytes).map_err(|e| DecodeError::new(what, e.to_string()))
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
