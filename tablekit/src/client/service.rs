//! [`TableServiceClient`]: one account's Table service, and its tables.
//!
//! The client owns one connection pool (hyper, with rustls for https) shared by every
//! [`Table`](super::Table) handle and clone, so handles are cheap and connections are reused.
//! Building it refuses set-ups that would leak a secret: a credential sent over plain http to a
//! host other than loopback needs an explicit [`ClientBuilder::allow_insecure_http`].

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use futures::stream::{self, BoxStream, StreamExt, TryStreamExt};
use http::Method;

use super::connection_string::ConnectionString;
use super::credential::Credential;
use super::endpoint::Endpoint;
use super::error::{Error, Result};
use super::http_client::{Delivery, HttpClient};
use super::in_process::InProcessService;
use super::location::{secondary_endpoint, LocationMode};
use super::retry::RetryPolicy;
use super::telemetry;
use super::transport::{host_header, Gone, ServiceRequest, Transport};
use crate::codec;
use crate::protocol::limits::{self, Flavor, InvalidInput, Limits};

/// The default per-request timeout.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// A client for one account's Table service (Azure Storage, Cosmos DB Table API, Azurite or
/// the tablekit emulator). Clones share one connection pool.
///
/// ```
/// use tablekit::client::TableServiceClient;
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let emulator = tablekit_testing::Emulator::start().await?;
/// # let connection_string = emulator.connection_string();
/// let client = TableServiceClient::from_connection_string(&connection_string)?;
/// assert!(client.create_table_if_not_exists("Players").await?); // created
/// client.create_table_if_not_exists("Orders").await?;
/// let other = client.clone(); // the same connection pool
/// assert!(!other.create_table_if_not_exists("Players").await?); // already there
/// assert_eq!(other.list_table_names(Some("Play")).await?, ["Players"]);
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct TableServiceClient {
    transport: Arc<Transport>,
}

impl fmt::Debug for TableServiceClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TableServiceClient")
            .field("endpoint", &self.transport.endpoint.base_url().as_str())
            .field("account", &self.transport.endpoint.account())
            .field("credential", &self.transport.credential)
            .field("retry", &self.transport.retry)
            .field("timeout", &self.transport.timeout)
            .field("flavor", &self.transport.limits.flavor)
            .field("operation_timeout", &self.transport.operation_timeout)
            .field("location_mode", &self.transport.location_mode)
            .finish()
    }
}

impl TableServiceClient {
    /// A client from a connection string, with default retry policy and timeout.
    ///
    /// ```
    /// use tablekit::client::TableServiceClient;
    /// let client = TableServiceClient::from_connection_string("UseDevelopmentStorage=true")?;
    /// assert_eq!(client.endpoint().account(), "devstoreaccount1");
    /// # Ok::<(), tablekit::Error>(())
    /// ```
    pub fn from_connection_string(connection_string: &str) -> Result<Self> {
        TableServiceClient::builder()
            .connection_string(connection_string)
            .build()
    }

    /// A builder for every setting.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tablekit::client::{RetryPolicy, TableServiceClient};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let connection_string = emulator.connection_string();
    /// let client = TableServiceClient::builder()
    ///     .connection_string(&connection_string)
    ///     .retry_policy(RetryPolicy::default().max_attempts(6))
    ///     .timeout(Duration::from_secs(5))
    ///     .build()?;
    /// assert!(client.create_table_if_not_exists("Gamers").await?);
    /// # Ok(()) }
    /// ```
    pub fn builder() -> ClientBuilder {
        ClientBuilder::default()
    }

    /// The endpoint requests go to.
    pub fn endpoint(&self) -> &Endpoint {
        &self.transport.endpoint
    }

    pub(crate) fn transport(&self) -> &Transport {
        &self.transport
    }

    /// The same client (pool, credential, timeouts), retrying writes by `policy`: for callers
    /// that handle their writes' failures themselves, as the bulk writer handles throttling.
    /// Reads, such as those that settle a write whose answer was lost, retry as before.
    pub(crate) fn with_write_retry_policy(&self, policy: RetryPolicy) -> TableServiceClient {
        TableServiceClient {
            transport: Arc::new(self.transport.with_write_retry(policy)),
        }
    }

