//! Microsoft Entra ID tokens from the Azure SDK for Rust: any `azure_core`
//! [`TokenCredential`] (from `azure_identity` or elsewhere) becomes a bearer [`TokenProvider`]
//! that caches its token and refreshes it shortly before it expires, one refresh at a time.
//!
//! The scope is the service's: `https://storage.azure.com/.default` for Azure Storage and
//! `https://cosmos.azure.com/.default` for the Cosmos DB Table API, chosen from the endpoint
//! when the client is built.

use std::fmt;
use std::sync::Arc;

use azure_core::credentials::{AccessToken, TokenCredential};
use azure_core::time::{Duration, OffsetDateTime};

use super::endpoint::Endpoint;
use super::token::{TokenFuture, TokenProvider};

/// The scope of Azure Storage.
pub(crate) const STORAGE_SCOPE: &str = "https://storage.azure.com/.default";
/// The scope of the Cosmos DB Table API.
pub(crate) const COSMOS_SCOPE: &str = "https://cosmos.azure.com/.default";

/// How long before its expiry a token is replaced, as the Azure SDKs do.
const REFRESH_MARGIN: Duration = Duration::minutes(5);

/// A token credential's tokens for one scope, cached.
pub(crate) struct CachedTokens {
    credential: Arc<dyn TokenCredential>,
    scope: &'static str,
    /// Held across a refresh: concurrent requests wait for the one refresh, then share it.
    cached: tokio::sync::Mutex<Option<AccessToken>>,
}

impl CachedTokens {
    /// Tokens from `credential` for the service at `endpoint`.
    pub(crate) fn new(credential: Arc<dyn TokenCredential>, endpoint: &Endpoint) -> Self {
        let scope = if endpoint.is_cosmos() {
            COSMOS_SCOPE
        } else {
            STORAGE_SCOPE
        };
        CachedTokens {
            credential,
            scope,
            cached: tokio::sync::Mutex::new(None),
        }
    }

    async fn current(&self) -> Result<String, super::token::TokenError> {
        let mut cached = self.cached.lock().await;
        let now = OffsetDateTime::now_utc();
        if let Some(token) = cached
            .as_ref()
            .filter(|t| t.expires_on - REFRESH_MARGIN > now)
        {
            return Ok(token.token.secret().to_owned());
        }
        match self.credential.get_token(&[self.scope], None).await {
            Ok(fresh) => {
                let secret = fresh.token.secret().to_owned();
                *cached = Some(fresh);
                Ok(secret)
            }
            // A failed early refresh keeps the token while it is still valid.
            Err(e) => match cached.as_ref().filter(|t| t.expires_on > now) {
                Some(token) => {
                    tracing::warn!(error = %e, "token refresh failed: the current token is still valid");
                    Ok(token.token.secret().to_owned())
                }
                None => Err(Box::new(e)),
            },
        }
    }
}

impl TokenProvider for CachedTokens {
    fn token(&self) -> TokenFuture<'_> {
        Box::pin(self.current())
    }
}

impl fmt::Debug for CachedTokens {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CachedTokens")
            .field("scope", &self.scope)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Never;

    #[async_trait::async_trait]
    impl TokenCredential for Never {
        async fn get_token(
            &self,
            _: &[&str],
            _: Option<azure_core::credentials::TokenRequestOptions<'_>>,
        ) -> azure_core::Result<AccessToken> {
            Err(azure_core::Error::with_message(
                azure_core::error::ErrorKind::Credential,
                "no identity here",
            ))
        }
    }

    #[tokio::test]
    async fn scopes_follow_the_endpoint_and_failures_are_typed() {
        let cosmos = Endpoint::parse("https://acct.table.cosmos.azure.com").unwrap();
        assert_eq!(
            CachedTokens::new(Arc::new(Never), &cosmos).scope,
            COSMOS_SCOPE
        );
        let storage = Endpoint::parse("https://acct.table.core.windows.net").unwrap();
        let tokens = CachedTokens::new(Arc::new(Never), &storage);
        assert_eq!(tokens.scope, STORAGE_SCOPE);
        let err = tokens.token().await.unwrap_err();
        assert!(err.to_string().contains("no identity here"), "{err}");
    }
}
