//! Secrets stay secret, and the emulator's access checks hold.
//!
//! - An account key and a SAS signature never appear in `Debug` or `Display` output of
//!   credentials, connection strings, clients and builders, in error messages, or in what the
//!   client traces (captured here with a subscriber writing to a buffer, at TRACE level).
//! - The emulator refuses tampered signatures, expired and under-privileged SAS tokens, and
//!   credentials of one account used on another.
//! - Filter rendering is injection-proof: adversarial strings in typed filters, evaluated by
//!   the emulator, select exactly the entities holding that string.

use base64::Engine;
use chrono::{Duration, Utc};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use tablekit::client::{ConnectionString, Credential, Table, TableServiceClient};
use tablekit::sas::{AccountPermissions, AccountSas, ResourceTypes, TablePermissions, TableSas};
use tablekit::{Column, DynamicEntity, Error, Query};
use tablekit_testing::Emulator;

/// A key that is not the public development key, so finding it in output means a leak.
fn secret_key() -> String {
    let bytes: Vec<u8> = (0..64u8)
        .map(|i| i.wrapping_mul(37).wrapping_add(11))
        .collect();
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

const ACCOUNT: &str = "secretacct";
const OTHER: &str = "otheracct";

fn other_key() -> String {
    base64::engine::general_purpose::STANDARD.encode([9u8; 64])
}

async fn emulator() -> Emulator {
    Emulator::builder()
        .account(ACCOUNT, &secret_key())
        .account(OTHER, &other_key())
        .primary_account(ACCOUNT)
        .start()
        .await
        .expect("emulator")
}

/// The signature value of a SAS token, as sent (percent-encoded) and decoded.
fn signature_forms(token: &str) -> Vec<String> {
    let sig = token
        .split('&')
        .find_map(|p| p.strip_prefix("sig="))
        .expect("a signed token")
        .to_owned();
    let decoded = percent_encoding::percent_decode_str(&sig)
        .decode_utf8_lossy()
        .into_owned();
    vec![sig, decoded]
}

/// Every way a secret could be spelled in output: as given, and a recognisable piece.
fn assert_absent(output: &str, secrets: &[String], what: &str) {
    for secret in secrets {
        // A 16-character piece catches a key cut or wrapped in the output.
        let piece = secret.get(..16).unwrap_or(secret);
        assert!(
            !output.contains(secret.as_str()) && !output.contains(piece),
            "{what} leaks a secret: {output}"
        );
    }
}

fn sas_client(emulator: &Emulator, token: &str) -> TableServiceClient {
    TableServiceClient::builder()
        .endpoint(&emulator.endpoint())
        .credential(Credential::sas(token).expect("a SAS credential"))
        .build()
        .expect("SAS client")
}

#[test]
fn debug_and_display_never_show_keys_or_signatures() {
    let key = secret_key();
    let token = "sv=2019-02-02&tn=gamers&sp=r&se=2030-01-01T00%3A00%3A00Z&sig=Zm9vYmFyYmF6cXV4cXV1eHF1dXhxdXV4cXV1eA%3D%3D";
    let mut secrets = vec![key.clone()];
    secrets.extend(signature_forms(token));
    let connection = format!(
        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={key};EndpointSuffix=core.windows.net"
    );
    let sas_connection =
        format!("TableEndpoint=https://acct.table.core.windows.net;SharedAccessSignature={token}");

    let outputs = [
        format!("{:?}", Credential::shared_key(&key).expect("key")),
        format!("{:?}", Credential::shared_key_lite(&key).expect("key")),
        format!("{:?}", Credential::sas(token).expect("sas")),
        format!("{:?}", ConnectionString::parse(&connection).expect("parse")),
        format!(
            "{:?}",
            ConnectionString::parse(&sas_connection).expect("parse")
        ),
        format!(
            "{:?}",
            TableServiceClient::from_connection_string(&connection).expect("client")
        ),
        format!(
            "{:?}",
            TableServiceClient::from_connection_string(&sas_connection).expect("client")
        ),
        format!(
            "{:?}",
            TableServiceClient::builder().connection_string(&connection)
        ),
        format!(
            "{:?}",
            TableServiceClient::from_connection_string(&connection)
                .expect("client")
                .table_named::<DynamicEntity>("Gamers")
        ),
    ];
    for output in &outputs {
        assert!(!output.is_empty());
        assert_absent(output, &secrets, "Debug output");
    }
}

#[test]
fn tokens_made_by_tablekit_never_show_in_debug_or_errors() {
    let key = tablekit::auth::AccountKey::from_base64(&secret_key()).unwrap();
    let hour = Utc::now() + Duration::hours(1);
    let table = TableSas::new("Gamers", TablePermissions::ALL, hour)
        .sign(ACCOUNT, &key)
        .unwrap();
    let account = AccountSas::new(ResourceTypes::OBJECT, AccountPermissions::READ, hour)
        .sign(ACCOUNT, &key)
        .unwrap();
    for token in [table, account] {
        let mut secrets = vec![secret_key()];
        secrets.extend(signature_forms(token.as_str()));
        let credential = Credential::from(token.clone());
        let client = TableServiceClient::builder()
            .endpoint("https://acct.table.core.windows.net")
            .credential(credential.clone())
            .build()
            .unwrap();
        let outputs = [
            format!("{token:?}"),
            format!("{credential:?}"),
            format!("{client:?}"),
        ];
        for output in &outputs {
            assert_absent(output, &secrets, "Debug output");
        }
    }
    // refusals name the problem, never a token
    let err = TableSas::with_policy("Gamers", &"p".repeat(65))
        .sign(ACCOUNT, &key)
        .unwrap_err();
    assert!(!err.to_string().contains("sig"), "{err}");
}

#[test]
fn errors_about_bad_configuration_never_repeat_the_key() {
    let key = secret_key();
    let secrets = vec![key.clone()];
    let bad = [
        format!("AccountName=acct;AccountKey={key};TableEndpoint=not a url"),
        format!("AccountName=acct;AccountKey={key};SharedAccessSignature=sv=1&sig=abc"),
        format!("AccountKey={key};DefaultEndpointsProtocol=gopher"),
        format!("AccountName=acct;AccountKey={key}!!"),
        format!("AccountName=acct;AccountKey={key};Bogus"),
        format!("UseDevelopmentStorage=true;AccountKey={key};DevelopmentStorageProxyUri=x"),
    ];
    for text in &bad {
        match ConnectionString::parse(text) {
            Ok(parsed) => assert_absent(&format!("{parsed:?}"), &secrets, "parsed Debug"),
            Err(e) => {
                assert_absent(&e.to_string(), &secrets, "error Display");
                assert_absent(&format!("{e:?}"), &secrets, "error Debug");
            }
        }
    }
    let e = Credential::sas("sv=1&sp=r").expect_err("no signature");
    assert!(matches!(e, Error::Configuration(_)));
}

#[tokio::test(flavor = "current_thread")]
async fn traces_of_signed_and_refused_requests_hold_no_secret() {
    // Every test of this binary traces into the capture: no secret may appear in any of it.
    let captured = crate::support::traces::captured();

    let emulator = emulator().await;
    let test_table = emulator.unique_table("Traced").expect("table");
    let token = emulator
        .sas(&TableSas::new(
            test_table.name(),
            TablePermissions::ALL,
            Utc::now() + Duration::hours(1),
        ))
        .unwrap();
    let mut secrets = vec![secret_key()];
    secrets.extend(signature_forms(&token));

    // Shared key: a success, a refusal (404), a client-side refusal.
    let table: Table = emulator.client().table_named(test_table.name());
    let mut e = DynamicEntity::new("p", "r");
    e.set("N", 1);
    table.insert(&mut e).await.expect("insert");
    assert!(table.insert(&mut e).await.expect_err("409").is_conflict());
    assert!(table.get("p", "missing").await.expect("get").is_none());
    // SAS: a success and a refusal (403 for another table).
    let sas = sas_client(&emulator, &token);
    let by_sas: Table = sas.table_named(test_table.name());
    assert!(by_sas.get("p", "r").await.expect("get").is_some());
    let refused = sas
        .table_named::<DynamicEntity>("elsewhere")
        .query_all()
        .count()
        .await
        .expect_err("403");
    assert_eq!(refused.status(), Some(403));
    assert_absent(&refused.to_string(), &secrets, "403 error");
    assert_absent(&format!("{refused:?}"), &secrets, "403 error Debug");

    let traced = captured.text();
    assert!(
        traced.contains("409") || traced.contains("EntityAlreadyExists"),
        "the capture saw the client's traces: {traced}"
    );
    assert_absent(&traced, &secrets, "tracing output");
}

/// What the emulator answers a client built with `credential` for `endpoint`.
async fn status_of_read(endpoint: &str, credential: Credential, table: &str) -> Option<u16> {
    let client = TableServiceClient::builder()
        .endpoint(endpoint)
        .credential(credential)
        .build()
        .expect("client");
    let result = client
        .table_named::<DynamicEntity>(table)
        .get("p", "r")
        .await;
    match result {
        Ok(_) => Some(200),
        Err(e) => e.status(),
    }
}

#[tokio::test(flavor = "current_thread")]
async fn the_emulator_refuses_bad_signatures_and_tokens() {
    let emulator = emulator().await;
    let test_table = emulator.unique_table("Guarded").expect("table");
    let name = test_table.name();
    let endpoint = emulator.endpoint();
    let hour = Duration::hours(1);
    let good = emulator
        .sas(&TableSas::new(
            name,
            TablePermissions::QUERY,
            Utc::now() + hour,
        ))
        .unwrap();
    let sas = |token: &str| Credential::sas(token).expect("sas");

    // The valid token reads: the refusals below are about the changes only.
    assert_eq!(status_of_read(&endpoint, sas(&good), name).await, Some(200));

    // A signature changed in one character.
    let sig = signature_forms(&good).remove(0);
    let mut tampered_sig = sig.clone();
    let first = if sig.starts_with('A') { "B" } else { "A" };
    tampered_sig.replace_range(..1, first);
    let tampered = good.replace(&sig, &tampered_sig);
    assert_eq!(
        status_of_read(&endpoint, sas(&tampered), name).await,
        Some(403)
    );

    // A signed field changed (read became read-add-update-delete) without re-signing.
    let widened = good.replace("sp=r", "sp=raud");
    assert_ne!(widened, good);
    let mut e = DynamicEntity::new("p", "w");
    let client = sas_client(&emulator, &widened);
    let err = client
        .table_named::<DynamicEntity>(name)
        .insert(&mut e)
        .await
        .expect_err("403");
    assert_eq!(err.status(), Some(403));

    // Expired, and not yet valid.
    let expired = emulator
        .sas(&TableSas::new(
            name,
            TablePermissions::QUERY,
            Utc::now() - hour,
        ))
        .unwrap();
    assert_eq!(
        status_of_read(&endpoint, sas(&expired), name).await,
        Some(403)
    );
    let future = emulator
        .sas(
            &TableSas::new(name, TablePermissions::QUERY, Utc::now() + hour * 2)
                .start(Utc::now() + hour),
        )
        .unwrap();
    assert_eq!(
        status_of_read(&endpoint, sas(&future), name).await,
        Some(403)
    );

    // Under-privileged: a read-only token cannot insert, and it reads only its table.
    let read_only = sas_client(&emulator, &good);
    let err = read_only
        .table_named::<DynamicEntity>(name)
        .insert(&mut DynamicEntity::new("p", "x"))
        .await
        .expect_err("403");
    assert_eq!(err.status(), Some(403));
    let other_table = emulator.unique_table("Other").expect("table");
    assert_eq!(
        status_of_read(&endpoint, sas(&good), other_table.name()).await,
        Some(403)
    );
    // Partition-scoped: outside the range is refused.
    let scoped = emulator
        .sas(&TableSas::new(name, TablePermissions::QUERY, Utc::now() + hour).partitions("a", "c"))
        .unwrap();
    assert_eq!(
        status_of_read(&endpoint, sas(&scoped), name).await,
        Some(403)
    );

    // Another account: its endpoint with this account's key or token, and a wrong key.
    let other_endpoint = emulator.endpoint_for(OTHER);
    let key = || Credential::shared_key(&secret_key()).expect("key");
    assert_eq!(
        status_of_read(&other_endpoint, key(), name).await,
        Some(403)
    );
    assert_eq!(
        status_of_read(&other_endpoint, sas(&good), name).await,
        Some(403)
    );
    let wrong = Credential::shared_key(&other_key()).expect("key");
    assert_eq!(status_of_read(&endpoint, wrong, name).await, Some(403));
    let unknown = emulator.endpoint_for("nosuchacct");
    assert_eq!(status_of_read(&unknown, key(), name).await, Some(403));
    // No credential at all.
    assert_eq!(
        status_of_read(&endpoint, Credential::anonymous(), name).await,
        Some(403)
    );
    assert!(
        test_table.entities().expect("entities").is_empty(),
        "nothing written"
    );
}

const NAME: Column<DynamicEntity, String> = Column::dynamic("Name");
const N: Column<DynamicEntity, i64> = Column::dynamic("N");

/// Pieces of filter syntax, quotes and odd characters, glued into adversarial strings.
fn adversarial() -> impl Strategy<Value = String> {
    let piece = prop::sample::select(vec![
        "'", "''", "'''", " or ", " and ", "true", "1 eq 1", "(", ")", "Name", " eq ", " ne ", "N",
        "5L", "\\", "\"", "%", "%27", "&", "$filter=", "#", "?", "+", " ", "\t", "\n", "ü", "😀",
        "\u{7f}", "x", "not ", "--", ";",
    ]);
    prop::collection::vec(piece, 0..8).prop_map(|pieces| pieces.concat())
}

#[test]
fn adversarial_strings_in_filters_select_exactly_their_entities() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let emulator = runtime.block_on(Emulator::start()).expect("emulator");
    let client = emulator.client();
    let mut runner = TestRunner::new(Config {
        cases: 48,
        failure_persistence: None,
        ..Config::default()
    });
    let checked = std::cell::Cell::new(0);
    runner
        .run(&(adversarial(), adversarial()), |(target, decoy)| {
            let test_table = emulator.unique_table("Inject").expect("table");
            let rows = [
                (&target, 5i64),
                (&decoy, 5),
                (&"plain".to_owned(), 5),
                (&target, 7),
            ];
            test_table
                .seed(rows.iter().enumerate().map(|(i, (name, n))| {
                    let mut e = DynamicEntity::new("p", format!("{i}"));
                    e.set("Name", name.as_str());
                    e.set("N", *n);
                    e
                }))
                .expect("seed");
            let table: Table = client.table_named(test_table.name());
            let expect = |pred: &dyn Fn(&str, i64) -> bool| -> Vec<String> {
                rows.iter()
                    .enumerate()
                    .filter(|(_, (name, n))| pred(name, *n))
                    .map(|(i, _)| i.to_string())
                    .collect()
            };
            let run = |query: Query<DynamicEntity>| {
                runtime.block_on(async {
                    let mut rows: Vec<String> = table
                        .query(query)
                        .collect_all()
                        .await
                        .expect("the emulator accepts every rendered filter")
                        .iter()
                        .map(|e| e.row_key().to_owned())
                        .collect();
                    rows.sort();
                    rows
                })
            };
            let eq = run(Query::new().filter(NAME.eq(target.as_str())));
            prop_assert_eq!(eq, expect(&|name, _| name == target));
            let and = run(Query::new().filter(NAME.eq(target.as_str()).and(N.eq(5))));
            prop_assert_eq!(and, expect(&|name, n| name == target && n == 5));
            let ne = run(Query::new().filter(NAME.ne(target.as_str()).or(N.eq(7))));
            prop_assert_eq!(ne, expect(&|name, n| name != target || n == 7));
            let ge = run(Query::new().filter(NAME.ge(target.as_str())));
            prop_assert_eq!(ge, expect(&|name, _| name >= target.as_str()));
            checked.set(checked.get() + 1);
            Ok(())
        })
        .expect("no injection");
    assert_eq!(checked.get(), 48);
}
