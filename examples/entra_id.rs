//! Microsoft Entra ID: the client authenticates with an `azure_core` `TokenCredential`
//! instead of an account key.
//!
//! In an application the credential comes from `azure_identity`:
//!
//! ```text
//! // Cargo.toml: azure_identity = "1"
//! let credential: Arc<dyn TokenCredential> = if running_in_azure {
//!     azure_identity::ManagedIdentityCredential::new(None)?
//! } else {
//!     azure_identity::DeveloperToolsCredential::new(None)? // `az login`, `azd auth login`
//! };
//! ```
//!
//! (`DefaultAzureCredential`, known from .NET and Python, is not part of the Rust
//! `azure_identity` 1.x.) This example does not depend on `azure_identity`, which brings an
//! HTTP client and TLS stack of its own: it uses a small credential of its own instead, which
//! hands out a token the embedded emulator accepts, and counts the calls to show that the
//! client caches the token. Any `TokenCredential` plugs in the same way.
//!
//! Run with `cargo run --example entra_id`.

use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use azure_core::credentials::{AccessToken, TokenCredential, TokenRequestOptions};
use azure_core::time::{Duration, OffsetDateTime};
use tablekit::client::{Credential, TableServiceClient};
use tablekit::DynamicEntity;
use tablekit_testing::Emulator;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The token the credential hands out, and the emulator accepts.
pub const TOKEN: &str = "example-entra-token";

/// A credential that hands out [`TOKEN`], valid for an hour, noting each call and its scopes.
#[derive(Debug, Default)]
pub struct ExampleCredential {
    calls: AtomicUsize,
    scopes: Mutex<Vec<String>>,
}

#[async_trait::async_trait]
impl TokenCredential for ExampleCredential {
    async fn get_token(
        &self,
        scopes: &[&str],
        _options: Option<TokenRequestOptions<'_>>,
    ) -> azure_core::Result<AccessToken> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        if let Ok(mut seen) = self.scopes.lock() {
            seen.extend(scopes.iter().map(|s| (*s).to_owned()));
        }
        let expires_on = OffsetDateTime::now_utc() + Duration::hours(1);
        Ok(AccessToken::new(TOKEN, expires_on))
    }
}

/// What the run observed, for the test suite to check.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Calls to the credential: one, since the client caches the token.
    pub token_calls: usize,
    /// The scopes the client asked for.
    pub scopes: Vec<String>,
    /// The score read back.
    pub score: Option<i32>,
}

fn main() -> ExitCode {
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("entra_id failed: {e}");
            return ExitCode::FAILURE;
        }
    };
    let outcome = runtime.block_on(async {
        let emulator = Emulator::start().await?;
        // The emulator checks bearer tokens against the ones it was told to accept.
        emulator.accept_bearer_token(TOKEN);
        run(&emulator.endpoint()).await
    });
    match outcome {
        Ok(outcome) => {
            println!("{outcome:#?}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("entra_id failed: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Connects to `endpoint` with the example's credential, writes and reads an entity in a
/// fresh table, and deletes it.
pub async fn run(endpoint: &str) -> Result<Outcome, BoxError> {
    let credential = Arc::new(ExampleCredential::default());
    // For Azure: `.endpoint("https://ACCOUNT.table.core.windows.net")`.
    let client = TableServiceClient::builder()
        .endpoint(endpoint)
        .credential(Credential::token_credential(credential.clone()))
        .build()?;

    let name = format!("Gamers{}", &uuid::Uuid::new_v4().simple().to_string()[..8]);
    let table = client.table_named::<DynamicEntity>(&name);
    table.create().await?;
    let mut dragon = DynamicEntity::new("eu", "dragon");
    dragon.set("Score", 30);
    table.insert(&mut dragon).await?;
    let score = table
        .get("eu", "dragon")
        .await?
        .and_then(|e| e.get::<i32>("Score"));
    table.delete_table().await?;

    Ok(Outcome {
        token_calls: credential.calls.load(Ordering::SeqCst),
        scopes: credential
            .scopes
            .lock()
            .map(|s| s.clone())
            .unwrap_or_default(),
        score,
    })
}
