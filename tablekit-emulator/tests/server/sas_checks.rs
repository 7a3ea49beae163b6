//! The emulator's SAS checks, each allowed and refused, with tokens from `tablekit::sas`:
//! the source IP (`sip`), the protocol (`spr`), stored access policies (`si`), account SAS
//! (services, resource types, permissions), repeated query parameters, and Set/Get Table ACL
//! as the service answers them (more than five identifiers, times with seven fraction digits).

use std::net::{IpAddr, Ipv4Addr};

use chrono::{Duration, Utc};
use tablekit::client::{AccessPolicy, Credential, SignedIdentifier, Table, TableServiceClient};
use tablekit::sas::{
    AccountPermissions, AccountSas, ResourceTypes, SasProtocol, Services, TablePermissions,
    TableSas,
};
use tablekit::DynamicEntity;
use tablekit_emulator::Emulator;

async fn emulator() -> Emulator {
    let emulator = Emulator::start().await.unwrap();
    emulator.create_table("Gamers").unwrap();
    emulator
        .seed("Gamers", [DynamicEntity::new("p", "1")])
        .unwrap();
    emulator
}

fn table_with(emulator: &Emulator, token: &str) -> Table {
    TableServiceClient::builder()
        .endpoint(&emulator.endpoint())
        .credential(Credential::sas(token).unwrap())
        .build()
        .unwrap()
        .table_named("Gamers")
}

fn client_with(emulator: &Emulator, token: &str) -> TableServiceClient {
    TableServiceClient::builder()
        .endpoint(&emulator.endpoint())
        .credential(Credential::sas(token).unwrap())
        .build()
        .unwrap()
}

fn hour() -> chrono::DateTime<Utc> {
    Utc::now() + Duration::hours(1)
}

fn read() -> TableSas {
    TableSas::new("Gamers", TablePermissions::QUERY, hour())
}

fn v4(a: u8, b: u8, c: u8, d: u8) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(a, b, c, d))
}

/// The status and error code of reading the seeded entity with `token`.
async fn read_status(emulator: &Emulator, token: &str) -> (Option<u16>, Option<String>) {
    match table_with(emulator, token).get("p", "1").await {
        Ok(found) => {
            assert!(found.is_some());
            (Some(200), None)
        }
        Err(err) => (err.status(), err.code().map(str::to_owned)),
    }
}

#[tokio::test]
async fn source_ip_must_be_in_the_signed_range() {
    let emulator = emulator().await;
    for allowed in [
        read().ip(v4(127, 0, 0, 1)),
        read().ip_range(v4(127, 0, 0, 0), v4(127, 0, 0, 255)),
    ] {
        let token = emulator.sas(&allowed).unwrap();
        assert_eq!(read_status(&emulator, &token).await.0, Some(200));
    }
    let outside = emulator.sas(&read().ip(v4(10, 0, 0, 1))).unwrap();
    assert_eq!(
        read_status(&emulator, &outside).await,
        (Some(403), Some("AuthorizationSourceIPMismatch".into()))
    );
}

#[tokio::test]
async fn an_https_only_token_is_refused_over_http() {
    let emulator = emulator().await;
    let either = emulator
        .sas(&read().protocol(SasProtocol::HttpsOrHttp))
        .unwrap();
    assert_eq!(read_status(&emulator, &either).await.0, Some(200));
    let https = emulator
        .sas(&read().protocol(SasProtocol::HttpsOnly))
        .unwrap();
    assert_eq!(
        read_status(&emulator, &https).await,
        (Some(403), Some("AuthorizationProtocolMismatch".into()))
    );
}

