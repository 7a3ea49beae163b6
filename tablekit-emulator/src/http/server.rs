//! [`Emulator`]: the HTTP server on 127.0.0.1, its options ([`EmulatorBuilder`]) and its
//! life cycle (it stops on [`Emulator::shutdown`] or when dropped).

use std::collections::HashMap;
use std::fmt;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use tablekit::auth::AccountKey;
use tablekit::client::{ClientBuilder, TableServiceClient};
use tablekit::limits::Flavor;
use tablekit::sas::{AccountSas, SasError, SasToken, TableSas};
use tokio::net::TcpListener;
use tokio::sync::watch;

use crate::error::{Error, Result};
use crate::http::connections::Activity;
use crate::http::parse_errors::ParseErrorAnswers;
use crate::http::serving::Serving;
use crate::pipeline::app::{app, App};
use crate::pipeline::counter::RequestCounts;
use crate::pipeline::faults::Faults;
use crate::pipeline::incoming::IncomingRequest;
use crate::pipeline::service::Service;
use crate::pipeline::state::State;
use crate::pipeline::throttle::{Throttle, ThrottledCounts};
use crate::query::cost::QueryCosts;
use crate::storage::store::Store;

/// The development account's name: the primary account unless the builder names another.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use tablekit_emulator::{Emulator, DEV_ACCOUNT};
/// let emulator = Emulator::start().await?;
/// assert_eq!(emulator.account(), DEV_ACCOUNT);
/// assert!(emulator.connection_string().contains("AccountName=devstoreaccount1;"));
/// # Ok(()) }
/// ```
pub const DEV_ACCOUNT: &str = "devstoreaccount1";
/// The development account's key (public, documented by Microsoft).
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use tablekit::client::{Credential, TableServiceClient};
/// use tablekit_emulator::{Emulator, DEV_KEY};
/// let emulator = Emulator::start().await?;
/// let client = TableServiceClient::builder()
///     .endpoint(&emulator.endpoint())
///     .credential(Credential::shared_key(DEV_KEY)?)
///     .build()?;
/// client.create_table("Gamers").await?;
/// assert_eq!(emulator.table_names(), ["Gamers"]);
/// # Ok(()) }
/// ```
pub const DEV_KEY: &str =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

/// An in-process Table service on `127.0.0.1`, behaving like Azure Table Storage.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), tablekit_emulator::Error> {
/// use tablekit_emulator::Emulator;
/// let emulator = Emulator::start().await?;
/// assert!(emulator.endpoint().starts_with("http://127.0.0.1:"));
/// assert!(emulator.endpoint().ends_with("/devstoreaccount1"));
/// assert!(emulator.connection_string().contains("TableEndpoint=http://127.0.0.1:"));
/// emulator.shutdown().await;
/// # Ok(()) }
/// ```
pub struct Emulator {
    addr: SocketAddr,
    primary: (String, String),
    pub(crate) state: Arc<State>,
    /// The request pipeline, which the in-process transport calls without sockets too.
    pub(crate) app: Arc<App>,
    serving: Serving,
}

impl fmt::Debug for Emulator {
    // Account keys are secrets: never printed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Emulator")
            .field("endpoint", &self.endpoint())
            .field("account", &self.primary.0)
            .finish_non_exhaustive()
    }
}

