//! Exit codes and the failure every command returns: a kind (its exit code) and a message.

use std::fmt;
use std::process::ExitCode;

/// The exit codes, as `--help` lists them.
pub(crate) const EXIT_CODES_HELP: &str = "\
Exit codes:
  0    success
  1    the operation failed (the service refused it, the network failed, a write failed)
  2    bad input: a usage error, a malformed filter, a bad file (line and column named), a
       truncated or damaged backup, a missing or unreadable secret
  3    not found: the table or the entity does not exist
  4    conflict: the entity or table exists already, or its ETag no longer matches
  130  interrupted by Ctrl-C (a resumable command has written its checkpoint)";

/// What went wrong, by exit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// 1: the operation failed.
    Failed,
    /// 2: bad input.
    BadInput,
    /// 3: not found.
    NotFound,
    /// 4: conflict or precondition failed.
    Conflict,
    /// 130: interrupted.
    Interrupted,
    /// 0, silently: the reader of the output went away (`| head -1`), as Unix tools take it.
    OutputClosed,
}

impl Kind {
    /// The process exit code.
    pub(crate) fn code(self) -> u8 {
        match self {
            Kind::Failed => 1,
            Kind::BadInput => 2,
            Kind::NotFound => 3,
            Kind::Conflict => 4,
            Kind::Interrupted => 130,
            Kind::OutputClosed => 0,
        }
    }
}

/// A failed command: printed as `tablekit: MESSAGE`, exits with its kind's code.
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) kind: Kind,
    pub(crate) message: String,
}

impl Failure {
    /// A failure of this kind.
    pub(crate) fn new(kind: Kind, message: impl Into<String>) -> Self {
        Failure {
            kind,
            message: message.into(),
        }
    }

    /// Bad input (exit code 2).
    pub(crate) fn bad_input(message: impl Into<String>) -> Self {
        Failure::new(Kind::BadInput, message)
    }

    /// A failed operation (exit code 1).
    pub(crate) fn failed(message: impl Into<String>) -> Self {
        Failure::new(Kind::Failed, message)
    }

    /// The same failure, its message prefixed with what was being done.
    pub(crate) fn context(mut self, what: impl fmt::Display) -> Self {
        self.message = format!("{what}: {}", self.message);
        self
    }

    /// A failed write to the output: quiet when the reader closed it (a broken pipe).
    pub(crate) fn write_failed(error: &std::io::Error) -> Self {
        if error.kind() == std::io::ErrorKind::BrokenPipe {
            Failure::new(Kind::OutputClosed, "the output was closed")
        } else {
            Failure::failed(format!("cannot write the output: {error}"))
        }
    }

    /// Whether the failure is said on stderr (a closed output is not).
    pub(crate) fn is_reported(&self) -> bool {
        self.kind != Kind::OutputClosed
    }

    /// The exit code.
    pub(crate) fn exit_code(&self) -> ExitCode {
        ExitCode::from(self.kind.code())
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<tablekit::Error> for Failure {
    fn from(error: tablekit::Error) -> Self {
        // The client's errors never carry the key or the SAS signature (its own rule), so the
        // message can be shown as is.
        Failure::new(kind_of(&error), error.to_string())
    }
}

/// The exit code's kind for a client error.
pub(crate) fn kind_of(error: &tablekit::Error) -> Kind {
    if error.is_not_found() {
        Kind::NotFound
    } else if error.is_conflict() || error.is_precondition_failed() {
        Kind::Conflict
    } else if error.is_invalid_input()
        || matches!(
            error,
            tablekit::Error::Configuration(_) | tablekit::Error::Decode(_)
        )
        || error.status() == Some(400)
    {
        Kind::BadInput
    } else {
        Kind::Failed
    }
}

impl From<std::io::Error> for Failure {
    fn from(error: std::io::Error) -> Self {
        Failure::failed(error.to_string())
    }
}

/// A command's result.
pub(crate) type Outcome<T = ()> = Result<T, Failure>;
