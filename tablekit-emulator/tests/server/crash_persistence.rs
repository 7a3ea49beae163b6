//! Durability: the standalone emulator with `--data DIR` is killed (SIGKILL, no shutdown)
//! right after its last answer, restarted on the same directory, and still holds every
//! write it acknowledged, with the same ETags, and none it refused.
//!
//! A killed process loses what it had not handed to the operating system; losing the
//! operating system's cache too (a power cut) is what each commit's fsync covers, which a
//! test cannot simulate.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::process::{Child, Command, Stdio};

use futures::{stream, StreamExt, TryStreamExt};
use tablekit::client::{Table, TableServiceClient};
use tablekit::DynamicEntity;
use tablekit_emulator::{DEV_ACCOUNT, DEV_KEY};

/// The emulator process this test started: killed when dropped, so a failing assertion
/// leaves no server behind.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        // SIGKILL by the child's own handle (its PID): no shutdown, like a crash.
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The emulator binary serving `dir` on a free port, once it listens; and a client for it.
fn start(dir: &std::path::Path) -> (Server, TableServiceClient) {
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_tablekit-emulator"))
        .args(["--port", &port.to_string(), "--data"])
        .arg(dir)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first_line = String::new();
    // Read only the first line; the rest of stdout stays unread in the pipe.
    let read = BufReader::new(child.stdout.as_mut().unwrap()).read_line(&mut first_line);
    let child = Server(child);
    read.unwrap();
    assert!(first_line.contains("listening"), "{first_line}");
    let connection_string = format!(
        "DefaultEndpointsProtocol=http;AccountName={DEV_ACCOUNT};AccountKey={DEV_KEY};TableEndpoint=http://127.0.0.1:{port}/{DEV_ACCOUNT};"
    );
    let client = TableServiceClient::from_connection_string(&connection_string).unwrap();
    (child, client)
}

/// Kills the server without a shutdown.
fn crash(server: Server) {
    drop(server);
}