impl Emulator {
    /// Starts an emulator with the development account on a free port, in memory.
    ///
    /// Each call starts a separate, empty service:
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), tablekit_emulator::Error> {
    /// use tablekit_emulator::Emulator;
    /// let a = Emulator::start().await?;
    /// let b = Emulator::start().await?;
    /// a.create_table("Gamers")?;
    /// assert_ne!(a.addr(), b.addr());
    /// assert!(b.table_names().is_empty());
    /// # Ok(()) }
    /// ```
    pub async fn start() -> Result<Emulator> {
        Emulator::builder().start().await
    }

    /// Options: accounts, port, persistence, faults.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), tablekit_emulator::Error> {
    /// use tablekit_emulator::{Emulator, Faults};
    /// let emulator = Emulator::builder()
    ///     .account("acct2", "a2V5")
    ///     .faults(Faults::seeded(1))
    ///     .start()
    ///     .await?;
    /// assert!(emulator.endpoint_for("acct2").ends_with("/acct2"));
    /// # Ok(()) }
    /// ```
    pub fn builder() -> EmulatorBuilder {
        EmulatorBuilder::default()
    }

    /// `http://127.0.0.1:PORT/devstoreaccount1`: the table endpoint of the primary account.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use tablekit::client::Endpoint;
    /// let emulator = tablekit_emulator::Emulator::start().await?;
    /// assert_eq!(emulator.endpoint(), format!("http://{}/devstoreaccount1", emulator.addr()));
    /// // Path style: the account is named in the path, not in the host.
    /// assert_eq!(Endpoint::parse(&emulator.endpoint())?.account(), "devstoreaccount1");
    /// # Ok(()) }
    /// ```
    pub fn endpoint(&self) -> String {
        self.endpoint_for(&self.primary.0)
    }

    /// The table endpoint of `account`. Each account has its own tables.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use tablekit::client::{Credential, TableServiceClient};
    /// use tablekit_emulator::Emulator;
    /// let emulator = Emulator::builder().account("acct2", "a2V5").start().await?;
    /// let client = TableServiceClient::builder()
    ///     .endpoint(&emulator.endpoint_for("acct2"))
    ///     .credential(Credential::shared_key("a2V5")?)
    ///     .build()?;
    /// client.create_table("Gamers").await?;
    /// assert!(emulator.table_names().is_empty()); // the primary account has none
    /// # Ok(()) }
    /// ```
    pub fn endpoint_for(&self, account: &str) -> String {
        format!("http://{}/{account}", self.addr)
    }

    /// The address the server listens on: for tests that speak HTTP themselves.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let emulator = tablekit_emulator::Emulator::start().await?;
    /// assert!(emulator.addr().ip().is_loopback());
    /// let stream = tokio::net::TcpStream::connect(emulator.addr()).await?;
    /// assert_eq!(stream.peer_addr()?, emulator.addr());
    /// # Ok(()) }
    /// ```
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The primary account's name (`devstoreaccount1` unless configured).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), tablekit_emulator::Error> {
    /// use tablekit_emulator::Emulator;
    /// assert_eq!(Emulator::start().await?.account(), "devstoreaccount1");
    /// let emulator = Emulator::builder()
    ///     .account("acct2", "a2V5")
    ///     .primary_account("acct2")
    ///     .start()
    ///     .await?;
    /// assert_eq!(emulator.account(), "acct2");
    /// # Ok(()) }
    /// ```
    pub fn account(&self) -> &str {
        &self.primary.0
    }

    /// A connection string for the primary account, as Azure SDKs and tablekit read it.
    /// It holds the account key: treat it as a secret when the key is not the public
    /// development key.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use tablekit::client::TableServiceClient;
    /// let emulator = tablekit_emulator::Emulator::start().await?;
    /// let client = TableServiceClient::from_connection_string(&emulator.connection_string())?;
    /// assert!(client.endpoint().is_loopback());
    /// client.create_table("Gamers").await?;
    /// assert_eq!(emulator.table_names(), ["Gamers"]);
    /// # Ok(()) }
    /// ```
    pub fn connection_string(&self) -> String {
        format!(
            "DefaultEndpointsProtocol=http;AccountName={};AccountKey={};TableEndpoint={};",
            self.primary.0,
            self.primary.1,
            self.endpoint()
        )
    }

    /// A client for the primary account, with the default retry policy.
    ///
    /// # Panics
    ///
    /// Only when the HTTP client cannot be built at all (no TLS backend): the emulator's own
    /// connection string is always valid.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let emulator = tablekit_emulator::Emulator::start().await?;
    /// let client = emulator.client();
    /// client.create_table("Gamers").await?;
    /// assert_eq!(emulator.table_names(), ["Gamers"]);
    /// # Ok(()) }
    /// ```
    pub fn client(&self) -> TableServiceClient {
        self.client_builder()
            .build()
            .unwrap_or_else(|e| panic!("a client for the emulator: {e}"))
    }

    /// A client builder set up for the primary account: for a client with its own retry
    /// policy or timeout.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use tablekit::client::RetryPolicy;
    /// use tablekit_emulator::{Emulator, Fault, Faults};
    /// let emulator = Emulator::start().await?;
    /// let client = emulator.client_builder().retry_policy(RetryPolicy::none()).build()?;
    /// emulator.set_faults(Some(Faults::seeded(1).rate(Fault::ServerBusy, 1.0)));
    /// assert!(client.create_table("Gamers").await.unwrap_err().is_throttled());
    /// assert_eq!(emulator.requests().total(), 1); // no retry
    /// # Ok(()) }
    /// ```
    pub fn client_builder(&self) -> ClientBuilder {
        TableServiceClient::builder()
            .connection_string(&self.connection_string())
            .flavor(self.state.limits.flavor)
    }

    /// A signed table SAS query string for the primary account.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use chrono::{Duration, Utc};
    /// use tablekit::sas::{TablePermissions, TableSas};
    /// use tablekit_emulator::Emulator;
    /// let emulator = Emulator::start().await?;
    /// let expiry = Utc::now() + Duration::hours(1);
    /// let token = emulator.sas(&TableSas::new("Gamers", TablePermissions::QUERY, expiry))?;
    /// assert!(token.contains("sig="));
    /// # Ok(()) }
    /// ```
    pub fn sas(&self, sas: &TableSas) -> std::result::Result<String, SasError> {
        self.signed(|account, key| sas.sign(account, key))
    }

    /// A signed account SAS query string for the primary account.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use chrono::{Duration, Utc};
    /// use tablekit::client::{Credential, TableServiceClient};
    /// use tablekit::sas::{AccountPermissions, AccountSas, ResourceTypes};
    /// use tablekit_emulator::Emulator;
    /// let emulator = Emulator::start().await?;
    /// let list = AccountSas::new(
    ///     ResourceTypes::CONTAINER,
    ///     AccountPermissions::LIST,
    ///     Utc::now() + Duration::hours(1),
    /// );
    /// let client = TableServiceClient::builder()
    ///     .endpoint(&emulator.endpoint())
    ///     .credential(Credential::sas(&emulator.account_sas(&list)?)?)
    ///     .build()?;
    /// assert!(client.list_table_names(None).await?.is_empty());
    /// assert_eq!(client.create_table("Gamers").await.unwrap_err().status(), Some(403));
    /// # Ok(()) }
    /// ```
    pub fn account_sas(&self, sas: &AccountSas) -> std::result::Result<String, SasError> {
        self.signed(|account, key| sas.sign(account, key))
    }

    /// A token `sign` makes with the primary account's key (always configured).
    fn signed(
        &self,
        sign: impl FnOnce(&str, &AccountKey) -> std::result::Result<SasToken, SasError>,
    ) -> std::result::Result<String, SasError> {
        let account = &self.primary.0;
        match self
            .state
            .accounts
            .get(account)
            .and_then(|keys| keys.first())
        {
            Some(key) => Ok(sign(account, key)?.into_string()),
            None => Ok(String::new()),
        }
    }

    /// How many requests of each kind arrived so far.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use tablekit::DynamicEntity;
    /// use tablekit_emulator::{Emulator, Operation};
    /// let emulator = Emulator::start().await?;
    /// let client = emulator.client();
    /// let table = client.table_named::<DynamicEntity>("Gamers");
    /// table.create().await?;
    /// assert!(table.get("dragon", "").await?.is_none());
    /// let requests = emulator.requests();
    /// assert_eq!(requests.count(Operation::Get), 1);
    /// assert_eq!(requests.total(), 2);
    /// # Ok(()) }
    /// ```
    pub fn requests(&self) -> RequestCounts {
        self.state.counter.snapshot()
    }

    /// Time spent answering requests since the start, summed over all requests: parsing,
    /// authentication, storage and writing the answers, without the HTTP framing and the
    /// network. Sampled before and after a workload, it shows the server's own share of the
    /// time when client and emulator share a process.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), tablekit_emulator::Error> {
    /// let emulator = tablekit_emulator::Emulator::start().await?;
    /// assert_eq!(emulator.busy_time(), std::time::Duration::ZERO);
    /// # Ok(()) }
    /// ```
    pub fn busy_time(&self) -> std::time::Duration {
        self.state.counter.busy()
    }

    /// Sets all request counts back to zero, e.g. after a test's set-up.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let emulator = tablekit_emulator::Emulator::start().await?;
    /// let client = emulator.client();
    /// client.create_table("Gamers").await?;
    /// emulator.reset_requests();
    /// assert!(client.table_exists("Gamers").await?);
    /// assert_eq!(emulator.requests().total(), 1);
    /// # Ok(()) }
    /// ```
    pub fn reset_requests(&self) {
        self.state.counter.reset();
        self.state.costs.reset();
        if let Some(throttle) = &self.state.throttle {
            throttle.reset();
        }
    }

    /// The requests a [throttled](EmulatorBuilder::throttle) emulator refused, per partition
    /// and in total since the start or [`reset_requests`](Self::reset_requests) (none when
    /// it is not throttled).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), tablekit_emulator::Error> {
    /// let emulator = tablekit_emulator::Emulator::start().await?;
    /// assert_eq!(emulator.throttled().total(), 0);
    /// # Ok(()) }
    /// ```
    pub fn throttled(&self) -> ThrottledCounts {
        match &self.state.throttle {
            Some(throttle) => throttle.refused(),
            None => ThrottledCounts::default(),
        }
    }

    /// What the reads since the start or [`reset_requests`](Self::reset_requests) cost: the
    /// entities each query page and point read examined and returned (see [`QueryCost`](crate::QueryCost)).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use tablekit::DynamicEntity;
    /// let emulator = tablekit_emulator::Emulator::start().await?;
    /// emulator.create_table("Gamers")?;
    /// emulator.seed("Gamers", [DynamicEntity::new("eu", "dragon")])?;
    /// let gamers = emulator.client().table_named::<DynamicEntity>("Gamers");
    /// gamers.get("eu", "dragon").await?;
    /// let costs = emulator.query_costs();
    /// assert_eq!((costs.reads, costs.examined, costs.returned), (1, 1, 1));
    /// # Ok(()) }
    /// ```
    pub fn query_costs(&self) -> QueryCosts {
        self.state.costs.snapshot()
    }

    /// Replaces the fault-injection plan (`None` turns faults off), e.g. after seeding data.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use tablekit_emulator::{Emulator, Fault, Faults};
    /// let emulator = Emulator::start().await?;
    /// # let no_retries = tablekit::client::RetryPolicy::none();
    /// # let client = emulator.client_builder().retry_policy(no_retries).build()?;
    /// client.create_table("Gamers").await?; // set-up runs without faults
    /// emulator.set_faults(Some(Faults::seeded(1).rate(Fault::ServerBusy, 1.0)));
    /// assert!(client.table_exists("Gamers").await.unwrap_err().is_throttled());
    /// emulator.set_faults(None);
    /// assert!(client.table_exists("Gamers").await?);
    /// # Ok(()) }
    /// ```
    pub fn set_faults(&self, faults: Option<Faults>) {
        self.state.faults.set(faults);
    }

    /// Accepts `token` from now on as an OAuth bearer token (`Authorization: Bearer`) of every
    /// account's owner, as if Microsoft Entra ID had issued it for a role that may do
    /// everything. Other bearer tokens are refused with 403 `AuthenticationFailed`.
    ///
    /// ```
    /// use tablekit::client::{Credential, TableServiceClient, TokenFuture, TokenProvider};
    /// struct Issued;
    /// impl TokenProvider for Issued {
    ///     fn token(&self) -> TokenFuture<'_> {
    ///         Box::pin(async { Ok("eyJ0eXAi.issued".to_owned()) })
    ///     }
    /// }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let emulator = tablekit_emulator::Emulator::start().await?;
    /// let client = TableServiceClient::builder()
    ///     .endpoint(&emulator.endpoint())
    ///     .credential(Credential::bearer(Issued))
    ///     .build()?;
    /// assert_eq!(client.create_table("Gamers").await.unwrap_err().status(), Some(403));
    /// emulator.accept_bearer_token("eyJ0eXAi.issued");
    /// client.create_table("Gamers").await?;
    /// # Ok(()) }
    /// ```
    pub fn accept_bearer_token(&self, token: &str) {
        self.state.accept_bearer(token);
    }

    /// Stops accepting connections, closes the open ones and waits for the server task.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let emulator = tablekit_emulator::Emulator::start().await?;
    /// let addr = emulator.addr();
    /// emulator.shutdown().await;
    /// assert!(tokio::net::TcpStream::connect(addr).await.is_err()); // nothing listens
    /// # Ok(()) }
    /// ```
    pub async fn shutdown(mut self) {
        self.serving.stop().await;
    }
}

