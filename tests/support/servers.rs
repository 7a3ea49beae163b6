//! The servers a suite runs on, and [`on_servers!`], the one way to run a suite on each.
//!
//! A suite is a module of cases, each an `async fn(&B)` where `B` is what a server gives the
//! cases: usually a [`TableServiceClient`] (the cases then run on [`emulator`] and
//! [`azurite`], both over real HTTP), or a richer backend of the suite's own (the
//! uncertain-writes suite adds a server behind a fault-injecting proxy). The module ends with
//! one `on_servers!` that lists its cases; each case becomes one `#[tokio::test]` per server,
//! named `suite::server::case`.

use std::ops::Deref;

use tablekit::client::{Table, TableServiceClient};
use tablekit_testing::Emulator;

/// Expands to one module per server holding one `#[tokio::test]` per case.
///
/// `on_servers!(case_a, case_b)` runs the cases on the in-process emulator and on Azurite;
/// `on_servers!({ name: backend_expr, ... } case_a, case_b)` on the servers named, each
/// `backend_expr` (evaluated once per test, inside `async`, so it may `.await`; paths are
/// relative to the generated module, so write `super::` or `crate::`) yielding what the cases
/// take by reference (or something that dereferences to it). The runtime has worker threads:
/// a server's tasks keep running while a case holds the test's own thread.
macro_rules! on_servers {
    ({ $($servers:tt)+ } $($case:ident),+ $(,)?) => {
        on_servers!(@each [$($case),+] $($servers)+);
    };
    ($($case:ident),+ $(,)?) => {
        on_servers!({
            emulator: $crate::support::servers::emulator().await,
            azurite: $crate::support::servers::azurite(),
        } $($case),+);
    };
    // One server at a time: the case list repeats inside each server's module.
    (@each $cases:tt $server:ident: $backend:expr $(, $($rest:tt)*)?) => {
        on_servers!(@server $server, $backend, $cases);
        $( on_servers!(@each $cases $($rest)*); )?
    };
    (@each $cases:tt) => {};
    (@server $server:ident, $backend:expr, [$($case:ident),+]) => {
        mod $server {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $case() {
                    let backend = $backend;
                    super::$case(&backend).await;
                }
            )+
        }
    };
}

/// A fresh emulator that throttles as the service does, at rates low enough that a test's
/// bursts are refused now and then (200 entities/s a partition, 1,000 an account, 10 ms of
/// burst), and a client that retries as it does against Azure. A case that ran on it without
/// a single refusal tested nothing of the throttle, and fails when its server is dropped.
pub async fn throttled() -> Throttled {
    let throttle = tablekit_testing::Throttle::azure()
        .with_partition_rate(200)
        .with_account_rate(1_000)
        .with_burst(std::time::Duration::from_millis(10));
    let emulator = Emulator::builder()
        .throttle(throttle)
        .start()
        .await
        .expect("start the emulator");
    let client = emulator.client();
    Throttled(OnEmulator { emulator, client })
}

/// A throttled emulator and its client (see [`throttled`]).
pub struct Throttled(OnEmulator);

impl Deref for Throttled {
    type Target = TableServiceClient;

    fn deref(&self) -> &TableServiceClient {
        &self.0
    }
}

impl Drop for Throttled {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let refused = self.0.emulator.throttled().total();
            assert!(refused > 0, "the throttled emulator refused nothing");
        }
    }
}

/// A client for a fresh in-process emulator, which lives as long as this value.
pub struct OnEmulator {
    /// The server, for what only the emulator can show (request counts, faults, its store).
    pub emulator: Emulator,
    client: TableServiceClient,
}

impl Deref for OnEmulator {
    type Target = TableServiceClient;

    fn deref(&self) -> &TableServiceClient {
        &self.client
    }
}

/// A fresh in-process emulator in the test's runtime, and a client for it.
pub async fn emulator() -> OnEmulator {
    let emulator = Emulator::start().await.expect("start the emulator");
    let client = emulator.client();
    OnEmulator { emulator, client }
}

/// A client for a fresh in-process emulator reached without sockets, through its in-process
/// transport: the same pipeline after the HTTP layer.
pub async fn in_process() -> OnEmulator {
    let emulator = Emulator::start().await.expect("start the emulator");
    let client = emulator.in_process_client();
    OnEmulator { emulator, client }
}

/// A client over HTTP for a fresh emulator that keeps its data in a temporary directory, so
/// every write goes through its write-ahead log, group commit and checkpoints. When dropped,
/// it is shut down and started again on its directory, which must serve the same tables and
/// entities (ETags included) that it served before.
pub async fn persisted() -> Persisted {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let emulator = Emulator::builder()
        .persist_to(dir.path())
        .start()
        .await
        .expect("start the persisted emulator");
    let client = emulator.client();
    Persisted {
        server: Some(OnEmulator { emulator, client }),
        dir,
    }
}

/// See [`persisted`].
pub struct Persisted {
    server: Option<OnEmulator>,
    dir: tempfile::TempDir,
}

impl Deref for Persisted {
    type Target = TableServiceClient;

    fn deref(&self) -> &TableServiceClient {
        self.server.as_ref().expect("the server runs until dropped")
    }
}

/// Every table's name and entities, in key order.
fn stored(emulator: &Emulator) -> Vec<(String, Vec<tablekit::DynamicEntity>)> {
    let mut names = emulator.table_names();
    names.sort();
    names
        .into_iter()
        .map(|name| {
            let entities = emulator.entities(&name).expect("a listed table");
            (name, entities)
        })
        .collect()
}

impl Drop for Persisted {
    fn drop(&mut self) {
        let Some(server) = self.server.take() else {
            return;
        };
        if std::thread::panicking() {
            return;
        }
        let before = stored(&server.emulator);
        // Dropping the emulator closes its directory; the restart runs on a runtime of its
        // own, as this drop may be inside the test's.
        drop(server);
        let dir = self.dir.path().to_owned();
        let after = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime");
            runtime.block_on(async {
                let emulator = Emulator::builder()
                    .persist_to(&dir)
                    .start()
                    .await
                    .expect("restart on the directory");
                stored(&emulator)
            })
        })
        .join()
        .expect("the restart");
        assert!(before == after, "a restart changed the stored tables");
    }
}

/// A client for `tablekit_testing`'s Azurite: started on first use (installed with npm into a
/// cache directory the first time) unless `TABLEKIT_AZURITE_CONNECTION_STRING` names a running
/// one; without Node.js the tests fail with a message saying so (they never skip).
pub fn azurite() -> TableServiceClient {
    tablekit_testing::azurite_client()
}

/// A table name no other case uses (cases run in parallel on one server).
pub fn unique_name(prefix: &str) -> String {
    let id = uuid::Uuid::new_v4().simple().to_string();
    format!("{prefix}{}", &id[..12])
}

/// Creates a fresh table for one case.
pub async fn fresh_table(client: &TableServiceClient, prefix: &str) -> Table {
    let table: Table = client.table_named(&unique_name(prefix));
    table.create().await.expect("create the case's table");
    table
}
