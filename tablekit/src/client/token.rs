//! The bearer-token hook: a [`TokenProvider`] the application implements supplies OAuth tokens
//! (Microsoft Entra ID, say) for [`Credential::bearer`](super::Credential::bearer), so tablekit
//! forces no identity library on anyone.

use std::future::Future;
use std::pin::Pin;

/// A boxed error from a [`TokenProvider`].
///
/// ```
/// use tablekit::client::{Credential, TableServiceClient, TokenError, TokenFuture, TokenProvider};
/// use tablekit::Error;
/// struct NoIdentity;
/// impl TokenProvider for NoIdentity {
///     fn token(&self) -> TokenFuture<'_> {
///         Box::pin(async { Err(TokenError::from("no managed identity on this host")) })
///     }
/// }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let emulator = tablekit_testing::Emulator::start().await?;
/// let client = TableServiceClient::builder()
///     .endpoint(&emulator.endpoint())
///     .credential(Credential::bearer(NoIdentity))
///     .build()?;
/// let err = client.create_table("Gamers").await.unwrap_err();
/// assert!(matches!(err, Error::Credential(_)));
/// assert_eq!(
///     err.to_string(),
///     "the token provider failed: no managed identity on this host"
/// );
/// # Ok(()) }
/// ```
pub type TokenError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// The future a [`TokenProvider`] returns.
///
/// ```
/// use std::sync::Mutex;
/// use tablekit::client::{TokenFuture, TokenProvider};
/// struct Cached(Mutex<Option<String>>);
/// impl TokenProvider for Cached {
///     fn token(&self) -> TokenFuture<'_> {
///         // borrows `self`: the future may read the cache without cloning the provider
///         Box::pin(async move {
///             let mut cache = self.0.lock().map_err(|_| "poisoned cache")?;
///             Ok(cache.get_or_insert_with(|| "eyJ0eXAi".to_owned()).clone())
///         })
///     }
/// }
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
/// let provider = Cached(Mutex::new(None));
/// assert_eq!(provider.token().await?, "eyJ0eXAi");
/// # Ok(()) }
/// ```
pub type TokenFuture<'a> =
    Pin<Box<dyn Future<Output = std::result::Result<String, TokenError>> + Send + 'a>>;

/// Supplies OAuth bearer tokens (e.g. from Microsoft Entra ID) for the
/// `https://storage.azure.com/.default` scope. Called before every request: cache inside.
///
/// ```
/// use tablekit::client::{Credential, TokenFuture, TokenProvider};
/// struct Fixed(String);
/// impl TokenProvider for Fixed {
///     fn token(&self) -> TokenFuture<'_> {
///         Box::pin(async move { Ok(self.0.clone()) })
///     }
/// }
/// let credential = Credential::bearer(Fixed("eyJ...".into()));
/// assert!(!format!("{credential:?}").contains("eyJ"));
/// ```
pub trait TokenProvider: Send + Sync + 'static {
    /// A currently valid access token (without the `Bearer ` prefix).
    ///
    /// ```
    /// # use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
    /// # use tablekit::client::{Credential, TableServiceClient, TokenFuture, TokenProvider};
    /// static CALLS: AtomicUsize = AtomicUsize::new(0);
    /// struct Counted;
    /// impl TokenProvider for Counted {
    ///     fn token(&self) -> TokenFuture<'_> {
    ///         CALLS.fetch_add(1, Relaxed);
    ///         Box::pin(async { Ok("eyJ0eXAi".to_owned()) })
    ///     }
    /// }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// let client = TableServiceClient::builder()
    ///     .endpoint(&emulator.endpoint())
    ///     .credential(Credential::bearer(Counted))
    ///     .build()?;
    /// let err = client.create_table("Gamers").await.unwrap_err();
    /// assert_eq!(err.status(), Some(403)); // not a token this emulator accepts
    /// assert_eq!(CALLS.load(Relaxed), 1); // asked for once, before the request
    /// # Ok(()) }
    /// ```
    fn token(&self) -> TokenFuture<'_>;
}
