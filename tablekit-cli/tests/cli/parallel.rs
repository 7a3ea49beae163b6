//! `export --parallel` and `--shard`: PartitionKey ranges read side by side give the same
//! entities as one query, and shards of one split share a job without overlap.

use std::collections::BTreeSet;

use tablekit::patterns::bulk::{BulkWriter, WriteOp};
use tablekit::DynamicEntity;

use crate::support::{client, entities, ok, on_servers, table_name, tablekit};

/// 600 entities over 30 partitions.
async fn filled(connection_string: &str) -> String {
    let name = table_name("Parallel");
    let client = client(connection_string);
    client.create_table(&name).await.expect("created");
    let ops = (0..600).map(|i| {
        let mut e = DynamicEntity::new(format!("p{:02}", i % 30), format!("{i:04}"));
        e.set("N", i);
        WriteOp::insert(&name, e)
    });
    assert!(BulkWriter::new(&client).write_iter(ops).await.is_complete());
    name
}

/// The lines of an export, sorted: the same set whatever the order they came in.
fn exported(connection_string: &str, args: &[&str]) -> BTreeSet<String> {
    let run = ok(tablekit(connection_string, &[&["export"], args].concat()));
    let lines: Vec<String> = run.stdout.lines().map(str::to_owned).collect();
    let set: BTreeSet<String> = lines.iter().cloned().collect();
    assert_eq!(set.len(), lines.len(), "an entity exported twice");
    set
}

async fn a_parallel_export_has_the_serial_exports_entities(connection_string: &str) {
    let name = filled(connection_string).await;
    let serial = exported(connection_string, &[&name]);
    assert_eq!(serial.len(), 600);
    assert_eq!(
        exported(connection_string, &[&name, "--parallel", "4"]),
        serial
    );
    let filtered = exported(connection_string, &[&name, "--filter", "N lt 50"]);
    assert_eq!(
        exported(
            connection_string,
            &[&name, "--filter", "N lt 50", "--parallel", "3"]
        ),
        filtered
    );
}

async fn shards_of_one_split_share_an_export(connection_string: &str) {
    let name = filled(connection_string).await;
    let serial = exported(connection_string, &[&name]);
    let split = ["--split-at", "p07,p15,p22"];
    let mut union = BTreeSet::new();
    for shard in ["1/3", "2/3", "3/3"] {
        let part = exported(
            connection_string,
            &[&[&name[..], "--shard", shard][..], &split].concat(),
        );
        assert!(!part.is_empty(), "shard {shard}");
        for line in part {
            assert!(union.insert(line), "an entity in two shards");
        }
    }
    assert_eq!(union, serial);

    let unsplit = tablekit(connection_string, &["export", &name, "--shard", "1/3"]);
    assert_eq!(unsplit.code, 2, "{}", unsplit.stderr);
    assert!(
        unsplit.stderr.contains("`--shard` needs `--split-at"),
        "{}",
        unsplit.stderr
    );
    let missing = tablekit(connection_string, &["export", &name, "--shard", "4/3"]);
    assert_eq!(missing.code, 2, "{}", missing.stderr);
}

async fn sharded_copies_fill_the_target_once(connection_string: &str) {
    let name = filled(connection_string).await;
    let target = table_name("ParallelTarget");
    let dir = tempfile::tempdir().unwrap();
    for shard in ["1/2", "2/2"] {
        let checkpoint = dir
            .path()
            .join(format!("{}.checkpoint", shard.replace('/', "-")));
        ok(tablekit(
            connection_string,
            &[
                "copy",
                &name,
                &target,
                "--mode",
                "insert",
                "--shard",
                shard,
                "--split-at",
                "p10,p20",
                "--parallel",
                "2",
                "--checkpoint",
                checkpoint.to_str().unwrap(),
            ],
        ));
    }
    assert_eq!(
        entities(connection_string, &target).await,
        entities(connection_string, &name).await
    );
}

on_servers!(
    a_parallel_export_has_the_serial_exports_entities,
    shards_of_one_split_share_an_export,
    sharded_copies_fill_the_target_once
);