    /// The service this client talks to: set by [`ClientBuilder::flavor`], or read from the
    /// endpoint's host (`*.table.cosmos.azure.com` is Cosmos).
    ///
    /// ```
    /// use tablekit::client::{Flavor, TableServiceClient};
    /// let cosmos = "TableEndpoint=https://acct.table.cosmos.azure.com:443/;\
    ///               SharedAccessSignature=sv=2019-02-02&sig=c2ln";
    /// let client = TableServiceClient::from_connection_string(cosmos)?;
    /// assert_eq!(client.flavor(), Flavor::Cosmos);
    /// let local = TableServiceClient::from_connection_string("UseDevelopmentStorage=true")?;
    /// assert_eq!(local.flavor(), Flavor::Storage);
    /// # Ok::<(), tablekit::Error>(())
    /// ```
    pub fn flavor(&self) -> Flavor {
        self.transport.limits.flavor
    }

    /// The limits the client checks before sending: those of its [`flavor`](Self::flavor).
    ///
    /// ```
    /// use tablekit::client::{Flavor, TableServiceClient};
    /// let client = TableServiceClient::builder()
    ///     .endpoint("https://tables.contoso.example")
    ///     .account("acct")
    ///     .flavor(Flavor::Cosmos) // a custom domain in front of Cosmos
    ///     .build()?;
    /// assert_eq!(client.limits().max_row_key_bytes, Some(255));
    /// # Ok::<(), tablekit::Error>(())
    /// ```
    pub fn limits(&self) -> &'static Limits {
        self.transport.limits
    }

    /// Creates a table; a 409 `TableAlreadyExists` error if it exists.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let client = emulator.client();
    /// client.create_table("Gamers").await?;
    /// assert!(client.table_exists("Gamers").await?);
    /// let err = client.create_table("Gamers").await.unwrap_err();
    /// assert!(err.is_conflict());
    /// let err = client.create_table("no-dashes").await.unwrap_err();
    /// assert!(err.is_invalid_input()); // never sent
    /// # Ok(()) }
    /// ```
    pub async fn create_table(&self, name: &str) -> Result<()> {
        limits::validate_table_name(name)?;
        let body = serde_json::to_vec(&serde_json::json!({ "TableName": name }))
            .map_err(|e| Error::decode("table name", e.to_string()))?;
        let mut call = ServiceRequest::new(Method::POST, "/Tables".to_owned()).json(body);
        call.prefer_no_content = true;
        self.transport.send(&call).await?;
        Ok(())
    }

    /// Creates a table unless it exists; `true` when this call created it.
    pub async fn create_table_if_not_exists(&self, name: &str) -> Result<bool> {
        match self.create_table(name).await {
            Ok(()) => Ok(true),
            Err(e) if e.code() == Some("TableAlreadyExists") => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Deletes a table and its entities; a 404 error if it does not exist. A retried delete
    /// that answers 404 because an earlier attempt succeeded counts as success.
    pub async fn delete_table(&self, name: &str) -> Result<()> {
        self.delete_table_call(name).await
    }

    /// Deletes a table if it exists; `true` when this call deleted it.
    pub async fn delete_table_if_exists(&self, name: &str) -> Result<bool> {
        match self.delete_table_call(name).await {
            // Also when an earlier attempt of this call did the deleting.
            Ok(()) => Ok(true),
            Err(e) if e.is_not_found() => Ok(false),
            Err(e) => Err(e),
        }
    }

    async fn delete_table_call(&self, name: &str) -> Result<()> {
        limits::validate_table_name(name)?;
        let mut call = ServiceRequest::new(Method::DELETE, format!("/Tables('{name}')"));
        call.gone = Gone::Table;
        self.transport.send(&call).await?;
        Ok(())
    }

    /// Whether a table exists.
    pub async fn table_exists(&self, name: &str) -> Result<bool> {
        limits::validate_table_name(name)?;
        let filter = format!("TableName eq '{name}'");
        let (names, _) = self.tables_page(Some(filter), None).await?;
        let limits = self.limits();
        Ok(names.iter().any(|n| limits.same_table(n, name)))
    }

    /// Table names, optionally only those starting with `prefix`, following `NextTableName`
    /// across pages.
    ///
    /// ```
    /// use futures::TryStreamExt;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let client = emulator.client();
    /// for name in ["Orders2025", "Orders2026", "Players"] {
    ///     client.create_table(name).await?;
    /// }
    /// let mut names = client.list_tables(Some("Orders"));
    /// let mut orders = Vec::new();
    /// while let Some(name) = names.try_next().await? {
    ///     orders.push(name);
    /// }
    /// assert_eq!(orders, ["Orders2025", "Orders2026"]);
    /// # Ok(()) }
    /// ```
    pub fn list_tables(&self, prefix: Option<&str>) -> BoxStream<'static, Result<String>> {
        let filter = match prefix.map(prefix_filter).transpose() {
            Ok(filter) => filter.flatten(),
            Err(e) => return stream::once(async move { Err(e) }).boxed(),
        };
        let client = self.clone();
        stream::try_unfold(Some(None), move |position: Option<Option<String>>| {
            let client = client.clone();
            let filter = filter.clone();
            async move {
                let Some(next) = position else {
                    return Ok::<_, Error>(None);
                };
                let (names, next) = client.tables_page(filter, next).await?;
                Ok(Some((names, next.map(Some))))
            }
        })
        .map_ok(|names| stream::iter(names.into_iter().map(Ok)))
        .try_flatten()
        .boxed()
    }

    /// Every table name (optionally with `prefix`), collected.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let client = emulator.client();
    /// for name in ["Orders2025", "Players"] {
    ///     client.create_table(name).await?;
    /// }
    /// let all = client.list_table_names(None).await?;
    /// assert_eq!(all, ["Orders2025", "Players"]);
    /// assert_eq!(client.list_table_names(Some("Play")).await?, ["Players"]);
    /// // names hold only letters and digits: a prefix with others is refused
    /// let err = client.list_table_names(Some("Or'")).await.unwrap_err();
    /// assert!(err.is_invalid_input());
    /// # Ok(()) }
    /// ```
    pub async fn list_table_names(&self, prefix: Option<&str>) -> Result<Vec<String>> {
        self.list_tables(prefix).try_collect().await
    }

    async fn tables_page(
        &self,
        filter: Option<String>,
        next: Option<String>,
    ) -> Result<(Vec<String>, Option<String>)> {
        let mut call = ServiceRequest::new(Method::GET, "/Tables".to_owned());
        if let Some(filter) = filter {
            call.query.push(("$filter", filter));
        }
        if let Some(next) = next {
            call.query.push(("NextTableName", next));
        }
        let reply = self.transport.send(&call).await?;
        let names = codec::decode_table_names(&reply.body)?;
        let next = reply
            .header("x-ms-continuation-NextTableName")
            .filter(|n| !n.is_empty())
            .map(str::to_owned);
        Ok((names, next))
    }
}

