//! Fault injection over real HTTP: deterministic by seed, and "applied but the response was
//! lost" really applies the write.

use std::time::Duration;

use crate::support::raw::Raw;
use tablekit_testing::{Emulator, Fault, Faults, Operation};

/// Sends `n` inserts with a client that does not retry; returns each one's outcome.
async fn outcomes(raw: &Raw, table: &str, n: usize) -> Vec<String> {
    let mut out = Vec::new();
    for i in 0..n {
        let body = format!(r#"{{"PartitionKey":"p","RowKey":"{i:04}"}}"#);
        let outcome =
            tokio::time::timeout(Duration::from_secs(5), raw.try_insert(table, &body)).await;
        out.push(match outcome {
            Ok(Ok(status)) => status.to_string(),
            Ok(Err(_)) => "dropped".to_owned(),
            Err(_) => "timeout".to_owned(),
        });
    }
    out
}

#[tokio::test]
async fn the_same_seed_gives_the_same_faults() {
    let plan = Faults::seeded(2026)
        .rate(Fault::InternalError, 0.15)
        .rate(Fault::ServerBusy, 0.15)
        .rate(Fault::DropConnection, 0.1)
        .only(&[Operation::Insert]);
    let mut runs = Vec::new();
    for _ in 0..2 {
        let emulator = Emulator::builder()
            .faults(plan.clone())
            .start()
            .await
            .unwrap();
        emulator.create_table("faulty").unwrap();
        let raw = Raw::dev(&emulator);
        runs.push(outcomes(&raw, "faulty", 40).await);
    }
    assert_eq!(runs[0], runs[1]);
    for kind in ["201", "500", "503", "dropped"] {
        assert!(runs[0].iter().any(|o| o == kind), "{kind} in {:?}", runs[0]);
    }
}

#[tokio::test]
async fn lost_responses_are_applied_and_failures_are_not() {
    let emulator = Emulator::start().await.unwrap();
    emulator.create_table("lost").unwrap();
    let raw = Raw::dev(&emulator);

    emulator.set_faults(Some(Faults::seeded(1).rate(Fault::AppliedThenDropped, 1.0)));
    let dropped = raw
        .try_insert("lost", r#"{"PartitionKey":"p","RowKey":"a"}"#)
        .await;
    assert!(dropped.is_err(), "no response: {dropped:?}");
    emulator.set_faults(Some(
        Faults::seeded(1).rate(Fault::AppliedThenInternalError, 1.0),
    ));
    let failed = raw
        .try_insert("lost", r#"{"PartitionKey":"p","RowKey":"b"}"#)
        .await;
    assert_eq!(failed.unwrap(), 500);
    emulator.set_faults(Some(Faults::seeded(1).rate(Fault::DropConnection, 1.0)));
    assert!(raw
        .try_insert("lost", r#"{"PartitionKey":"p","RowKey":"c"}"#)
        .await
        .is_err());
    emulator.set_faults(Some(Faults::seeded(1).rate(Fault::ServerBusy, 1.0)));
    assert_eq!(
        raw.try_insert("lost", r#"{"PartitionKey":"p","RowKey":"d"}"#)
            .await
            .unwrap(),
        503
    );
    emulator.set_faults(None);

    let rows: Vec<String> = emulator
        .entities("lost")
        .unwrap()
        .iter()
        .map(|e| e.row_key().to_owned())
        .collect();
    assert_eq!(rows, ["a", "b"], "only the applied-then-lost writes exist");
    // The retry a client would send now conflicts: the case idempotent writes must handle.
    let retry = raw
        .insert("lost", r#"{"PartitionKey":"p","RowKey":"a"}"#)
        .await;
    assert_eq!(retry.status, 409);
}

#[tokio::test]
async fn timeouts_hold_the_request_then_close() {
    let emulator = Emulator::builder()
        .faults(
            Faults::seeded(3)
                .rate(Fault::Timeout, 1.0)
                .hold(Duration::from_millis(300))
                .only(&[Operation::Insert]),
        )
        .start()
        .await
        .unwrap();
    emulator.create_table("slow").unwrap();
    let raw = Raw::dev(&emulator);
    let outcome = raw
        .try_insert("slow", r#"{"PartitionKey":"p","RowKey":"a"}"#)
        .await;
    assert!(outcome.is_err());
    assert!(
        emulator.entities("slow").unwrap().is_empty(),
        "a timed-out write is not applied"
    );
    assert_eq!(
        raw.send("GET", "/slow()", &[], None).await.status,
        200,
        "other operations pass"
    );
}
