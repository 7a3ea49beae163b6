//! A raw, hand-signed HTTP client for the emulator tests: it shows exactly what goes on the
//! wire, so the server is tested without tablekit's own client.
#![allow(dead_code, missing_docs)]

use chrono::Utc;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use tablekit::auth::{canonicalized_resource, shared_key_string_to_sign, AccountKey};

/// The development account's key.
pub(crate) const DEV_KEY: &str = tablekit_testing::DEV_KEY;

/// One answer, fully read.
#[derive(Debug)]
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) headers: HeaderMap,
    pub(crate) body: String,
}

impl Answer {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    pub(crate) fn error_code(&self) -> Option<&str> {
        self.header("x-ms-error-code")
    }

    pub(crate) fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }
}

/// Signs and sends requests for one account.
#[derive(Clone)]
pub(crate) struct Raw {
    http: reqwest::Client,
    /// `http://127.0.0.1:PORT/account`.
    pub(crate) endpoint: String,
    pub(crate) account: String,
    key: AccountKey,
}

impl Raw {
    pub(crate) fn new(endpoint: &str, account: &str, key: &str) -> Raw {
        Raw {
            http: reqwest::Client::new(),
            endpoint: endpoint.to_owned(),
            account: account.to_owned(),
            key: AccountKey::from_base64(key).unwrap(),
        }
    }

    pub(crate) fn dev(emulator: &tablekit_testing::Emulator) -> Raw {
        Raw::new(&emulator.endpoint(), emulator.account(), DEV_KEY)
    }

    /// The URL path of `resource` (e.g. `/Tables`), as sent.
    pub(crate) fn path(&self, resource: &str) -> String {
        format!(
            "/{}{}",
            self.account,
            resource.split('?').next().unwrap_or("")
        )
    }

    pub(crate) async fn send(
        &self,
        method: &str,
        resource: &str,
        headers: &[(&str, &str)],
        body: Option<&str>,
    ) -> Answer {
        self.send_bytes(
            method,
            resource,
            headers,
            body.map(|b| b.as_bytes().to_vec()),
        )
        .await
    }

    pub(crate) async fn send_bytes(
        &self,
        method: &str,
        resource: &str,
        headers: &[(&str, &str)],
        body: Option<Vec<u8>>,
    ) -> Answer {
        let date = Utc::now().format("%a, %d %b %Y %H:%M:%S GMT").to_string();
        let mut map = HeaderMap::new();
        map.insert("x-ms-date", HeaderValue::from_str(&date).unwrap());
        map.insert("x-ms-version", HeaderValue::from_static("2019-02-02"));
        map.insert("DataServiceVersion", HeaderValue::from_static("3.0"));
        map.insert(
            "Accept",
            HeaderValue::from_static("application/json;odata=minimalmetadata"),
        );
        if body.is_some() {
            map.insert("Content-Type", HeaderValue::from_static("application/json"));
        }
        for (name, value) in headers {
            let name = HeaderName::from_bytes(name.as_bytes()).unwrap();
            if value.is_empty() {
                map.remove(&name);
            } else {
                map.insert(name, HeaderValue::from_str(value).unwrap());
            }
        }
        if !map.contains_key("Authorization") && !resource.contains("sig=") {
            let content_type = map
                .get("Content-Type")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("");
            let to_sign = shared_key_string_to_sign(
                method,
                "",
                content_type,
                &date,
                &canonicalized_resource(&self.account, &self.path(resource), None),
            );
            let auth = format!("SharedKey {}:{}", self.account, self.key.sign(&to_sign));
            map.insert("Authorization", HeaderValue::from_str(&auth).unwrap());
        }
        let url = format!("{}{}", self.endpoint, resource);
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let mut request = self.http.request(method, url).headers(map);
        if let Some(body) = body {
            request = request.body(body);
        }
        let response = request.send().await.expect("the emulator answers");
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let body = response.text().await.unwrap_or_default();
        Answer {
            status,
            headers,
            body,
        }
    }

