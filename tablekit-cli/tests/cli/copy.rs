//! `copy` stops between pages (at `--max-pages`, or on Ctrl-C), saves its checkpoint, and a
//! second run finishes the copy from it without writing any entity twice: the copies run
//! with `--mode insert`, so an entity written again would fail with a conflict (exit 4).

use std::time::Duration;

use tablekit::patterns::bulk::{BulkWriter, WriteOp};
use tablekit::DynamicEntity;
use tablekit_testing::{Emulator, Faults};

use crate::support::{client, command, entities, finish, ok, on_servers, table_name, tablekit};

/// A source table of `n` entities over a few partitions (a query page holds 1,000).
async fn source_table(connection_string: &str, n: usize) -> String {
    let name = table_name("CopySource");
    let client = client(connection_string);
    client.create_table(&name).await.expect("created");
    let ops = (0..n).map(|i| {
        let mut e = DynamicEntity::new(format!("p{}", i / 700), format!("{i:06}"));
        e.set("Payload", "x".repeat(100));
        e.set("N", i as i64);
        WriteOp::insert(&name, e)
    });
    let report = BulkWriter::new(&client).write_iter(ops).await;
    assert_eq!(report.committed(), n);
    name
}

async fn copy_resumes_from_its_checkpoint(connection_string: &str) {
    let source = source_table(connection_string, 2_500).await;
    let target = table_name("CopyTarget");
    let dir = tempfile::tempdir().unwrap();
    let checkpoint = dir.path().join("copy.checkpoint");
    let args = [
        "copy",
        &source,
        &target,
        "--mode",
        "insert",
        "--checkpoint",
        checkpoint.to_str().unwrap(),
    ];
    let first = tablekit(
        connection_string,
        &[&args[..], &["--max-pages", "1"]].concat(),
    );
    assert_eq!(first.code, 130, "{}", first.stderr);
    assert!(
        first.stderr.contains("run the same command again"),
        "{}",
        first.stderr
    );
    let saved = std::fs::read_to_string(&checkpoint).expect("the checkpoint is saved");
    assert!(saved.contains("\"entities\": 1000"), "{saved}");
    assert_eq!(entities(connection_string, &target).await.len(), 1_000);

    let second = ok(tablekit(connection_string, &args));
    assert!(
        second.stderr.contains("resuming after 1000 entities"),
        "{}",
        second.stderr
    );
    assert_eq!(
        entities(connection_string, &target).await,
        entities(connection_string, &source).await
    );
    assert!(!checkpoint.exists(), "a finished copy leaves no checkpoint");
}

async fn copy_takes_a_filter(connection_string: &str) {
    let source = source_table(connection_string, 1_500).await;
    let target = table_name("CopyFiltered");
    let run = tablekit(
        connection_string,
        &["copy", &source, &target, "--filter", "PartitionKey eq 'p1'"],
    );
    ok(run);
    let copied = entities(connection_string, &target).await;
    assert_eq!(copied.len(), 700);
    assert!(copied.iter().all(|e| e.partition_key() == "p1"));
}

/// With `--parallel`, ranges of the source are read side by side and each range's
/// continuation is saved: stopped after two pages and run again, the copy writes every
/// entity exactly once (`--mode insert` would fail on a second write).
async fn a_parallel_copy_resumes_range_by_range(connection_string: &str) {
    let source = source_table(connection_string, 2_500).await;
    let target = table_name("CopyRanges");
    let dir = tempfile::tempdir().unwrap();
    let checkpoint = dir.path().join("copy.checkpoint");
    let args = [
        "copy",
        &source,
        &target,
        "--mode",
        "insert",
        "--parallel",
        "4",
        "--checkpoint",
        checkpoint.to_str().unwrap(),
    ];
    let first = tablekit(
        connection_string,
        &[&args[..], &["--max-pages", "2"]].concat(),
    );
    assert_eq!(first.code, 130, "{}", first.stderr);
    let saved = std::fs::read_to_string(&checkpoint).expect("the checkpoint is saved");
    assert!(saved.contains("\"ranges\""), "{saved}");
    let copied = entities(connection_string, &target).await.len();
    assert!(copied > 0 && copied < 2_500, "{copied}");

    // The serial form of the command is another job: its checkpoint is not taken for it.
    let serial = tablekit(
        connection_string,
        &[
            "copy",
            &source,
            &target,
            "--checkpoint",
            checkpoint.to_str().unwrap(),
        ],
    );
    assert_eq!(serial.code, 2, "{}", serial.stderr);

    let second = ok(tablekit(connection_string, &args));
    assert!(
        second
            .stderr
            .contains(&format!("resuming after {copied} entities")),
        "{}",
        second.stderr
    );
    assert_eq!(
        entities(connection_string, &target).await,
        entities(connection_string, &source).await
    );
    assert!(!checkpoint.exists(), "a finished copy leaves no checkpoint");
}

on_servers!(
    copy_resumes_from_its_checkpoint,
    copy_takes_a_filter,
    a_parallel_copy_resumes_range_by_range
);

/// Ctrl-C (SIGINT) in the middle of a copy to another account: it stops after the page in
/// flight with exit code 130, and the same command finishes the copy.
#[tokio::test(flavor = "multi_thread")]
async fn ctrl_c_stops_cleanly_and_the_copy_resumes() {
    let live = Emulator::start().await.unwrap();
    let lab = Emulator::start().await.unwrap();
    let source = source_table(&live.connection_string(), 4_000).await;
    // Every request takes a while, so the copy is still going when the signal comes.
    lab.set_faults(Some(Faults::seeded(1).latency(Duration::from_millis(40))));
    let dir = tempfile::tempdir().unwrap();
    let checkpoint = dir.path().join("copy.checkpoint");
    let to = lab.connection_string();
    let args = [
        "copy",
        &source,
        "Lab",
        "--mode",
        "insert",
        "--checkpoint",
        checkpoint.to_str().unwrap(),
        "--to-connection-string",
        &to,
    ];
    let mut child = command(&live.connection_string(), &args).spawn().unwrap();
    while !checkpoint.exists() {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let signal = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(signal.success());
    drop(child.stdin.take());
    let stopped = finish(tokio::task::block_in_place(|| child.wait_with_output()).unwrap());
    assert_eq!(stopped.code, 130, "{}", stopped.stderr);
    assert!(stopped.stderr.contains("interrupted"), "{}", stopped.stderr);
    let partial = entities(&to, "Lab").await.len();
    assert!(
        partial > 0 && partial < 4_000 && partial % 1_000 == 0,
        "{partial}"
    );

    lab.set_faults(None);
    ok(tablekit(&live.connection_string(), &args));
    assert_eq!(
        entities(&to, "Lab").await,
        entities(&live.connection_string(), &source).await
    );
}