impl Drop for Emulator {
    // Connections may still hold the state for a moment: the data directory is released now,
    // so a new emulator can start on it as soon as this one is gone.
    fn drop(&mut self) {
        self.state.store.close();
    }
}

/// Options for an [`Emulator`]; [`start`](EmulatorBuilder::start) validates and starts it.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), tablekit_emulator::Error> {
/// use tablekit_emulator::Emulator;
/// let err = Emulator::builder().account("bad", "not base64!").start().await.unwrap_err();
/// assert!(err.to_string().contains("bad"));
/// # Ok(()) }
/// ```
pub struct EmulatorBuilder {
    host: IpAddr,
    port: u16,
    accounts: Vec<(String, String)>,
    second_keys: Vec<(String, String)>,
    primary: Option<String>,
    persist: Option<PathBuf>,
    faults: Option<Faults>,
    header_timeout: Duration,
    body_timeout: Duration,
    max_connections: usize,
    flavor: Flavor,
    request_log: Option<PathBuf>,
    throttle: Option<Throttle>,
}

/// How long a client may take to send a request's headers, and how long a keep-alive
/// connection may sit idle: a minute, as common web servers allow, long enough for any
/// client's pool (tablekit's drops idle connections after 4 s) and short enough that
/// connections that never finish a request do not pile up.
pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(60);

