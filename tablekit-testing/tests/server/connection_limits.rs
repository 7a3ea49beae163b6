//! Connections cannot pile up: a client that never finishes its headers is closed after the
//! header timeout, one that never finishes its body is answered 408 after the body timeout,
//! and no more than the configured number of connections are served at once; a client past
//! the limit is answered as soon as another leaves.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use tablekit::sas::{TablePermissions, TableSas};
use tablekit_testing::Emulator;

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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_more_connections_than_the_limit_are_served_at_once() {
    let emulator = Emulator::builder()
        .max_connections(1)
        .start()
        .await
        .unwrap();
    let addr = emulator.addr();
    tokio::task::spawn_blocking(move || {
        let mut first = TcpStream::connect(addr).unwrap();
        first.write_all(REQUEST).unwrap();
        let head = answer_within(&mut first, PATIENCE).expect("the first is served");
        assert!(head.starts_with("HTTP/1.1 403"), "{head}");

        // Connected (the listener's backlog takes it) but not served while `first` is open.
        let mut second = TcpStream::connect(addr).unwrap();
        second.write_all(REQUEST).unwrap();
        let early = answer_within(&mut second, Duration::from_millis(500));
        assert_eq!(early, None, "served past the limit of one connection");

        drop(first);
        let head = answer_within(&mut second, PATIENCE).expect("served once the first left");
        assert!(head.starts_with("HTTP/1.1 403"), "{head}");
    })
    .await
    .unwrap();
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
