//! [`Credential`]: how requests prove who sends them.
//!
//! SharedKey and SharedKeyLite sign each request with the account key (see [`crate::auth`]);
//! a SAS token rides in the query string; a bearer token comes from a [`TokenProvider`] the
//! application implements, so tablekit forces no identity library on anyone. None of them
//! ever appears in `Debug` output, errors or traces.

use std::fmt;
use std::sync::Arc;

use super::error::{Error, Result};
use super::token::TokenProvider;
use crate::protocol::auth::{
    canonicalized_resource, shared_key_lite_string_to_sign, shared_key_string_to_sign, AccountKey,
};

/// How requests are authorized.
///
/// ```
/// use tablekit::client::Credential;
/// let key = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";
/// let credential = Credential::shared_key(key)?;
/// assert_eq!(format!("{credential:?}"), "Credential::SharedKey(<redacted>)");
/// let sas = Credential::sas("?sv=2019-02-02&sig=c2VjcmV0")?;
/// assert!(!format!("{sas:?}").contains("c2VjcmV0"));
/// # Ok::<(), tablekit::Error>(())
/// ```
#[derive(Clone)]
pub struct Credential(Kind);

#[derive(Clone)]
enum Kind {
    SharedKey(AccountKey),
    SharedKeyLite(AccountKey),
    Sas(String),
    Bearer(Arc<dyn TokenProvider>),
    /// An Azure SDK credential, not yet scoped to an endpoint (see [`Credential::scoped`]).
    #[cfg(feature = "azure_core")]
    TokenCredential(Arc<dyn azure_core::credentials::TokenCredential>),
    Anonymous,
}

impl Credential {
    /// SharedKey with the base64 account key from the portal.
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
    ///
    /// let wrong = Credential::shared_key("d3Jvbmcga2V5")?; // valid base64, not the account's key
    /// let client = TableServiceClient::builder()
    ///     .endpoint(&emulator.endpoint())
    ///     .credential(wrong)
    ///     .build()?;
    /// let err = client.table_exists("Gamers").await.unwrap_err();
    /// assert_eq!(err.status(), Some(403));
    /// assert!(Credential::shared_key("not base64!").is_err());
    /// # Ok(()) }
    /// ```
    pub fn shared_key(key_base64: &str) -> Result<Self> {
        Ok(Credential(Kind::SharedKey(decode_key(key_base64)?)))
    }

    /// SharedKeyLite (signs only the date and resource) with the base64 account key.
    pub fn shared_key_lite(key_base64: &str) -> Result<Self> {
        Ok(Credential(Kind::SharedKeyLite(decode_key(key_base64)?)))
    }

    /// A shared access signature: the token's query string, with or without the leading `?`.
    ///
    /// ```
    /// use chrono::{Duration, Utc};
    /// use tablekit::client::{Credential, Table, TableServiceClient};
    /// use tablekit::DynamicEntity;
    /// use tablekit::sas::{TablePermissions, TableSas};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # emulator.create_table("Gamers")?;
    /// // a read-only SAS for one table, as an account owner would hand it out
    /// let read_only = TableSas::new("Gamers", TablePermissions::QUERY, Utc::now() + Duration::hours(1));
    /// let token = emulator.sas(&read_only)?;
    /// let client = TableServiceClient::builder()
    ///     .endpoint(&emulator.endpoint())
    ///     .credential(Credential::sas(&format!("?{token}"))?) // the leading `?` is optional
    ///     .build()?;
    /// let table: Table = client.table_named("Gamers");
    /// assert_eq!(table.query_all().count().await?, 0);
    /// let mut dragon = DynamicEntity::new("eu", "dragon");
    /// let err = table.insert(&mut dragon).await.unwrap_err();
    /// assert_eq!(err.status(), Some(403)); // the SAS does not grant adding
    /// # Ok(()) }
    /// ```
    pub fn sas(token: &str) -> Result<Self> {
        let token = token.trim().trim_start_matches('?');
        if token.is_empty() || !token.contains("sig=") {
            return Err(Error::Configuration(
                "a SAS token is a query string holding `sig=`".into(),
            ));
        }
        Ok(Credential(Kind::Sas(token.to_owned())))
    }

