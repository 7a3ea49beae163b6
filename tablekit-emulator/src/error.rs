//! [`Error`]: why an emulator could not start or a fixture could not act.

use std::path::PathBuf;

/// A `Result` whose error is this crate's [`Error`].
///
/// ```
/// use tablekit_emulator::{Emulator, Result};
///
/// // A test helper: an emulator holding one table.
/// async fn with_table(name: &str) -> Result<Emulator> {
///     let emulator = Emulator::start().await?;
///     emulator.create_table(name)?;
///     Ok(emulator)
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<()> {
/// assert_eq!(with_table("Gamers").await?.table_names(), ["Gamers"]);
/// assert!(with_table("not a table name").await.is_err());
/// # Ok(()) }
/// ```
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What can go wrong starting an emulator or using its fixtures.
///
/// ```
/// use tablekit_emulator::Error;
/// let err = Error::InvalidKey { account: "acct".into() };
/// assert_eq!(err.to_string(), "the key of account `acct` is not valid base64");
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The listening socket could not be bound.
    #[error("cannot bind 127.0.0.1: {0}")]
    Bind(#[source] std::io::Error),
    /// An account key is not base64 (the key itself is never shown).
    #[error("the key of account `{account}` is not valid base64")]
    InvalidKey {
        /// The account.
        account: String,
    },
    /// The primary account was never added.
    #[error("account `{account}` is not configured")]
    UnknownAccount {
        /// The account.
        account: String,
    },
    /// The persistence directory could not be read or written.
    #[error("cannot use the data directory {}: {source}", path.display())]
    Persistence {
        /// The directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The request log file could not be opened.
    #[error("cannot write the request log {}: {source}", path.display())]
    RequestLog {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A data file is damaged or not what the emulator wrote: it refuses to start on it and
    /// changes nothing, so nothing in the file is lost.
    #[error("cannot start on {}: {problem}", path.display())]
    DataFile {
        /// The file.
        path: PathBuf,
        /// What is wrong with it, and what to do.
        problem: String,
    },
    /// A [`FaultProxy`](crate::FaultProxy) cannot forward to this upstream.
    #[error("cannot proxy `{url}`: {reason}")]
    Upstream {
        /// The upstream URL as given.
        url: String,
        /// Why.
        reason: String,
    },
    /// Input the service would reject.
    #[error(transparent)]
    InvalidInput(#[from] tablekit::InvalidInput),
    /// The emulator refused a fixture's operation as the service would.
    #[error("{code}: {message}")]
    Service {
        /// The service's error code, e.g. `TableAlreadyExists`.
        code: String,
        /// Its message.
        message: String,
    },
}

impl From<crate::format::error_response::ErrorResponse> for Error {
    fn from(err: crate::format::error_response::ErrorResponse) -> Self {
        Error::Service {
            code: err.code.to_owned(),
            message: err.message,
        }
    }
}
