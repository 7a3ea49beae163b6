//! [`ParseErrorAnswers`]: a connection whose HTTP-layer errors are answered like every other
//! error. hyper answers a request it cannot parse (400), a URL too long (414) or headers too
//! large (431) itself, with an empty body and none of the service's headers; clients that
//! read `Server` or the OData error body then fail on the answer instead of reporting it.
//! hyper offers no hook for these answers, so the connection replaces them as they are
//! written.

use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use http::StatusCode;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::format::error_response::ErrorResponse;
use crate::format::response;
use crate::pipeline::outgoing;

/// hyper's own answers are a bare head: a status line, `content-length: 0` and `date`.
/// Anything longer is not one of them.
const MAX_AUTOMATIC_HEAD: usize = 160;

/// A connection's stream, with hyper's automatic error answers replaced by the service's.
#[derive(Debug)]
pub(crate) struct ParseErrorAnswers<T> {
    io: T,
    /// The replacement answer, and how much of it is written.
    pending: Option<(Vec<u8>, usize)>,
}

impl<T> ParseErrorAnswers<T> {
    pub(crate) fn new(io: T) -> Self {
        ParseErrorAnswers { io, pending: None }
    }
}

impl<T: AsyncWrite + Unpin> ParseErrorAnswers<T> {
    /// Writes what is left of a replacement answer.
    fn poll_pending(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while let Some((bytes, written)) = &mut self.pending {
            let rest = bytes.get(*written..).unwrap_or_default();
            if rest.is_empty() {
                self.pending = None;
                break;
            }
            let n = ready!(Pin::new(&mut self.io).poll_write(cx, rest))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            *written += n;
        }
        Poll::Ready(Ok(()))
    }

    /// Takes `head` in place of the service's answer when it is one of hyper's own.
    fn replace(&mut self, head: &[u8]) -> bool {
        match automatic_status(head) {
            Some(status) => {
                self.pending = Some((answer(status), 0));
                true
            }
            None => false,
        }
    }
}

/// The status of one of hyper's automatic answers, `None` for anything else. The service's
/// own answers always carry `x-ms-request-id`; hyper's never do.
fn automatic_status(head: &[u8]) -> Option<StatusCode> {
    if head.len() > MAX_AUTOMATIC_HEAD || !head.ends_with(b"\r\n\r\n") {
        return None;
    }
    let status = match head.strip_prefix(b"HTTP/1.1 ")?.get(..4)? {
        b"400 " => StatusCode::BAD_REQUEST,
        b"414 " => StatusCode::URI_TOO_LONG,
        b"431 " => StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
        _ => return None,
    };
    let lower = head.to_ascii_lowercase();
    memchr::memmem::find(&lower, b"x-ms-request-id")
        .is_none()
        .then_some(status)
}

/// The error a status of hyper's stands for.
fn error_for(status: StatusCode) -> ErrorResponse {
    match status {
        StatusCode::URI_TOO_LONG => ErrorResponse::new(
            status,
            "InvalidUri",
            "The request URL is longer than the server accepts.",
        ),
        StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE => ErrorResponse::new(
            status,
            "InvalidHeaderValue",
            "The request headers are larger or more numerous than the server accepts.",
        ),
        _ => ErrorResponse::invalid_input("The request is not valid HTTP/1.1."),
    }
}

/// The whole answer for `status`: the service's headers, an OData error body, and
/// `Connection: close`, since hyper closes the connection after it.
fn answer(status: StatusCode) -> Vec<u8> {
    let err = error_for(status);
    let request_id = uuid::Uuid::new_v4().hyphenated().to_string();
    let (content_type, body) = response::error_body(&err, &request_id, None, "");
    let mut headers = http::HeaderMap::new();
    outgoing::service_headers(&mut headers, &request_id);
    let mut out = Vec::with_capacity(512 + body.len());
    out.extend_from_slice(b"HTTP/1.1 ");
    out.extend_from_slice(status.as_str().as_bytes());
    out.push(b' ');
    out.extend_from_slice(status.canonical_reason().unwrap_or_default().as_bytes());
    out.extend_from_slice(b"\r\n");
    for (name, value) in &headers {
        out.extend_from_slice(name.as_str().as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(value.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    let lines = [
        format!("x-ms-error-code: {}\r\n", err.code),
        format!("content-type: {content_type}\r\n"),
        format!("content-length: {}\r\n", body.len()),
        "connection: close\r\n\r\n".to_owned(),
    ];
    for line in lines {
        out.extend_from_slice(line.as_bytes());
    }
    out.extend_from_slice(&body);
    out
}

impl<T: AsyncRead + Unpin> AsyncRead for ParseErrorAnswers<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for ParseErrorAnswers<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        ready!(self.poll_pending(cx))?;
        if self.replace(buf) {
            // hyper's bytes count as written: the replacement goes out in their place.
            let _ = self.poll_pending(cx)?;
            return Poll::Ready(Ok(buf.len()));
        }
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        ready!(self.poll_pending(cx))?;
        let mut parts = bufs.iter().filter(|b| !b.is_empty());
        if let (Some(head), None) = (parts.next(), parts.next()) {
            if self.replace(head) {
                let _ = self.poll_pending(cx)?;
                return Poll::Ready(Ok(head.len()));
            }
        }
        Pin::new(&mut self.io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_pending(cx))?;
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_pending(cx))?;
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_hypers_bare_heads_are_replaced() {
        let hyper = b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\ndate: Wed, 25 Nov 2026 21:09:28 GMT\r\n\r\n";
        assert_eq!(
            automatic_status(hyper),
            Some(StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE)
        );
        let ours = b"HTTP/1.1 400 Bad Request\r\nx-ms-request-id: 1\r\ncontent-length: 0\r\n\r\n";
        assert_eq!(automatic_status(ours), None);
        let ok = b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n";
        assert_eq!(automatic_status(ok), None);
        // A head followed by a body is never one of hyper's.
        let with_body = b"HTTP/1.1 400 Bad Request\r\ncontent-length: 2\r\n\r\n{}";
        assert_eq!(automatic_status(with_body), None);
    }

    #[test]
    fn the_replacement_is_a_whole_odata_error_answer() {
        let text = String::from_utf8(answer(StatusCode::URI_TOO_LONG)).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 414 URI Too Long\r\n"), "{head}");
        assert!(
            head.contains("\r\nx-ms-error-code: InvalidUri\r\n"),
            "{head}"
        );
        assert!(head.contains(&format!("\r\ncontent-length: {}\r\n", body.len())));
        let json: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(json["odata.error"]["code"], "InvalidUri");
    }
}
