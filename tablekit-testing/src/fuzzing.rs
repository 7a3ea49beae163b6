//! Entry points for the fuzz targets in `fuzz/`: the emulator's request parsers, which are
//! internal, reachable from outside the crate only through these functions. Not part of the API.

use crate::batch::{boundary, parse_sub_request, split_parts};

/// Parses a `$batch` request body the way the emulator does before it plans the operations:
/// outer boundary from `content_type`, exactly one changeset, then every operation's request
/// line, headers and body. Returns how many operations parsed, or why it was refused.
///
/// ```
/// let body = b"--b\r\nContent-Type: multipart/mixed; boundary=c\r\n\r\n--c\r\n\
/// Content-Type: application/http\r\n\r\nDELETE http://h/a/T(PartitionKey='p',RowKey='r') HTTP/1.1\r\n\
/// If-Match: *\r\n\r\n\r\n--c--\r\n\r\n--b--\r\n";
/// let parsed = tablekit_testing::fuzzing::batch_request("multipart/mixed; boundary=b", body);
/// assert_eq!(parsed, Ok(1));
/// assert!(tablekit_testing::fuzzing::batch_request("text/plain", body).is_err());
/// ```
pub fn batch_request(content_type: &str, body: &[u8]) -> Result<usize, String> {
    let outer = boundary(content_type).ok_or("no multipart/mixed boundary")?;
    let parts = split_parts(body, outer)?;
    let [changeset] = parts.as_slice() else {
        return Err("a batch holds exactly one changeset".to_owned());
    };
    let inner = changeset
        .headers
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case("content-type"))
        .and_then(|(_, value)| boundary(value))
        .ok_or("the batch part is not a changeset")?;
    let operations = split_parts(changeset.body, inner)?;
    for operation in &operations {
        parse_sub_request(operation.body)?;
    }
    Ok(operations.len())
}