/// `TableName ge 'p' and TableName lt 'q'`: names starting with `prefix` (`None` for all).
fn prefix_filter(prefix: &str) -> Result<Option<String>> {
    if prefix.is_empty() {
        return Ok(None);
    }
    if !prefix.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return Err(InvalidInput::Other(format!(
            "table name prefix `{prefix}` can only hold ASCII letters and digits"
        ))
        .into());
    }
    // Table names are ASCII alphanumerics, so the last byte + 1 is a valid upper bound.
    let mut upper = prefix.as_bytes().to_vec();
    if let Some(last) = upper.last_mut() {
        *last += 1;
    }
    let upper = String::from_utf8_lossy(&upper);
    Ok(Some(format!(
        "TableName ge '{prefix}' and TableName lt '{upper}'"
    )))
}

/// Settings for a [`TableServiceClient`], validated by [`build`](Self::build).
///
/// ```
/// use std::time::Duration;
/// use tablekit::client::{Credential, RetryPolicy, TableServiceClient};
/// let client = TableServiceClient::builder()
///     .endpoint("https://acct.table.core.windows.net")
///     .credential(Credential::shared_key("a2V5")?)
///     .retry_policy(RetryPolicy::default().max_attempts(6))
///     .timeout(Duration::from_secs(10))
///     .build()?;
/// assert_eq!(client.endpoint().account(), "acct");
///
/// // a key over plain http to a remote host is refused
/// let err = TableServiceClient::builder()
///     .endpoint("http://acct.table.core.windows.net")
///     .credential(Credential::shared_key("a2V5")?)
///     .build()
///     .unwrap_err();
/// assert!(err.to_string().contains("allow_insecure_http"));
/// # Ok::<(), tablekit::Error>(())
/// ```
#[derive(Default)]
pub struct ClientBuilder {
    connection_string: Option<String>,
    endpoint: Option<String>,
    account: Option<String>,
    credential: Option<Credential>,
    retry: Option<RetryPolicy>,
    timeout: Option<Duration>,
    operation_timeout: Option<Duration>,
    application_id: Option<String>,
    location_mode: LocationMode,
    secondary_endpoint: Option<String>,
    allow_insecure_http: bool,
    flavor: Option<Flavor>,
    in_process: Option<Arc<dyn InProcessService>>,
}

