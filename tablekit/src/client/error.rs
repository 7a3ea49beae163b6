//! The crate's [`Error`]: the client's error, into which every lower layer's error converts.
//!
//! Each layer owns the errors of what it does and knows nothing of the layers above it; `From`
//! carries each one here, so `?` works from validation through the codec to the wire:
//!
//! | layer | its error | becomes |
//! |---|---|---|
//! | entities | [`PropertyError`] | [`Error::Property`] |
//! | codec | [`DecodeError`] | [`Error::Decode`] |
//! | limits, filter parameters, queries | [`InvalidInput`], [`ParamError`](crate::filter::ParamError) | [`Error::InvalidInput`] |
//! | records | [`RecordError`] | [`Error::Record`] |
//! | split values | [`SplitError`] | [`Error::Split`], or the variant of the error it wraps |
//! | models | [`WrongKind`] | [`Error::WrongKind`] |
//! | serde models | [`SerdeError`] | [`Error::Serde`], or [`Error::Property`] for a property's |
//! | shared access signatures | [`SasError`] | [`Error::Sas`] |
//! | client | service answers, transport, timeouts, credentials, configuration | its own variants |
//! | storage patterns | each pattern's own error | [`Error::Pattern`], boxed |
//!
//! Bad input is [`Error::InvalidInput`] before anything is sent; service answers keep their
//! status and code behind predicates (`is_not_found`, `is_conflict`,
//! `is_precondition_failed`, `is_transient`) rather than numbers to match; transport errors are
//! boxed so the HTTP library is not part of the API. No message ever holds an account key or a
//! SAS signature.
//!
//! # Errors of the layer above
//!
//! The storage patterns ([`patterns`](crate::patterns)) are built on the client, so this type
//! cannot name their errors without importing the layer above it. Each pattern owns its error
//! type and converts it with `From` into [`Error::Pattern`], which holds it boxed;
//! [`Error::pattern_error`] gives it back by type. A pattern error that wraps a client error
//! (the last 412 of a conflict retry that ran out of attempts) names it as its `source()`,
//! and every predicate answers for that client error, so `is_precondition_failed`,
//! `may_have_been_applied` and the others work through the wrapper.
//!
//! The alternative, each pattern function returning its own error type that wraps this one,
//! was not chosen: pattern calls and client calls mix in one function and one stream (a
//! restore feeds the bulk writer a stream whose items fail with a backup error or a client
//! error, and its report holds either), and one type keeps `?`, the reports and the
//! predicates uniform, where wrappers would each repeat every predicate.
//!
//! ```
//! use tablekit::patterns::backup::{BackupError, BackupReader};
//! use tablekit::Error;
//! # futures::executor::block_on(async {
//! async fn open(file: &[u8]) -> tablekit::Result<u64> {
//!     let mut reader = BackupReader::open(file).await?; // a `BackupError`, boxed by `?`
//!     let mut n = 0;
//!     while reader.next_entity().await?.is_some() {
//!         n += 1;
//!     }
//!     Ok(n)
//! }
//! let err = open(b"not a backup\n").await.unwrap_err();
//! assert!(matches!(err, Error::Pattern(_)));
//! let backup = err.pattern_error::<BackupError>().expect("a backup error");
//! assert!(backup.is_corrupt() && backup.offset() == Some(0));
//! assert!(!err.is_transient() && err.status().is_none());
//! # });
//! ```

use std::error::Error as StdError;
use std::time::Duration;

use super::retry::is_retryable_status;
use super::service_error::{applied_note, ServiceError};
use crate::codec::DecodeError;
use crate::filter::params::ParamError;
use crate::model::auxiliary::AuxiliaryRow;
use crate::model::index::UniqueViolation;
use crate::model::record::RecordError;
use crate::model::serde_bridge::SerdeError;
use crate::model::split::SplitError;
use crate::model::table_model::WrongKind;
use crate::protocol::limits::InvalidInput;
use crate::protocol::sas::SasError;
use crate::values::convert::ValueError;
use crate::values::entity::PropertyError;

