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

/// A copy of a 2,500-entity source with `--mode insert` and a checkpoint of its own: run once
/// with `--max-pages`, it stops (exit 130) with its checkpoint saved; run again, it finishes,
/// every entity written once, and leaves no checkpoint.
struct ResumedCopy {
    source: String,
    target: String,
    _dir: tempfile::TempDir,
    checkpoint: std::path::PathBuf,
}

impl ResumedCopy {
    async fn new(connection_string: &str, target: &str) -> ResumedCopy {
        let dir = tempfile::tempdir().unwrap();
        ResumedCopy {
            source: source_table(connection_string, 2_500).await,
            target: table_name(target),
            checkpoint: dir.path().join("copy.checkpoint"),
            _dir: dir,
        }
    }

    fn args<'a>(&'a self, extra: &[&'a str]) -> Vec<&'a str> {
        let checkpoint = self.checkpoint.to_str().unwrap();
        let mut args = vec!["copy", &self.source, &self.target, "--mode", "insert"];
        args.extend_from_slice(extra);
        args.extend(["--checkpoint", checkpoint]);
        args
    }

    /// The first run, stopped after `pages` pages: its stderr and the saved checkpoint.
    fn stop_after(&self, connection_string: &str, extra: &[&str], pages: &str) -> (String, String) {
        let args = [&self.args(extra)[..], &["--max-pages", pages]].concat();
        let first = tablekit(connection_string, &args);
        assert_eq!(first.code, 130, "{}", first.stderr);
        let saved = std::fs::read_to_string(&self.checkpoint).expect("the checkpoint is saved");
        (first.stderr, saved)
    }

    /// The second run, resuming after `copied` entities, to the end.
    async fn finish(&self, connection_string: &str, extra: &[&str], copied: usize) {
        let second = ok(tablekit(connection_string, &self.args(extra)));
        let resuming = format!("resuming after {copied} entities");
        assert!(second.stderr.contains(&resuming), "{}", second.stderr);
        assert_eq!(
            entities(connection_string, &self.target).await,
            entities(connection_string, &self.source).await
        );
        assert!(
            !self.checkpoint.exists(),
            "a finished copy leaves no checkpoint"
        );
    }
}

async fn copy_resumes_from_its_checkpoint(connection_string: &str) {
    let copy = ResumedCopy::new(connection_string, "CopyTarget").await;
    let (stderr, saved) = copy.stop_after(connection_string, &[], "1");
    assert!(stderr.contains("run the same command again"), "{stderr}");
    assert!(saved.contains("\"entities\": 1000"), "{saved}");
    assert_eq!(entities(connection_string, &copy.target).await.len(), 1_000);
    copy.finish(connection_string, &[], 1_000).await;
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
    let copy = ResumedCopy::new(connection_string, "CopyRanges").await;
    let parallel = ["--parallel", "4"];
    let (_, saved) = copy.stop_after(connection_string, &parallel, "2");
    assert!(saved.contains("\"ranges\""), "{saved}");
    let copied = entities(connection_string, &copy.target).await.len();
    assert!(copied > 0 && copied < 2_500, "{copied}");

    // The serial form of the command is another job: its checkpoint is not taken for it.
    let serial = tablekit(connection_string, &copy.args(&[]));
    assert_eq!(serial.code, 2, "{}", serial.stderr);

    copy.finish(connection_string, &parallel, copied).await;
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