    pub(crate) async fn create_table(&self, name: &str) -> Answer {
        self.send(
            "POST",
            "/Tables",
            &[],
            Some(&format!(r#"{{"TableName":"{name}"}}"#)),
        )
        .await
    }

    pub(crate) async fn insert(&self, table: &str, json: &str) -> Answer {
        self.send("POST", &format!("/{table}"), &[], Some(json))
            .await
    }
}

/// `T(PartitionKey='p',RowKey='r')` with quotes doubled and the keys percent-encoded.
pub(crate) fn entity_path(table: &str, pk: &str, rk: &str) -> String {
    let enc = |s: &str| {
        percent_encoding::utf8_percent_encode(
            &s.replace('\'', "''"),
            percent_encoding::NON_ALPHANUMERIC,
        )
        .to_string()
        .replace("%27", "'")
    };
    format!("/{table}(PartitionKey='{}',RowKey='{}')", enc(pk), enc(rk))
}

/// Percent-encodes a query parameter value.
pub(crate) fn enc(value: &str) -> String {
    percent_encoding::utf8_percent_encode(value, percent_encoding::NON_ALPHANUMERIC).to_string()
}

/// One operation of a hand-built `$batch`.
pub(crate) struct BatchOp<'a> {
    pub(crate) method: &'a str,
    /// `T` for an insert, `T(PartitionKey='p',RowKey='r')` otherwise.
    pub(crate) resource: String,
    pub(crate) if_match: Option<&'a str>,
    pub(crate) body: Option<String>,
}

/// A `$batch` body with one changeset, as the Python SDK writes it (CRLF lines).
pub(crate) fn batch_body(endpoint: &str, ops: &[BatchOp<'_>]) -> (String, Vec<u8>) {
    let mut out = String::new();
    out.push_str("--batch_b1\r\nContent-Type: multipart/mixed; boundary=changeset_c1\r\n\r\n");
    for (i, op) in ops.iter().enumerate() {
        out.push_str("--changeset_c1\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n");
        out.push_str(&format!("Content-ID: {i}\r\n\r\n"));
        out.push_str(&format!(
            "{} {endpoint}/{} HTTP/1.1\r\n",
            op.method, op.resource
        ));
        out.push_str(
            "Accept: application/json;odata=minimalmetadata\r\nDataServiceVersion: 3.0\r\n",
        );
        if let Some(tag) = op.if_match {
            out.push_str(&format!("If-Match: {tag}\r\n"));
        }
        match &op.body {
            Some(body) => {
                out.push_str("Content-Type: application/json\r\n\r\n");
                out.push_str(body);
                out.push_str("\r\n");
            }
            None => out.push_str("\r\n\r\n"),
        }
    }
    out.push_str("--changeset_c1--\r\n--batch_b1--\r\n");
    (
        "multipart/mixed; boundary=batch_b1".to_owned(),
        out.into_bytes(),
    )
}

/// An insert of `{"PartitionKey": pk, "RowKey": rk}` plus `extra` JSON members.
pub(crate) fn insert_op<'a>(table: &str, pk: &str, rk: &str, extra: &str) -> BatchOp<'a> {
    BatchOp {
        method: "POST",
        resource: table.to_owned(),
        if_match: None,
        body: Some(format!(
            r#"{{"PartitionKey":"{pk}","RowKey":"{rk}"{extra}}}"#
        )),
    }
}

impl Raw {
    pub(crate) async fn batch(&self, ops: &[BatchOp<'_>]) -> Answer {
        let (content_type, body) = batch_body(&self.endpoint, ops);
        self.send_bytes(
            "POST",
            "/$batch",
            &[("Content-Type", &content_type)],
            Some(body),
        )
        .await
    }
}

impl Raw {
    /// Inserts without panicking on a transport failure: the status, or the error's text.
    pub(crate) async fn try_insert(&self, table: &str, json: &str) -> Result<u16, String> {
        let date = Utc::now().format("%a, %d %b %Y %H:%M:%S GMT").to_string();
        let resource = format!("/{table}");
        let to_sign = shared_key_string_to_sign(
            "POST",
            "",
            "application/json",
            &date,
            &canonicalized_resource(&self.account, &self.path(&resource), None),
        );
        let auth = format!("SharedKey {}:{}", self.account, self.key.sign(&to_sign));
        self.http
            .post(format!("{}{resource}", self.endpoint))
            .header("x-ms-date", &date)
            .header("x-ms-version", "2019-02-02")
            .header("Accept", "application/json;odata=nometadata")
            .header("Content-Type", "application/json")
            .header("Authorization", auth)
            .body(json.to_owned())
            .send()
            .await
            .map(|r| r.status().as_u16())
            .map_err(|e| e.to_string())
    }
}