/// How long a request's whole body may take to arrive once its headers have: at most 4 MiB
/// (a `$batch`) or 8 MiB, which any client sends in far less.
pub const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(60);

/// Connections served at once: under the usual limit of 1,024 open files per process, so the
/// limit bites before the process runs out of descriptors.
pub const DEFAULT_MAX_CONNECTIONS: usize = 512;

impl Default for EmulatorBuilder {
    fn default() -> Self {
        EmulatorBuilder {
            host: IpAddr::V4(Ipv4Addr::LOCALHOST),
            port: 0,
            accounts: Vec::new(),
            second_keys: Vec::new(),
            primary: None,
            persist: None,
            faults: None,
            header_timeout: DEFAULT_HEADER_TIMEOUT,
            body_timeout: DEFAULT_BODY_TIMEOUT,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            flavor: Flavor::Storage,
            request_log: None,
            throttle: None,
        }
    }
}

impl fmt::Debug for EmulatorBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.accounts.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("EmulatorBuilder")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("accounts", &names)
            .field("persist", &self.persist)
            .field("faults", &self.faults)
            .field("header_timeout", &self.header_timeout)
            .field("body_timeout", &self.body_timeout)
            .field("max_connections", &self.max_connections)
            .field("flavor", &self.flavor)
            .field("request_log", &self.request_log)
            .field("throttle", &self.throttle)
            .finish()
    }
}

