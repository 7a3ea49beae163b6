//! The `multipart/mixed` framing of a `$batch` request: the boundary, the parts between
//! delimiter lines, and each operation's embedded HTTP request, all borrowed from the body.
//! Malformed input is an error naming the problem, never a panic.

/// Header lines in order, as (name, value).
type Headers<'a> = Vec<(&'a str, &'a str)>;

/// One part of a multipart body: its MIME headers and its content.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Part<'a> {
    pub(crate) headers: Headers<'a>,
    pub(crate) body: &'a [u8],
}

impl Part<'_> {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        find_header(&self.headers, name)
    }
}

/// One operation of a changeset, as sent: borrowed from the request body, never copied.
#[derive(Debug)]
pub(crate) struct SubRequest<'a> {
    pub(crate) method: &'a str,
    /// The path of the (usually absolute) URL.
    pub(crate) path: &'a str,
    /// The path and query of the URL.
    pub(crate) target: &'a str,
    pub(crate) headers: Headers<'a>,
    pub(crate) body: &'a [u8],
}

impl SubRequest<'_> {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        find_header(&self.headers, name)
    }
}

fn find_header<'a>(headers: &[(&'a str, &'a str)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| *v)
}

/// The `boundary` parameter of a `multipart/mixed` Content-Type.
pub(crate) fn boundary(content_type: &str) -> Option<&str> {
    let (kind, params) = content_type.split_once(';')?;
    if !kind.trim().eq_ignore_ascii_case("multipart/mixed") {
        return None;
    }
    params.split(';').find_map(|p| {
        let (name, value) = p.split_once('=')?;
        name.trim()
            .eq_ignore_ascii_case("boundary")
            .then(|| value.trim().trim_matches('"'))
            .filter(|b| !b.is_empty())
    })
}

/// Splits a multipart body on `--boundary` lines (CRLF or LF), up to `--boundary--`, or up to
/// a last `--boundary` line that ends the body: the `azure_data_tables` crate closes its
/// batches so, and the service and Azurite accept them.
pub(crate) fn split_parts<'a>(body: &'a [u8], boundary: &str) -> Result<Vec<Part<'a>>, String> {
    let delimiter = format!("--{boundary}");
    let delimiter = delimiter.as_bytes();
    // A delimiter counts only at the start of a line; memmem finds candidates in one pass.
    let starts: Vec<usize> = memchr::memmem::find_iter(body, delimiter)
        .filter(|&at| at == 0 || body.get(at - 1) == Some(&b'\n'))
        .collect();
    let mut parts = Vec::with_capacity(starts.len());
    for (n, &start) in starts.iter().enumerate() {
        let after = start + delimiter.len();
        let rest = body.get(after..).unwrap_or_default();
        let ends_body = !parts.is_empty() && rest.iter().all(u8::is_ascii_whitespace);
        if rest.starts_with(b"--") || ends_body {
            return Ok(parts);
        }
        let content_start = line_end(body, after).ok_or("a delimiter line does not end")?;
        let end = *starts
            .get(n + 1)
            .ok_or("the multipart body is not closed")?;
        let content = trim_line_break(body.get(content_start..end).unwrap_or_default());
        let (headers, part_body) = split_head(content)?;
        parts.push(Part {
            headers,
            body: part_body,
        });
    }
    Err("the multipart body is not closed".to_owned())
}

/// The index just past the end of the line that contains `from`.
fn line_end(body: &[u8], from: usize) -> Option<usize> {
    let rest = body.get(from..)?;
    memchr::memchr(b'\n', rest).map(|p| from + p + 1)
}

/// Drops the line break that belongs to the next delimiter.
fn trim_line_break(content: &[u8]) -> &[u8] {
    let content = content.strip_suffix(b"\n").unwrap_or(content);
    content.strip_suffix(b"\r").unwrap_or(content)
}

/// Splits header lines from the body at the first empty line.
fn split_head(content: &[u8]) -> Result<(Headers<'_>, &[u8]), String> {
    let (head, body) = head_and_body(content);
    // One UTF-8 check for all the lines: this runs for every operation of every batch.
    let head = text(head)?;
    let mut headers = Vec::with_capacity(8);
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', head.as_bytes()) {
        push_header(&mut headers, head.get(start..end).unwrap_or_default())?;
        start = end + 1;
    }
    push_header(&mut headers, head.get(start..).unwrap_or_default())?;
    Ok((headers, body))
}

/// The header lines, and what follows the first empty line (nothing when there is none).
fn head_and_body(content: &[u8]) -> (&[u8], &[u8]) {
    let mut pos = 0;
    while let Some(end) = line_end(content, pos) {
        let line = content.get(pos..end).unwrap_or_default();
        if line.iter().all(|&b| b == b'\r' || b == b'\n') {
            let head = content.get(..pos).unwrap_or_default();
            return (head, content.get(end..).unwrap_or_default());
        }
        pos = end;
    }
    (content, &[])
}

fn push_header<'a>(headers: &mut Headers<'a>, line: &'a str) -> Result<(), String> {
    let line = line.trim_ascii();
    if line.is_empty() {
        return Ok(());
    }
    let Some(colon) = memchr::memchr(b':', line.as_bytes()) else {
        return Err(format!("`{line}` is not a header"));
    };
    let name = line.get(..colon).unwrap_or_default().trim_ascii();
    let value = line.get(colon + 1..).unwrap_or_default().trim_ascii();
    headers.push((name, value));
    Ok(())
}

fn text(line: &[u8]) -> Result<&str, String> {
    std::str::from_utf8(line).map_err(|_| "a header line is not UTF-8".to_owned())
}

/// Parses a changeset part's content: `METHOD URL HTTP/1.1`, headers, body.
pub(crate) fn parse_sub_request(content: &[u8]) -> Result<SubRequest<'_>, String> {
    let first_end = line_end(content, 0).ok_or("an operation has no request line")?;
    let request_line = text(content.get(..first_end).unwrap_or_default())?;
    let mut words = request_line.split_ascii_whitespace();
    let (Some(method), Some(url)) = (words.next(), words.next()) else {
        return Err(format!("`{}` is not a request line", request_line.trim()));
    };
    let (headers, body) = split_head(content.get(first_end..).unwrap_or_default())?;
    Ok(SubRequest {
        method,
        path: url_path(url),
        target: url_target(url),
        headers,
        body,
    })
}

/// The path of an absolute or relative URL, without its query.
fn url_path(url: &str) -> &str {
    let target = url_target(url);
    target.split_once('?').map_or(target, |(p, _)| p)
}

/// The path and query of an absolute or relative URL.
fn url_target(url: &str) -> &str {
    match url.find("://") {
        Some(i) => {
            let rest = url.get(i + 3..).unwrap_or_default();
            rest.find('/').and_then(|j| rest.get(j..)).unwrap_or("/")
        }
        None => url,
    }
}

#[cfg(test)]
mod tests;