#[tokio::test]
async fn a_stored_policy_supplies_what_the_token_leaves_out() {
    let emulator = emulator().await;
    let owner: Table = emulator.client().table_named("Gamers");
    let policies = [
        SignedIdentifier::new(
            "readers",
            AccessPolicy::new()
                .permissions(TablePermissions::QUERY)
                .expiry(hour()),
        ),
        SignedIdentifier::new("open", AccessPolicy::new()),
        SignedIdentifier::new(
            "expired",
            AccessPolicy::new()
                .permissions(TablePermissions::QUERY)
                .expiry(Utc::now() - Duration::hours(1)),
        ),
    ];
    owner.set_access_policies(&policies).await.unwrap();
    let status = |sas: TableSas| {
        let emulator = &emulator;
        async move { read_status(emulator, &emulator.sas(&sas).unwrap()).await }
    };
    // the policy's permissions and expiry apply
    assert_eq!(
        status(TableSas::with_policy("Gamers", "readers")).await.0,
        Some(200)
    );
    let token = emulator
        .sas(&TableSas::with_policy("Gamers", "readers"))
        .unwrap();
    let err = table_with(&emulator, &token)
        .insert(&mut DynamicEntity::new("p", "2"))
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(403));
    // the token supplies what the policy leaves out
    let open = TableSas::with_policy("Gamers", "open")
        .permissions(TablePermissions::QUERY)
        .expiry(hour());
    assert_eq!(status(open).await.0, Some(200));
    // a field set in both is refused, as is a policy that lets the token expire
    let both = TableSas::with_policy("Gamers", "readers").expiry(hour());
    assert_eq!(
        status(both).await.1.as_deref(),
        Some("AuthenticationFailed")
    );
    assert_eq!(
        status(TableSas::with_policy("Gamers", "expired")).await.0,
        Some(403)
    );
    // a missing policy is named in the refusal
    let token = emulator
        .sas(&TableSas::with_policy("Gamers", "nosuch"))
        .unwrap();
    let err = table_with(&emulator, &token)
        .get("p", "1")
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("AuthenticationFailed"));
    assert!(err.to_string().contains("`nosuch` was not found"), "{err}");
    // removing the policy revokes its tokens
    owner.set_access_policies(&[]).await.unwrap();
    assert_eq!(
        status(TableSas::with_policy("Gamers", "readers")).await.0,
        Some(403)
    );
}

#[tokio::test]
async fn policies_are_lost_with_their_table() {
    let emulator = emulator().await;
    let owner: Table = emulator.client().table_named("Gamers");
    let readers = SignedIdentifier::new("readers", AccessPolicy::new());
    owner.set_access_policies(&[readers]).await.unwrap();
    owner.delete_table().await.unwrap();
    owner.create().await.unwrap();
    assert!(owner.access_policies().await.unwrap().is_empty());
}

#[tokio::test]
async fn policies_survive_a_restart_of_a_persisted_emulator() {
    let dir = tempfile::tempdir().unwrap();
    let readers = SignedIdentifier::new(
        "readers",
        AccessPolicy::new()
            .permissions(TablePermissions::QUERY)
            .expiry(hour()),
    );
    {
        let emulator = Emulator::builder()
            .persist_to(dir.path())
            .start()
            .await
            .unwrap();
        emulator.create_table("Gamers").unwrap();
        let table: Table = emulator.client().table_named("Gamers");
        table
            .set_access_policies(std::slice::from_ref(&readers))
            .await
            .unwrap();
        emulator.shutdown().await;
    }
    let again = Emulator::builder()
        .persist_to(dir.path())
        .start()
        .await
        .unwrap();
    let table: Table = again.client().table_named("Gamers");
    let mut expected = readers;
    // kept to the second
    expected.policy.expiry = expected
        .policy
        .expiry
        .map(|t| chrono::DateTime::from_timestamp(t.timestamp(), 0).unwrap());
    assert_eq!(table.access_policies().await.unwrap(), vec![expected]);
    table.delete_table().await.unwrap();
    again.shutdown().await;
    let third = Emulator::builder()
        .persist_to(dir.path())
        .start()
        .await
        .unwrap();
    third.create_table("Gamers").unwrap();
    let table: Table = third.client().table_named("Gamers");
    assert!(table.access_policies().await.unwrap().is_empty());
}

