//! Writes whose answer is lost after the service applied them, on every server: a transaction
//! or an insert the client retries meets its own earlier write, and must report success when
//! a re-read proves it, or an error that says the write may have been applied.
//!
//! The cases are functions taking a [`Backend`]: a server, a way to inject faults into the
//! client's requests, and a straight path for another writer and for checking what is
//! stored. They run on the emulator twice (with the faults it injects itself, and through a
//! `FaultProxy` in front of it) and on Azurite through a `FaultProxy` (Azurite cannot fail on
//! cue).

use std::any::Any;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::{TimeZone, Utc};
use futures::TryStreamExt;
use tablekit::client::{ConnectionString, Credential, RetryPolicy, Table, TableServiceClient};
use tablekit::patterns::bulk::{BulkWriter, WriteOp};
use tablekit::{DynamicEntity, Error};
use tablekit_testing::{
    azurite_connection_string, Emulator, Fault, FaultProxy, Faults, Operation, DEV_KEY,
};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::Layer;
use uuid::Uuid;

/// A server the cases run on.
pub struct Backend {
    /// Where requests meet the faults.
    endpoint: String,
    credential: Credential,
    /// A connection string straight to the server.
    direct: String,
    set_faults: Box<dyn Fn(Option<Faults>) + Send + Sync>,
    /// Whatever must live as long as the backend (servers, proxies).
    _alive: Box<dyn Any + Send + Sync>,
}

impl Backend {
    /// A backend whose faulty path is `endpoint` (signed with `credential`), whose straight
    /// path is the connection string `direct`, and whose faults `set_faults` sets.
    pub fn new(
        endpoint: String,
        credential: Credential,
        direct: String,
        set_faults: impl Fn(Option<Faults>) + Send + Sync + 'static,
        alive: impl Any + Send + Sync,
    ) -> Self {
        Backend {
            endpoint,
            credential,
            direct,
            set_faults: Box::new(set_faults),
            _alive: Box::new(alive),
        }
    }

    /// A client whose requests meet the faults, retrying at once.
    pub fn client(&self) -> TableServiceClient {
        self.client_with(
            RetryPolicy::default()
                .base_delay(Duration::from_millis(1))
                .max_delay(Duration::from_millis(20)),
        )
    }

    /// A client whose requests meet the faults, with this retry policy.
    pub fn client_with(&self, retry: RetryPolicy) -> TableServiceClient {
        TableServiceClient::builder()
            .endpoint(&self.endpoint)
            .credential(self.credential.clone())
            .retry_policy(retry)
            .timeout(Duration::from_secs(10))
            .build()
            .expect("a client for the faulty path")
    }

    /// A client straight to the server: another writer, and the reader that checks what is
    /// stored. (On the emulator injecting its own faults, its requests draw from the plan
    /// too: every case scopes its plan to the operation under test, which this client does
    /// not send while the plan is on.)
    pub fn direct(&self) -> TableServiceClient {
        TableServiceClient::from_connection_string(&self.direct).expect("a direct client")
    }

    /// Replaces the fault plan of the faulty path.
    pub fn set_faults(&self, faults: Option<Faults>) {
        (self.set_faults)(faults);
    }
}

/// The first request of kind `op` is applied, then its connection drops before the answer;
/// every later one goes through.
fn lost_once(op: Operation) -> Faults {
    Faults::seeded(1)
        .rate(Fault::AppliedThenDropped, 1.0)
        .only(&[op])
        .at_most(1)
}

/// A table name no other case uses.
fn unique_name(prefix: &str) -> String {
    let id = Uuid::new_v4().simple().to_string();
    format!("{prefix}{}", &id[..12])
}

/// A fresh table, created on the straight path; the same table through the faulty client.
async fn tables(backend: &Backend, client: &TableServiceClient, prefix: &str) -> (Table, Table) {
    let direct: Table = backend.direct().table_named(&unique_name(prefix));
    direct.create().await.expect("create the case's table");
    let faulty = client.table_named(direct.name());
    (direct, faulty)
}

fn line(order: &str, n: i32) -> DynamicEntity {
    let mut e = DynamicEntity::new(order, format!("line-{n}"));
    e.set("Qty", n + 1);
    e.set("Sku", format!("sku-{n}"));
    e
}

async fn stored(table: &Table, partition_key: &str, row_key: &str) -> Option<DynamicEntity> {
    table
        .get(partition_key, row_key)
        .await
        .expect("read on the straight path")
}