/// A `Result` whose error is tablekit's [`Error`].
///
/// ```
/// fn check_names(names: &[&str]) -> tablekit::Result<usize> {
///     for name in names {
///         tablekit::limits::validate_table_name(name)?; // `InvalidInput` converts into `Error`
///     }
///     Ok(names.len())
/// }
/// assert_eq!(check_names(&["Gamers", "Orders"])?, 2);
/// assert!(check_names(&["x"]).unwrap_err().is_invalid_input());
/// # Ok::<(), tablekit::Error>(())
/// ```
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in tablekit.
///
/// A failed write is not always an unapplied one: an attempt whose connection dropped, that
/// timed out or that the service answered 500/502/504 may have been applied, and the
/// client's retries then meet what it did. Where the client can prove that an earlier
/// attempt applied the write (a retried insert meets a 409 and the stored entity is exactly
/// what was sent; a retried transaction meets a conflict and every row is as it left it), it
/// reports success; where it cannot, the error says so:
/// [`may_have_been_applied`](Error::may_have_been_applied) answers "may this write have
/// been applied?", and [`after_uncertain_attempt`](Error::after_uncertain_attempt) whether
/// the answer came after such an attempt. Check the first before telling anyone a write
/// failed.
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
    #[error(transparent)]
    Property(#[from] PropertyError),
    /// A payload from the service (or a file) could not be decoded.
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// Record bytes (see [`record`](crate::record)) could not be read.
    #[error("cannot read records: {0}")]
    Record(#[from] RecordError),
    /// A value split across properties (see [`split`](crate::split)) is too large to write or
    /// could not be read back intact.
    #[error(transparent)]
    Split(SplitError),
    /// A serde model (see [`serde_bridge`](crate::serde_bridge)) does not map onto an entity,
    /// or an entity onto it.
    #[error(transparent)]
    Serde(SerdeError),
    /// A row is not of the model's kind (see [`Discriminator`](crate::Discriminator)): read
    /// through a model whose kind it does not hold, or given to a write of that model.
    #[error(transparent)]
    WrongKind(#[from] WrongKind),
    /// A unique secondary index (see [`index`](crate::index)) refused a value another entity
    /// holds; nothing of the write was applied.
    #[error(transparent)]
    UniqueViolation(#[from] UniqueViolation),
    /// A write of a model that keeps rows beside its entities lost every race against other
    /// writers of the same entity; nothing of it was applied (see
    /// [`Contended`](crate::client::Contended)).
    #[error(transparent)]
    Contended(#[from] super::contention::Contended),
    /// A row a model keeps beside its entities (an index row) where an entity was expected.
    #[error(transparent)]
    AuxiliaryRow(#[from] AuxiliaryRow),
    /// The service answered with an error status (see [`ServiceError`] for the code).
    #[error(transparent)]
    Service(Box<ServiceError>),
    /// An operation of an entity group transaction failed, so none was applied.
    #[error("{}", batch_message(*.index, .source))]
    Batch {
        /// The 0-based index of the failing operation, when the service named it.
        index: Option<usize>,
        /// The failing operation's error.
        source: Box<ServiceError>,
    },
    /// The request could not be sent or its answer not received (connection refused, reset,
    /// TLS, ...). Boxed so the HTTP library is not part of the API.
    #[error("transport error: {source}{}", applied_note(*.after_uncertain_attempt))]
    Transport {
        /// What failed.
        #[source]
        source: Box<dyn StdError + Send + Sync + 'static>,
        /// Whether this ends a write that this attempt or an earlier one may have applied:
        /// see [`Error::after_uncertain_attempt`].
        after_uncertain_attempt: bool,
    },
    /// No answer arrived within the per-try timeout
    /// ([`ClientBuilder::timeout`](crate::client::ClientBuilder::timeout)), on the last attempt.
    #[error("the request timed out after {after:?}{}", applied_note(*.after_uncertain_attempt))]
    Timeout {
        /// The timeout of each attempt.
        after: Duration,
        /// Whether this ends a write that this attempt or an earlier one may have applied:
        /// see [`Error::after_uncertain_attempt`].
        after_uncertain_attempt: bool,
    },
    /// The operation, its retries and the waits between them included, did not finish within
    /// the operation timeout
    /// ([`ClientBuilder::operation_timeout`](crate::client::ClientBuilder::operation_timeout)).
    #[error("the operation timed out after {after:?}{}", applied_note(*.after_uncertain_attempt))]
    OperationTimeout {
        /// The operation timeout.
        after: Duration,
        /// Whether this ends a write that an attempt may have applied (one was under way, or
        /// an earlier one may have been applied): see [`Error::after_uncertain_attempt`].
        after_uncertain_attempt: bool,
    },
    /// A bearer [`TokenProvider`](crate::client::TokenProvider) failed to supply a token.
    #[error("the token provider failed: {0}")]
    Credential(#[source] Box<dyn StdError + Send + Sync + 'static>),
    /// A connection string, endpoint, credential or handle that cannot work.
    #[error("invalid configuration: {0}")]
    Configuration(String),
    /// A shared access signature that cannot be signed as asked: invalid configuration, as
    /// the token is part of how a client is set up. Its [`SasError`] is the source.
    ///
    /// ```
    /// use chrono::{Duration, Utc};
    /// use tablekit::auth::AccountKey;
    /// use tablekit::sas::{SasError, TablePermissions, TableSas};
    /// use tablekit::Error;
    /// let key = AccountKey::from_base64("a2V5")?;
    /// let sas = TableSas::new("Gamers", TablePermissions::empty(), Utc::now() + Duration::hours(1));
    /// let err: Error = sas.sign("acct", &key).unwrap_err().into();
    /// assert!(matches!(err, Error::Sas(SasError::NoPermissions)));
    /// assert!(err.to_string().starts_with("invalid configuration: "));
    /// # Ok::<(), tablekit::auth::InvalidKey>(())
    /// ```
    #[error("invalid configuration: {0}")]
    Sas(#[from] SasError),
    /// The error of a storage pattern built on the client (see the module docs): a backup
    /// file that cannot be read, a conflict retry that ran out of attempts. Get it back by
    /// type with [`pattern_error`](Error::pattern_error); the predicates answer for the
    /// client error it wraps, if any.
    #[error(transparent)]
    Pattern(Box<dyn StdError + Send + Sync + 'static>),
}

impl From<ParamError> for Error {
    fn from(problem: ParamError) -> Self {
        Error::InvalidInput(problem.into())
    }
}

/// A split value's error becomes the error its cause is everywhere else: an invalid name is
/// invalid input, an unfetched property a property error, unreadable records a record error.
impl From<SplitError> for Error {
    fn from(error: SplitError) -> Self {
        match error {
            SplitError::InvalidInput(e) => Error::InvalidInput(e),
            SplitError::Property(e) => Error::Property(e),
            SplitError::Record(e) => Error::Record(e),
            other => Error::Split(other),
        }
    }
}

/// A property a serde model could not read is the property error it is everywhere else.
///
/// ```
/// use tablekit::serde_bridge::to_entity;
/// use tablekit::Error;
/// let err = to_entity(&42).unwrap_err();
/// assert!(matches!(Error::from(err), Error::Serde(_)));
/// ```
impl From<SerdeError> for Error {
    fn from(error: SerdeError) -> Self {
        match error {
            SerdeError::Property(e) => Error::Property(e),
            other => Error::Serde(other),
        }
    }
}

fn batch_message(index: Option<usize>, source: &ServiceError) -> String {
    match index {
        Some(index) => format!("operation {index} of the transaction failed: {source}"),
        None => format!("the transaction failed: {source}"),
    }
}

/// The client error a pattern's error wraps: the first [`Error`] in its `source()` chain.
fn wrapped_client_error<'e>(pattern: &'e (dyn StdError + 'static)) -> Option<&'e Error> {
    let mut next = pattern.source();
    while let Some(cause) = next {
        if let Some(error) = cause.downcast_ref::<Error>() {
            return Some(error);
        }
        next = cause.source();
    }
    None
}

impl Error {
    /// An error reading property `name`.
    pub fn property(name: &str, source: ValueError) -> Self {
        Error::Property(PropertyError::new(name, source))
    }

    /// A decode error about `what`.
    pub fn decode(what: impl Into<String>, message: impl Into<String>) -> Self {
        Error::Decode(DecodeError::new(what, message))
    }

    /// The error of a storage pattern inside an [`Error::Pattern`], as its type `E`: `None`
    /// for any other error or type.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tablekit::patterns::conflict_retry::{retry_on_conflict, ConflictRetry, RetriesExhausted};
    /// use tablekit::DynamicEntity;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let client = emulator.client();
    /// let table = client.table_named::<DynamicEntity>("Counters");
    /// table.create().await?;
    /// table.insert(&mut DynamicEntity::new("hits", "")).await?;
    /// let policy = ConflictRetry::new()
    ///     .max_attempts(2)?
    ///     .backoff(Duration::ZERO, Duration::ZERO)?;
    /// let err = retry_on_conflict(&policy, || async {
    ///     let mut stale = table.get("hits", "").await?.expect("exists");
    ///     table.upsert_merge(&mut table.get("hits", "").await?.expect("exists")).await?;
    ///     table.replace(&mut stale).await // always loses to the write before it
    /// })
    /// .await
    /// .unwrap_err();
    /// let exhausted = err.pattern_error::<RetriesExhausted>().expect("ran out of attempts");
    /// assert_eq!(exhausted.attempts, 2);
    /// assert!(err.is_precondition_failed()); // the predicates answer for the last 412
    /// assert!(err.pattern_error::<std::io::Error>().is_none());
    /// # Ok(()) }
    /// ```
    pub fn pattern_error<E: StdError + 'static>(&self) -> Option<&E> {
        match self {
            Error::Pattern(pattern) => pattern.downcast_ref::<E>(),
            _ => None,
        }
    }

    /// The error the predicates answer for: this one, or the client error that the pattern
    /// error inside it wraps.
    fn answering(&self) -> &Error {
        let mut error = self;
        while let Error::Pattern(pattern) = error {
            match wrapped_client_error(pattern.as_ref()) {
                Some(inner) => error = inner,
                None => break,
            }
        }
        error
    }

    /// Whether the input was refused before sending.
    pub fn is_invalid_input(&self) -> bool {
        matches!(self.answering(), Error::InvalidInput(_))
    }

    /// The problem with the input, when the client refused it before sending.
    ///
    /// ```
    /// use tablekit::{Error, InvalidInput};
    /// let err = Error::from(InvalidInput::TopOutOfRange { top: 0 });
    /// assert_eq!(err.invalid_input(), Some(&InvalidInput::TopOutOfRange { top: 0 }));
    /// ```
    pub fn invalid_input(&self) -> Option<&InvalidInput> {
        match self.answering() {
            Error::InvalidInput(e) => Some(e),
            _ => None,
        }
    }

    /// The service's error, for a failed request or a failed transaction operation.
    pub fn service_error(&self) -> Option<&ServiceError> {
        match self.answering() {
            Error::Service(e) => Some(e),
            Error::Batch { source, .. } => Some(source),
            _ => None,
        }
    }

    /// The HTTP status the service answered with, if it answered.
    ///
    /// ```
    /// # use tablekit::client::Table;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let client = emulator.client();
    /// let table: Table = client.table_named("Missing");
    /// let err = table.get("p", "r").await.unwrap_err(); // the table does not exist
    /// assert_eq!(err.status(), Some(404));
    /// // refused before sending: the service never answered
    /// let err = client.create_table("x").await.unwrap_err();
    /// assert_eq!(err.status(), None);
    /// # Ok(()) }
    /// ```
    pub fn status(&self) -> Option<u16> {
        self.service_error().map(ServiceError::status)
    }

    /// The service's error code (`EntityAlreadyExists`, `TableNotFound`, ...), if any.
    pub fn code(&self) -> Option<&str> {
        self.service_error().and_then(ServiceError::code)
    }

    /// 404: the table or entity does not exist.
    pub fn is_not_found(&self) -> bool {
        self.status() == Some(404)
    }

    /// 409: the table or entity already exists (or the table is being deleted).
    pub fn is_conflict(&self) -> bool {
        self.status() == Some(409)
    }

    /// 412: the entity changed since its ETag was read (optimistic concurrency lost).
    ///
    /// ```
    /// # use tablekit::client::Table;
    /// # use tablekit::DynamicEntity;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let client = emulator.client();
    /// let table: Table = client.table_named("Gamers");
    /// table.create().await?;
    /// let mut mine = DynamicEntity::new("eu", "dragon");
    /// table.insert(&mut mine).await?;
    /// let mut theirs = table.get("eu", "dragon").await?.expect("just inserted");
    /// theirs.set("Score", 10);
    /// table.merge(&mut theirs).await?; // the stored entity has a new ETag now
    /// mine.set("Score", 20);
    /// let err = table.merge(&mut mine).await.unwrap_err();
    /// assert!(err.is_precondition_failed());
    /// # Ok(()) }
    /// ```
    pub fn is_precondition_failed(&self) -> bool {
        self.status() == Some(412)
    }

    /// Whether this error ends a write after an attempt of it that may have been applied:
    /// an earlier attempt whose connection dropped, that timed out, or that the service
    /// answered 500/502/504. The answer may then describe what that attempt did: a 409 or
    /// 412 may be the echo of our own write, so re-read to decide (as
    /// [`update_with_retry`](crate::client::Table::update_with_retry) does). A transport
    /// failure or a timeout of a write is itself such an attempt, so when one ends a write
    /// this is true (unless no attempt got as far as a connection). Never true for reads,
    /// nor after attempts the service refused without applying them (408, 429, 503).
    ///
    /// [`may_have_been_applied`](Self::may_have_been_applied) asks the wider question.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tablekit::client::RetryPolicy;
    /// use tablekit::DynamicEntity;
    /// use tablekit_testing::{Emulator, Fault, Faults, Operation};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// // every insert is applied, then its connection drops before the answer
    /// let lost = Faults::seeded(1)
    ///     .rate(Fault::AppliedThenDropped, 1.0)
    ///     .only(&[Operation::Insert]);
    /// let emulator = Emulator::builder().faults(lost).start().await?;
    /// let client = emulator
    ///     .client_builder()
    ///     .retry_policy(RetryPolicy::default().base_delay(Duration::from_millis(1)))
    ///     .build()?;
    /// let table = client.table_named::<DynamicEntity>("Orders");
    /// table.create().await?;
    /// let err = table.insert(&mut DynamicEntity::new("order-17", "")).await.unwrap_err();
    /// assert!(err.is_transient()); // the last attempt lost its connection too
    /// assert!(err.after_uncertain_attempt());
    /// emulator.set_faults(None);
    /// assert!(table.get("order-17", "").await?.is_some()); // applied all the same
    /// # Ok(()) }
    /// ```
    pub fn after_uncertain_attempt(&self) -> bool {
        match self.answering() {
            Error::Transport {
                after_uncertain_attempt,
                ..
            }
            | Error::Timeout {
                after_uncertain_attempt,
                ..
            }
            | Error::OperationTimeout {
                after_uncertain_attempt,
                ..
            } => *after_uncertain_attempt,
            _ => self
                .service_error()
                .is_some_and(ServiceError::after_uncertain_attempt),
        }
    }

    /// The same error, saying that an earlier attempt of its write may have been applied.
    pub(crate) fn after_possibly_applied(mut self) -> Error {
        match &mut self {
            Error::Service(service) => service.mark_after_uncertain_attempt(),
            Error::Batch { source, .. } => source.mark_after_uncertain_attempt(),
            error => {
                if let Some(flag) = error.uncertain_flag() {
                    *flag = true;
                }
            }
        }
        self
    }

    /// The same error, saying that the attempt it answers may have been applied (a 500 to a
    /// write; a transport failure or timeout of one is itself such an attempt).
    pub(crate) fn with_uncertain_answer(mut self) -> Error {
        match &mut self {
            Error::Service(service) => service.mark_uncertain_answer(),
            error => {
                if let Some(flag) = error.uncertain_flag() {
                    *flag = true;
                }
            }
        }
        self
    }

    /// The flag of the errors that end a request without an answer.
    fn uncertain_flag(&mut self) -> Option<&mut bool> {
        match self {
            Error::Transport {
                after_uncertain_attempt,
                ..
            }
            | Error::Timeout {
                after_uncertain_attempt,
                ..
            }
            | Error::OperationTimeout {
                after_uncertain_attempt,
                ..
            } => Some(after_uncertain_attempt),
            _ => None,
        }
    }

    /// Whether the write this error ends may have been applied all the same: the question to
    /// ask before telling anyone it failed. True when the error itself leaves it open (a
    /// transport failure or timeout of a write, a 500/502/504 answer to a write) or when it
    /// came after such an attempt ([`after_uncertain_attempt`](Self::after_uncertain_attempt)).
    /// False means the write was not applied: refused before sending, refused by the service
    /// on every attempt, or a read.
    ///
    /// The two differ on the answer of the last attempt: a 500 to a write that was tried once
    /// may have been applied, yet no attempt came before it.
    ///
    /// ```
    /// use tablekit::client::RetryPolicy;
    /// use tablekit::DynamicEntity;
    /// use tablekit_testing::{Emulator, Fault, Faults, Operation};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// // every insert is applied, then answered 500 as if it had failed
    /// let failing = Faults::seeded(1)
    ///     .rate(Fault::AppliedThenInternalError, 1.0)
    ///     .only(&[Operation::Insert]);
    /// let emulator = Emulator::builder().faults(failing).start().await?;
    /// let client = emulator
    ///     .client_builder()
    ///     .retry_policy(RetryPolicy::none())
    ///     .build()?;
    /// let table = client.table_named::<DynamicEntity>("Orders");
    /// table.create().await?;
    /// let err = table.insert(&mut DynamicEntity::new("order-17", "")).await.unwrap_err();
    /// assert_eq!(err.status(), Some(500));
    /// assert!(err.may_have_been_applied()); // and it was
    /// assert!(!err.after_uncertain_attempt()); // the only attempt
    /// assert!(table.get("order-17", "").await?.is_some());
    ///
    /// // a conflict the service answered at once was not applied
    /// emulator.set_faults(None);
    /// let err = table.insert(&mut DynamicEntity::new("order-17", "")).await.unwrap_err();
    /// assert!(err.is_conflict() && !err.may_have_been_applied());
    /// # Ok(()) }
    /// ```
    pub fn may_have_been_applied(&self) -> bool {
        match self.answering() {
            Error::Transport { .. } | Error::Timeout { .. } | Error::OperationTimeout { .. } => {
                self.after_uncertain_attempt()
            }
            _ => self
                .service_error()
                .is_some_and(ServiceError::may_have_been_applied),
        }
    }

    /// 429, or 503 `ServerBusy`: the service asks the client to slow down.
    ///
    /// ```
    /// use tablekit::client::RetryPolicy;
    /// use tablekit_testing::{Emulator, Fault, Faults};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let busy = Faults::seeded(1).rate(Fault::ServerBusy, 1.0); // every request: 503 ServerBusy
    /// let emulator = Emulator::builder().faults(busy).start().await?;
    /// let client = emulator
    ///     .client_builder()
    ///     .retry_policy(RetryPolicy::none())
    ///     .build()?;
    /// let err = client.create_table("Gamers").await.unwrap_err();
    /// assert!(err.is_throttled());
    /// # Ok(()) }
    /// ```
    pub fn is_throttled(&self) -> bool {
        match self.status() {
            Some(429) => true,
            Some(503) => self.code().is_none_or(|c| c == "ServerBusy"),
            _ => false,
        }
    }

    /// Whether a retry may succeed: throttling, 408/500/502/503/504 (for a request or a
    /// transaction), timeouts and transport failures.
    ///
    /// ```
    /// use tablekit::client::RetryPolicy;
    /// use tablekit_testing::{Emulator, Fault, Faults};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let failing = Faults::seeded(1).rate(Fault::InternalError, 1.0); // every request: 500
    /// let emulator = Emulator::builder().faults(failing).start().await?;
    /// let client = emulator
    ///     .client_builder()
    ///     .retry_policy(RetryPolicy::none())
    ///     .build()?;
    /// let err = client.create_table("Gamers").await.unwrap_err();
    /// assert!(err.is_transient() && !err.is_throttled()); // a later attempt may succeed
    /// emulator.set_faults(None);
    /// client.create_table("Gamers").await?;
    /// let err = client.create_table("Gamers").await.unwrap_err(); // 409: retrying cannot help
    /// assert!(!err.is_transient());
    /// # Ok(()) }
    /// ```
    pub fn is_transient(&self) -> bool {
        match self.answering() {
            Error::Timeout { .. } | Error::OperationTimeout { .. } | Error::Transport { .. } => {
                true
            }
            // The service's status, of a request or of a transaction refused as a whole
            // (which applied nothing), as `status` reads it.
            _ => self.status().is_some_and(is_retryable_status),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pattern's error that wraps the client error it gave up on.
    #[derive(Debug, thiserror::Error)]
    #[error("gave up: {source}")]
    struct GaveUp {
        source: Error,
    }

    #[test]
    fn predicates_answer_for_the_client_error_a_pattern_error_wraps() {
        let refused =
            ServiceError::from_response(412, Some("UpdateConditionNotSatisfied".into()), None, b"");
        let wrapped = Error::Pattern(Box::new(GaveUp {
            source: Error::Service(Box::new(refused)),
        }));
        assert_eq!(wrapped.status(), Some(412));
        assert!(wrapped.is_precondition_failed() && !wrapped.is_transient());
        assert!(wrapped.pattern_error::<GaveUp>().is_some());
        let lost = Error::Pattern(Box::new(GaveUp {
            source: Error::Timeout {
                after: Duration::from_secs(1),
                after_uncertain_attempt: true,
            },
        }));
        assert!(
            lost.is_transient() && lost.may_have_been_applied() && lost.after_uncertain_attempt()
        );
        let own = Error::Pattern(Box::new(std::io::Error::other("damaged file")));
        assert!(!own.is_transient() && !own.is_invalid_input() && own.status().is_none());
    }

    fn transaction_error(index: Option<usize>, status: u16, code: &str) -> Error {
        let source = ServiceError::from_response(status, Some(code.to_owned()), None, b"");
        Error::Batch {
            index,
            source: Box::new(source),
        }
    }

    #[test]
    fn a_transaction_refused_as_a_whole_is_transient_as_a_single_write_is() {
        let busy = transaction_error(None, 503, "ServerBusy");
        assert!(busy.is_throttled());
        assert!(busy.is_transient());
        let conflict = transaction_error(Some(1), 409, "EntityAlreadyExists");
        assert!(!conflict.is_transient());
    }
}
