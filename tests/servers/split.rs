//! Split values on every server: each chunk passes the service's 64 KiB limit, values come
//! back bit-exact, and after a Merge of a smaller value the stale chunks the service keeps are
//! never read; Replace deletes them.
//!
//! Requests are signed by hand (to the server the client names) so the tests depend only on
//! the data layer.

use chrono::Utc;
use rand::{RngExt, SeedableRng};
use reqwest::{Method, StatusCode};
use tablekit::auth::{canonicalized_resource, shared_key_string_to_sign, AccountKey};
use tablekit::client::TableServiceClient;
use tablekit::split;
use tablekit::{codec, limits, DynamicEntity};

use crate::support::servers::unique_name;

/// Both servers serve the development account.
const ACCOUNT: &str = tablekit_testing::DEV_ACCOUNT;
const KEY: &str = tablekit_testing::DEV_KEY;
const KIB: usize = 1024;

/// A signed raw connection to a server.
struct Service {
    http: reqwest::Client,
    base: String,
    key: AccountKey,
}

impl Service {
    /// The server `client` talks to.
    fn of(client: &TableServiceClient) -> Service {
        let base = client.endpoint().base_url().to_string();
        Service {
            http: reqwest::Client::new(),
            base: base.trim_end_matches('/').to_owned(),
            key: AccountKey::from_base64(KEY).unwrap(),
        }
    }

    /// Sends one SharedKey-signed request; `path` follows the account segment.
    async fn send(
        &self,
        method: Method,
        path: &str,
        body: Option<Vec<u8>>,
    ) -> (StatusCode, Vec<u8>) {
        let url = format!("{}{path}", self.base);
        let url_path = reqwest::Url::parse(&url).unwrap().path().to_owned();
        let date = Utc::now().format("%a, %d %b %Y %H:%M:%S GMT").to_string();
        let content_type = if body.is_some() {
            "application/json"
        } else {
            ""
        };
        let resource = canonicalized_resource(ACCOUNT, &url_path, None);
        let to_sign =
            shared_key_string_to_sign(method.as_str(), "", content_type, &date, &resource);
        let mut request = self
            .http
            .request(method, &url)
            .header("x-ms-date", &date)
            .header("x-ms-version", "2019-02-02")
            .header("DataServiceVersion", "3.0")
            .header("MaxDataServiceVersion", "3.0;NetFx")
            .header("Accept", "application/json;odata=minimalmetadata")
            .header("Prefer", "return-no-content")
            .header(
                "Authorization",
                format!("SharedKey {ACCOUNT}:{}", self.key.sign(&to_sign)),
            );
        if let Some(body) = body {
            request = request.header("Content-Type", content_type).body(body);
        }
        let response = request.send().await.unwrap();
        let status = response.status();
        (status, response.bytes().await.unwrap().to_vec())
    }

    async fn create_table(&self, name: &str) {
        let body = format!(r#"{{"TableName":"{name}"}}"#).into_bytes();
        let (status, text) = self.send(Method::POST, "/Tables", Some(body)).await;
        assert!(
            status.is_success(),
            "{status} {}",
            String::from_utf8_lossy(&text)
        );
    }

    /// `PUT` is insert-or-replace, `MERGE` insert-or-merge (no `If-Match`).
    async fn write(&self, table: &str, method: &str, entity: &DynamicEntity) -> StatusCode {
        limits::validate_entity(entity).unwrap();
        let path = format!(
            "/{table}(PartitionKey='{}',RowKey='{}')",
            entity.partition_key(),
            entity.row_key()
        );
        let method = Method::from_bytes(method.as_bytes()).unwrap();
        let (status, text) = self
            .send(method, &path, Some(codec::encode_entity(entity)))
            .await;
        assert!(
            status.is_success(),
            "{status} {}",
            String::from_utf8_lossy(&text)
        );
        status
    }

    async fn read(&self, table: &str, pk: &str, rk: &str) -> DynamicEntity {
        let path = format!("/{table}(PartitionKey='{pk}',RowKey='{rk}')");
        let (status, body) = self.send(Method::GET, &path, None).await;
        assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
        codec::decode_entity(&body).unwrap()
    }
}

fn random_bytes(len: usize, seed: u64) -> Vec<u8> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    (0..len).map(|_| rng.random()).collect()
}

