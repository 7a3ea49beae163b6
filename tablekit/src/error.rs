//! The crate's one [`Error`] type.

use crate::convert::ValueError;
use crate::limits::InvalidInput;
use crate::record::RecordError;
use crate::split::SplitError;

/// A `Result` whose error is tablekit's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in tablekit.
///
/// ```
/// use tablekit::{limits, Error};
/// let err: Error = limits::validate_table_name("x").unwrap_err().into();
/// assert!(err.is_invalid_input());
/// assert!(err.to_string().contains("invalid table name"));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Input the service would reject, caught before anything was sent.
    #[error(transparent)]
    InvalidInput(#[from] InvalidInput),
    /// A property could not be read as the requested type.
    #[error("property `{property}`: {source}")]
    Property {
        /// The property's name.
        property: String,
        /// Why it could not be read.
        #[source]
        source: ValueError,
    },
    /// A payload from the service (or a file) could not be decoded.
    #[error("cannot decode {what}: {message}")]
    Decode {
        /// What was being decoded, e.g. `property \`Age\``.
        what: String,
        /// What was wrong.
        message: String,
    },
    /// Record bytes (see [`record`](crate::record)) could not be read.
    #[error("cannot read records: {0}")]
    Record(#[from] RecordError),
    /// A value split across properties (see [`split`](crate::split)) is too large to write or
    /// could not be read back intact.
    #[error(transparent)]
    Split(#[from] SplitError),
}

impl Error {
    /// An error reading property `name`.
    pub fn property(name: &str, source: ValueError) -> Self {
        Error::Property {
            property: name.to_owned(),
            source,
        }
    }

    /// A decode error about `what`.
    pub fn decode(what: impl Into<String>, message: impl Into<String>) -> Self {
        Error::Decode {
            what: what.into(),
            message: message.into(),
        }
    }

    /// Whether the input was refused before sending.
    pub fn is_invalid_input(&self) -> bool {
        matches!(self, Error::InvalidInput(_))
    }
}
