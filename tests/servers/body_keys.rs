//! A write whose body names other keys than its URL: the URL names the entity, as the service
//! documents ("Replace myPartitionKey and myRowKey with the name of the partition key and row
//! key that identify the entity to be updated", Update Entity), and nothing is written under the
//! body's keys. Sent raw, as no client of ours can send such a request.

use tablekit::client::TableServiceClient;

use crate::support::raw::{entity_path, Raw, DEV_KEY};
use crate::support::servers::unique_name;

/// A raw, signed client for the server `client` talks to.
fn raw_for(client: &TableServiceClient) -> Raw {
    let endpoint = client.endpoint();
    let url = endpoint
        .base_url()
        .as_str()
        .trim_end_matches('/')
        .to_owned();
    Raw::new(&url, endpoint.account(), DEV_KEY)
}

pub async fn the_url_names_the_entity_not_the_body(client: &TableServiceClient) {
    let raw = raw_for(client);
    let table = unique_name("bodykeys");
    assert_eq!(raw.create_table(&table).await.status, 201);
    let body = r#"{"PartitionKey":"elsewhere","RowKey":"other","Colour":"red"}"#;
    for method in ["PUT", "MERGE"] {
        let rk = format!("by-{method}");
        let answer = raw
            .send(method, &entity_path(&table, "here", &rk), &[], Some(body))
            .await;
        assert_eq!(answer.status, 204, "{method}: {}", answer.body);
        let stored = raw
            .send("GET", &entity_path(&table, "here", &rk), &[], None)
            .await;
        assert_eq!(stored.status, 200, "{method}: {}", stored.body);
        let json = stored.json();
        assert_eq!(json["PartitionKey"], "here", "{method}: {json}");
        assert_eq!(json["RowKey"], rk.as_str(), "{method}: {json}");
        assert_eq!(json["Colour"], "red", "{method}: {json}");
    }
    let elsewhere = raw
        .send("GET", &entity_path(&table, "elsewhere", "other"), &[], None)
        .await;
    assert_eq!(elsewhere.status, 404, "{}", elsewhere.body);
    let all = raw.send("GET", &format!("/{table}()"), &[], None).await;
    assert_eq!(all.json()["value"].as_array().map(Vec::len), Some(2));
}

on_servers!(the_url_names_the_entity_not_the_body);
