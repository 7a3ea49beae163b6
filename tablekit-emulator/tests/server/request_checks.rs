//! What the emulator refuses or tidies in a request before it acts: a repeated `$select`
//! name is answered once, and more than 255 names, a non-finite number in `$filter`, a query
//! string that is not UTF-8 and an `@odata.type` annotation without its property are refused
//! with 400 and an OData error body.

use tablekit_emulator::Emulator;

struct Setup {
    _emulator: Emulator,
    base: String,
    sas: String,
    http: reqwest::Client,
}

async fn setup() -> Setup {
    let (emulator, sas) = crate::gamers_with_sas().await;
    let setup = Setup {
        base: emulator.endpoint(),
        _emulator: emulator,
        sas,
        http: reqwest::Client::new(),
    };
    let inserted = setup
        .insert(r#"{"PartitionKey":"p","RowKey":"r","Score":1,"Name":"Ann"}"#)
        .await;
    assert_eq!(inserted.0, 204);
    setup
}

impl Setup {
    async fn insert(&self, body: &str) -> (u16, serde_json::Value) {
        let answer = self
            .http
            .post(format!("{}/Gamers?{}", self.base, self.sas))
            .header("accept", "application/json;odata=nometadata")
            .header("content-type", "application/json")
            .header("prefer", "return-no-content")
            .body(body.to_owned())
            .send()
            .await
            .unwrap();
        read(answer).await
    }

    /// `GET /Gamers()` with `query` appended as it is (already percent-encoded).
    async fn query(&self, query: &str) -> (u16, serde_json::Value) {
        let answer = self
            .http
            .get(format!("{}/Gamers()?{}&{query}", self.base, self.sas))
            .header("accept", "application/json;odata=nometadata")
            .send()
            .await
            .unwrap();
        read(answer).await
    }
}

async fn read(answer: reqwest::Response) -> (u16, serde_json::Value) {
    let status = answer.status().as_u16();
    let body = answer.bytes().await.unwrap();
    let json = match body.is_empty() {
        true => serde_json::Value::Null,
        false => serde_json::from_slice(&body)
            .unwrap_or_else(|e| panic!("{status}: not JSON ({e}): {body:?}")),
    };
    (status, json)
}

fn assert_refused(what: &str, (status, json): &(u16, serde_json::Value)) {
    assert_eq!(*status, 400, "{what}: {json}");
    assert_eq!(
        json["odata.error"]["code"], "InvalidInput",
        "{what}: {json}"
    );
}

#[tokio::test]
async fn a_repeated_select_name_is_answered_once() {
    let setup = setup().await;
    let repeated = vec!["Score"; 2000].join(",");
    let answer = setup
        .http
        .get(format!(
            "{}/Gamers()?{}&$select={repeated},Name,Score",
            setup.base, setup.sas
        ))
        .header("accept", "application/json;odata=nometadata")
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    // Read as text: a JSON object reader would merge repeated names.
    let text = answer.text().await.unwrap();
    assert_eq!(text, r#"{"value":[{"Score":1,"Name":"Ann"}]}"#);
}

#[tokio::test]
async fn a_select_of_more_names_than_an_entity_holds_is_refused() {
    let setup = setup().await;
    let names = |n: usize| {
        (0..n)
            .map(|i| format!("P{i}"))
            .collect::<Vec<_>>()
            .join(",")
    };
    // 255 names: at most as many as an entity holds, each missing one answered `null`.
    let (status, json) = setup.query(&format!("$select={}", names(255))).await;
    assert_eq!(status, 200, "{json}");
    let entity = json["value"][0].as_object().unwrap();
    assert_eq!(entity.get("P254"), Some(&serde_json::Value::Null), "{json}");
    let answer = setup.query(&format!("$select={}", names(256))).await;
    assert_refused("256 names", &answer);
    // The same on a point read.
    let answer = setup
        .http
        .get(format!(
            "{}/Gamers(PartitionKey='p',RowKey='r')?{}&$select={}",
            setup.base,
            setup.sas,
            names(3000)
        ))
        .header("accept", "application/json;odata=nometadata")
        .send()
        .await
        .unwrap();
    assert_refused("3000 names", &read(answer).await);
}

#[tokio::test]
async fn non_finite_filter_numbers_are_refused() {
    let setup = setup().await;
    for literal in ["1e999", "-1e999", "1e999d", "1E400"] {
        let answer = setup
            .query(&format!("$filter=Score%20lt%20{literal}"))
            .await;
        assert_refused(literal, &answer);
    }
    // A large finite one is a number like any other.
    let (status, json) = setup.query("$filter=Score%20lt%201e300").await;
    assert_eq!(status, 200, "{json}");
}

#[tokio::test]
async fn a_query_string_that_is_not_utf8_is_refused() {
    let setup = setup().await;
    let answer = setup.query("$filter=Name%20eq%20%27%FF%FE%27").await;
    assert_refused("percent-encoded bytes", &answer);
    let answer = setup.query("$select=%C3").await;
    assert_refused("a cut character", &answer);
}

#[tokio::test]
async fn an_annotation_without_its_property_is_refused() {
    let setup = setup().await;
    let orphan = r#"{"PartitionKey":"p","RowKey":"o","Big@odata.type":"Edm.Int64"}"#;
    assert_refused("orphan annotation", &setup.insert(orphan).await);
    let (status, json) = setup.query("$filter=RowKey%20eq%20%27o%27").await;
    assert_eq!(status, 200);
    assert!(json["value"].as_array().unwrap().is_empty(), "{json}");
    // With its property, before or after it, the annotation types the value.
    let before = r#"{"PartitionKey":"p","RowKey":"b","Big@odata.type":"Edm.Int64","Big":"5"}"#;
    assert_eq!(setup.insert(before).await.0, 204);
    let after = r#"{"PartitionKey":"p","RowKey":"a","Big":"5","Big@odata.type":"Edm.Int64"}"#;
    assert_eq!(setup.insert(after).await.0, 204);
    // A value that merely ends like an annotation is a value.
    let value = r#"{"PartitionKey":"p","RowKey":"v","Mail":"x@odata.type"}"#;
    assert_eq!(setup.insert(value).await.0, 204);
}
