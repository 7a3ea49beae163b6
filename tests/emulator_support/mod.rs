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
