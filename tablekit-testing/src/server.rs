//! [`Emulator`]: the HTTP server on 127.0.0.1, its options ([`EmulatorBuilder`]) and its
//! life cycle (it stops on [`Emulator::shutdown`] or when dropped).

use std::collections::HashMap;
use std::fmt;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tablekit::auth::AccountKey;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::auth::TableSas;
use crate::counter::{RequestCounter, RequestCounts};
use crate::error::{Error, Result};
use crate::faults::{FaultState, Faults};
use crate::store::Store;

/// The development account's name.
pub const DEV_ACCOUNT: &str = "devstoreaccount1";
/// The development account's key (public, documented by Microsoft).
pub const DEV_KEY: &str =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

/// What every connection's tasks share.
#[derive(Debug)]
pub(crate) struct State {
    pub(crate) store: Store,
    pub(crate) accounts: HashMap<String, AccountKey>,
    pub(crate) counter: RequestCounter,
    pub(crate) faults: Mutex<Option<FaultState>>,
}

/// An in-process Table service on `127.0.0.1`, behaving like Azure Table Storage.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), tablekit_testing::Error> {
/// use tablekit_testing::Emulator;
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
    shutdown: Option<watch::Sender<bool>>,
    task: Option<JoinHandle<()>>,
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
    pub async fn start() -> Result<Emulator> {
        Emulator::builder().start().await
    }

    /// Options: accounts, port, persistence, faults.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), tablekit_testing::Error> {
    /// use tablekit_testing::{Emulator, Faults};
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
    pub fn endpoint(&self) -> String {
        self.endpoint_for(&self.primary.0)
    }

    /// The table endpoint of `account`.
    pub fn endpoint_for(&self, account: &str) -> String {
        format!("http://{}/{account}", self.addr)
    }

    /// The address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The primary account's name (`devstoreaccount1` unless configured).
    pub fn account(&self) -> &str {
        &self.primary.0
    }

    /// A connection string for the primary account, as Azure SDKs and tablekit read it.
    /// It holds the account key: treat it as a secret when the key is not the public
    /// development key.
    pub fn connection_string(&self) -> String {
        format!(
            "DefaultEndpointsProtocol=http;AccountName={};AccountKey={};TableEndpoint={};",
            self.primary.0,
            self.primary.1,
            self.endpoint()
        )
    }

    /// A signed table SAS query string for the primary account.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), tablekit_testing::Error> {
    /// use chrono::{Duration, Utc};
    /// use tablekit_testing::{Emulator, TableSas};
    /// let emulator = Emulator::start().await?;
    /// let token = emulator.sas(&TableSas::new("Gamers", "r", Utc::now() + Duration::hours(1)));
    /// assert!(token.contains("sig="));
    /// # Ok(()) }
    /// ```
    pub fn sas(&self, sas: &TableSas) -> String {
        match self.state.accounts.get(&self.primary.0) {
            Some(key) => sas.sign(&self.primary.0, key),
            None => String::new(),
        }
    }

    /// How many requests of each kind arrived so far.
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
    /// # async fn main() -> Result<(), tablekit_testing::Error> {
    /// let emulator = tablekit_testing::Emulator::start().await?;
    /// assert_eq!(emulator.busy_time(), std::time::Duration::ZERO);
    /// # Ok(()) }
    /// ```
    pub fn busy_time(&self) -> std::time::Duration {
        self.state.counter.busy()
    }

    /// Sets all request counts back to zero.
    pub fn reset_requests(&self) {
        self.state.counter.reset();
    }

    /// Replaces the fault-injection plan (`None` turns faults off), e.g. after seeding data.
    pub fn set_faults(&self, faults: Option<Faults>) {
        let mut slot = self.state.faults.lock().unwrap_or_else(|e| e.into_inner());
        *slot = faults.map(FaultState::new);
    }

    /// Stops accepting connections, closes the open ones and waits for the server task.
    pub async fn shutdown(mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(true);
        }
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }
}

impl Drop for Emulator {
    fn drop(&mut self) {
        // Dropping the sender wakes every task waiting on it; they stop serving.
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(true);
        }
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

/// Options for an [`Emulator`]; [`start`](EmulatorBuilder::start) validates and starts it.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), tablekit_testing::Error> {
/// use tablekit_testing::Emulator;
/// let err = Emulator::builder().account("bad", "not base64!").start().await.unwrap_err();
/// assert!(err.to_string().contains("bad"));
/// # Ok(()) }
/// ```
#[derive(Default)]
pub struct EmulatorBuilder {
    port: u16,
    accounts: Vec<(String, String)>,
    primary: Option<String>,
    persist: Option<PathBuf>,
    faults: Option<Faults>,
}

impl fmt::Debug for EmulatorBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.accounts.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("EmulatorBuilder")
            .field("port", &self.port)
            .field("accounts", &names)
            .field("persist", &self.persist)
            .field("faults", &self.faults)
            .finish()
    }
}

