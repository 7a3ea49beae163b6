//! The data directory of a persistent emulator (`persist_to`): a damaged file refuses the
//! start with a message naming it, every time (never served wrong, never silently
//! shortened); a journal of earlier versions is migrated once or refused with its
//! line number; overwriting the same entities does not grow the directory; and one
//! directory serves one emulator at a time.

use std::fs;
use std::path::{Path, PathBuf};

use tablekit::client::Table;
use tablekit::DynamicEntity;
use tablekit_emulator::{Emulator, Error};

/// A property value that appears once in the data, so a test can find and change it.
const MARKER: &[u8] = b"marker-1234567";

async fn start(dir: &Path) -> Result<Emulator, Error> {
    Emulator::builder().persist_to(dir).start().await
}

/// A directory holding table `Kept` with 200 entities, one of them carrying [`MARKER`].
async fn filled_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let emulator = start(dir.path()).await.unwrap();
    let table: Table = emulator.client().table_named("Kept");
    table.create().await.unwrap();
    for b in 0..2 {
        let mut batch = table.batch();
        for i in 0..100 {
            let mut e = DynamicEntity::new("p", format!("{b}-{i:03}"));
            e.set("Text", "t".repeat(300));
            batch.insert(&e).unwrap();
        }
        batch.submit().await.unwrap();
    }
    let mut marked = DynamicEntity::new("p", "marked");
    marked.set("Value", std::str::from_utf8(MARKER).unwrap());
    table.insert(&mut marked).await.unwrap();
    emulator.shutdown().await;
    dir
}

/// The files of the directory, by name.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
}

/// The one data file holding the marker.
fn marked_file(dir: &Path) -> PathBuf {
    let found: Vec<PathBuf> = files(dir)
        .into_iter()
        .filter(|f| {
            let bytes = fs::read(f).unwrap();
            bytes.windows(MARKER.len()).any(|w| w == MARKER)
        })
        .collect();
    let [file] = &found[..] else {
        panic!("the marker is in {found:?}")
    };
    file.clone()
}

/// Starting on `dir` fails with an error naming `file`, every time (the damage is never
/// "repaired" into less data), and no file is shortened or removed.
async fn refused(dir: &Path, file: &Path) -> String {
    let sizes = || -> Vec<(PathBuf, u64)> {
        files(dir)
            .into_iter()
            .map(|f| (f.clone(), fs::metadata(&f).unwrap().len()))
            .collect()
    };
    let before = sizes();
    let mut messages = Vec::new();
    for _ in 0..2 {
        match start(dir).await {
            Ok(emulator) => {
                let got = emulator.entities("Kept").map(|e| e.len());
                panic!(
                    "started on a damaged {}: Kept holds {got:?}",
                    file.display()
                )
            }
            Err(err) => messages.push(err.to_string()),
        }
    }
    for message in &messages {
        assert!(
            message.contains(&file.display().to_string()),
            "the message names {}: {message}",
            file.display()
        );
    }
    assert_eq!(before, sizes(), "a refused start changed the directory");
    messages.remove(0)
}

#[tokio::test]
async fn a_changed_digit_in_the_data_refuses_the_start() {
    let dir = filled_dir().await;
    let file = marked_file(dir.path());
    let mut bytes = fs::read(&file).unwrap();
    // Every copy of the value (the file may hold older copies in freed space) gets '5'
    // for its '4': one of them is the live one.
    let mut changed = 0;
    for at in 0..bytes.len() - MARKER.len() {
        if bytes[at..].starts_with(MARKER) {
            bytes[at + MARKER.len() - 4] = b'5';
            changed += 1;
        }
    }
    assert!(changed > 0);
    fs::write(&file, &bytes).unwrap();
    refused(dir.path(), &file).await;
    let kept = fs::read(&file).unwrap();
    let damaged = [
        &MARKER[..MARKER.len() - 4],
        b"5",
        &MARKER[MARKER.len() - 3..],
    ]
    .concat();
    assert!(
        kept.windows(damaged.len()).any(|w| w == damaged),
        "the damaged value is left for a person to see"
    );
}

