//! The `multipart/mixed` framing of entity group transactions, both directions.
//!
//! Requests: one changeset holding one `application/http` part per operation, each a full
//! HTTP request with an absolute URL (captures/08_batch_ok.txt). Responses: the boundary comes
//! from the `Content-Type` header; each changeset part holds an HTTP status line, headers and
//! an optional body. Parsing is defensive: malformed input gives `None`/an error, never a panic.

/// One operation's request inside the changeset.
pub(crate) struct PartRequest<'a> {
    pub(crate) content_id: usize,
    pub(crate) method: &'a str,
    pub(crate) url: &'a str,
    pub(crate) if_match: Option<&'a str>,
    pub(crate) prefer_no_content: bool,
    pub(crate) body: Option<&'a [u8]>,
}

/// Encodes one changeset part (a delimiter line, part headers, the embedded request),
/// straight into `out`: a batch encodes up to a hundred, so no part builds text of its own.
pub(crate) fn encode_part(changeset: &str, part: &PartRequest<'_>, out: &mut Vec<u8>) {
    use std::io::Write as _;
    out.reserve(part_len_hint(changeset, part));
    // Writing into a Vec cannot fail.
    let _ = write!(
        out,
        "--{changeset}\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\nContent-ID: {}\r\n\r\n{} {} HTTP/1.1\r\nAccept: application/json;odata=minimalmetadata\r\nDataServiceVersion: 3.0\r\n",
        part.content_id, part.method, part.url
    );
    if let Some(body) = part.body {
        let _ = write!(
            out,
            "Content-Type: application/json\r\nContent-Length: {}\r\n",
            body.len()
        );
    }
    if part.prefer_no_content {
        out.extend_from_slice(b"Prefer: return-no-content\r\n");
    }
    if let Some(etag) = part.if_match {
        let _ = write!(out, "If-Match: {etag}\r\n");
    }
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(part.body.unwrap_or_default());
    out.extend_from_slice(b"\r\n");
}

/// At least the bytes [`encode_part`] writes: its fixed text is under 300 bytes.
pub(crate) fn part_len_hint(changeset: &str, part: &PartRequest<'_>) -> usize {
    let etag = part.if_match.map_or(0, |e| e.len() + 12);
    300 + changeset.len() + part.url.len() + etag + part.body.map_or(0, <[u8]>::len)
}

/// What precedes the parts.
pub(crate) fn body_head(batch: &str, changeset: &str) -> String {
    format!("--{batch}\r\nContent-Type: multipart/mixed; boundary={changeset}\r\n\r\n")
}

/// What follows the parts.
pub(crate) fn body_tail(batch: &str, changeset: &str) -> String {
    format!("--{changeset}--\r\n\r\n--{batch}--\r\n")
}

/// One operation's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PartResponse {
    pub(crate) status: u16,
    /// The header lines as received: read on demand, since a caller wants two or three.
    head: Vec<u8>,
    pub(crate) body: Vec<u8>,
}

impl PartResponse {
    /// The value of header `name` (any case), when present and UTF-8.
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        header_lines(&self.head)
            .find(|(n, _)| n.eq_ignore_ascii_case(name.as_bytes()))
            .and_then(|(_, value)| std::str::from_utf8(value).ok())
    }
}

/// The `boundary` parameter of a `multipart/mixed` content type.
pub(crate) fn boundary(content_type: &str) -> Option<&str> {
    content_type.split(';').find_map(|param| {
        let (name, value) = param.split_once('=')?;
        name.trim()
            .eq_ignore_ascii_case("boundary")
            .then(|| value.trim().trim_matches('"'))
            .filter(|b| !b.is_empty())
    })
}

/// Every HTTP sub-response in a batch response body, in order, descending into changesets.
pub(crate) fn decode_response(body: &[u8], boundary: &str) -> Option<Vec<PartResponse>> {
    let mut responses = Vec::new();
    for part in split_parts(body, boundary)? {
        let (headers, content) = split_head(part)?;
        let content_type = header_lines(headers)
            .find(|(name, _)| name.eq_ignore_ascii_case(b"content-type"))
            .and_then(|(_, value)| std::str::from_utf8(value).ok())
            .unwrap_or_default();
        if let Some(inner) = content_type
            .get(..15)
            .is_some_and(|start| start.eq_ignore_ascii_case("multipart/mixed"))
            .then(|| self::boundary(content_type))
            .flatten()
        {
            responses.extend(decode_response(content, inner)?);
        } else {
            responses.push(parse_http_response(content)?);
        }
    }
    Some(responses)
}

/// The parts between `--boundary` delimiters (preamble and epilogue dropped).
fn split_parts<'a>(body: &'a [u8], boundary: &str) -> Option<Vec<&'a [u8]>> {
    let delimiter = format!("--{boundary}");
    // One searcher for the whole body: building one per search cost more than searching.
    let finder = memchr::memmem::Finder::new(delimiter.as_bytes());
    let mut parts = Vec::new();
    let mut rest = body.get(finder.find(body)?..)?;
    loop {
        let after = rest.get(delimiter.len()..)?;
        if after.starts_with(b"--") {
            return Some(parts);
        }
        // The delimiter line ends with CRLF; the part ends before the CRLF of the next one.
        let start = memchr::memchr(b'\n', after)? + 1;
        let content = after.get(start..)?;
        let end = finder.find(content)?;
        let part = content.get(..end)?;
        parts.push(trim_line_end(part));
        rest = content.get(end..)?;
    }
}