impl EmulatorBuilder {
    /// Listens on this port (0, the default, picks a free one).
    pub fn port(mut self, port: u16) -> Self {
        self.port = port;
        self
    }

    /// Adds an account with its base64 key (the development account is always there).
    pub fn account(mut self, name: &str, key_base64: &str) -> Self {
        self.accounts.retain(|(n, _)| n != name);
        self.accounts.push((name.to_owned(), key_base64.to_owned()));
        self
    }

    /// Makes `name` (added with [`account`](Self::account)) the primary account.
    pub fn primary_account(mut self, name: &str) -> Self {
        self.primary = Some(name.to_owned());
        self
    }

    /// Keeps the data in `dir` (created if needed): acknowledged writes survive a restart,
    /// a killed process and, on a disk that honours flushes, a power cut.
    ///
    /// Every write is answered only after its journal line is written and fsynced (one line
    /// per request, so a `$batch` survives whole or not at all); a write that cannot be made
    /// durable is refused with 500 `InternalError` and not applied. On start the journal is
    /// replayed and compacted (temporary file, fsync, rename, directory fsync). An fsync per
    /// write costs time: leave persistence off where durability does not matter.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use tablekit_testing::Emulator;
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
    pub fn faults(mut self, faults: Faults) -> Self {
        self.faults = Some(faults);
        self
    }

    /// Validates the options, binds `127.0.0.1` and starts serving in the current runtime.
    pub async fn start(self) -> Result<Emulator> {
        let mut accounts = HashMap::new();
        let mut keys = vec![(DEV_ACCOUNT.to_owned(), DEV_KEY.to_owned())];
        keys.extend(self.accounts);
        for (name, key) in &keys {
            let parsed = AccountKey::from_base64(key).map_err(|_| Error::InvalidKey {
                account: name.clone(),
            })?;
            accounts.insert(name.clone(), parsed);
        }
        let primary_name = self.primary.unwrap_or_else(|| DEV_ACCOUNT.to_owned());
        let primary = keys
            .iter()
            .find(|(n, _)| *n == primary_name)
            .cloned()
            .ok_or(Error::UnknownAccount {
                account: primary_name,
            })?;
        let store = match &self.persist {
            Some(dir) => Store::open(dir).map_err(|source| Error::Persistence {
                path: dir.clone(),
                source,
            })?,
            None => Store::in_memory(),
        };
        let listener = TcpListener::bind(("127.0.0.1", self.port))
            .await
            .map_err(Error::Bind)?;
        let addr = listener.local_addr().map_err(Error::Bind)?;
        let state = Arc::new(State {
            store,
            accounts,
            counter: RequestCounter::default(),
            faults: Mutex::new(self.faults.map(FaultState::new)),
        });
        let (tx, rx) = watch::channel(false);
        let task = tokio::spawn(serve(listener, state.clone(), rx));
        Ok(Emulator {
            addr,
            primary,
            state,
            shutdown: Some(tx),
            task: Some(task),
        })
    }
}

async fn serve(listener: TcpListener, state: Arc<State>, mut shutdown: watch::Receiver<bool>) {
    loop {
        tokio::select! {
            _ = shutdown.changed() => return,
            accepted = listener.accept() => {
                let Ok((stream, _)) = accepted else { continue };
                let _ = stream.set_nodelay(true);
                tokio::spawn(connection(stream, state.clone(), shutdown.clone()));
            }
        }
    }
}

async fn connection(
    stream: tokio::net::TcpStream,
    state: Arc<State>,
    mut shutdown: watch::Receiver<bool>,
) {
    let service = service_fn(move |req| crate::router::handle(state.clone(), req));
    let conn = http1::Builder::new()
        .keep_alive(true)
        // hyper otherwise reads ahead for a closed connection while each request is being
        // answered; the request's headers still hold its read buffer then, so every
        // request cost a fresh 8 KiB buffer. A client that leaves mid-request is noticed
        // when the answer is written instead; like Azure, a write is applied either way.
        .half_close(true)
        .serve_connection(TokioIo::new(stream), service);
    tokio::select! {
        _ = conn => {}
        _ = shutdown.changed() => {}
    }
}
