//! Microsoft Entra ID through the Azure SDK for Rust: an `azure_core` `TokenCredential`
//! against the emulator's bearer check. The token is asked for once and cached, replaced
//! shortly before it expires, and asked for once by many requests at the same time.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use azure_core::credentials::{AccessToken, TokenCredential, TokenRequestOptions};
use azure_core::time::{Duration, OffsetDateTime};
use tablekit::client::{Credential, TableServiceClient};
use tablekit_testing::Emulator;

/// Issues `token-1`, `token-2`, ... each valid for the next lifetime in `lifetimes` (the
/// last one repeats), noting the scopes asked for.
#[derive(Debug)]
struct Issuer {
    issued: AtomicUsize,
    lifetimes: Vec<Duration>,
    scopes: Mutex<Vec<String>>,
}

impl Issuer {
    fn new(lifetimes: &[Duration]) -> Arc<Issuer> {
        Arc::new(Issuer {
            issued: AtomicUsize::new(0),
            lifetimes: lifetimes.to_vec(),
            scopes: Mutex::default(),
        })
    }

    fn calls(&self) -> usize {
        self.issued.load(Ordering::SeqCst)
    }
}

#[async_trait::async_trait]
impl TokenCredential for Issuer {
    async fn get_token(
        &self,
        scopes: &[&str],
        _: Option<TokenRequestOptions<'_>>,
    ) -> azure_core::Result<AccessToken> {
        let n = self.issued.fetch_add(1, Ordering::SeqCst);
        self.scopes
            .lock()
            .expect("lock")
            .extend(scopes.iter().map(|s| (*s).to_owned()));
        // slow, as a round trip to Entra ID is: concurrent callers overlap
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        let lifetime = self.lifetimes[n.min(self.lifetimes.len() - 1)];
        let expires_on = OffsetDateTime::now_utc() + lifetime;
        Ok(AccessToken::new(format!("token-{}", n + 1), expires_on))
    }
}

async fn emulator() -> Emulator {
    let emulator = Emulator::start().await.expect("emulator");
    for n in 1..=5 {
        emulator.accept_bearer_token(&format!("token-{n}"));
    }
    emulator
}

fn client(emulator: &Emulator, issuer: &Arc<Issuer>) -> TableServiceClient {
    TableServiceClient::builder()
        .endpoint(&emulator.endpoint())
        .credential(Credential::token_credential(issuer.clone()))
        .build()
        .expect("client")
}

#[tokio::test(flavor = "current_thread")]
async fn a_token_is_asked_for_once_for_the_storage_scope() {
    let emulator = emulator().await;
    let issuer = Issuer::new(&[Duration::hours(1)]);
    let client = client(&emulator, &issuer);
    client.create_table("Cached").await.expect("create");
    for _ in 0..3 {
        assert!(client.table_exists("Cached").await.expect("exists"));
    }
    assert_eq!(issuer.calls(), 1);
    let scopes = issuer.scopes.lock().expect("lock").clone();
    assert_eq!(scopes, ["https://storage.azure.com/.default"]);
    assert!(!format!("{client:?}").contains("token-1"));
}

#[tokio::test(flavor = "current_thread")]
async fn a_token_near_its_expiry_is_replaced() {
    let emulator = emulator().await;
    // the first token has two minutes left: inside the five-minute margin
    let issuer = Issuer::new(&[Duration::minutes(2), Duration::hours(1)]);
    let client = client(&emulator, &issuer);
    client.create_table("Refreshed").await.expect("create");
    assert_eq!(issuer.calls(), 1);
    assert!(client.table_exists("Refreshed").await.expect("exists"));
    assert_eq!(issuer.calls(), 2, "replaced before the next request");
    assert!(client.table_exists("Refreshed").await.expect("exists"));
    assert_eq!(issuer.calls(), 2, "the new token is cached");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_requests_share_one_refresh() {
    let emulator = emulator().await;
    let issuer = Issuer::new(&[Duration::hours(1)]);
    let client = client(&emulator, &issuer);
    let tasks: Vec<_> = (0..8)
        .map(|_| {
            let client = client.clone();
            tokio::spawn(async move { client.table_exists("Shared").await })
        })
        .collect();
    for task in tasks {
        assert!(!task.await.expect("task").expect("exists"));
    }
    assert_eq!(issuer.calls(), 1);
}
