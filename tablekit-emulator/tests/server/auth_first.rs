//! A request is authenticated on its headers before its body is read: a client without the
//! account's key or a SAS cannot make the emulator wait for, or hold, a large body, whatever
//! path it names.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use tablekit_emulator::Emulator;

/// The head of the answer to a POST to `path` that announces 7 MiB, sends 1 KiB of it and
/// waits: only an answer before the body can come back.
async fn answer_before_the_body(addr: SocketAddr, path: &'static str) -> String {
    tokio::task::spawn_blocking(move || {
        let mut stranger = TcpStream::connect(addr).unwrap();
        let request = format!(
            "POST {path} HTTP/1.1\r\nHost: localhost\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            7 * 1024 * 1024
        );
        stranger.write_all(request.as_bytes()).unwrap();
        stranger.write_all(&[b' '; 1024]).unwrap();
        stranger
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        let mut buf = [0u8; 512];
        let n = stranger.read(&mut buf).unwrap_or(0);
        String::from_utf8_lossy(&buf[..n]).into_owned()
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unauthenticated_request_is_refused_before_its_body_arrives() {
    let emulator = Emulator::start().await.unwrap();
    let head = answer_before_the_body(emulator.addr(), "/devstoreaccount1/Tables").await;
    assert!(
        head.starts_with("HTTP/1.1 403"),
        "no refusal before the body: {head:?}"
    );
    assert!(head.contains("AuthenticationFailed"), "{head}");
    assert!(emulator.table_names().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_path_that_names_no_resource_is_refused_before_its_body_arrives() {
    let emulator = Emulator::start().await.unwrap();
    for path in [
        "/devstoreaccount1/Gamers/extra",
        "/devstoreaccount1/Tables('x",
        "/devstoreaccount1/t(PartitionKey='p')",
        "/devstoreaccount1/%FF",
        "/devstoreaccount1/Tables?a=1&a=2",
    ] {
        let head = answer_before_the_body(emulator.addr(), path).await;
        assert!(
            head.starts_with("HTTP/1.1 4"),
            "{path}: no refusal before the body: {head:?}"
        );
    }
}