    /// OAuth bearer tokens from `provider` (sent only over https, or to a loopback host).
    ///
    /// ```
    /// use tablekit::client::{Credential, TableServiceClient, TokenFuture, TokenProvider};
    /// struct Entra;
    /// impl TokenProvider for Entra {
    ///     fn token(&self) -> TokenFuture<'_> {
    ///         Box::pin(async { Ok("eyJ0eXAi".to_owned()) }) // a real one asks Entra ID, and caches
    ///     }
    /// }
    /// let client = TableServiceClient::builder()
    ///     .endpoint("https://acct.table.core.windows.net")
    ///     .credential(Credential::bearer(Entra))
    ///     .build()?;
    /// assert_eq!(client.endpoint().account(), "acct");
    /// // a token over plain http to another host is refused
    /// let insecure = TableServiceClient::builder()
    ///     .endpoint("http://acct.table.core.windows.net")
    ///     .credential(Credential::bearer(Entra))
    ///     .build();
    /// assert!(insecure.is_err());
    /// # Ok::<(), tablekit::Error>(())
    /// ```
    pub fn bearer(provider: impl TokenProvider) -> Self {
        Credential(Kind::Bearer(Arc::new(provider)))
    }

    /// Microsoft Entra ID tokens from any Azure SDK for Rust `TokenCredential` (such as
    /// `azure_identity`'s `DeveloperToolsCredential` or `ManagedIdentityCredential`), for the
    /// endpoint's scope: `https://storage.azure.com/.default` for Azure Storage,
    /// `https://cosmos.azure.com/.default` for the Cosmos DB Table API. The token is cached
    /// and replaced five minutes before it expires, by one request while the others wait;
    /// sent only over https, or to a loopback host. Needs the `azure_core` feature.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use azure_core::credentials::{AccessToken, TokenCredential, TokenRequestOptions};
    /// use azure_core::time::{Duration, OffsetDateTime};
    /// use tablekit::client::{Credential, TableServiceClient};
    ///
    /// #[derive(Debug)]
    /// struct Issued; // e.g. azure_identity::ManagedIdentityCredential
    /// #[async_trait::async_trait]
    /// impl TokenCredential for Issued {
    ///     async fn get_token(
    ///         &self,
    ///         scopes: &[&str],
    ///         _: Option<TokenRequestOptions<'_>>,
    ///     ) -> azure_core::Result<AccessToken> {
    ///         assert_eq!(scopes, ["https://storage.azure.com/.default"]);
    ///         let expires_on = OffsetDateTime::now_utc() + Duration::hours(1);
    ///         Ok(AccessToken::new("eyJ0eXAi.issued", expires_on))
    ///     }
    /// }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// emulator.accept_bearer_token("eyJ0eXAi.issued"); // as Entra ID would have issued it
    /// let client = TableServiceClient::builder()
    ///     .endpoint(&emulator.endpoint())
    ///     .credential(Credential::token_credential(Arc::new(Issued)))
    ///     .build()?;
    /// client.create_table("Gamers").await?;
    /// # Ok(()) }
    /// ```
    #[cfg(feature = "azure_core")]
    pub fn token_credential(credential: Arc<dyn azure_core::credentials::TokenCredential>) -> Self {
        Credential(Kind::TokenCredential(credential))
    }

    /// This credential for requests to `endpoint`: an Azure SDK credential gets the
    /// endpoint's scope and a token cache.
    pub(crate) fn scoped(self, endpoint: &super::endpoint::Endpoint) -> Self {
        match self.0 {
            #[cfg(feature = "azure_core")]
            Kind::TokenCredential(credential) => Credential(Kind::Bearer(Arc::new(
                super::token_credential::CachedTokens::new(credential, endpoint),
            ))),
            kind => {
                let _ = endpoint;
                Credential(kind)
            }
        }
    }