impl fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientBuilder")
            .field(
                "connection_string",
                &self.connection_string.as_ref().map(|_| "<redacted>"),
            )
            .field("endpoint", &self.endpoint)
            .field("account", &self.account)
            .field("credential", &self.credential)
            .field("retry", &self.retry)
            .field("timeout", &self.timeout)
            .field("operation_timeout", &self.operation_timeout)
            .field("application_id", &self.application_id)
            .field("location_mode", &self.location_mode)
            .field("secondary_endpoint", &self.secondary_endpoint)
            .field("allow_insecure_http", &self.allow_insecure_http)
            .field("flavor", &self.flavor)
            .field("in_process", &self.in_process.is_some())
            .finish()
    }
}

impl ClientBuilder {
    /// Takes endpoint and credential from a connection string (explicit settings win).
    ///
    /// ```
    /// use tablekit::client::TableServiceClient;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// let client = TableServiceClient::builder()
    ///     .connection_string("UseDevelopmentStorage=true") // the development account and key...
    ///     .endpoint(&emulator.endpoint()) // ...on this emulator's port: explicit settings win
    ///     .build()?;
    /// assert!(client.create_table_if_not_exists("Gamers").await?);
    /// # Ok(()) }
    /// ```
    pub fn connection_string(mut self, connection_string: &str) -> Self {
        self.connection_string = Some(connection_string.to_owned());
        self
    }

    /// The Table service URL: `https://acct.table.core.windows.net` or
    /// `http://127.0.0.1:10002/devstoreaccount1`.
    ///
    /// ```
    /// use tablekit::client::TableServiceClient;
    /// use tablekit::Error;
    /// let client = TableServiceClient::builder()
    ///     .endpoint("http://127.0.0.1:10002/devstoreaccount1") // path-style: the first segment
    ///     .build()?;
    /// assert_eq!(client.endpoint().account(), "devstoreaccount1");
    /// let ftp = TableServiceClient::builder().endpoint("ftp://files.example.com");
    /// assert!(matches!(ftp.build(), Err(Error::Configuration(_)))); // checked by `build`
    /// # Ok::<(), tablekit::Error>(())
    /// ```
    pub fn endpoint(mut self, url: &str) -> Self {
        self.endpoint = Some(url.to_owned());
        self
    }

    /// The account name, when the endpoint URL does not name it.
    ///
    /// ```
    /// use tablekit::client::TableServiceClient;
    /// let client = TableServiceClient::builder()
    ///     .endpoint("https://tables.contoso.example") // a custom domain names no account
    ///     .account("acct")
    ///     .build()?;
    /// assert_eq!(client.endpoint().account(), "acct");
    /// let nameless = TableServiceClient::builder().endpoint("https://tables");
    /// assert!(nameless.build().is_err());
    /// # Ok::<(), tablekit::Error>(())
    /// ```
    pub fn account(mut self, account: &str) -> Self {
        self.account = Some(account.to_owned());
        self
    }