impl EmulatorBuilder {
    /// Listens on this address instead of `127.0.0.1`: `0.0.0.0` serves other machines too,
    /// which a test never needs.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use std::net::Ipv4Addr;
    /// use tablekit_emulator::Emulator;
    /// let emulator = Emulator::builder().host(Ipv4Addr::LOCALHOST.into()).start().await?;
    /// assert!(emulator.addr().ip().is_loopback());
    /// # Ok(()) }
    /// ```
    pub fn host(mut self, host: IpAddr) -> Self {
        self.host = host;
        self
    }

    /// Listens on this port (0, the default, picks a free one).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use tablekit_emulator::Emulator;
    /// let free = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
    /// let emulator = Emulator::builder().port(free).start().await?;
    /// assert_eq!(emulator.addr().port(), free);
    /// # Ok(()) }
    /// ```
    pub fn port(mut self, port: u16) -> Self {
        self.port = port;
        self
    }

    /// Adds an account with its base64 key (the development account is always there).
    /// Requests to the account must be signed with that key.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use tablekit::client::{Credential, TableServiceClient};
    /// use tablekit_emulator::Emulator;
    /// let emulator = Emulator::builder().account("acct2", "a2V5").start().await?;
    /// let client_with = |key: &str| {
    ///     TableServiceClient::builder()
    ///         .endpoint(&emulator.endpoint_for("acct2"))
    ///         .credential(Credential::shared_key(key)?)
    ///         .build()
    /// };
    /// client_with("a2V5")?.create_table("Gamers").await?;
    /// let err = client_with("b3RoZXI=")?.create_table("Orders").await.unwrap_err();
    /// assert_eq!(err.status(), Some(403));
    /// # Ok(()) }
    /// ```
    pub fn account(mut self, name: &str, key_base64: &str) -> Self {
        self.accounts.retain(|(n, _)| n != name);
        self.accounts.push((name.to_owned(), key_base64.to_owned()));
        self
    }

    /// Gives account `name` (the development account or one added with
    /// [`account`](Self::account)) a second key, as Azure's key2 and Azurite's
    /// `AZURITE_ACCOUNTS=name:key1:key2`: requests signed with either key are accepted, so
    /// clients can move to a new key before the old one goes. An unknown account is
    /// [`Error::UnknownAccount`] at [`start`](Self::start).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use tablekit::client::{Credential, TableServiceClient};
    /// use tablekit_emulator::Emulator;
    /// let emulator = Emulator::builder()
    ///     .account("acct2", "a2V5")
    ///     .second_key("acct2", "bmV3")
    ///     .start()
    ///     .await?;
    /// let client_with = |key: &str| {
    ///     TableServiceClient::builder()
    ///         .endpoint(&emulator.endpoint_for("acct2"))
    ///         .credential(Credential::shared_key(key)?)
    ///         .build()
    /// };
    /// client_with("a2V5")?.create_table("Old").await?;
    /// client_with("bmV3")?.create_table("New").await?;
    /// let err = client_with("b3RoZXI=")?.create_table("Other").await.unwrap_err();
    /// assert_eq!(err.status(), Some(403));
    /// # Ok(()) }
    /// ```
    pub fn second_key(mut self, name: &str, key_base64: &str) -> Self {
        self.second_keys.retain(|(n, _)| n != name);
        self.second_keys
            .push((name.to_owned(), key_base64.to_owned()));
        self
    }

    /// Makes `name` (added with [`account`](Self::account)) the primary account: the one
    /// of [`Emulator::endpoint`], [`Emulator::connection_string`] and the fixtures.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), tablekit_emulator::Error> {
    /// use tablekit_emulator::Emulator;
    /// let emulator = Emulator::builder()
    ///     .account("acct2", "a2V5")
    ///     .primary_account("acct2")
    ///     .start()
    ///     .await?;
    /// assert!(emulator.endpoint().ends_with("/acct2"));
    /// assert!(emulator.connection_string().contains("AccountName=acct2;"));
    /// # Ok(()) }
    /// ```
    pub fn primary_account(mut self, name: &str) -> Self {
        self.primary = Some(name.to_owned());
        self
    }

