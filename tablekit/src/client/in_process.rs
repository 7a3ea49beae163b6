//! The in-process hook: an [`InProcessService`] answers the client's requests in the same
//! process, without sockets, so a test suite's thousands of operations cost no system calls.
//! The requests are the ones sent over HTTP (built, signed and retried the same way); only
//! the bytes on the wire are skipped.

use std::future::Future;
use std::pin::Pin;

use bytes::Bytes;
use http::{Request, Response};

/// Why an [`InProcessService`] gave no answer: the client reports it as a connection closed
/// without a response (which a retry policy may retry).
///
/// ```
/// use tablekit::client::InProcessError;
/// let gone: InProcessError = "the service stopped".into();
/// assert_eq!(gone.to_string(), "the service stopped");
/// ```
pub type InProcessError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// The future an [`InProcessService`] returns.
///
/// ```
/// use bytes::Bytes;
/// use http::Response;
/// use tablekit::client::InProcessFuture;
/// fn no_content<'a>() -> InProcessFuture<'a> {
///     Box::pin(async { Ok(Response::builder().status(204).body(Bytes::new())?) })
/// }
/// # let _ = no_content();
/// ```
pub type InProcessFuture<'a> =
    Pin<Box<dyn Future<Output = std::result::Result<Response<Bytes>, InProcessError>> + Send + 'a>>;

/// A Table service in the same process, which a client built with
/// [`ClientBuilder::in_process`](super::ClientBuilder::in_process) hands its requests to
/// instead of a network connection.
///
/// The request is what would go over HTTP: method, headers (`Authorization` and SAS query
/// parameters included, signed as always), the whole body, and the URI as the client
/// addresses it (`http://127.0.0.1:10002/devstoreaccount1/Tables?...`). The answer is the
/// whole response. The emulator of `tablekit-emulator`
/// is one (`Emulator::in_process_client`); a service that echoes requests shows the
/// shape:
///
/// ```
/// use bytes::Bytes;
/// use http::{Request, Response};
/// use tablekit::client::{InProcessFuture, InProcessService, TableServiceClient};
///
/// /// Says every table exists, and that it is the only one.
/// struct OneTable;
/// impl InProcessService for OneTable {
///     fn call(&self, request: Request<Bytes>) -> InProcessFuture<'_> {
///         Box::pin(async move {
///             assert_eq!(request.uri().path(), "/devstoreaccount1/Tables");
///             assert!(request.headers().contains_key("authorization"));
///             let body = r#"{"value":[{"TableName":"Gamers"}]}"#;
///             Ok(Response::new(Bytes::from(body)))
///         })
///     }
/// }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use futures::TryStreamExt;
/// let client = TableServiceClient::builder()
///     .connection_string("UseDevelopmentStorage=true")
///     .in_process(std::sync::Arc::new(OneTable))
///     .build()?;
/// let names: Vec<String> = client.list_tables(None).try_collect().await?;
/// assert_eq!(names, ["Gamers"]);
/// # Ok(()) }
/// ```
pub trait InProcessService: Send + Sync {
    /// Answers one request with a whole response, or an error when it closed the connection
    /// without one.
    fn call(&self, request: Request<Bytes>) -> InProcessFuture<'_>;
}
