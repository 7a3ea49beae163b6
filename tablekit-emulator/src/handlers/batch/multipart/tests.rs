use proptest::prelude::*;

use super::*;

const CAPTURED: &str = "--batch_7f3a\r\nContent-Type: multipart/mixed; boundary=changeset_91bc\r\n\r\n--changeset_91bc\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\nPOST http://127.0.0.1:10003/devstoreaccount1/rawtest HTTP/1.1\r\nContent-ID: 1\r\nAccept: application/json;odata=minimalmetadata\r\nDataServiceVersion: 3.0\r\nContent-Type: application/json\r\nContent-Length: 36\r\n\r\n{\"PartitionKey\":\"bat\",\"RowKey\":\"a1\"}\r\n--changeset_91bc\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\nDELETE http://127.0.0.1:10003/devstoreaccount1/rawtest(PartitionKey='bat',RowKey='a2') HTTP/1.1\r\nIf-Match: *\r\n\r\n\r\n--changeset_91bc--\r\n--batch_7f3a--\r\n";

#[test]
fn the_captured_batch_parses() {
    let outer = split_parts(CAPTURED.as_bytes(), "batch_7f3a").unwrap();
    assert_eq!(outer.len(), 1);
    let inner = boundary(outer[0].header("Content-Type").unwrap()).unwrap();
    assert_eq!(inner, "changeset_91bc");
    let ops = split_parts(outer[0].body, inner).unwrap();
    assert_eq!(ops.len(), 2);
    let insert = parse_sub_request(ops[0].body).unwrap();
    assert_eq!(insert.method, "POST");
    assert_eq!(insert.path, "/devstoreaccount1/rawtest");
    assert_eq!(insert.header("content-id"), Some("1"));
    assert_eq!(insert.body, br#"{"PartitionKey":"bat","RowKey":"a1"}"#);
    let delete = parse_sub_request(ops[1].body).unwrap();
    assert_eq!(delete.method, "DELETE");
    assert_eq!(delete.header("If-Match"), Some("*"));
    assert!(delete.body.is_empty());
}

#[test]
fn bare_line_feeds_are_accepted_too() {
    let lf = CAPTURED.replace("\r\n", "\n");
    let outer = split_parts(lf.as_bytes(), "batch_7f3a").unwrap();
    let ops = split_parts(outer[0].body, "changeset_91bc").unwrap();
    assert_eq!(ops.len(), 2);
}

#[test]
fn a_last_delimiter_without_dashes_closes_the_body() {
    // The `azure_data_tables` crate's form: LF only, and no `--` after the last delimiter.
    let open_end = CAPTURED
        .replace("\r\n", "\n")
        .replace("--batch_7f3a--\n", "--batch_7f3a\n");
    let outer = split_parts(open_end.as_bytes(), "batch_7f3a").unwrap();
    let ops = split_parts(outer[0].body, "changeset_91bc").unwrap();
    assert_eq!(ops.len(), 2);
    // Without any part, a lone delimiter is still no body.
    assert!(split_parts(b"--b\r\n", "b").is_err());
}

#[test]
fn boundaries_come_from_the_content_type() {
    assert_eq!(
        boundary("multipart/mixed; boundary=batch_x"),
        Some("batch_x")
    );
    assert_eq!(boundary("multipart/mixed; boundary=\"q\""), Some("q"));
    assert_eq!(boundary("application/json"), None);
    assert_eq!(boundary("multipart/mixed; boundary="), None);
}

#[test]
fn unclosed_bodies_are_errors() {
    assert!(split_parts(b"--b\r\nA: 1\r\n\r\nx\r\n", "b").is_err());
    assert!(split_parts(b"", "b").is_err());
    assert!(parse_sub_request(b"").is_err());
    assert!(parse_sub_request(b"POST\r\n\r\n").is_err());
}

fn build(boundary: &str, bodies: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    for body in bodies {
        out.extend_from_slice(
            format!("--{boundary}\r\nContent-Type: application/http\r\n\r\n").as_bytes(),
        );
        out.extend_from_slice(body);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    out
}

proptest! {
    #[test]
    fn parts_round_trip(
        bodies in proptest::collection::vec(
            proptest::collection::vec(any::<u8>().prop_filter("no dashes", |b| *b != b'-'), 0..200),
            1..20,
        )
    ) {
        let body = build("changeset_x", &bodies);
        let parts = split_parts(&body, "changeset_x").unwrap();
        prop_assert_eq!(parts.len(), bodies.len());
        for (part, sent) in parts.iter().zip(&bodies) {
            prop_assert_eq!(part.header("content-type"), Some("application/http"));
            prop_assert_eq!(part.body, sent.as_slice());
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(body in proptest::collection::vec(any::<u8>(), 0..400)) {
        if let Ok(parts) = split_parts(&body, "b") {
            for part in parts {
                let _ = parse_sub_request(part.body);
            }
        }
        let _ = parse_sub_request(&body);
    }

    #[test]
    fn mangled_batches_never_panic(cut in 0usize..600, byte in any::<u8>()) {
        let mut body = CAPTURED.as_bytes().to_vec();
        if cut < body.len() {
            body[cut] = byte;
        }
        body.truncate(cut.max(1));
        if let Ok(parts) = split_parts(&body, "batch_7f3a") {
            for part in parts {
                if let Some(inner) = part.header("content-type").and_then(boundary) {
                    if let Ok(ops) = split_parts(part.body, inner) {
                        for op in ops {
                            let _ = parse_sub_request(op.body);
                        }
                    }
                }
            }
        }
    }
}