    /// Keeps the data in `dir` (created if needed): acknowledged writes survive a restart,
    /// a killed process and, on a disk that honours flushes, a power cut.
    ///
    /// The data is kept in an embedded database file, `tables.redb`, and a write-ahead log
    /// beside it (`tables.wal.0`, `tables.wal.1`, a few megabytes each while running): every
    /// write is answered only after it is in the log and fsynced, the writes of concurrent
    /// requests sharing one fsync (a request's changes stay together, so a `$batch` survives
    /// whole or not at all). A write that cannot be made durable is refused with 500
    /// `InternalError`. Every few megabytes the log is checkpointed into the database in the
    /// background, and a clean shutdown checkpoints it all and removes the log. Space freed
    /// by overwrites and deletes is reused while running. On start every checksum in the
    /// files is verified and the log's writes beyond the last checkpoint are applied: a
    /// damaged file refuses the start with [`Error::DataFile`] naming it, and is left
    /// untouched. A `journal.jsonl` written by earlier versions is migrated once (every
    /// line verified; one that does not parse refuses the migration with its line number)
    /// and then kept as `journal.jsonl.migrated`. Writes cost an fsync each group: leave
    /// persistence off where durability does not matter.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use tablekit_emulator::Emulator;
    /// let dir = tempfile::tempdir()?;
    /// let emulator = Emulator::builder().persist_to(dir.path()).start().await?;
    /// emulator.create_table("Kept")?;
    /// drop(emulator);
    /// let again = Emulator::builder().persist_to(dir.path()).start().await?;
    /// assert_eq!(again.table_names(), ["Kept"]);
    /// # Ok(()) }
    /// ```
    pub fn persist_to(mut self, dir: impl Into<PathBuf>) -> Self {
        self.persist = Some(dir.into());
        self
    }

    /// Injects faults and latency by this plan.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use tablekit_emulator::{Emulator, Fault, Faults};
    /// let emulator = Emulator::builder()
    ///     .faults(Faults::seeded(1).rate(Fault::DropConnection, 1.0))
    ///     .start()
    ///     .await?;
    /// # let no_retries = tablekit::client::RetryPolicy::none();
    /// # let client = emulator.client_builder().retry_policy(no_retries).build()?;
    /// let err = client.create_table("Gamers").await.unwrap_err();
    /// assert!(err.is_transient()); // the connection closed without an answer
    /// assert!(emulator.table_names().is_empty()); // nothing applied
    /// # Ok(()) }
    /// ```
    pub fn faults(mut self, faults: Faults) -> Self {
        self.faults = Some(faults);
        self
    }

    /// Closes a connection whose request headers do not arrive in full within `timeout`, or
    /// that sits idle between requests for as long ([`DEFAULT_HEADER_TIMEOUT`] by default), so
    /// connections that never finish a request cannot hold the server's memory and sockets.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use std::io::{Read, Write};
    /// use std::time::Duration;
    /// use tablekit_emulator::Emulator;
    /// let emulator = Emulator::builder()
    ///     .header_timeout(Duration::from_millis(100))
    ///     .start()
    ///     .await?;
    /// let addr = emulator.addr();
    /// let closed = tokio::task::spawn_blocking(move || {
    ///     let mut slow = std::net::TcpStream::connect(addr)?;
    ///     slow.write_all(b"GET /devstoreaccount1/Tables HTTP/1.1\r\nHost: x\r\n")?; // no end
    ///     slow.set_read_timeout(Some(Duration::from_secs(20)))?;
    ///     slow.read_to_end(&mut Vec::new()) // ends: the emulator closed the connection
    /// })
    /// .await?;
    /// assert!(closed.is_ok());
    /// # Ok(()) }
    /// ```
    pub fn header_timeout(mut self, timeout: Duration) -> Self {
        self.header_timeout = timeout;
        self
    }

    /// Answers 408 and closes the connection when a request's body does not arrive in full
    /// within `timeout` of its headers ([`DEFAULT_BODY_TIMEOUT`] by default).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use std::time::Duration;
    /// use tablekit_emulator::Emulator;
    /// let emulator = Emulator::builder()
    ///     .body_timeout(Duration::from_secs(5))
    ///     .start()
    ///     .await?;
    /// emulator.client().create_table("Gamers").await?; // bodies that arrive are read as ever
    /// # Ok(()) }
    /// ```
    pub fn body_timeout(mut self, timeout: Duration) -> Self {
        self.body_timeout = timeout;
        self
    }

    /// Serves at most `max` connections at once ([`DEFAULT_MAX_CONNECTIONS`] by default).
    /// A client past the limit takes the place of the connection idle longest (one waiting
    /// for a request, or for the rest of a request's headers), which is closed; only when
    /// every connection is answering a request does it wait, connected, until one closes. So
    /// idle and slow connections, however many, cannot lock new clients out.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use tablekit_emulator::Emulator;
    /// let emulator = Emulator::builder().max_connections(2).start().await?;
    /// // Two connections that never send a request.
    /// let idle = [
    ///     tokio::net::TcpStream::connect(emulator.addr()).await?,
    ///     tokio::net::TcpStream::connect(emulator.addr()).await?,
    /// ];
    /// emulator.client().create_table("Gamers").await?; // served all the same
    /// # drop(idle);
    /// # Ok(()) }
    /// ```
    pub fn max_connections(mut self, max: usize) -> Self {
        self.max_connections = max;
        self
    }

