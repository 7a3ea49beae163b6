//! Every kind of answer carries the header set Azure Table Storage sends: a success, a
//! service error and an error of the HTTP layer itself (a request that is not valid HTTP,
//! a URL or headers too large), the last two with an OData error body. Clients such as the
//! `azure_data_tables` crate stop on a missing header (`Server`).

use reqwest::header::HeaderMap;
use tablekit_emulator::Emulator;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const CLIENT_ID: &str = "answer-headers-7f1c";

/// The headers every answer carries, with their value where it is fixed.
fn assert_common_headers(what: &str, headers: &HeaderMap) {
    let get = |name: &str| {
        headers
            .get(name)
            .unwrap_or_else(|| panic!("{what}: header `{name}` missing in {headers:?}"))
            .to_str()
            .unwrap()
            .to_owned()
    };
    assert!(!get("server").is_empty(), "{what}");
    assert_eq!(get("x-ms-version"), "2019-02-02", "{what}");
    assert!(
        uuid::Uuid::parse_str(&get("x-ms-request-id")).is_ok(),
        "{what}"
    );
    assert!(
        chrono::DateTime::parse_from_rfc2822(&get("date")).is_ok(),
        "{what}"
    );
    assert_eq!(get("cache-control"), "no-cache", "{what}");
    assert_eq!(get("x-content-type-options"), "nosniff", "{what}");
}

/// An error answer's body is `odata.error` JSON with the code of `x-ms-error-code`.
fn assert_odata_error(what: &str, headers: &HeaderMap, body: &[u8]) {
    let content_type = headers["content-type"].to_str().unwrap();
    assert!(
        content_type.starts_with("application/json"),
        "{what}: {content_type}"
    );
    let json: serde_json::Value = serde_json::from_slice(body)
        .unwrap_or_else(|e| panic!("{what}: body is not JSON ({e}): {body:?}"));
    let code = json["odata.error"]["code"].as_str().unwrap_or_default();
    assert!(!code.is_empty(), "{what}: {json}");
    assert_eq!(headers["x-ms-error-code"].to_str().unwrap(), code, "{what}");
    let message = json["odata.error"]["message"]["value"].as_str().unwrap();
    assert!(message.contains("RequestId:"), "{what}: {message}");
}

#[tokio::test]
async fn successes_and_service_errors_carry_azures_headers() {
    let (emulator, sas) = crate::gamers_with_sas().await;
    let http = reqwest::Client::new();
    let base = emulator.endpoint();

    // A create: 201 with the new entity's address in `Location` and `DataServiceId`.
    let created = http
        .post(format!("{base}/Gamers?{sas}"))
        .header("x-ms-client-request-id", CLIENT_ID)
        .header("accept", "application/json;odata=minimalmetadata")
        .header("content-type", "application/json")
        .body(r#"{"PartitionKey":"p","RowKey":"r","Score":1}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), 201);
    let headers = created.headers().clone();
    assert_common_headers("insert", &headers);
    assert_eq!(headers["x-ms-client-request-id"], CLIENT_ID);
    let address = format!("{base}/Gamers(PartitionKey='p',RowKey='r')");
    assert_eq!(headers["location"], address.as_str());
    assert_eq!(headers["dataserviceid"], address.as_str());

    // A read: 200.
    let read = http
        .get(format!("{base}/Gamers(PartitionKey='p',RowKey='r')?{sas}"))
        .header("x-ms-client-request-id", CLIENT_ID)
        .header("accept", "application/json;odata=nometadata")
        .send()
        .await
        .unwrap();
    assert_eq!(read.status(), 200);
    assert_common_headers("get", read.headers());
    assert_eq!(read.headers()["x-ms-client-request-id"], CLIENT_ID);

    // A service error: 404 with its OData body.
    let missing = http
        .get(format!(
            "{base}/Gamers(PartitionKey='p',RowKey='none')?{sas}"
        ))
        .header("x-ms-client-request-id", CLIENT_ID)
        .header("accept", "application/json;odata=nometadata")
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), 404);
    let headers = missing.headers().clone();
    assert_common_headers("missing entity", &headers);
    assert_eq!(headers["x-ms-client-request-id"], CLIENT_ID);
    let body = missing.bytes().await.unwrap();
    assert_odata_error("missing entity", &headers, &body);
}