    /// How requests are authorized (default: none).
    ///
    /// ```
    /// use tablekit::client::{Credential, TableServiceClient, DEVELOPMENT_KEY};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// let client = TableServiceClient::builder()
    ///     .endpoint(&emulator.endpoint())
    ///     .credential(Credential::shared_key(DEVELOPMENT_KEY)?)
    ///     .build()?;
    /// assert!(client.create_table_if_not_exists("Gamers").await?);
    /// // without one, requests go unsigned and the service refuses them
    /// let unsigned = TableServiceClient::builder().endpoint(&emulator.endpoint());
    /// let err = unsigned.build()?.table_exists("Gamers").await.unwrap_err();
    /// assert_eq!(err.status(), Some(403));
    /// # Ok(()) }
    /// ```
    pub fn credential(mut self, credential: Credential) -> Self {
        self.credential = Some(credential);
        self
    }

    /// The retry policy (default: [`RetryPolicy::default`]).
    ///
    /// ```
    /// use std::time::Duration;
    /// use tablekit::client::RetryPolicy;
    /// use tablekit_testing::{Emulator, Fault, Faults};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let busy = Faults::seeded(1).rate(Fault::ServerBusy, 1.0); // every request: 503
    /// let emulator = Emulator::builder().faults(busy).start().await?;
    /// let quick = Duration::from_millis(1);
    /// let client = emulator
    ///     .client_builder()
    ///     .retry_policy(RetryPolicy::default().max_attempts(3).base_delay(quick))
    ///     .build()?;
    /// let err = client.create_table("Gamers").await.unwrap_err();
    /// assert!(err.is_throttled());
    /// assert_eq!(emulator.requests().total(), 3); // the first attempt and two retries
    /// # Ok(()) }
    /// ```
    pub fn retry_policy(mut self, policy: RetryPolicy) -> Self {
        self.retry = Some(policy);
        self
    }

    /// The per-try timeout: of each attempt, from sending to the whole body read (default
    /// 30 s). A try that times out is retried like any transient failure; see
    /// [`operation_timeout`](Self::operation_timeout) for a bound on the whole operation.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tablekit::client::RetryPolicy;
    /// use tablekit::Error;
    /// use tablekit_testing::{Emulator, Fault, Faults};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let hang = Faults::seeded(1).rate(Fault::Timeout, 1.0);
    /// let emulator = Emulator::builder().faults(hang).start().await?; // never answers
    /// let client = emulator
    ///     .client_builder()
    ///     .timeout(Duration::from_millis(100))
    ///     .retry_policy(RetryPolicy::none())
    ///     .build()?;
    /// let err = client.create_table("Gamers").await.unwrap_err();
    /// assert!(matches!(err, Error::Timeout { after, .. } if after == Duration::from_millis(100)));
    /// # Ok(()) }
    /// ```
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// The operation timeout: a bound on a whole operation, every attempt and the waits
    /// between them included (default: none, so the retry policy alone bounds it). When it
    /// fires the operation ends with [`Error::OperationTimeout`], which tells whether a write
    /// may have been applied all the same.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tablekit::client::RetryPolicy;
    /// use tablekit::{DynamicEntity, Error};
    /// use tablekit_testing::{Emulator, Fault, Faults};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let busy = Faults::seeded(1).rate(Fault::ServerBusy, 1.0); // every request: 503
    /// let emulator = Emulator::builder().faults(busy).start().await?;
    /// let client = emulator
    ///     .client_builder()
    ///     .retry_policy(RetryPolicy::default().max_attempts(100))
    ///     .operation_timeout(Duration::from_millis(300))
    ///     .build()?;
    /// let err = client.create_table("Gamers").await.unwrap_err();
    /// assert!(matches!(err, Error::OperationTimeout { .. }));
    /// assert!(!err.may_have_been_applied()); // every attempt was refused: nothing applied
    /// assert!(emulator.requests().total() < 100);
    /// # Ok(()) }
    /// ```
    pub fn operation_timeout(mut self, timeout: Duration) -> Self {
        self.operation_timeout = Some(timeout);
        self
    }

    /// An application id put first in the `User-Agent` (up to 24 printable ASCII characters,
    /// no spaces), as the Azure SDKs do: the service's logs then tell applications apart.
    ///
    /// ```
    /// use tablekit::client::TableServiceClient;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// let client = emulator.client_builder().application_id("inventory/2.1").build()?;
    /// // sent as `User-Agent: inventory/2.1 tablekit/<version> (<os>; <arch>)`
    /// assert!(client.create_table_if_not_exists("Gamers").await?);
    /// let spaced = TableServiceClient::builder()
    ///     .endpoint(&emulator.endpoint())
    ///     .application_id("my app");
    /// assert!(spaced.build().is_err());
    /// # Ok(()) }
    /// ```
    pub fn application_id(mut self, id: &str) -> Self {
        self.application_id = Some(id.to_owned());
        self
    }