#[tokio::test]
async fn a_changed_byte_in_the_middle_of_the_data_refuses_the_start() {
    let dir = filled_dir().await;
    let file = marked_file(dir.path());
    let mut bytes = fs::read(&file).unwrap();
    // A byte of the first entity's 300-character text, wherever the file keeps it.
    let text = b"tttttttttttttttttttt";
    let at = bytes.windows(text.len()).position(|w| w == text).unwrap();
    bytes[at + 10] ^= 0x01;
    fs::write(&file, &bytes).unwrap();
    refused(dir.path(), &file).await;
}

#[tokio::test]
async fn a_truncated_data_file_refuses_the_start() {
    for keep in [2, 0] {
        let dir = filled_dir().await;
        let file = marked_file(dir.path());
        let len = fs::metadata(&file).unwrap().len();
        let cut = fs::OpenOptions::new().write(true).open(&file).unwrap();
        cut.set_len(len * keep / 3).unwrap();
        drop(cut);
        refused(dir.path(), &file).await;
    }
}

/// A journal as earlier versions wrote it: a table, an entity, a batch, a delete.
const JOURNAL: &str = concat!(
    r#"{"op":"create_table","account":"devstoreaccount1","table":"Kept"}"#,
    "\n",
    r#"{"op":"put","account":"devstoreaccount1","table":"Kept","timestamp":"2026-01-02T03:04:05.0000007Z","entity":"{\"PartitionKey\":\"p\",\"RowKey\":\"a\",\"N\":1}"}"#,
    "\n",
    r#"{"op":"batch","records":[{"op":"put","account":"devstoreaccount1","table":"Kept","timestamp":"2026-01-02T03:04:05.0000008Z","entity":"{\"PartitionKey\":\"p\",\"RowKey\":\"b\",\"N\":2}"},{"op":"put","account":"devstoreaccount1","table":"Kept","timestamp":"2026-01-02T03:04:05.0000008Z","entity":"{\"PartitionKey\":\"p\",\"RowKey\":\"c\",\"N\":3}"}]}"#,
    "\n",
    r#"{"op":"delete","account":"devstoreaccount1","table":"Kept","partition_key":"p","row_key":"c"}"#,
    "\n",
);

#[tokio::test]
async fn a_journal_of_earlier_versions_is_migrated_once() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("journal.jsonl"), JOURNAL).unwrap();
    for _ in 0..2 {
        let emulator = start(dir.path()).await.unwrap();
        assert_eq!(emulator.table_names(), ["Kept"]);
        let table: Table = emulator.client().table_named("Kept");
        let a = table.get("p", "a").await.unwrap().unwrap();
        assert_eq!(a.get::<i32>("N"), Some(1));
        assert_eq!(
            a.etag().map(|t| t.to_string()).as_deref(),
            Some("W/\"datetime'2026-01-02T03%3A04%3A05.0000007Z'\"")
        );
        let b = table.get("p", "b").await.unwrap().unwrap();
        assert_eq!(b.get::<i32>("N"), Some(2));
        assert!(table.get("p", "c").await.unwrap().is_none());
        // A write after the migration is kept like any other.
        table
            .upsert_replace(&mut DynamicEntity::new("p", "later"))
            .await
            .unwrap();
        emulator.shutdown().await;
    }
    let names: Vec<String> = files(dir.path())
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["journal.jsonl.migrated", "tables.redb"]);
    assert_eq!(
        fs::read_to_string(dir.path().join("journal.jsonl.migrated")).unwrap(),
        JOURNAL,
        "the journal is kept as it was"
    );
}