/// Whether `stored` holds exactly the keys and properties of `sent`, in any order.
fn same_content(stored: &DynamicEntity, sent: &DynamicEntity) -> bool {
    stored.partition_key() == sent.partition_key()
        && stored.row_key() == sent.row_key()
        && stored.len() == sent.len()
        && sent
            .properties()
            .all(|(name, value)| stored.value(name) == Some(value))
}

pub async fn a_transaction_whose_answer_was_lost_reports_success(backend: &Backend) {
    let client = backend.client();
    let (direct, faulty) = tables(backend, &client, "LostTx").await;
    let lines: Vec<_> = (0..5).map(|n| line("order-17", n)).collect();
    let mut batch = faulty.batch();
    for l in &lines {
        batch.insert(l).expect("a valid transaction");
    }
    backend.set_faults(Some(lost_once(Operation::Batch)));
    let outcome = batch.submit().await;
    backend.set_faults(None);
    let outcome = outcome.expect("the first attempt applied the transaction");
    assert!(outcome.verified(), "established by the re-read");
    for (l, etag) in lines.iter().zip(outcome.etags()) {
        let row = stored(&direct, "order-17", l.row_key())
            .await
            .expect("inserted");
        assert_eq!(row.etag(), etag, "the ETag read back is recorded");
        assert!(same_content(&row, l), "{row:?}");
    }
    direct.delete_table().await.expect("clean up");
}

pub async fn a_transaction_of_every_kind_whose_answer_was_lost_reports_success(backend: &Backend) {
    let client = backend.client();
    let (direct, faulty) = tables(backend, &client, "LostKinds").await;
    for row in ["merge", "replace", "delete", "upsert-merge"] {
        let mut e = DynamicEntity::new("p", row);
        e.set("A", 1);
        direct.insert(&mut e).await.expect("seed a row");
    }
    let etag = |row: &'static str| {
        let direct = direct.clone();
        async move {
            let e = stored(&direct, "p", row).await.expect("seeded");
            e.etag().cloned().expect("read with its ETag")
        }
    };
    let mut insert = DynamicEntity::new("p", "insert");
    insert.set("Big", 1i64 << 40);
    insert.set(
        "When",
        Utc.with_ymd_and_hms(2026, 11, 22, 10, 0, 0).unwrap(),
    );
    insert.set("Id", Uuid::from_u128(7));
    insert.set("Bytes", vec![0u8, 1, 255]);
    insert.set("Ratio", 2.5f64);
    insert.set("Whole", 2.0f64);
    insert.set("Missing", f64::NAN);
    insert.set("Done", true);
    insert.set("Name", "Zoë's \"ünïcode\" ☃");
    let mut merge = DynamicEntity::new("p", "merge");
    merge.set("B", 2);
    merge.set_etag(Some(etag("merge").await));
    let mut replace = DynamicEntity::new("p", "replace");
    replace.set("C", 3);
    replace.set_etag(Some(etag("replace").await));
    let delete_etag = etag("delete").await;
    let mut upsert_merge = DynamicEntity::new("p", "upsert-merge");
    upsert_merge.set("D", 4);
    let mut upsert_replace = DynamicEntity::new("p", "upsert-replace");
    upsert_replace.set("E", 5);

    let mut batch = faulty.batch();
    batch.insert(&insert).unwrap();
    batch.merge(&merge).unwrap();
    batch.replace(&replace).unwrap();
    batch.delete_by_key("p", "delete", &delete_etag).unwrap();
    batch.upsert_merge(&upsert_merge).unwrap();
    batch.upsert_replace(&upsert_replace).unwrap();
    backend.set_faults(Some(lost_once(Operation::Batch)));
    let outcome = batch.submit().await;
    backend.set_faults(None);
    let outcome = outcome.expect("the first attempt applied the transaction");
    assert!(outcome.verified());

    let rows = [
        "insert",
        "merge",
        "replace",
        "delete",
        "upsert-merge",
        "upsert-replace",
    ];
    let mut now = Vec::new();
    for row in rows {
        now.push(stored(&direct, "p", row).await);
    }
    let etags: Vec<_> = now
        .iter()
        .map(|e| e.as_ref().and_then(|e| e.etag()))
        .collect();
    assert_eq!(outcome.etags(), etags);
    let inserted = now[0].as_ref().expect("inserted");
    assert!(same_content(inserted, &insert), "{inserted:?}");
    let merged = now[1].as_ref().expect("merged");
    assert_eq!(
        (merged.get::<i32>("A"), merged.get::<i32>("B")),
        (Some(1), Some(2))
    );
    let replaced = now[2].as_ref().expect("replaced");
    assert_eq!(
        (replaced.get::<i32>("A"), replaced.get::<i32>("C")),
        (None, Some(3))
    );
    assert!(now[3].is_none(), "deleted");
    let upserted = now[4].as_ref().expect("merged in");
    assert_eq!(
        (upserted.get::<i32>("A"), upserted.get::<i32>("D")),
        (Some(1), Some(4))
    );
    assert_eq!(now[5].as_ref().and_then(|e| e.get::<i32>("E")), Some(5));
    direct.delete_table().await.expect("clean up");
}