    /// Where reads go (default [`LocationMode::PrimaryOnly`]); writes always go to the
    /// primary. The secondary is the one given by
    /// [`secondary_endpoint`](Self::secondary_endpoint), else the connection string's
    /// `TableSecondaryEndpoint`, else the primary's by the `-secondary` convention.
    ///
    /// ```
    /// use tablekit::client::LocationMode;
    /// use tablekit::DynamicEntity;
    /// use tablekit_testing::{Emulator, Fault, Faults};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// let client = emulator
    ///     .client_builder()
    ///     .location_mode(LocationMode::PrimaryThenSecondary)
    ///     .build()?;
    /// let table = client.table_named::<DynamicEntity>("Gamers");
    /// table.create().await?; // a write: to the primary
    /// table.upsert_replace(&mut DynamicEntity::new("eu", "dragon")).await?;
    /// assert!(table.get("eu", "dragon").await?.is_some()); // a read: the primary first
    /// # Ok(()) }
    /// ```
    pub fn location_mode(mut self, mode: LocationMode) -> Self {
        self.location_mode = mode;
        self
    }

    /// The secondary endpoint, when the `-secondary` convention does not name it (a custom
    /// domain).
    ///
    /// ```
    /// use tablekit::client::{LocationMode, TableServiceClient};
    /// let client = TableServiceClient::builder()
    ///     .endpoint("https://tables.contoso.example")
    ///     .account("acct")
    ///     .secondary_endpoint("https://tables-secondary.contoso.example")
    ///     .location_mode(LocationMode::PrimaryThenSecondary)
    ///     .build()?;
    /// assert_eq!(client.endpoint().account(), "acct");
    /// // without it, no secondary can be derived from a custom domain
    /// let unknown = TableServiceClient::builder()
    ///     .endpoint("https://tables.contoso.example")
    ///     .account("acct")
    ///     .location_mode(LocationMode::SecondaryOnly);
    /// assert!(unknown.build().is_err());
    /// # Ok::<(), tablekit::Error>(())
    /// ```
    pub fn secondary_endpoint(mut self, url: &str) -> Self {
        self.secondary_endpoint = Some(url.to_owned());
        self
    }

    /// Allows sending a credential over plain http to a non-loopback host (e.g. an emulator
    /// in another container). Off by default: the key or token would cross the network in
    /// clear text.
    ///
    /// ```
    /// use tablekit::client::{Credential, TableServiceClient, DEVELOPMENT_KEY};
    /// // an emulator in another container of the same test network
    /// let build = |allow| {
    ///     TableServiceClient::builder()
    ///         .endpoint("http://azurite:10002/devstoreaccount1")
    ///         .credential(Credential::shared_key(DEVELOPMENT_KEY)?)
    ///         .allow_insecure_http(allow)
    ///         .build()
    /// };
    /// assert!(build(false).is_err()); // the key would cross the network in clear text
    /// assert!(build(true).is_ok());
    /// # Ok::<(), tablekit::Error>(())
    /// ```
    pub fn allow_insecure_http(mut self, allow: bool) -> Self {
        self.allow_insecure_http = allow;
        self
    }

    /// Which service the endpoint is (default: read from its host, see [`Flavor::from_host`]):
    /// the client then checks that service's limits before sending, and refuses operations it
    /// does not offer.
    ///
    /// ```
    /// use tablekit::client::{Flavor, TableServiceClient};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// let client = emulator.client_builder().flavor(Flavor::Cosmos).build()?;
    /// let err = client.properties().await.unwrap_err();
    /// assert!(err.is_invalid_input()); // Cosmos has no service properties: nothing was sent
    /// # assert_eq!(emulator.requests().total(), 0);
    /// # Ok(()) }
    /// ```
    pub fn flavor(mut self, flavor: Flavor) -> Self {
        self.flavor = Some(flavor);
        self
    }