#[tokio::test]
async fn account_sas_grants_by_resource_type_and_permission() {
    let emulator = emulator().await;
    let objects = AccountSas::new(ResourceTypes::OBJECT, AccountPermissions::READ, hour());
    let token = emulator.account_sas(&objects).unwrap();
    assert_eq!(read_status(&emulator, &token).await.0, Some(200));
    let table = table_with(&emulator, &token);
    let err = table
        .insert(&mut DynamicEntity::new("p", "2"))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("AuthorizationPermissionMismatch"));
    // objects only: no table operations
    let err = client_with(&emulator, &token)
        .list_table_names(None)
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("AuthorizationResourceTypeMismatch"));

    // `w` writes entities; `d` deletes them
    let write = AccountSas::new(
        ResourceTypes::OBJECT,
        AccountPermissions::WRITE | AccountPermissions::DELETE,
        hour(),
    );
    let table = table_with(&emulator, &emulator.account_sas(&write).unwrap());
    let mut entity = DynamicEntity::new("p", "2");
    table.insert(&mut entity).await.unwrap();
    table.delete(&mut entity).await.unwrap();

    // containers: list with `l`, create with `c`, delete needs `d`
    let manage = AccountSas::new(
        ResourceTypes::CONTAINER,
        AccountPermissions::LIST | AccountPermissions::CREATE,
        hour(),
    );
    let client = client_with(&emulator, &emulator.account_sas(&manage).unwrap());
    client.create_table("Other").await.unwrap();
    assert_eq!(client.list_table_names(None).await.unwrap().len(), 2);
    let err = client.delete_table("Other").await.unwrap_err();
    assert_eq!(err.code(), Some("AuthorizationPermissionMismatch"));

    // a token for other services only
    let blobs = AccountSas::new(ResourceTypes::OBJECT, AccountPermissions::READ, hour())
        .services(Services::BLOB);
    let token = emulator.account_sas(&blobs).unwrap();
    assert_eq!(
        read_status(&emulator, &token).await,
        (Some(403), Some("AuthorizationServiceMismatch".into()))
    );
    // tampered: the signature no longer matches
    let token = emulator
        .account_sas(&objects)
        .unwrap()
        .replace("sp=r", "sp=rwd");
    assert_eq!(
        read_status(&emulator, &token).await.1.as_deref(),
        Some("AuthenticationFailed")
    );
}

#[tokio::test]
async fn set_table_acl_answers_like_the_service() {
    let emulator = emulator().await;
    // Only the account key sets and reads a table's policies: here as a bearer token.
    emulator.accept_bearer_token("owner");
    let url = format!("{}/Gamers?comp=acl", emulator.endpoint());
    let identifiers = |n: usize| {
        let policies: Vec<_> = (0..n)
            .map(|i| SignedIdentifier::new(&format!("p{i}"), AccessPolicy::new()))
            .collect();
        tablekit::client::access_policies_to_xml(&policies)
    };
    let http = reqwest::Client::new();
    let put = |body: String| http.put(&url).bearer_auth("owner").body(body).send();
    let get = || http.get(&url).bearer_auth("owner").send();
    assert_eq!(put(identifiers(5)).await.unwrap().status(), 204);
    let six = put(identifiers(6)).await.unwrap();
    assert_eq!(six.status(), 400);
    assert_eq!(six.headers()["x-ms-error-code"], "InvalidXmlDocument");
    let broken = put("<SignedIdentifiers><Oops/>".to_owned()).await.unwrap();
    assert_eq!(broken.headers()["x-ms-error-code"], "InvalidXmlDocument");
    // the five stand
    let got = get().await.unwrap();
    assert_eq!(got.status(), 200);
    assert_eq!(got.headers()["content-type"], "application/xml");
    let body = got.bytes().await.unwrap();
    assert_eq!(
        tablekit::client::access_policies_from_xml(&body)
            .unwrap()
            .len(),
        5
    );
    // times as the service writes them: seven fraction digits
    let when = Utc::now() + Duration::days(1);
    let timed = [SignedIdentifier::new(
        "timed",
        AccessPolicy::new().start(when).expiry(when),
    )];
    let body = tablekit::client::access_policies_to_xml(&timed);
    assert_eq!(put(body).await.unwrap().status(), 204);
    let text = get().await.unwrap().text().await.unwrap();
    let second = when.format("%Y-%m-%dT%H:%M:%S").to_string();
    assert!(
        text.contains(&format!("<Start>{second}.0000000Z</Start>")),
        "{text}"
    );
    assert!(
        text.contains(&format!("<Expiry>{second}.0000000Z</Expiry>")),
        "{text}"
    );
    // a table SAS manages no policies
    let table_token = emulator.sas(&read()).unwrap();
    let url = format!("{}/Gamers?comp=acl&{table_token}", emulator.endpoint());
    assert_eq!(http.get(&url).send().await.unwrap().status(), 403);
}

