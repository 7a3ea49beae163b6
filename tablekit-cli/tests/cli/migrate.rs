//! `migrate` refuses what it cannot do whole before the first write (a key rename, a rename
//! onto an existing property, a retype some value cannot take), and after Ctrl-C says what
//! was done and that running it again finishes.

use std::time::Duration;

use tablekit::{DynamicEntity, Value};
use tablekit_testing::{Emulator, Faults};

use crate::support::{client, command, entities, finish, ok, on_servers, table_name, tablekit};

async fn gamers(connection_string: &str, n: usize) -> String {
    let name = table_name("Migrate");
    let table = client(connection_string).table_named::<DynamicEntity>(&name);
    table.create().await.unwrap();
    for i in 0..n {
        let mut e = DynamicEntity::new("p", format!("{i:03}"));
        e.set("Score", i as i32);
        e.set("Nick", format!("n{i}"));
        if i == 3 {
            e.set("Alias", "taken");
            e.set("Big", 1i64 << 40);
        } else {
            e.set("Big", i as i64);
        }
        table.insert(&mut e).await.unwrap();
    }
    name
}

async fn migrate_refuses_before_any_write(connection_string: &str) {
    let name = gamers(connection_string, 20).await;
    let before = entities(connection_string, &name).await;

    for rename in ["PartitionKey=P", "RowKey=R", "Nick=RowKey"] {
        let run = tablekit(connection_string, &["migrate", &name, "--rename", rename]);
        assert_eq!(run.code, 2, "{rename}: {}", run.stderr);
        assert!(run.stderr.contains("cannot change"), "{}", run.stderr);
    }
    let run = tablekit(
        connection_string,
        &["migrate", &name, "--retype", "RowKey:Int32"],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);

    // One entity has `Alias` already: refused, one line, nothing written.
    let run = tablekit(
        connection_string,
        &["migrate", &name, "--rename", "Nick=Alias"],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("1 of 20 entities"), "{}", run.stderr);
    assert!(run.stderr.contains("nothing written"), "{}", run.stderr);
    assert_eq!(run.stdout, "");

    // One value of 20 does not fit an Int32: refused with the counts, nothing written.
    let run = tablekit(
        connection_string,
        &["migrate", &name, "--retype", "Big:Int32"],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("1 of 20 `Big` values cannot be retyped"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("--keep-unconverted"), "{}", run.stderr);
    assert_eq!(entities(connection_string, &name).await, before);

    // Asked for, the 19 that fit are retyped, and the counts come first.
    let run = ok(tablekit(
        connection_string,
        &[
            "migrate",
            &name,
            "--retype",
            "Big:Int32",
            "--keep-unconverted",
        ],
    ));
    assert!(
        run.stderr
            .contains("retyping 19 of 20 `Big` values; 1 stay"),
        "{}",
        run.stderr
    );
    let after = entities(connection_string, &name).await;
    assert_eq!(after[0].value("Big"), Some(&Value::Int32(0)));
    assert_eq!(after[3].value("Big"), Some(&Value::Int64(1 << 40)));
}

on_servers!(migrate_refuses_before_any_write);

/// Ctrl-C during the writes: exit 130, what was done, and that the same command finishes;
/// it does.
#[tokio::test(flavor = "multi_thread")]
async fn an_interrupted_migration_says_how_to_finish() {
    // Slow answers, so the migration is still writing when Ctrl-C comes.
    let slow = Faults::seeded(1).latency(Duration::from_millis(15));
    let emulator = Emulator::builder().faults(slow).start().await.unwrap();
    let connection_string = emulator.connection_string();
    let name = gamers(&connection_string, 150).await;
    let args = ["migrate", name.as_str(), "--rename", "Nick=Nickname"];
    let mut child = command(&connection_string, &args).spawn().unwrap();
    let table = client(&connection_string).table_named::<DynamicEntity>(&name);
    // Wait for the first write, then press Ctrl-C.
    while !table
        .get("p", "000")
        .await
        .unwrap()
        .unwrap()
        .contains("Nickname")
    {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let signal = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(signal.success());
    drop(child.stdin.take());
    let run = finish(tokio::task::block_in_place(|| child.wait_with_output()).unwrap());
    assert_eq!(run.code, 130, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("partly migrated; run the same command again to finish"),
        "{}",
        run.stderr
    );
    let done = entities(&connection_string, &name).await;
    assert!(done.iter().any(|e| e.contains("Nick")), "all migrated");
    ok(tablekit(&connection_string, &args));
    let done = entities(&connection_string, &name).await;
    assert!(done
        .iter()
        .all(|e| e.contains("Nickname") && !e.contains("Nick")));
}