    /// No authorization: for public emulators and tests of the service's refusal.
    pub fn anonymous() -> Self {
        Credential(Kind::Anonymous)
    }

    /// Whether requests carry a secret (everything but [`anonymous`](Self::anonymous)).
    ///
    /// ```
    /// use tablekit::client::{Credential, TableServiceClient, DEVELOPMENT_KEY};
    /// assert!(Credential::shared_key(DEVELOPMENT_KEY)?.carries_secret());
    /// assert!(!Credential::anonymous().carries_secret());
    /// // nothing to leak: plain http to another host is allowed without a secret
    /// let client = TableServiceClient::builder()
    ///     .endpoint("http://tables.internal:10002/devstoreaccount1")
    ///     .credential(Credential::anonymous())
    ///     .build()?;
    /// assert!(!client.endpoint().is_loopback());
    /// # Ok::<(), tablekit::Error>(())
    /// ```
    pub fn carries_secret(&self) -> bool {
        !matches!(self.0, Kind::Anonymous)
    }

    /// The SAS query string to append to every URL, if this is a SAS credential.
    pub(crate) fn sas_query(&self) -> Option<&str> {
        match &self.0 {
            Kind::Sas(token) => Some(token),
            _ => None,
        }
    }

    /// The `Authorization` header for a request, `None` for SAS and anonymous.
    ///
    /// `path` is the URL path exactly as sent (still percent-encoded) and `date` the
    /// `x-ms-date` value.
    pub(crate) async fn authorization(
        &self,
        account: &str,
        request: &SignedParts<'_>,
    ) -> Result<Option<String>> {
        let resource = || canonicalized_resource(account, request.path, request.comp);
        Ok(match &self.0 {
            Kind::SharedKey(key) => {
                let to_sign = shared_key_string_to_sign(
                    request.method,
                    "",
                    request.content_type,
                    request.date,
                    &resource(),
                );
                Some(["SharedKey ", account, ":", &key.sign(&to_sign)].concat())
            }
            Kind::SharedKeyLite(key) => {
                let to_sign = shared_key_lite_string_to_sign(request.date, &resource());
                Some(["SharedKeyLite ", account, ":", &key.sign(&to_sign)].concat())
            }
            Kind::Bearer(provider) => {
                let token = provider.token().await.map_err(Error::Credential)?;
                Some(format!("Bearer {token}"))
            }
            // Scoped when the client was built: never reached.
            #[cfg(feature = "azure_core")]
            Kind::TokenCredential(_) => {
                return Err(Error::Configuration(
                    "a token credential is used through a client".into(),
                ))
            }
            Kind::Sas(_) | Kind::Anonymous => None,
        })
    }
}

/// What a signature covers.
pub(crate) struct SignedParts<'a> {
    pub(crate) method: &'a str,
    pub(crate) path: &'a str,
    pub(crate) comp: Option<&'a str>,
    pub(crate) content_type: &'a str,
    pub(crate) date: &'a str,
}

impl From<crate::protocol::sas::SasToken> for Credential {
    /// A signed token as the credential, e.g. from [`TableSas::sign`](crate::sas::TableSas::sign).
    fn from(token: crate::protocol::sas::SasToken) -> Self {
        Credential(Kind::Sas(token.into_string()))
    }
}

fn decode_key(key_base64: &str) -> Result<AccountKey> {
    AccountKey::from_base64(key_base64)
        .map_err(|_| Error::Configuration("the account key is not valid base64".into()))
}

impl fmt::Debug for Credential {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self.0 {
            Kind::SharedKey(_) => "Credential::SharedKey(<redacted>)",
            Kind::SharedKeyLite(_) => "Credential::SharedKeyLite(<redacted>)",
            Kind::Sas(_) => "Credential::Sas(<redacted>)",
            Kind::Bearer(_) => "Credential::Bearer(<redacted>)",
            #[cfg(feature = "azure_core")]
            Kind::TokenCredential(_) => "Credential::TokenCredential(<redacted>)",
            Kind::Anonymous => "Credential::Anonymous",
        })
    }
}
