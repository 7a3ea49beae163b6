//! Connections cannot pile up: a client that never finishes its headers is closed after the
//! header timeout, one that never finishes its body is answered 408 after the body timeout,
//! and no more than the configured number of connections are served at once; a client past
//! the limit takes the place of an idle or slow-header connection, and waits only while
//! every connection is busy.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use tablekit::sas::{TablePermissions, TableSas};
use tablekit_emulator::Emulator;

/// A request the emulator answers (an unsigned one: refused with 403, but answered).
const REQUEST: &[u8] = b"GET /devstoreaccount1/Tables HTTP/1.1\r\nHost: localhost\r\n\r\n";

/// Long enough for any answer on a loaded machine; the tests below wait this long only when
/// they fail.
const PATIENCE: Duration = Duration::from_secs(20);

/// The head of the next answer on `stream`, or `None` if none came within `wait`.
fn answer_within(stream: &mut TcpStream, wait: Duration) -> Option<String> {
    stream.set_read_timeout(Some(wait)).unwrap();
    let mut buf = [0u8; 512];
    match stream.read(&mut buf) {
        Ok(n) if n > 0 => Some(String::from_utf8_lossy(&buf[..n]).into_owned()),
        _ => None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_that_never_finishes_its_headers_is_closed() {
    let emulator = Emulator::builder()
        .header_timeout(Duration::from_millis(200))
        .start()
        .await
        .unwrap();
    let addr = emulator.addr();
    let closed = tokio::task::spawn_blocking(move || {
        let mut slow = TcpStream::connect(addr).unwrap();
        slow.write_all(b"GET /devstoreaccount1/Tables HTTP/1.1\r\nHost: x\r\n")
            .unwrap();
        slow.set_read_timeout(Some(PATIENCE)).unwrap();
        let mut rest = Vec::new();
        // Ok: the emulator closed the connection; Err: the read timed out, still open.
        slow.read_to_end(&mut rest).is_ok()
    })
    .await
    .unwrap();
    assert!(
        closed,
        "the slow connection was still open after {PATIENCE:?}"
    );
}

/// A SAS that inserts into `Gamers`, which this creates.
fn inserter(emulator: &Emulator) -> String {
    emulator.create_table("Gamers").unwrap();
    let expiry = chrono::Utc::now() + chrono::Duration::hours(1);
    emulator
        .sas(&TableSas::new("Gamers", TablePermissions::ADD, expiry))
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_the_limit_a_client_waits_only_while_every_connection_is_busy() {
    let emulator = Emulator::builder()
        .max_connections(1)
        .start()
        .await
        .unwrap();
    let sas = inserter(&emulator);
    let addr = emulator.addr();
    tokio::task::spawn_blocking(move || {
        // Busy: its body is still on its way.
        let mut first = TcpStream::connect(addr).unwrap();
        let body = r#"{"PartitionKey":"p","RowKey":"r"}"#;
        let head = format!(
            "POST /devstoreaccount1/Gamers?{sas} HTTP/1.1\r\nHost: localhost\r\n\
             Accept: application/json;odata=nometadata\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        first.write_all(head.as_bytes()).unwrap();
        first.write_all(&body.as_bytes()[..5]).unwrap();

        // Connected (the listener's backlog takes it) but not served while `first` is busy.
        let mut second = TcpStream::connect(addr).unwrap();
        second.write_all(REQUEST).unwrap();
        let early = answer_within(&mut second, Duration::from_millis(500));
        assert_eq!(early, None, "served past the limit of one connection");

        // `first` is answered; idle then, it gives way to `second`.
        first.write_all(&body.as_bytes()[5..]).unwrap();
        let head = answer_within(&mut first, PATIENCE).expect("the first is answered");
        assert!(head.starts_with("HTTP/1.1 201"), "{head}");
        let head = answer_within(&mut second, PATIENCE).expect("served once the first idled");
        assert!(head.starts_with("HTTP/1.1 403"), "{head}");
        // Ok: closed (after the rest of its answer); Err: the read timed out, still open.
        first.set_read_timeout(Some(PATIENCE)).unwrap();
        assert!(
            first.read_to_end(&mut Vec::new()).is_ok(),
            "the first is open"
        );
    })
    .await
    .unwrap();
    assert_eq!(emulator.entities("Gamers").unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_and_slow_connections_past_the_limit_give_way_to_a_new_client() {
    // A small limit stands for the default: three times as many idle connections as it
    // allows, half of them never sending a byte, half stuck in their headers.
    const LIMIT: usize = 8;
    let emulator = Emulator::builder()
        .max_connections(LIMIT)
        .start()
        .await
        .unwrap();
    let addr = emulator.addr();
    let idle: Vec<TcpStream> = tokio::task::spawn_blocking(move || {
        (0..3 * LIMIT)
            .map(|i| {
                let mut stream = TcpStream::connect(addr).unwrap();
                if i % 2 == 1 {
                    stream
                        .write_all(b"GET /devstoreaccount1/Tables HTTP/1.1\r\nHost: x\r\n")
                        .unwrap();
                }
                stream
            })
            .collect()
    })
    .await
    .unwrap();
    // The default header timeout (60 s) is far beyond the client's patience: only a
    // connection that gave way lets the request through in time.
    let client = emulator
        .client_builder()
        .timeout(PATIENCE)
        .retry_policy(tablekit::client::RetryPolicy::none())
        .build()
        .unwrap();
    client.create_table("Gamers").await.unwrap();
    assert_eq!(emulator.table_names(), ["Gamers"]);
    drop(idle);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_that_never_arrives_in_full_is_answered_408() {
    let emulator = Emulator::builder()
        .body_timeout(Duration::from_millis(200))
        .start()
        .await
        .unwrap();
    emulator.create_table("Gamers").unwrap();
    let expiry = chrono::Utc::now() + chrono::Duration::hours(1);
    let sas = emulator
        .sas(&TableSas::new("Gamers", TablePermissions::ADD, expiry))
        .unwrap();
    let addr = emulator.addr();
    let head = tokio::task::spawn_blocking(move || {
        // Authenticated (the SAS), announces 100 bytes and sends 10.
        let mut dribbler = TcpStream::connect(addr).unwrap();
        let request = format!(
            "POST /devstoreaccount1/Gamers?{sas} HTTP/1.1\r\nHost: localhost\r\n\
             Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"Partitio"
        );
        dribbler.write_all(request.as_bytes()).unwrap();
        answer_within(&mut dribbler, PATIENCE)
    })
    .await
    .unwrap()
    .expect("an answer before the body");
    assert!(head.starts_with("HTTP/1.1 408"), "{head}");
    assert!(emulator.entities("Gamers").unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_sends_a_body_over_the_limit_whole_reads_the_413() {
    let emulator = Emulator::start().await.unwrap();
    emulator.create_table("Gamers").unwrap();
    let expiry = chrono::Utc::now() + chrono::Duration::hours(1);
    let sas = emulator
        .sas(&TableSas::new("Gamers", TablePermissions::ADD, expiry))
        .unwrap();
    let addr = emulator.addr();
    // 8 MiB and one byte: one over the largest body the emulator takes outside `$batch`.
    let body = vec![b' '; 8 * 1024 * 1024 + 1];
    let heads = tokio::task::spawn_blocking(move || {
        let declared = format!("Content-Length: {}\r\n\r\n", body.len());
        let mut chunked = format!("{:x}\r\n", body.len()).into_bytes();
        chunked.extend_from_slice(&body);
        chunked.extend_from_slice(b"\r\n0\r\n\r\n");
        let mut with_length = declared.into_bytes();
        with_length.extend_from_slice(&body);
        [
            with_length,
            [b"Transfer-Encoding: chunked\r\n\r\n".to_vec(), chunked].concat(),
        ]
        .map(|framed| {
            // Writes the whole request, as most clients do, before reading the answer.
            let mut client = TcpStream::connect(addr).unwrap();
            let head = format!(
                "POST /devstoreaccount1/Gamers?{sas} HTTP/1.1\r\nHost: localhost\r\n\
                     Content-Type: application/json\r\n"
            );
            client.write_all(head.as_bytes()).unwrap();
            client
                .write_all(&framed)
                .expect("the emulator kept reading the body");
            answer_within(&mut client, PATIENCE)
        })
    })
    .await
    .unwrap();
    for head in heads {
        let head = head.expect("an answer");
        assert!(head.starts_with("HTTP/1.1 413"), "{head}");
        assert!(head.contains("RequestBodyTooLarge"), "{head}");
    }
    assert!(emulator.entities("Gamers").unwrap().is_empty());
}