#[tokio::test]
async fn a_journal_with_a_damaged_line_is_refused_with_its_line_number() {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("journal.jsonl");
    // One changed byte in line 3 (a quote became a space).
    let damaged = JOURNAL.replacen(
        r#"{"op":"batch","records":[{"op""#,
        r#"{"op":"batch","records":[{"op "#,
        1,
    );
    assert_ne!(damaged, JOURNAL);
    fs::write(&journal, &damaged).unwrap();
    let message = refused(dir.path(), &journal).await;
    assert!(message.contains("line 3"), "{message}");
    assert!(message.contains("nothing was migrated"), "{message}");
    assert_eq!(files(dir.path()), [journal]);
}

#[tokio::test]
async fn a_journal_beside_a_database_is_refused_not_merged() {
    let dir = filled_dir().await;
    let journal = dir.path().join("journal.jsonl");
    fs::write(&journal, JOURNAL).unwrap();
    let message = refused(dir.path(), &journal).await;
    assert!(message.contains("move the journal away"), "{message}");
}

#[tokio::test]
async fn overwriting_the_same_entities_keeps_the_directory_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let emulator = start(dir.path()).await.unwrap();
    let table: Table = emulator.client().table_named("Hot");
    table.create().await.unwrap();
    let size = || -> u64 {
        files(dir.path())
            .iter()
            .map(|f| fs::metadata(f).unwrap().len())
            .sum()
    };
    let round = |n: usize| {
        let table = table.clone();
        async move {
            let mut batch = table.batch();
            for i in 0..20 {
                let mut e = DynamicEntity::new("p", format!("{i:02}"));
                e.set("Round", n as i32);
                e.set("Text", "x".repeat(1000));
                batch.upsert_replace(&e).unwrap();
            }
            batch.submit().await.unwrap();
        }
    };
    for n in 0..20 {
        round(n).await;
    }
    let warm = size();
    // 400 rounds write 400 × 20 entities of 1 KB: about 8 MB that a log would keep.
    for n in 20..400 {
        round(n).await;
    }
    let end = size();
    assert!(
        end <= warm * 2,
        "the directory grew from {warm} to {end} bytes while holding the same 20 entities"
    );
    let got = table.get("p", "00").await.unwrap().unwrap();
    assert_eq!(got.get::<i32>("Round"), Some(399));
    emulator.shutdown().await;
}

#[tokio::test]
async fn a_directory_serves_one_emulator_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let first = start(dir.path()).await.unwrap();
    let table: Table = first.client().table_named("Kept");
    // A connection now holds the emulator's state as well.
    table.create().await.unwrap();
    let err = start(dir.path()).await.unwrap_err().to_string();
    assert!(err.contains("tables.redb"), "{err}");
    // Not damage: the file is fine, another process has it.
    assert!(err.contains("another process holds it"), "{err}");
    assert!(!err.contains("restore it from a copy"), "{err}");
    drop(first);
    // Released with the emulator, even while its connections wind down.
    let again = start(dir.path()).await.unwrap();
    assert_eq!(again.table_names(), ["Kept"]);
}

#[tokio::test]
async fn a_changed_byte_in_a_commit_slot_never_rolls_back_silently() {
    // The database file's two commit slots (the latest commit and the one before it) are
    // bytes 64..192 and 192..320, as redb's design document lays out its header.
    for slot in [64, 192] {
        let dir = filled_dir().await;
        let file = dir.path().join("tables.redb");
        let mut bytes = fs::read(&file).unwrap();
        bytes[slot + 16] ^= 0x01;
        fs::write(&file, &bytes).unwrap();
        match start(dir.path()).await {
            // The slot of the commit before: not in use, the data is whole.
            Ok(emulator) => {
                assert_eq!(emulator.entities("Kept").unwrap().len(), 201);
                let table: Table = emulator.client().table_named("Kept");
                let marked = table.get("p", "marked").await.unwrap().unwrap();
                assert_eq!(
                    marked.get::<String>("Value").as_deref().map(str::as_bytes),
                    Some(MARKER)
                );
            }
            Err(err) => assert!(err.to_string().contains("tables.redb"), "{err}"),
        }
    }
}