pub async fn a_transaction_changed_by_another_writer_between_attempts_reports_a_flagged_error(
    backend: &Backend,
) {
    let client = backend.client();
    let (direct, faulty) = tables(backend, &client, "Changed").await;
    let lines: Vec<_> = (0..3).map(|n| line("order-17", n)).collect();
    let mut batch = faulty.batch();
    for l in &lines {
        batch.insert(l).expect("a valid transaction");
    }
    // Between the lost attempt and the retry, another writer changes line-1.
    let connection_string = backend.direct.clone();
    let table = direct.name().to_owned();
    let between = BetweenAttempts::new(move || {
        on_another_thread(async move {
            let other = TableServiceClient::from_connection_string(&connection_string)
                .expect("another writer");
            let mut changed = DynamicEntity::new("order-17", "line-1");
            changed.set("Qty", 99);
            other
                .table_named::<DynamicEntity>(&table)
                .upsert_replace(&mut changed)
                .await
                .expect("another writer's change");
        })
    });
    let _guard = between.install();
    backend.set_faults(Some(lost_once(Operation::Batch)));
    let result = batch.submit().await;
    backend.set_faults(None);
    assert_eq!(
        between.runs(),
        1,
        "the other writer wrote between the attempts"
    );

    let err = result.expect_err("line-1 is not as the transaction left it");
    assert!(matches!(err, Error::Batch { .. }), "{err}");
    assert!(err.is_conflict(), "{err}");
    assert!(err.after_uncertain_attempt(), "{err}");
    assert!(err.may_have_been_applied(), "{err}");
    // It was applied: the retry met its rows.
    for l in [&lines[0], &lines[2]] {
        let row = stored(&direct, "order-17", l.row_key())
            .await
            .expect("present");
        assert!(same_content(&row, l), "{row:?}");
    }
    let changed = stored(&direct, "order-17", "line-1")
        .await
        .expect("present");
    assert_eq!(changed.get::<i32>("Qty"), Some(99));
    direct.delete_table().await.expect("clean up");
}

pub async fn a_transaction_that_ends_in_a_transport_error_says_it_may_have_been_applied(
    backend: &Backend,
) {
    // Every transaction is applied (or refused, once its rows exist), then its connection
    // drops: the retries end in a transport error.
    let every = Faults::seeded(1)
        .rate(Fault::AppliedThenDropped, 1.0)
        .only(&[Operation::Batch]);
    let policies = [
        ("retried", RetryPolicy::default().max_attempts(3)),
        ("tried once", RetryPolicy::none()),
    ];
    for (order, policy) in policies {
        let client = backend.client_with(policy.base_delay(Duration::from_millis(1)));
        let (direct, faulty) = tables(backend, &client, "Dropped").await;
        let mut batch = faulty.batch();
        batch.insert(&line(order, 0)).unwrap();
        batch.insert(&line(order, 1)).unwrap();
        backend.set_faults(Some(every.clone()));
        let err = batch.submit().await.expect_err("no answer ever arrives");
        backend.set_faults(None);
        assert!(matches!(err, Error::Transport { .. }), "{order}: {err}");
        assert!(err.is_transient(), "{order}: {err}");
        assert!(err.after_uncertain_attempt(), "{order}: {err}");
        assert!(err.may_have_been_applied(), "{order}: {err}");
        assert!(err.to_string().contains("may have been applied"), "{err}");
        for n in 0..2 {
            let row = stored(&direct, order, &format!("line-{n}")).await;
            assert!(row.is_some(), "{order}: applied by the first attempt");
        }
        direct.delete_table().await.expect("clean up");
    }
}

