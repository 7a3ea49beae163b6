//! Entry points for the fuzz targets in `fuzz/`: parsers that are internal to the client,
//! reachable from outside the crate only through these functions. Not part of the API.

/// Parses a transaction (`$batch`) response body the way [`Batch::submit`] does, taking the
/// boundary from `content_type`; returns how many sub-responses it found, `None` when the
/// body is malformed.
///
/// [`Batch::submit`]: crate::client::Batch::submit
///
/// ```
/// let body = b"--b\r\nContent-Type: application/http\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n\r\n--b--\r\n";
/// assert_eq!(tablekit::fuzzing::batch_response("multipart/mixed; boundary=b", body), Some(1));
/// assert_eq!(tablekit::fuzzing::batch_response("text/plain", body), None);
/// ```
pub fn batch_response(content_type: &str, body: &[u8]) -> Option<usize> {
    let boundary = crate::client::multipart::boundary(content_type)?;
    crate::client::multipart::decode_response(body, boundary).map(|parts| parts.len())
}