    /// Behaves as `flavor` (default [`Flavor::Storage`]). As [`Flavor::Cosmos`], the emulator
    /// applies the Cosmos DB Table API's documented differences that code meant for both
    /// services meets (see `tablekit::cosmos`): RowKeys up to 255 bytes, the reserved
    /// property names `id`, `rid`, `etag` and `ResourceId`, transaction bodies up to 2 MiB,
    /// and no service properties or statistics (501 `NotImplemented`). Not emulated: the
    /// unsorted order of query results (answers stay in key order, one order Cosmos may
    /// give), case-sensitive table names, reserved capacity and latency. Its
    /// [`client_builder`](Emulator::client_builder) and [`client`](Emulator::client) are of
    /// the same flavor.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use tablekit::client::Flavor;
    /// use tablekit::DynamicEntity;
    /// use tablekit_emulator::Emulator;
    /// let emulator = Emulator::builder().flavor(Flavor::Cosmos).start().await?;
    /// // a client that does not know it talks to Cosmos: the service refuses
    /// let unaware = emulator.client_builder().flavor(Flavor::Storage).build()?;
    /// let table = unaware.table_named::<DynamicEntity>("Gamers");
    /// table.create().await?;
    /// let err = table.insert(&mut DynamicEntity::new("eu", "k".repeat(300).as_str())).await;
    /// assert_eq!(err.unwrap_err().status(), Some(400));
    /// // the emulator's own client knows, and refuses before sending
    /// let err = emulator.client().properties().await.unwrap_err();
    /// assert!(err.is_invalid_input());
    /// # Ok(()) }
    /// ```
    pub fn flavor(mut self, flavor: Flavor) -> Self {
        self.flavor = flavor;
        self
    }

    /// Serves at most the entity rates of `throttle` per partition and per account, refusing
    /// more as the service does: 503 `ServerBusy`, or on the [Cosmos
    /// flavor](Self::flavor) 429 with `x-ms-retry-after-ms`. Off unless set;
    /// [`Emulator::throttled`] counts the refusals.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use tablekit::client::RetryPolicy;
    /// use tablekit::DynamicEntity;
    /// use tablekit_emulator::{Emulator, Throttle};
    /// let emulator = Emulator::builder()
    ///     .throttle(Throttle::azure().with_account_rate(2))
    ///     .start()
    ///     .await?;
    /// let client = emulator.client_builder().retry_policy(RetryPolicy::none()).build()?;
    /// client.create_table("Gamers").await?; // table operations are not throttled
    /// let gamers = client.table_named::<DynamicEntity>("Gamers");
    /// gamers.upsert_merge(&mut DynamicEntity::new("a", "")).await?;
    /// gamers.upsert_merge(&mut DynamicEntity::new("b", "")).await?;
    /// let refused = gamers.upsert_merge(&mut DynamicEntity::new("c", "")).await.unwrap_err();
    /// assert!(refused.is_throttled());
    /// assert_eq!(emulator.throttled().total(), 1);
    /// # Ok(()) }
    /// ```
    pub fn throttle(mut self, throttle: Throttle) -> Self {
        self.throttle = Some(throttle);
        self
    }

    /// Appends a line per request to the file at `path` (created if missing): when it came,
    /// its request id, method, path and query, status and time taken. Headers are not
    /// written and a SAS signature shows as `REDACTED`, so the log holds no secret.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use tablekit_emulator::Emulator;
    /// let dir = tempfile::tempdir()?;
    /// let path = dir.path().join("requests.log");
    /// let emulator = Emulator::builder().request_log(&path).start().await?;
    /// emulator.client().create_table("Gamers").await?;
    /// let log = std::fs::read_to_string(&path)?;
    /// assert!(log.contains("POST /devstoreaccount1/Tables -> 204"), "{log}");
    /// # Ok(()) }
    /// ```
    pub fn request_log(mut self, path: impl Into<PathBuf>) -> Self {
        self.request_log = Some(path.into());
        self
    }