pub async fn a_write_answered_500_may_have_been_applied_and_a_refused_one_was_not(
    backend: &Backend,
) {
    let client = backend.client_with(RetryPolicy::none());
    let (direct, faulty) = tables(backend, &client, "Answered").await;
    let applied_then_500 = Faults::seeded(1)
        .rate(Fault::AppliedThenInternalError, 1.0)
        .only(&[Operation::Batch]);
    let refused = Faults::seeded(1)
        .rate(Fault::ServerBusy, 1.0)
        .only(&[Operation::Batch]);
    for (order, faults, applied) in [
        ("applied", applied_then_500, true),
        ("refused", refused, false),
    ] {
        let mut batch = faulty.batch();
        batch.insert(&line(order, 0)).unwrap();
        backend.set_faults(Some(faults));
        let err = batch.submit().await.expect_err("the fault answers");
        backend.set_faults(None);
        assert_eq!(err.may_have_been_applied(), applied, "{order}: {err}");
        assert!(
            !err.after_uncertain_attempt(),
            "{order}: the only attempt: {err}"
        );
        let row = stored(&direct, order, "line-0").await;
        assert_eq!(row.is_some(), applied, "{order}");
    }
    direct.delete_table().await.expect("clean up");
}

pub async fn a_single_insert_whose_answer_was_lost_reports_success(backend: &Backend) {
    let client = backend.client();
    let (direct, faulty) = tables(backend, &client, "LostInsert").await;
    let mut order = line("order-17", 0);
    backend.set_faults(Some(lost_once(Operation::Insert)));
    let result = faulty.insert(&mut order).await;
    backend.set_faults(None);
    result.expect("the first attempt inserted it");
    let row = stored(&direct, "order-17", "line-0")
        .await
        .expect("inserted");
    assert_eq!(order.etag(), row.etag(), "the ETag read back is recorded");
    assert!(same_content(&row, &order), "{row:?}");
    direct.delete_table().await.expect("clean up");
}

pub async fn a_single_insert_that_meets_another_writers_row_stays_a_flagged_conflict(
    backend: &Backend,
) {
    let client = backend.client();
    let (direct, faulty) = tables(backend, &client, "Claimed").await;
    let mut theirs = DynamicEntity::new("lock", "");
    theirs.set("Owner", "them");
    direct.insert(&mut theirs).await.expect("their claim");
    let mut mine = DynamicEntity::new("lock", "");
    mine.set("Owner", "me");
    // The first attempt is refused (409), and that answer is lost: the retry meets 409 too.
    backend.set_faults(Some(lost_once(Operation::Insert)));
    let result = faulty.insert(&mut mine).await;
    backend.set_faults(None);
    let err = result.expect_err("their row, not ours");
    assert!(err.is_conflict(), "{err}");
    assert!(
        err.after_uncertain_attempt() && err.may_have_been_applied(),
        "{err}"
    );
    let row = stored(&direct, "lock", "").await.expect("present");
    assert_eq!(row.get::<String>("Owner").as_deref(), Some("them"));
    assert_eq!(mine.etag(), None, "nothing recorded");
    direct.delete_table().await.expect("clean up");
}

/// The limit the retry notes document: content cannot tell two identical writes apart.
pub async fn an_identical_row_from_another_writer_is_taken_for_ours(backend: &Backend) {
    let client = backend.client();
    let (direct, faulty) = tables(backend, &client, "Identical").await;
    let mut theirs = DynamicEntity::new("lock", "");
    direct.insert(&mut theirs).await.expect("their claim");
    let mut mine = DynamicEntity::new("lock", ""); // no owner id: indistinguishable
    backend.set_faults(Some(lost_once(Operation::Insert)));
    let result = faulty.insert(&mut mine).await;
    backend.set_faults(None);
    result.expect("taken for ours: identical content");
    assert_eq!(mine.etag(), theirs.etag());
    direct.delete_table().await.expect("clean up");
}

type Action = Box<dyn FnOnce() + Send>;

/// Runs an action once, on the test's thread, when the client logs that it will retry:
/// after an attempt failed and before the next one is sent. The runtime's workers keep
/// serving meanwhile.
#[derive(Clone)]
struct BetweenAttempts {
    action: Arc<Mutex<Option<Action>>>,
    runs: Arc<AtomicUsize>,
}

impl BetweenAttempts {
    fn new(action: impl FnOnce() + Send + 'static) -> Self {
        BetweenAttempts {
            action: Arc::new(Mutex::new(Some(Box::new(action)))),
            runs: Arc::default(),
        }
    }

    /// Watches this thread's events until the guard drops.
    fn install(&self) -> tracing::subscriber::DefaultGuard {
        tracing::subscriber::set_default(tracing_subscriber::registry().with(self.clone()))
    }

    fn runs(&self) -> usize {
        self.runs.load(Ordering::Relaxed)
    }
}

impl<S: tracing::Subscriber> Layer<S> for BetweenAttempts {
    fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
        let meta = event.metadata();
        if *meta.level() != tracing::Level::WARN || !meta.target().starts_with("tablekit") {
            return;
        }
        let mut message = Message(String::new());
        event.record(&mut message);
        if !message.0.contains("retrying") {
            return;
        }
        let action = self.action.lock().expect("the action").take();
        if let Some(action) = action {
            action();
            self.runs.fetch_add(1, Ordering::Relaxed);
        }
    }
}