/// Splits at the first empty line (CRLF or LF line ends): (headers, content).
fn split_head(part: &[u8]) -> Option<(&[u8], &[u8])> {
    memchr::memchr_iter(b'\n', part).find_map(|i| {
        let next = part.get(i + 1..)?;
        if next.starts_with(b"\n") {
            return Some((trim_line_end(part.get(..i)?), next.get(1..)?));
        }
        next.starts_with(b"\r\n")
            .then(|| Some((trim_line_end(part.get(..i)?), next.get(2..)?)))
            .flatten()
    })
}

/// `name: value` header lines, both trimmed; lines without a colon are skipped.
fn header_lines(block: &[u8]) -> impl Iterator<Item = (&[u8], &[u8])> {
    let mut rest = block;
    std::iter::from_fn(move || {
        while !rest.is_empty() {
            let (line, next) = match memchr::memchr(b'\n', rest) {
                Some(end) => rest.split_at(end + 1),
                None => (rest, &[][..]),
            };
            rest = next;
            if let Some(colon) = memchr::memchr(b':', line) {
                let (name, value) = line.split_at(colon);
                return Some((name.trim_ascii(), value[1..].trim_ascii()));
            }
        }
        None
    })
}

/// `HTTP/1.1 201 Created` + headers + blank line + body.
fn parse_http_response(content: &[u8]) -> Option<PartResponse> {
    let (head, body) = match split_head(content) {
        Some(split) => split,
        None => (trim_line_end(content), &[][..]),
    };
    let (status_line, headers) = match memchr::memchr(b'\n', head) {
        Some(i) => (&head[..i], &head[i + 1..]),
        None => (head, &[][..]),
    };
    let status = std::str::from_utf8(status_line)
        .ok()?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()?;
    Some(PartResponse {
        status,
        head: headers.to_vec(),
        body: trim_line_end(body).to_vec(),
    })
}

fn trim_line_end(bytes: &[u8]) -> &[u8] {
    let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    bytes.strip_suffix(b"\r").unwrap_or(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The response of captures/08_batch_fail.txt (CRLF lines).
    const FAIL: &str = "--batchresponse_b\r\nContent-Type: multipart/mixed; boundary=changesetresponse_c\r\n\r\n--changesetresponse_c\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\nHTTP/1.1 409 Conflict\r\nContent-ID: 3\r\nDataServiceVersion: 3.0;\r\nContent-Type: application/json;odata=minimalmetadata;charset=utf-8\r\n\r\n{\"odata.error\":{\"code\":\"EntityAlreadyExists\",\"message\":{\"lang\":\"en-US\",\"value\":\"2:The specified entity already exists.\\nRequestId:0e09\\nTime:2026-11-22T11:42:24.991Z\"}}}\r\n--changesetresponse_c--\r\n--batchresponse_b--\r\n";

    #[test]
    fn a_part_fits_the_room_made_for_it() {
        let etag = "W/\"datetime'2026-11-22T11%3A42%3A24.9910000Z'\"";
        let body = vec![b'x'; 9_999_999];
        let part = PartRequest {
            content_id: 99,
            method: "DELETE",
            url: "http://127.0.0.1:10002/devstoreaccount1/t(PartitionKey='p',RowKey='r')",
            if_match: Some(etag),
            prefer_no_content: true,
            body: Some(&body),
        };
        let changeset = "changeset_0e09a5a4-96a8-4bb8-9c1c-3bfd7d3a5e71";
        let mut out = Vec::new();
        encode_part(changeset, &part, &mut out);
        assert!(out.len() <= part_len_hint(changeset, &part));
        assert!(out.ends_with(b"xx\r\n"));
    }

    #[test]
    fn reads_the_boundary_parameter() {
        assert_eq!(
            boundary("multipart/mixed; boundary=batchresponse_e5"),
            Some("batchresponse_e5")
        );
        assert_eq!(boundary("multipart/mixed; boundary=\"x y\""), Some("x y"));
        assert_eq!(boundary("multipart/mixed"), None);
    }

    #[test]
    fn decodes_a_failed_changeset() {
        let parts = decode_response(FAIL.as_bytes(), "batchresponse_b").unwrap();
        assert_eq!(parts.len(), 1);
        assert_eq!(parts[0].status, 409);
        assert_eq!(parts[0].header("content-id"), Some("3"));
        assert_eq!(parts[0].header("DataServiceVersion"), Some("3.0;"));
        assert_eq!(parts[0].header("ETag"), None);
        assert!(String::from_utf8_lossy(&parts[0].body).starts_with("{\"odata.error\""));
        assert!(String::from_utf8_lossy(&parts[0].body).ends_with("}}}"));
    }

    #[test]
    fn never_panics_on_truncated_input() {
        for end in 0..FAIL.len() {
            let _ = decode_response(&FAIL.as_bytes()[..end], "batchresponse_b");
        }
        assert!(decode_response(b"garbage", "x").is_none());
    }
}