async fn large_values_round_trip_bit_exactly_through_the_service(client: &TableServiceClient) {
    let service = Service::of(client);
    let table = unique_name("split");
    service.create_table(&table).await;
    for (row, len) in [(0, 128 * KIB), (1, 128 * KIB + 1), (2, 500 * KIB)] {
        let value = random_bytes(len, row);
        let mut e = DynamicEntity::new("p", format!("r{row}"));
        e.set("Score", 7);
        split::write_split(&mut e, "Blob", &value, 16).unwrap();
        service.write(&table, "PUT", &e).await;
        let back = service.read(&table, "p", &format!("r{row}")).await;
        assert_eq!(
            split::read_split(&back, "Blob").unwrap().as_deref(),
            Some(&value[..])
        );
        assert_eq!(back.get::<i32>("Score"), Some(7));
    }
}

async fn after_a_merge_of_a_smaller_value_stale_chunks_are_never_read(client: &TableServiceClient) {
    let service = Service::of(client);
    let table = unique_name("merge");
    service.create_table(&table).await;
    let mut e = DynamicEntity::new("p", "r");
    split::write_split(&mut e, "Blob", &random_bytes(300 * KIB, 1), 16).unwrap();
    service.write(&table, "PUT", &e).await;

    // A Merge sends only the new, smaller value: the service keeps the old chunks.
    let small = random_bytes(70 * KIB, 2);
    let mut update = DynamicEntity::new("p", "r");
    split::write_split(&mut update, "Blob", &small, 16).unwrap();
    assert_eq!(update.len(), 2);
    service.write(&table, "MERGE", &update).await;

    let merged = service.read(&table, "p", "r").await;
    assert_eq!(
        split::stale_chunks(&merged, "Blob"),
        ["Blob__2", "Blob__3", "Blob__4"]
    );
    assert_eq!(
        split::read_split(&merged, "Blob").unwrap().as_deref(),
        Some(&small[..])
    );

    // The documented clean-up: remove them locally and Replace.
    let mut cleaned = merged.clone();
    assert_eq!(split::remove_stale_chunks(&mut cleaned, "Blob"), 3);
    service.write(&table, "PUT", &cleaned).await;
    let back = service.read(&table, "p", "r").await;
    assert!(split::stale_chunks(&back, "Blob").is_empty());
    assert_eq!(back.len(), 2);
    assert_eq!(
        split::read_split(&back, "Blob").unwrap().as_deref(),
        Some(&small[..])
    );
}

async fn a_replace_of_a_smaller_value_deletes_its_unused_chunks(client: &TableServiceClient) {
    let service = Service::of(client);
    let table = unique_name("replace");
    service.create_table(&table).await;
    let mut e = DynamicEntity::new("p", "r");
    e.set("Keep", "yes");
    split::write_split(&mut e, "Blob", &random_bytes(200 * KIB, 3), 16).unwrap();
    service.write(&table, "PUT", &e).await;

    // Read, modify, Replace: the C# library that accompanies "Jeffrey Richter's Guide to
    // Working with Azure Storage Tables via C# and other .NET Languages" wrote empty chunks
    // here instead of removing them.
    let mut read = service.read(&table, "p", "r").await;
    split::write_split(&mut read, "Blob", b"tiny", 16).unwrap();
    service.write(&table, "PUT", &read).await;
    let back = service.read(&table, "p", "r").await;
    let names: Vec<&str> = back.properties().map(|(n, _)| n).collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(names.contains(&"Keep") && names.contains(&"Blob"));
    assert_eq!(
        split::read_split(&back, "Blob").unwrap().as_deref(),
        Some(&b"tiny"[..])
    );
}

on_servers!(
    large_values_round_trip_bit_exactly_through_the_service,
    after_a_merge_of_a_smaller_value_stale_chunks_are_never_read,
    a_replace_of_a_smaller_value_deletes_its_unused_chunks,
);