    /// Hands every request to `service`, a Table service in this process, instead of sending
    /// it over the network (see [`InProcessService`]). The endpoint still names the account
    /// and goes into each request's URI and signature, which are made as for HTTP. The
    /// emulator in `tablekit-emulator` offers it as `Emulator::in_process_client`:
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let emulator = tablekit_testing::Emulator::start().await?;
    /// let client = emulator.in_process_client(); // the builder's `in_process`, set up
    /// client.create_table("Gamers").await?;
    /// assert_eq!(emulator.table_names(), ["Gamers"]);
    /// # Ok(()) }
    /// ```
    pub fn in_process(mut self, service: Arc<dyn InProcessService>) -> Self {
        self.in_process = Some(service);
        self
    }

    /// Validates the settings and builds the client.
    pub fn build(self) -> Result<TableServiceClient> {
        let parsed = self
            .connection_string
            .as_deref()
            .map(ConnectionString::parse)
            .transpose()?;
        let secondary_from_string = parsed
            .as_ref()
            .and_then(|cs| cs.secondary_endpoint().cloned());
        let from_string = parsed.map(ConnectionString::into_parts);
        let endpoint = match (&self.endpoint, &self.account, &from_string) {
            (Some(url), Some(account), _) => Endpoint::with_account(url, account)?,
            (Some(url), None, _) => Endpoint::parse(url)?,
            (None, _, Some((endpoint, _))) => endpoint.clone(),
            (None, _, None) => {
                return Err(Error::Configuration(
                    "no endpoint: give a connection string or an endpoint URL".into(),
                ))
            }
        };
        let credential = match (self.credential, from_string) {
            (Some(credential), _) => credential,
            (None, Some((_, credential))) => credential,
            (None, None) => Credential::anonymous(),
        }
        .scoped(&endpoint);
        let secondary = match (&self.secondary_endpoint, secondary_from_string) {
            _ if !self.location_mode.uses_secondary() => None,
            (Some(url), _) => Some(Endpoint::with_account(url, endpoint.account())?),
            (None, Some(from_string)) if self.endpoint.is_none() => Some(from_string),
            (None, _) => Some(secondary_endpoint(&endpoint)?),
        };
        for endpoint in std::iter::once(&endpoint).chain(&secondary) {
            if credential.carries_secret()
                && !endpoint.is_https()
                && !endpoint.is_loopback()
                && !self.allow_insecure_http
            {
                return Err(Error::Configuration(format!(
                    "refusing to send credentials over plain http to `{}`: use https, or opt in with `allow_insecure_http(true)`",
                    endpoint.base_url().host_str().unwrap_or_default()
                )));
            }
        }
        let user_agent = telemetry::user_agent(self.application_id.as_deref())?;
        let timeout = self.timeout.unwrap_or(DEFAULT_TIMEOUT);
        let flavor = self.flavor.unwrap_or_else(|| {
            Flavor::from_host(endpoint.base_url().host_str().unwrap_or_default())
        });
        let urls = std::iter::once(&endpoint).chain(&secondary);
        let (http, deliveries) = match self.in_process {
            Some(service) => (
                HttpClient::in_process(service, timeout).map_err(Error::Configuration)?,
                vec![Delivery::InProcess; 2],
            ),
            None => HttpClient::new(urls.map(Endpoint::base_url), timeout)
                .map_err(Error::Configuration)?,
        };
        Ok(TableServiceClient {
            transport: Arc::new(Transport {
                http,
                delivery: deliveries[0],
                host: host_header(&endpoint),
                endpoint,
                secondary: secondary.map(|s| {
                    let host = host_header(&s);
                    (s, host, deliveries[1])
                }),
                location_mode: self.location_mode,
                credential,
                retry: self.retry.unwrap_or_default(),
                write_retry: None,
                timeout,
                limits: flavor.limits(),
                operation_timeout: self.operation_timeout,
                user_agent,
            }),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_filters_bound_the_range() {
        assert_eq!(
            prefix_filter("tab").unwrap().unwrap(),
            "TableName ge 'tab' and TableName lt 'tac'"
        );
        assert_eq!(prefix_filter("").unwrap(), None);
        assert!(prefix_filter("a'b").unwrap_err().is_invalid_input());
    }
}