    /// Validates the options, binds `127.0.0.1` (or the [`host`](Self::host)) and starts serving in the current runtime.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), tablekit_emulator::Error> {
    /// use tablekit_emulator::{Emulator, Error};
    /// let err = Emulator::builder().primary_account("nobody").start().await.unwrap_err();
    /// assert!(matches!(err, Error::UnknownAccount { account } if account == "nobody"));
    /// let emulator = Emulator::builder().account("acct2", "a2V5").start().await?;
    /// assert_eq!(emulator.account(), "devstoreaccount1");
    /// # Ok(()) }
    /// ```
    pub async fn start(self) -> Result<Emulator> {
        let mut keys = vec![(DEV_ACCOUNT.to_owned(), DEV_KEY.to_owned())];
        keys.extend(self.accounts);
        let accounts = account_keys(&keys, &self.second_keys)?;
        let primary_name = self.primary.unwrap_or_else(|| DEV_ACCOUNT.to_owned());
        let primary = keys
            .iter()
            .find(|(n, _)| *n == primary_name)
            .cloned()
            .ok_or(Error::UnknownAccount {
                account: primary_name,
            })?;
        let store = match &self.persist {
            Some(dir) => Store::open(dir)?,
            None => Store::in_memory(),
        };
        let listener = TcpListener::bind((self.host, self.port))
            .await
            .map_err(Error::Bind)?;
        let addr = listener.local_addr().map_err(Error::Bind)?;
        let state = Arc::new(
            State::new(store, accounts, self.faults)
                .with_flavor(self.flavor)
                .with_throttle(self.throttle),
        );
        let log = match &self.request_log {
            Some(path) => Some(open_log(path)?),
            None => None,
        };
        let app = Arc::new(app(&state, self.body_timeout, log));
        let header_timeout = self.header_timeout;
        let served = app.clone();
        let serving = Serving::accept_shedding(
            listener,
            self.max_connections,
            move |stream, activity, stop| {
                connection(stream, served.clone(), header_timeout, activity, stop)
            },
        );
        Ok(Emulator {
            addr,
            primary,
            state,
            app,
            serving,
        })
    }
}

/// The request log at `path`, opened to append.
fn open_log(path: &Path) -> Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|source| Error::RequestLog {
            path: path.to_owned(),
            source,
        })
}

/// Each account's parsed keys: its key, then its second key if it has one.
fn account_keys(
    keys: &[(String, String)],
    second_keys: &[(String, String)],
) -> Result<HashMap<String, Vec<AccountKey>>> {
    let parse = |name: &str, key: &str| {
        AccountKey::from_base64(key).map_err(|_| Error::InvalidKey {
            account: name.to_owned(),
        })
    };
    let mut accounts = HashMap::new();
    for (name, key) in keys {
        accounts.insert(name.clone(), vec![parse(name, key)?]);
    }
    for (name, key) in second_keys {
        let parsed = parse(name, key)?;
        let account = accounts
            .get_mut(name)
            .ok_or_else(|| Error::UnknownAccount {
                account: name.clone(),
            })?;
        account.push(parsed);
    }
    Ok(accounts)
}

/// Serves one connection until it ends, the server stops, or it is asked to close for a
/// newcomer while idle (see [`Connections`](crate::http::connections::Connections)).
async fn connection(
    stream: tokio::net::TcpStream,
    app: Arc<App>,
    header_timeout: Duration,
    activity: Activity,
    mut shutdown: watch::Receiver<bool>,
) {
    // A SAS may name the addresses it is valid from (`sip`): each request carries its peer's.
    let peer = stream.peer_addr().ok().map(|peer| peer.ip());
    let begun = Arc::new(AtomicBool::new(false));
    activity.idle();
    let service = service_fn({
        let activity = activity.clone();
        let begun = begun.clone();
        move |request: hyper::Request<hyper::body::Incoming>| {
            activity.busy();
            begun.store(true, Ordering::Relaxed);
            let app = app.clone();
            let activity = activity.clone();
            let request = IncomingRequest::new(request).with_peer(peer);
            async move {
                let answer = app.call(request).await;
                activity.idle();
                answer
            }
        }
    });
    let conn = http1::Builder::new()
        .keep_alive(true)
        // hyper otherwise reads ahead for a closed connection while each request is being
        // answered; the request's headers still hold its read buffer then, so every
        // request cost a fresh 8 KiB buffer. A client that leaves mid-request is noticed
        // when the answer is written instead; like Azure, a write is applied either way.
        .half_close(true)
        // hyper's header timer also runs while a keep-alive connection waits for its next
        // request: one limit for slow headers and for idle connections.
        .timer(TokioTimer::new())
        .header_read_timeout(header_timeout)
        .serve_connection(TokioIo::new(ParseErrorAnswers::new(stream)), service);
    tokio::pin!(conn);
    tokio::select! {
        _ = conn.as_mut() => return,
        _ = shutdown.changed() => return,
        _ = activity.asked_to_close() => {}
    }
    // Asked to close while idle. Before its first request nothing is in flight: close now.
    // After one, its answer may still be being written: hyper closes once it is, and
    // finishes a request already begun first.
    if begun.load(Ordering::Relaxed) {
        conn.as_mut().graceful_shutdown();
        tokio::select! {
            _ = conn => {}
            _ = shutdown.changed() => {}
        }
    }
}