#[tokio::test]
async fn an_account_sas_neither_sets_nor_reads_table_policies() {
    let emulator = emulator().await;
    // A read-only token bound to a policy, which a writer must not be able to widen.
    let readers = SignedIdentifier::new(
        "readers",
        AccessPolicy::new()
            .expiry(hour())
            .permissions(TablePermissions::QUERY),
    );
    let table: Table = emulator.client().table_named("Gamers");
    table.set_access_policies(&[readers]).await.unwrap();
    let http = reqwest::Client::new();
    let containers = |permissions| {
        let sas = AccountSas::new(ResourceTypes::CONTAINER, permissions, hour());
        let token = emulator.account_sas(&sas).unwrap();
        format!("{}/Gamers?comp=acl&{token}", emulator.endpoint())
    };
    let writers = SignedIdentifier::new(
        "readers",
        AccessPolicy::new()
            .expiry(hour())
            .permissions(TablePermissions::ALL),
    );
    let body = tablekit::client::access_policies_to_xml(&[writers]);
    let set = http
        .put(containers(AccountPermissions::WRITE))
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(set.status(), 403);
    assert_eq!(
        set.headers()["x-ms-error-code"],
        "AuthorizationPermissionMismatch"
    );
    let get = http
        .get(containers(AccountPermissions::READ))
        .send()
        .await
        .unwrap();
    assert_eq!(get.status(), 403);
    let kept = table.access_policies().await.unwrap();
    assert_eq!(kept[0].policy.permissions, Some(TablePermissions::QUERY));
}

#[tokio::test]
async fn repeated_query_parameters_are_refused() {
    let emulator = emulator().await;
    let token = emulator.sas(&read()).unwrap();
    let http = reqwest::Client::new();
    let base = emulator.endpoint();
    let ok = http
        .get(format!("{base}/Gamers()?{token}"))
        .header("Accept", "application/json;odata=nometadata")
        .send()
        .await
        .unwrap();
    assert_eq!(ok.status(), 200);
    for repeated in [
        format!("{token}&sig=AAAA"),
        format!("{token}&sp=raud"),
        format!("$top=1&{token}&$top=2"),
    ] {
        let answer = http
            .get(format!("{base}/Gamers()?{repeated}"))
            .header("Accept", "application/json;odata=nometadata")
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 400, "{repeated}");
        let code = answer.headers()["x-ms-error-code"]
            .to_str()
            .unwrap()
            .to_owned();
        assert_eq!(code, "InvalidQueryParameterValue");
    }
}

#[tokio::test]
async fn a_signature_under_an_encoded_name_is_accepted_and_never_logged() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("requests.log");
    let emulator = Emulator::builder().request_log(&log).start().await.unwrap();
    emulator.create_table("Gamers").unwrap();
    let token = emulator.sas(&read()).unwrap();
    let signature = token
        .split('&')
        .find_map(|p| p.strip_prefix("sig="))
        .unwrap()
        .to_owned();
    let encoded = token.replace("sig=", "%73ig=");
    let answer = reqwest::Client::new()
        .get(format!("{}/Gamers()?{encoded}", emulator.endpoint()))
        .header("Accept", "application/json;odata=nometadata")
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    let written = std::fs::read_to_string(&log).unwrap();
    assert!(
        written.contains("GET /devstoreaccount1/Gamers()"),
        "{written}"
    );
    assert!(!written.contains(&signature), "{written}");
    assert!(written.contains("sig=REDACTED"), "{written}");
}