struct Message(String);

impl tracing::field::Visit for Message {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            self.0 = format!("{value:?}");
        }
    }
}

/// Runs `work` to completion on a thread and runtime of its own, blocking this thread.
fn on_another_thread(work: impl std::future::Future<Output = ()> + Send + 'static) {
    std::thread::spawn(move || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime")
            .block_on(work);
    })
    .join()
    .expect("the other writer finished");
}

/// A bulk load whose answers are lost now and then (applied, then the connection dropped or
/// answered 500) and whose requests are refused as busy besides: every insert is applied
/// exactly once and reported committed, the lost ones settled by re-reading their rows.
pub async fn a_bulk_load_whose_answers_are_lost_applies_each_insert_once(backend: &Backend) {
    let client = backend.client();
    let (direct, faulty) = tables(backend, &client, "LostBulk").await;
    let ops =
        (0..2_400).map(|i| WriteOp::insert(faulty.name(), line(&format!("order-{}", i % 24), i)));
    backend.set_faults(Some(
        Faults::seeded(11)
            .rate(Fault::AppliedThenDropped, 0.15)
            .rate(Fault::AppliedThenInternalError, 0.15)
            .rate(Fault::ServerBusy, 0.2)
            .only(&[Operation::Batch]),
    ));
    let report = BulkWriter::new(&client).write_iter(ops).await;
    backend.set_faults(None);
    assert!(report.is_complete(), "{:?}", report.failures().next());
    // 24 transactions, each attempt faulted one time in two: some of each kind of fault.
    assert!(
        report.verified() > 0,
        "no lost answer was settled by a re-read"
    );
    assert!(report.throttled() > 0, "no request was refused as busy");
    assert!(report.retried() >= report.throttled() + report.verified() as u64);
    let rows: Vec<DynamicEntity> = direct
        .query_all()
        .entities()
        .try_collect()
        .await
        .expect("read back");
    assert_eq!(rows.len(), 2_400, "each insert stored once");
    direct.delete_table().await.expect("clean up");
}

/// The emulator, injecting the faults itself.
async fn emulator_faults() -> Backend {
    let emulator = Arc::new(Emulator::start().await.expect("start the emulator"));
    let faults = emulator.clone();
    Backend::new(
        emulator.endpoint(),
        Credential::shared_key(DEV_KEY).expect("the development key"),
        emulator.connection_string(),
        move |plan| faults.set_faults(plan),
        emulator,
    )
}

/// A server at `direct` (a connection string) behind a fault-injecting proxy.
async fn behind_a_proxy(direct: String, alive: impl Any + Send + Sync) -> Backend {
    let (endpoint, credential) = ConnectionString::parse(&direct)
        .expect("the server's connection string parses")
        .into_parts();
    let proxy = FaultProxy::start(endpoint.base_url().as_str(), Faults::seeded(0))
        .await
        .expect("start the proxy");
    let proxy = Arc::new(proxy);
    let faults = proxy.clone();
    Backend::new(
        proxy.endpoint(),
        credential,
        direct,
        move |plan| faults.set_faults(plan),
        (alive, proxy),
    )
}

/// The emulator behind a fault-injecting proxy: the path Azurite takes.
async fn emulator_through_a_proxy() -> Backend {
    let emulator = Emulator::start().await.expect("start the emulator");
    behind_a_proxy(emulator.connection_string(), emulator).await
}

/// Azurite behind a fault-injecting proxy.
async fn azurite_through_a_proxy() -> Backend {
    behind_a_proxy(azurite_connection_string(), ()).await
}

on_servers!({
        emulator_faults: super::emulator_faults().await,
        through_the_proxy: super::emulator_through_a_proxy().await,
        azurite: super::azurite_through_a_proxy().await,
    }
    a_transaction_whose_answer_was_lost_reports_success,
    a_transaction_of_every_kind_whose_answer_was_lost_reports_success,
    a_transaction_changed_by_another_writer_between_attempts_reports_a_flagged_error,
    a_transaction_that_ends_in_a_transport_error_says_it_may_have_been_applied,
    a_write_answered_500_may_have_been_applied_and_a_refused_one_was_not,
    a_single_insert_whose_answer_was_lost_reports_success,
    a_single_insert_that_meets_another_writers_row_stays_a_flagged_conflict,
    an_identical_row_from_another_writer_is_taken_for_ours,
    a_bulk_load_whose_answers_are_lost_applies_each_insert_once,
);