/// Sends raw bytes and reads the whole answer (the server closes after an HTTP-layer error).
async fn exchange(emulator: &Emulator, request: &[u8]) -> (u16, HeaderMap, Vec<u8>) {
    let mut stream = tokio::net::TcpStream::connect(emulator.addr())
        .await
        .unwrap();
    // The server may answer and close before the whole request is written.
    let _ = stream.write_all(request).await;
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw).await;
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no answer head in {:?}", String::from_utf8_lossy(&raw)));
    let head = std::str::from_utf8(&raw[..end]).unwrap();
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap()[9..12].parse().unwrap();
    let mut headers = HeaderMap::new();
    for line in lines {
        let (name, value) = line.split_once(':').unwrap();
        headers.append(
            reqwest::header::HeaderName::from_bytes(name.trim().as_bytes()).unwrap(),
            value.trim().parse().unwrap(),
        );
    }
    let body = raw[end + 4..].to_vec();
    let length: usize = headers["content-length"].to_str().unwrap().parse().unwrap();
    assert_eq!(body.len(), length, "{head}");
    (status, headers, body)
}

#[tokio::test]
async fn http_layer_errors_carry_azures_headers_and_an_odata_body() {
    let emulator = Emulator::start().await.unwrap();
    let long_url = format!(
        "GET /devstoreaccount1/Tables?x={} HTTP/1.1\r\nHost: h\r\n\r\n",
        "a".repeat(70_000)
    );
    let mut many_headers = String::from("GET /devstoreaccount1/Tables HTTP/1.1\r\nHost: h\r\n");
    for i in 0..200 {
        many_headers.push_str(&format!("x-h{i}: v\r\n"));
    }
    many_headers.push_str("\r\n");
    let cases: [(&str, &[u8], u16); 3] = [
        (
            "not HTTP",
            b"GET /devstoreaccount1/Tables HTTP/1.1\r\nbad header line\r\n\r\n",
            400,
        ),
        ("URL too long", long_url.as_bytes(), 414),
        ("too many headers", many_headers.as_bytes(), 431),
    ];
    for (what, request, status) in cases {
        let (got, headers, body) = exchange(&emulator, request).await;
        assert_eq!(got, status, "{what}");
        assert_common_headers(what, &headers);
        assert_odata_error(what, &headers, &body);
    }
    // The server still answers afterwards.
    let (got, headers, _) = exchange(
        &emulator,
        b"GET /devstoreaccount1/Tables HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n",
    )
    .await;
    assert_eq!(got, 403);
    assert_common_headers("after", &headers);
}

/// A transaction's insert, like a single one, answers with the entity's address in both
/// `Location` and `DataServiceId` (a key's quote doubled).
#[tokio::test]
async fn a_transactions_inserts_carry_their_address() {
    let (emulator, sas) = crate::gamers_with_sas().await;
    let base = emulator.endpoint();
    let insert = |row: &str| {
        format!(
            "--changeset_c\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n\
             POST {base}/Gamers HTTP/1.1\r\nContent-Type: application/json\r\n\
             Prefer: return-no-content\r\n\r\n{{\"PartitionKey\":\"t\",\"RowKey\":\"{row}\"}}\r\n"
        )
    };
    let body = format!(
        "--batch_b\r\nContent-Type: multipart/mixed; boundary=changeset_c\r\n\r\n{}{}\
         --changeset_c--\r\n--batch_b--\r\n",
        insert("o'k"),
        insert("two")
    );
    let answer = reqwest::Client::new()
        .post(format!("{base}/$batch?{sas}"))
        .header("content-type", "multipart/mixed; boundary=batch_b")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 202);
    let text = answer.text().await.unwrap();
    for row in ["o''k", "two"] {
        let address = format!("{base}/Gamers(PartitionKey='t',RowKey='{row}')");
        let headers = format!("\r\nLocation: {address}\r\nDataServiceId: {address}\r\n");
        assert!(text.contains(&headers), "{row}: {text}");
    }
}