fn entity(pk: &str, rk: &str, n: i32) -> DynamicEntity {
    let mut e = DynamicEntity::new(pk, rk);
    e.set("N", n);
    e
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_emulator_keeps_every_acknowledged_write() {
    let dir = tempfile::tempdir().unwrap();
    let (child, client) = start(dir.path());
    let table: Table = client.table_named("Durable");
    table.create().await.unwrap();
    client
        .table_named::<DynamicEntity>("Dropped")
        .create()
        .await
        .unwrap();
    client
        .table_named::<DynamicEntity>("Dropped")
        .delete_table()
        .await
        .unwrap();

    // Concurrent single inserts, each acknowledged with an ETag.
    let mut acknowledged: Vec<(String, String, String)> = stream::iter(0..40)
        .map(|n| {
            let table = table.clone();
            async move {
                let mut e = entity(&format!("p{}", n % 4), &format!("{n:03}"), n);
                table.insert(&mut e).await?;
                let etag = e.etag().map(|t| t.to_string()).unwrap_or_default();
                Ok::<_, tablekit::Error>((
                    e.partition_key().to_owned(),
                    e.row_key().to_owned(),
                    etag,
                ))
            }
        })
        .buffer_unordered(8)
        .try_collect()
        .await
        .unwrap();

    // A batch: all of it is acknowledged at once.
    let mut batch = table.batch();
    for n in 0..50 {
        batch
            .insert(&entity("batch", &format!("{n:03}"), n))
            .unwrap();
    }
    batch.submit().await.unwrap();

    // An update and a delete, the last answers before the crash.
    let mut updated = entity("p0", "000", 1000);
    table.upsert_replace(&mut updated).await.unwrap();
    acknowledged.retain(|(pk, rk, _)| !(pk == "p0" && rk == "000"));
    let updated_etag = updated.etag().map(|t| t.to_string()).unwrap_or_default();
    table
        .delete_by_key("p1", "001", &tablekit::ETag::any())
        .await
        .unwrap();
    acknowledged.retain(|(pk, rk, _)| !(pk == "p1" && rk == "001"));
    crash(child);

    let (child, client) = start(dir.path());
    let table: Table = client.table_named("Durable");
    for (pk, rk, etag) in &acknowledged {
        let got = table.get(pk, rk).await.unwrap();
        let got = got.unwrap_or_else(|| panic!("{pk}/{rk} was acknowledged but is lost"));
        assert_eq!(
            got.etag().map(|t| t.to_string()).as_deref(),
            Some(etag.as_str())
        );
    }
    let got = table.get("p0", "000").await.unwrap().unwrap();
    assert_eq!(got.get::<i32>("N"), Some(1000));
    assert_eq!(got.etag().map(|t| t.to_string()), Some(updated_etag));
    assert!(table.get("p1", "001").await.unwrap().is_none());
    let batch_rows = table
        .query(tablekit::Query::new().filter_raw("PartitionKey eq 'batch'"))
        .count()
        .await
        .unwrap();
    assert_eq!(batch_rows, 50);
    let names: Vec<String> = client.list_tables(None).try_collect().await.unwrap();
    assert_eq!(names, ["Durable"]);
    crash(child);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kill_in_the_middle_of_commits_restarts_with_every_acknowledged_write() {
    let dir = tempfile::tempdir().unwrap();
    for round in 0..3 {
        let (child, client) = start(dir.path());
        let table: Table = client.table_named("Busy");
        if round == 0 {
            table.create().await.unwrap();
        }
        // Writers keep 8 inserts in flight; the process is killed once 100 more are
        // acknowledged, so some commits are under way when it dies. Rounds 1 and 2 write
        // 30 KB entities: 100 of them (two copies each) fill a 4 MiB write-ahead log file, so
        // the kill also finds checkpoints under way and log files started again.
        let text = "x".repeat(if round == 0 { 0 } else { 30_000 });
        let (acked_tx, mut acked_rx) = tokio::sync::mpsc::unbounded_channel();
        let writers = tokio::spawn({
            let table = table.clone();
            async move {
                stream::iter(0..)
                    .map(|n| {
                        let (table, text) = (table.clone(), text.clone());
                        async move {
                            let mut e = entity(&format!("r{round}"), &format!("{n:06}"), n);
                            e.set("Text", text);
                            table.insert(&mut e).await.map(|()| n)
                        }
                    })
                    .buffer_unordered(8)
                    .for_each(|done| {
                        if let Ok(n) = done {
                            let _ = acked_tx.send(n);
                        }
                        async {}
                    })
                    .await;
            }
        });
        let mut acknowledged = Vec::new();
        while acknowledged.len() < 100 {
            acknowledged.push(acked_rx.recv().await.unwrap());
        }
        crash(child);
        writers.abort();
        // Answers that arrived before the kill are acknowledged too.
        while let Ok(n) = acked_rx.try_recv() {
            acknowledged.push(n);
        }

        let (child, client) = start(dir.path());
        let table: Table = client.table_named("Busy");
        for n in &acknowledged {
            let got = table
                .get(&format!("r{round}"), &format!("{n:06}"))
                .await
                .unwrap();
            assert_eq!(
                got.and_then(|e| e.get::<i32>("N")),
                Some(*n),
                "round {round}: insert {n} was acknowledged"
            );
        }
        crash(child);
    }
}

/// The emulator binary on `dir` is killed after `rows` single inserts into table `Logged`,
/// each carrying its row number in a marked text; the write-ahead log then holds them.
async fn killed_after_inserts(dir: &std::path::Path, rows: i32) {
    let (child, client) = start(dir);
    let table: Table = client.table_named("Logged");
    table.create().await.unwrap();
    for n in 0..rows {
        let mut e = entity("p", &format!("{n:03}"), n);
        e.set("Text", format!("marker-{n:03}"));
        table.insert(&mut e).await.unwrap();
    }
    crash(child);
}

/// Where `needle` first lies in `file`.
fn position(file: &std::path::Path, needle: &str) -> usize {
    let bytes = std::fs::read(file).unwrap();
    bytes
        .windows(needle.len())
        .position(|w| w == needle.as_bytes())
        .unwrap_or_else(|| panic!("{needle} is not in {}", file.display()))
}

fn flip_byte(file: &std::path::Path, at: usize) {
    let mut bytes = std::fs::read(file).unwrap();
    bytes[at] ^= 0x01;
    std::fs::write(file, bytes).unwrap();
}

/// The emulator binary on `dir` fails to start, printing why.
fn refused_start(dir: &std::path::Path) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_tablekit-emulator"))
        .args(["--port", "0", "--data"])
        .arg(dir)
        .output()
        .unwrap();
    assert!(!output.status.success(), "it started on a damaged log");
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_changed_byte_in_the_log_is_read_from_its_copy_or_refuses_the_start() {
    // In the last frame: its other copy holds the write, which is kept.
    let dir = tempfile::tempdir().unwrap();
    killed_after_inserts(dir.path(), 10).await;
    let log = dir.path().join("tables.wal.0");
    flip_byte(&log, position(&log, "marker-009") + 7);
    let (child, client) = start(dir.path());
    let table: Table = client.table_named("Logged");
    let last = table.get("p", "009").await.unwrap().unwrap();
    assert_eq!(last.get::<String>("Text").as_deref(), Some("marker-009"));
    crash(child);

    // In a frame that others follow: damage, never skipped.
    let dir = tempfile::tempdir().unwrap();
    killed_after_inserts(dir.path(), 10).await;
    let log = dir.path().join("tables.wal.0");
    let before = std::fs::read(&log).unwrap();
    flip_byte(&log, position(&log, "marker-004") + 7);
    let message = refused_start(dir.path());
    assert!(message.contains("tables.wal.0"), "{message}");
    assert!(message.contains("damaged"), "{message}");
    let after = std::fs::read(&log).unwrap();
    assert_eq!(before.len(), after.len(), "the log is left as it is");
}
