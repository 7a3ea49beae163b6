//! The emulator over real HTTP with hand-signed requests: tables, entities, queries, ETags,
//! metadata levels and errors, asserting Azure's behaviour.

use crate::support::raw::{enc, entity_path, Raw};
use tablekit_testing::{Emulator, Operation};

async fn setup(table: &str) -> (Emulator, Raw) {
    let emulator = Emulator::start().await.unwrap();
    let raw = Raw::dev(&emulator);
    assert_eq!(raw.create_table(table).await.status, 201);
    (emulator, raw)
}

#[tokio::test]
async fn tables_are_created_listed_paged_and_deleted() {
    let emulator = Emulator::start().await.unwrap();
    let raw = Raw::dev(&emulator);
    let created = raw.create_table("MixedCase").await;
    assert_eq!(created.status, 201);
    assert_eq!(created.json()["TableName"], "MixedCase");
    let again = raw.create_table("mixedcase").await;
    assert_eq!(again.status, 409);
    assert_eq!(again.error_code(), Some("TableAlreadyExists"));
    for name in ["abc", "edmtest", "pagetest"] {
        assert_eq!(raw.create_table(name).await.status, 201);
    }
    let first = raw.send("GET", "/Tables?$top=2", &[], None).await;
    assert_eq!(first.status, 200);
    let names: Vec<_> = first.json()["value"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["TableName"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(names, ["MixedCase", "abc"]);
    let token = first
        .header("x-ms-continuation-NextTableName")
        .unwrap()
        .to_owned();
    let second = raw
        .send(
            "GET",
            &format!("/Tables?$top=2&NextTableName={}", enc(&token)),
            &[],
            None,
        )
        .await;
    let names: Vec<_> = second.json()["value"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["TableName"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(names, ["edmtest", "pagetest"]);
    assert!(second.header("x-ms-continuation-NextTableName").is_none());
    let filtered = raw
        .send(
            "GET",
            &format!("/Tables?$filter={}", enc("TableName eq 'abc'")),
            &[],
            None,
        )
        .await;
    assert_eq!(filtered.json()["value"].as_array().unwrap().len(), 1);
    assert_eq!(
        raw.send("DELETE", "/Tables('ABC')", &[], None).await.status,
        204
    );
    let missing = raw.send("DELETE", "/Tables('abc')", &[], None).await;
    assert_eq!(missing.status, 404);
    assert_eq!(missing.error_code(), Some("ResourceNotFound"));
}

#[tokio::test]
async fn invalid_table_names_get_azure_codes() {
    let emulator = Emulator::start().await.unwrap();
    let raw = Raw::dev(&emulator);
    for (name, code) in [
        ("1abc", "InvalidResourceName"),
        ("ab", "OutOfRangeInput"),
        ("tables", "InvalidResourceName"),
        ("ab-c", "InvalidResourceName"),
        (&"a".repeat(64), "OutOfRangeInput"),
    ] {
        let answer = raw.create_table(name).await;
        assert_eq!(answer.status, 400, "{name}");
        assert_eq!(answer.error_code(), Some(code), "{name}");
    }
    assert_eq!(raw.create_table(&"a".repeat(63)).await.status, 201);
}

#[tokio::test]
async fn insert_get_update_merge_delete_with_etags() {
    let (_emulator, raw) = setup("people").await;
    let inserted = raw
        .insert(
            "people",
            r#"{"PartitionKey":"p","RowKey":"r","Name":"Ann","Age":30}"#,
        )
        .await;
    assert_eq!(inserted.status, 201);
    // Asked nothing, the service says nothing about preferences.
    assert_eq!(inserted.header("preference-applied"), None);
    let etag = inserted.header("etag").unwrap().to_owned();
    assert!(
        etag.starts_with("W/\"datetime'") && etag.contains("%3A"),
        "{etag}"
    );
    assert_eq!(inserted.json()["odata.etag"], etag.as_str());

    let dup = raw
        .insert("people", r#"{"PartitionKey":"p","RowKey":"r"}"#)
        .await;
    assert_eq!(
        (dup.status, dup.error_code()),
        (409, Some("EntityAlreadyExists"))
    );

    let path = entity_path("people", "p", "r");
    let got = raw.send("GET", &path, &[], None).await;
    assert_eq!(got.status, 200);
    assert_eq!(got.header("etag"), Some(etag.as_str()));
    assert_eq!(got.json()["Name"], "Ann");

    let stale = raw
        .send(
            "PUT",
            &path,
            &[(
                "If-Match",
                "W/\"datetime'2000-01-01T00%3A00%3A00.0000000Z'\"",
            )],
            Some(r#"{"Name":"Bob"}"#),
        )
        .await;
    assert_eq!(
        (stale.status, stale.error_code()),
        (412, Some("UpdateConditionNotSatisfied"))
    );

    let replaced = raw
        .send(
            "PUT",
            &path,
            &[("If-Match", &etag)],
            Some(r#"{"Name":"Bob"}"#),
        )
        .await;
    assert_eq!(replaced.status, 204);
    let etag2 = replaced.header("etag").unwrap().to_owned();
    assert_ne!(etag, etag2);
    let got = raw.send("GET", &path, &[], None).await.json();
    assert_eq!(got["Name"], "Bob");
    assert!(
        got.get("Age").is_none(),
        "replace drops unmentioned properties"
    );

    let merged = raw
        .send("MERGE", &path, &[("If-Match", "*")], Some(r#"{"Age":31}"#))
        .await;
    assert_eq!(merged.status, 204);
    let got = raw.send("GET", &path, &[], None).await.json();
    assert_eq!(
        (got["Name"].as_str(), got["Age"].as_i64()),
        (Some("Bob"), Some(31))
    );

    let no_if_match = raw.send("DELETE", &path, &[], None).await;
    assert_eq!(
        (no_if_match.status, no_if_match.error_code()),
        (400, Some("MissingRequiredHeader"))
    );
    assert_eq!(
        raw.send("DELETE", &path, &[("If-Match", "*")], None)
            .await
            .status,
        204
    );
    let gone = raw.send("GET", &path, &[], None).await;
    assert_eq!(
        (gone.status, gone.error_code()),
        (404, Some("ResourceNotFound"))
    );
    let update_missing = raw
        .send("PUT", &path, &[("If-Match", "*")], Some("{}"))
        .await;
    assert_eq!(update_missing.status, 404);
}

#[tokio::test]
async fn upserts_create_and_prefer_gives_204() {
    let (_emulator, raw) = setup("things").await;
    let put = raw
        .send(
            "PUT",
            &entity_path("things", "p", "new"),
            &[],
            Some(r#"{"A":1}"#),
        )
        .await;
    assert_eq!(put.status, 204);
    let patch = raw
        .send(
            "PATCH",
            &entity_path("things", "p", "m"),
            &[],
            Some(r#"{"A":1}"#),
        )
        .await;
    assert_eq!(patch.status, 204);
    let merge = raw
        .send(
            "MERGE",
            &entity_path("things", "p", "m"),
            &[],
            Some(r#"{"B":2}"#),
        )
        .await;
    assert_eq!(merge.status, 204);
    let got = raw
        .send("GET", &entity_path("things", "p", "m"), &[], None)
        .await
        .json();
    assert_eq!((got["A"].as_i64(), got["B"].as_i64()), (Some(1), Some(2)));
    let quiet = raw
        .send(
            "POST",
            "/things",
            &[("Prefer", "return-no-content")],
            Some(r#"{"PartitionKey":"p","RowKey":"q"}"#),
        )
        .await;
    let echoed = raw
        .send(
            "POST",
            "/things",
            &[("Prefer", "return-content")],
            Some(r#"{"PartitionKey":"p","RowKey":"echoed"}"#),
        )
        .await;
    assert_eq!(echoed.status, 201);
    assert_eq!(echoed.header("preference-applied"), Some("return-content"));
    assert_eq!(quiet.status, 204);
    assert_eq!(
        quiet.header("preference-applied"),
        Some("return-no-content")
    );
    assert!(quiet.header("etag").is_some());
    assert!(quiet.body.is_empty());
    let missing_table = raw
        .insert("nosuchtable", r#"{"PartitionKey":"p","RowKey":"q"}"#)
        .await;
    assert_eq!(
        (missing_table.status, missing_table.error_code()),
        (404, Some("TableNotFound"))
    );
}

#[tokio::test]
async fn keys_with_quotes_unicode_and_percent_round_trip() {
    let (_emulator, raw) = setup("keys").await;
    for rk in [
        "a b'c \u{fc} \u{2603}",
        "100%",
        "a+b&c=d",
        "",
        "x".repeat(512).as_str(),
    ] {
        let body = serde_json::json!({"PartitionKey": "keys", "RowKey": rk, "V": 1}).to_string();
        let inserted = raw.insert("keys", &body).await;
        assert_eq!(inserted.status, 201, "{rk}");
        let location = inserted
            .header("location")
            .unwrap_or_else(|| panic!("no Location for {rk:?}: {:?}", inserted.headers));
        assert!(
            location.contains("/keys(PartitionKey='keys',RowKey='"),
            "{location}"
        );
        let got = raw
            .send("GET", &entity_path("keys", "keys", rk), &[], None)
            .await;
        assert_eq!(got.status, 200, "{rk}");
        assert_eq!(got.json()["RowKey"], rk);
    }
    for rk in [
        "a/b",
        "a\\b",
        "a#b",
        "a?b",
        "a\u{1}b",
        "a\u{7f}b",
        &"k".repeat(513),
    ] {
        let body = serde_json::json!({"PartitionKey": "keys", "RowKey": rk}).to_string();
        let answer = raw.insert("keys", &body).await;
        assert_eq!(
            (answer.status, answer.error_code()),
            (400, Some("InvalidInput")),
            "{rk:?}"
        );
    }
}

#[tokio::test]
async fn queries_filter_select_sort_and_page() {
    let (_emulator, raw) = setup("que").await;
    for i in (0..10).rev() {
        let body = format!(r#"{{"PartitionKey":"q","RowKey":"{i:03}","N":{i},"Name":"name{i}"}}"#);
        assert_eq!(raw.insert("que", &body).await.status, 201);
    }
    assert_eq!(
        raw.insert("que", r#"{"PartitionKey":"a","RowKey":"1","N":5}"#)
            .await
            .status,
        201
    );

    let all = raw.send("GET", "/que()", &[], None).await.json();
    let keys: Vec<String> = all["value"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            format!(
                "{}/{}",
                e["PartitionKey"].as_str().unwrap(),
                e["RowKey"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        keys.first().map(String::as_str),
        Some("a/1"),
        "sorted by PartitionKey, RowKey"
    );
    assert_eq!(keys.get(1).map(String::as_str), Some("q/000"));

    let filter = enc("PartitionKey eq 'q' and N ge 5 and not (N eq 7)");
    let got = raw
        .send(
            "GET",
            &format!("/que()?$filter={filter}&$select=RowKey,N,Nope"),
            &[("Accept", "application/json;odata=nometadata")],
            None,
        )
        .await;
    assert_eq!(got.status, 200);
    assert_eq!(
        got.body,
        r#"{"value":[{"RowKey":"005","N":5,"Nope":null},{"RowKey":"006","N":6,"Nope":null},{"RowKey":"008","N":8,"Nope":null},{"RowKey":"009","N":9,"Nope":null}]}"#
    );

    let mut rows = Vec::new();
    let mut resource = format!(
        "/que()?$top=4&$filter={}",
        enc("PartitionKey eq 'q' and Name ne 'name3'")
    );
    let mut pages = 0;
    loop {
        let page = raw.send("GET", &resource, &[], None).await;
        assert_eq!(page.status, 200);
        pages += 1;
        for e in page.json()["value"].as_array().unwrap() {
            rows.push(e["RowKey"].as_str().unwrap().to_owned());
        }
        let Some(npk) = page.header("x-ms-continuation-NextPartitionKey") else {
            break;
        };
        let nrk = page.header("x-ms-continuation-NextRowKey").unwrap();
        assert!(npk.starts_with("1!"), "opaque tokens: {npk}");
        resource = format!(
            "/que()?$top=4&$filter={}&NextPartitionKey={}&NextRowKey={}",
            enc("PartitionKey eq 'q' and Name ne 'name3'"),
            enc(npk),
            enc(nrk)
        );
    }
    assert_eq!(pages, 3);
    assert_eq!(
        rows,
        ["000", "001", "002", "004", "005", "006", "007", "008", "009"]
    );

    for bad in ["N eq", "startswith(Name,'n')", "N eq 'unterminated"] {
        let answer = raw
            .send("GET", &format!("/que()?$filter={}", enc(bad)), &[], None)
            .await;
        assert_eq!(
            (answer.status, answer.error_code()),
            (400, Some("InvalidInput")),
            "{bad}"
        );
    }
    let typed = raw
        .send(
            "GET",
            &format!("/que()?$filter={}", enc("N eq 5L")),
            &[],
            None,
        )
        .await;
    assert_eq!(
        typed.status, 200,
        "Azure answers a type mismatch with no match, not 500"
    );
    assert_eq!(typed.json()["value"].as_array().unwrap().len(), 0);
}

#[tokio::test]
async fn pages_hold_at_most_1000_entities() {
    let emulator = Emulator::start().await.unwrap();
    let raw = Raw::dev(&emulator);
    emulator.create_table("big").unwrap();
    emulator
        .seed(
            "big",
            (0..1500).map(|i| tablekit::DynamicEntity::new("p", format!("{i:05}"))),
        )
        .unwrap();
    let page = raw.send("GET", "/big()?$top=5000", &[], None).await;
    assert_eq!(page.json()["value"].as_array().unwrap().len(), 1000);
    assert!(page.header("x-ms-continuation-NextRowKey").is_some());
}

#[tokio::test]
async fn the_three_metadata_levels_and_atom() {
    let (_emulator, raw) = setup("levels").await;
    let body = r#"{"PartitionKey":"p","RowKey":"r1","I64":"1234567890123","I64@odata.type":"Edm.Int64","DWhole":3.0,"DWhole@odata.type":"Edm.Double","Nan":"NaN","Nan@odata.type":"Edm.Double","T":"2020-01-01T00:00:00Z","T@odata.type":"Edm.DateTime"}"#;
    assert_eq!(raw.insert("levels", body).await.status, 201);
    let path = entity_path("levels", "p", "r1");
    let none = raw
        .send(
            "GET",
            &path,
            &[("Accept", "application/json;odata=nometadata")],
            None,
        )
        .await;
    assert!(!none.body.contains("odata."), "{}", none.body);
    assert!(none
        .header("content-type")
        .unwrap()
        .contains("odata=nometadata"));
    let minimal = raw.send("GET", &path, &[], None).await;
    assert!(minimal
        .body
        .contains(r#""I64@odata.type":"Edm.Int64","I64":"1234567890123""#));
    assert!(minimal.body.contains(r#""DWhole":3.0"#), "{}", minimal.body);
    assert!(minimal
        .body
        .contains(r#""Nan@odata.type":"Edm.Double","Nan":"NaN""#));
    assert!(!minimal.body.contains("Timestamp@odata.type"));
    let full = raw
        .send(
            "GET",
            &path,
            &[("Accept", "application/json;odata=fullmetadata")],
            None,
        )
        .await;
    assert!(full
        .body
        .contains(r#""Timestamp@odata.type":"Edm.DateTime""#));
    assert!(full
        .body
        .contains(r#""odata.editLink":"levels(PartitionKey='p',RowKey='r1')""#));
    for accept in ["application/atom+xml", ""] {
        let atom = raw.send("GET", &path, &[("Accept", accept)], None).await;
        assert_eq!(
            (atom.status, atom.error_code()),
            (415, Some("AtomFormatNotSupported"))
        );
    }
}

#[tokio::test]
async fn invalid_values_and_limits_are_rejected_with_azure_codes() {
    let (emulator, raw) = setup("limits").await;
    let cases = [
        (
            r#"{"PartitionKey":"t","RowKey":"1","X":5,"X@odata.type":"Edm.Int64"}"#,
            "InvalidInput",
        ),
        (
            r#"{"PartitionKey":"t","RowKey":"2","X":"abc","X@odata.type":"Edm.Int64"}"#,
            "InvalidInput",
        ),
        (
            r#"{"PartitionKey":"t","RowKey":"3","X":"not-a-date","X@odata.type":"Edm.DateTime"}"#,
            "InvalidInput",
        ),
        (
            r#"{"PartitionKey":"t","RowKey":"4","X":"zzz","X@odata.type":"Edm.Guid"}"#,
            "InvalidInput",
        ),
        (
            r#"{"PartitionKey":"t","RowKey":"5","X":"!!!","X@odata.type":"Edm.Binary"}"#,
            "InvalidInput",
        ),
        (
            r#"{"PartitionKey":"t","RowKey":"6","X":"1","X@odata.type":"Edm.Decimal"}"#,
            "InvalidInput",
        ),
        (
            r#"{"PartitionKey":"t","RowKey":"7","X":{"a":1}}"#,
            "InvalidInput",
        ),
        (
            r#"{"PartitionKey":"t","RowKey":"8","X":[1,2]}"#,
            "InvalidInput",
        ),
        (
            r#"{"PartitionKey":"t","RowKey":"9","bad-name":1}"#,
            "PropertyNameInvalid",
        ),
        (r#"{"RowKey":"10"}"#, "PropertiesNeedValue"),
        ("not json", "InvalidInput"),
    ];
    for (body, code) in cases {
        let answer = raw.insert("limits", body).await;
        assert_eq!(
            (answer.status, answer.error_code()),
            (400, Some(code)),
            "{body}"
        );
    }
    let long_name = format!(
        r#"{{"PartitionKey":"t","RowKey":"11","{}":1}}"#,
        "N".repeat(256)
    );
    assert_eq!(
        raw.insert("limits", &long_name).await.error_code(),
        Some("PropertyNameTooLong")
    );
    let props: String = (0..253).map(|i| format!(r#","P{i}":1"#)).collect();
    let too_many = format!(r#"{{"PartitionKey":"t","RowKey":"12"{props}}}"#);
    assert_eq!(
        raw.insert("limits", &too_many).await.error_code(),
        Some("TooManyProperties")
    );
    let big_string = format!(
        r#"{{"PartitionKey":"t","RowKey":"13","S":"{}"}}"#,
        "x".repeat(32_768)
    );
    assert_eq!(
        raw.insert("limits", &big_string).await.error_code(),
        Some("PropertyValueTooLarge")
    );
    // 20 strings of 32,000 units: 1.28 MB by the service's formula, over 1 MiB, on insert too.
    let big: String = (0..20)
        .map(|i| format!(r#","S{i}":"{}""#, "y".repeat(32_000)))
        .collect();
    let big = format!(r#"{{"PartitionKey":"t","RowKey":"14"{big}}}"#);
    let answer = raw.insert("limits", &big).await;
    assert_eq!(
        (answer.status, answer.error_code()),
        (400, Some("EntityTooLarge"))
    );
    // A merge can push an entity over the limit too.
    let half: String = (0..9)
        .map(|i| format!(r#","A{i}":"{}""#, "y".repeat(32_000)))
        .collect();
    assert_eq!(
        raw.insert(
            "limits",
            &format!(r#"{{"PartitionKey":"t","RowKey":"15"{half}}}"#)
        )
        .await
        .status,
        201
    );
    let other: String = (0..9)
        .map(|i| format!(r#""B{i}":"{}""#, "y".repeat(32_000)))
        .collect::<Vec<_>>()
        .join(",");
    let merged = raw
        .send(
            "MERGE",
            &entity_path("limits", "t", "15"),
            &[("If-Match", "*")],
            Some(&format!("{{{other}}}")),
        )
        .await;
    assert_eq!(merged.error_code(), Some("EntityTooLarge"));
    // A null property is dropped, never stored.
    assert_eq!(
        raw.insert("limits", r#"{"PartitionKey":"t","RowKey":"n","X":null}"#)
            .await
            .status,
        201
    );
    let stored = emulator.entities("limits").unwrap();
    assert_eq!(stored.len(), 2);
    assert!(stored.iter().all(|e| !e.contains("X")));
}

#[tokio::test]
async fn authentication_is_verified() {
    let emulator = Emulator::start().await.unwrap();
    let raw = Raw::dev(&emulator);
    let wrong_key = Raw::new(&emulator.endpoint(), "devstoreaccount1", "a2V5");
    let answer = wrong_key.send("GET", "/Tables", &[], None).await;
    assert_eq!(
        (answer.status, answer.error_code()),
        (403, Some("AuthenticationFailed"))
    );
    assert!(answer.body.contains("<Code>AuthenticationFailed</Code>"));
    let unsigned = raw
        .send(
            "GET",
            "/Tables",
            &[("Authorization", "SharedKey devstoreaccount1:AAAA")],
            None,
        )
        .await;
    assert_eq!(unsigned.status, 403);
    let stale_date = raw
        .send(
            "GET",
            "/Tables",
            &[("x-ms-date", "Sun, 22 Nov 2001 11:42:25 GMT")],
            None,
        )
        .await;
    assert_eq!(
        stale_date.status, 403,
        "a signature over a stale date is refused"
    );
    let other_account = Raw::new(
        &emulator.endpoint().replace("devstoreaccount1", "nobody"),
        "nobody",
        "a2V5",
    );
    assert_eq!(
        other_account.send("GET", "/Tables", &[], None).await.status,
        403
    );
    assert_eq!(raw.send("GET", "/Tables", &[], None).await.status, 200);
}

#[tokio::test]
async fn shared_key_lite_is_accepted() {
    use tablekit::auth::{canonicalized_resource, shared_key_lite_string_to_sign, AccountKey};
    let emulator = Emulator::start().await.unwrap();
    let raw = Raw::dev(&emulator);
    let date = chrono::Utc::now()
        .format("%a, %d %b %Y %H:%M:%S GMT")
        .to_string();
    let key = AccountKey::from_base64(crate::support::raw::DEV_KEY).unwrap();
    let to_sign = shared_key_lite_string_to_sign(
        &date,
        &canonicalized_resource("devstoreaccount1", "/devstoreaccount1/Tables", None),
    );
    let auth = format!("SharedKeyLite devstoreaccount1:{}", key.sign(&to_sign));
    let answer = raw
        .send(
            "GET",
            "/Tables",
            &[("Authorization", &auth), ("x-ms-date", &date)],
            None,
        )
        .await;
    assert_eq!(answer.status, 200, "{}", answer.body);
}

#[tokio::test]
async fn sas_tokens_grant_what_they_say() {
    use chrono::{Duration, Utc};
    use tablekit::sas::{TablePermissions, TableSas};
    let (emulator, raw) = setup("shared").await;
    assert_eq!(
        raw.insert("shared", r#"{"PartitionKey":"a","RowKey":"1"}"#)
            .await
            .status,
        201
    );
    assert_eq!(
        raw.insert("shared", r#"{"PartitionKey":"z","RowKey":"1"}"#)
            .await
            .status,
        201
    );
    let read = emulator
        .sas(
            &TableSas::new(
                "shared",
                TablePermissions::QUERY,
                Utc::now() + Duration::hours(1),
            )
            .partitions("a", "m"),
        )
        .unwrap();
    let page = raw
        .send("GET", &format!("/shared()?{read}"), &[], None)
        .await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert_eq!(
        page.json()["value"].as_array().unwrap().len(),
        1,
        "only the token's key range"
    );
    let denied = raw
        .send(
            "POST",
            &format!("/shared?{read}"),
            &[],
            Some(r#"{"PartitionKey":"b","RowKey":"2"}"#),
        )
        .await;
    assert_eq!(denied.status, 403, "no add permission");
    let outside = raw
        .send(
            "GET",
            &format!("{}?{read}", entity_path("shared", "z", "1")),
            &[],
            None,
        )
        .await;
    assert_eq!(outside.status, 403);
    let add = emulator
        .sas(&TableSas::new(
            "shared",
            TablePermissions::ADD,
            Utc::now() + Duration::hours(1),
        ))
        .unwrap();
    let added = raw
        .send(
            "POST",
            &format!("/shared?{add}"),
            &[],
            Some(r#"{"PartitionKey":"b","RowKey":"2"}"#),
        )
        .await;
    assert_eq!(added.status, 201, "{}", added.body);
    let expired = emulator
        .sas(&TableSas::new(
            "shared",
            TablePermissions::QUERY,
            Utc::now() - Duration::minutes(1),
        ))
        .unwrap();
    assert_eq!(
        raw.send("GET", &format!("/shared()?{expired}"), &[], None)
            .await
            .status,
        403
    );
    let other_table = emulator
        .sas(&TableSas::new(
            "other",
            TablePermissions::QUERY,
            Utc::now() + Duration::hours(1),
        ))
        .unwrap();
    assert_eq!(
        raw.send("GET", &format!("/shared()?{other_table}"), &[], None)
            .await
            .status,
        403
    );
    assert_eq!(
        raw.send("GET", &format!("/Tables?{read}"), &[], None)
            .await
            .status,
        403
    );
    let tampered = read.replace("sp=r", "sp=raud");
    assert_eq!(
        raw.send("GET", &format!("/shared()?{tampered}"), &[], None)
            .await
            .status,
        403
    );
}

#[tokio::test]
async fn the_counter_sees_every_request_by_kind() {
    let (emulator, raw) = setup("counted").await;
    raw.insert("counted", r#"{"PartitionKey":"p","RowKey":"r"}"#)
        .await;
    raw.send("GET", "/counted()", &[], None).await;
    raw.send("GET", &entity_path("counted", "p", "r"), &[], None)
        .await;
    raw.send("PUT", &entity_path("counted", "p", "r"), &[], Some("{}"))
        .await;
    let counts = emulator.requests();
    assert_eq!(counts.count(Operation::CreateTable), 1);
    assert_eq!(counts.count(Operation::Insert), 1);
    assert_eq!(counts.count(Operation::Query), 1);
    assert_eq!(counts.count(Operation::Get), 1);
    assert_eq!(counts.count(Operation::InsertOrReplace), 1);
    assert_eq!(counts.total(), 5);
    assert_eq!(counts.writes(), 3);
    emulator.reset_requests();
    assert_eq!(emulator.requests().total(), 0);
}
