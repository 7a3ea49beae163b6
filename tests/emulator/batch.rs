//! `$batch` on the emulator over real HTTP: all-or-nothing, Azure's limits and error shape
//! (including the rules Azurite does not enforce).

use crate::support::raw::{insert_op, BatchOp, Raw};
use tablekit_testing::Emulator;

async fn setup() -> (Emulator, Raw) {
    let emulator = Emulator::start().await.unwrap();
    emulator.create_table("batch").unwrap();
    let raw = Raw::dev(&emulator);
    (emulator, raw)
}

fn rows(emulator: &Emulator) -> Vec<String> {
    emulator
        .entities("batch")
        .unwrap()
        .iter()
        .map(|e| e.row_key().to_owned())
        .collect()
}

#[tokio::test]
async fn every_operation_kind_applies_in_one_response() {
    let (emulator, raw) = setup().await;
    let mut existing = tablekit::DynamicEntity::new("b", "existing");
    existing.set("X", 1);
    emulator
        .seed(
            "batch",
            [existing, tablekit::DynamicEntity::new("b", "todelete")],
        )
        .unwrap();
    let answer = raw
        .batch(&[
            insert_op(
                "batch",
                "b",
                "new1",
                r#","L":"7","L@odata.type":"Edm.Int64""#,
            ),
            BatchOp {
                method: "PATCH",
                resource: "batch(PartitionKey='b',RowKey='new2')".into(),
                if_match: None,
                body: Some(r#"{"X":2}"#.into()),
            },
            BatchOp {
                method: "PUT",
                resource: "batch(PartitionKey='b',RowKey='new3')".into(),
                if_match: None,
                body: Some(r#"{"X":3}"#.into()),
            },
            BatchOp {
                method: "MERGE",
                resource: "batch(PartitionKey='b',RowKey='existing')".into(),
                if_match: Some("*"),
                body: Some(r#"{"Y":2}"#.into()),
            },
            BatchOp {
                method: "DELETE",
                resource: "batch(PartitionKey='b',RowKey='todelete')".into(),
                if_match: Some("*"),
                body: None,
            },
        ])
        .await;
    assert_eq!(answer.status, 202, "{}", answer.body);
    let content_type = answer.header("content-type").unwrap();
    assert!(content_type.starts_with("multipart/mixed; boundary=batchresponse_"));
    let statuses: Vec<&str> = answer
        .body
        .lines()
        .filter(|l| l.starts_with("HTTP/1.1 "))
        .collect();
    assert_eq!(
        statuses,
        [
            "HTTP/1.1 201 Created",
            "HTTP/1.1 204 No Content",
            "HTTP/1.1 204 No Content",
            "HTTP/1.1 204 No Content",
            "HTTP/1.1 204 No Content"
        ]
    );
    assert_eq!(answer.body.matches("ETag: W/\"datetime'").count(), 4);
    assert_eq!(rows(&emulator), ["existing", "new1", "new2", "new3"]);
    let merged = &emulator.entities("batch").unwrap()[0];
    assert_eq!(
        (merged.get::<i32>("X"), merged.get::<i32>("Y")),
        (Some(1), Some(2))
    );
}

#[tokio::test]
async fn a_failing_operation_applies_nothing_and_is_named_by_index() {
    let (emulator, raw) = setup().await;
    emulator
        .seed("batch", [tablekit::DynamicEntity::new("b", "existing")])
        .unwrap();
    let answer = raw
        .batch(&[
            insert_op("batch", "b", "f0", ""),
            insert_op("batch", "b", "f1", ""),
            insert_op("batch", "b", "existing", ""),
            insert_op("batch", "b", "f3", ""),
        ])
        .await;
    assert_eq!(answer.status, 202);
    assert!(
        answer.body.contains("HTTP/1.1 409 Conflict"),
        "{}",
        answer.body
    );
    assert!(answer.body.contains(r#""code":"EntityAlreadyExists""#));
    assert!(answer
        .body
        .contains(r#""value":"2:The specified entity already exists."#));
    assert!(answer.body.contains("Content-ID: 2"));
    assert_eq!(rows(&emulator), ["existing"], "nothing applied");

    let stale = raw
        .batch(&[
            insert_op("batch", "b", "g0", ""),
            BatchOp {
                method: "PUT",
                resource: "batch(PartitionKey='b',RowKey='existing')".into(),
                if_match: Some("W/\"datetime'2000-01-01T00%3A00%3A00.0000000Z'\""),
                body: Some("{}".into()),
            },
        ])
        .await;
    assert!(stale.body.contains("HTTP/1.1 412 Precondition Failed"));
    assert!(stale.body.contains(r#""value":"1:The update condition"#));
    let missing = raw
        .batch(&[
            insert_op("batch", "b", "h0", ""),
            BatchOp {
                method: "MERGE",
                resource: "batch(PartitionKey='b',RowKey='nope')".into(),
                if_match: Some("*"),
                body: Some("{}".into()),
            },
        ])
        .await;
    assert!(missing.body.contains("HTTP/1.1 404 Not Found"));
    assert!(missing
        .body
        .contains(r#""value":"1:The specified resource does not exist."#));
    assert_eq!(rows(&emulator), ["existing"]);
}

#[tokio::test]
async fn inserted_entities_are_echoed_with_their_location() {
    let (_emulator, raw) = setup().await;
    let answer = raw
        .batch(&[insert_op("batch", "b", "a", r#","N":1"#)])
        .await;
    assert!(
        answer.body.contains("Location: http://127.0.0.1:"),
        "{}",
        answer.body
    );
    assert!(answer
        .body
        .contains("/devstoreaccount1/batch(PartitionKey='b',RowKey='a')"));
    assert!(answer
        .body
        .contains(r#""PartitionKey":"b","RowKey":"a","N":1"#));
}

#[tokio::test]
async fn azure_rules_azurite_does_not_enforce() {
    let (emulator, raw) = setup().await;
    let mixed = raw
        .batch(&[
            insert_op("batch", "p1", "r", ""),
            insert_op("batch", "p2", "r", ""),
        ])
        .await;
    assert!(mixed.body.contains("HTTP/1.1 400 Bad Request"));
    assert!(
        mixed
            .body
            .contains(r#""code":"CommandsInBatchActOnDifferentPartitions""#),
        "{}",
        mixed.body
    );
    assert!(mixed.body.contains(r#""value":"1:"#));

    let duplicate = raw
        .batch(&[
            insert_op("batch", "p", "dup", ""),
            insert_op("batch", "p", "dup", ""),
        ])
        .await;
    assert!(duplicate.body.contains(r#""code":"InvalidDuplicateRow""#));
    assert!(duplicate
        .body
        .contains(r#""value":"1:A command with RowKey 'dup'"#));

    let too_many: Vec<BatchOp> = (0..101)
        .map(|i| insert_op("batch", "p", &format!("r{i:03}"), ""))
        .collect();
    let answer = raw.batch(&too_many).await;
    assert!(answer.body.contains(r#""value":"0:The batch request operation exceeds the maximum 100 changes per change set."#), "{}", answer.body);
    let hundred: Vec<BatchOp> = (0..100)
        .map(|i| insert_op("batch", "p", &format!("r{i:03}"), ""))
        .collect();
    assert_eq!(
        raw.batch(&hundred)
            .await
            .body
            .matches("HTTP/1.1 201 Created")
            .count(),
        100
    );

    let bad_value = raw
        .batch(&[insert_op(
            "batch",
            "q",
            "1",
            r#","X":"abc","X@odata.type":"Edm.Int64""#,
        )])
        .await;
    assert!(bad_value.body.contains(r#""code":"InvalidInput""#));

    let missing_table = raw.batch(&[insert_op("nosuchtable", "q", "1", "")]).await;
    assert!(missing_table.body.contains(r#""code":"TableNotFound""#));
    assert!(missing_table
        .body
        .contains(r#""value":"0:The table specified does not exist."#));
    assert_eq!(emulator.entities("batch").unwrap().len(), 100);
}

#[tokio::test]
async fn bodies_over_4_mib_are_413() {
    let (emulator, raw) = setup().await;
    let blob = "A".repeat(80_000);
    let ops: Vec<BatchOp> = (0..60)
        .map(|i| {
            insert_op(
                "batch",
                "big",
                &format!("{i:02}"),
                &format!(r#","X":"{blob}""#),
            )
        })
        .collect();
    let answer = raw.batch(&ops).await;
    assert_eq!(
        (answer.status, answer.error_code()),
        (413, Some("RequestBodyTooLarge"))
    );
    assert!(emulator.entities("batch").unwrap().is_empty());
}

#[tokio::test]
async fn malformed_batches_are_400() {
    let (_emulator, raw) = setup().await;
    let not_multipart = raw
        .send_bytes(
            "POST",
            "/$batch",
            &[("Content-Type", "application/json")],
            Some(b"{}".to_vec()),
        )
        .await;
    assert_eq!(
        (not_multipart.status, not_multipart.error_code()),
        (400, Some("InvalidInput"))
    );
    let truncated = raw
        .send_bytes(
            "POST",
            "/$batch",
            &[("Content-Type", "multipart/mixed; boundary=batch_b1")],
            Some(
                b"--batch_b1\r\nContent-Type: multipart/mixed; boundary=cs\r\n\r\n--cs\r\n"
                    .to_vec(),
            ),
        )
        .await;
    assert_eq!(truncated.status, 400);
}

#[tokio::test]
async fn a_batch_can_hold_one_query() {
    let (emulator, raw) = setup().await;
    let mut e = tablekit::DynamicEntity::new("bat", "a1");
    e.set("Z", 1);
    emulator.seed("batch", [e]).unwrap();
    let body = format!(
        "--batch_q1\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\nGET {}/batch(PartitionKey='bat',RowKey='a1') HTTP/1.1\r\nAccept: application/json;odata=minimalmetadata\r\n\r\n\r\n--batch_q1--\r\n",
        raw.endpoint
    );
    let answer = raw
        .send_bytes(
            "POST",
            "/$batch",
            &[("Content-Type", "multipart/mixed; boundary=batch_q1")],
            Some(body.into_bytes()),
        )
        .await;
    assert_eq!(answer.status, 202, "{}", answer.body);
    assert!(answer.body.contains("HTTP/1.1 200 OK"), "{}", answer.body);
    assert!(answer.body.contains("etag: W/\"datetime'"));
    assert!(answer
        .body
        .contains(r#""PartitionKey":"bat","RowKey":"a1","Z":1"#));
}
