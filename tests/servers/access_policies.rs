//! Stored access policies (Get/Set Table ACL) and the client's SAS tokens, on every server:
//! policies set are read back equal (times to the second, as the service keeps them),
//! overwritten, cleared; six are refused before sending; a missing table is a 404. Azurite
//! takes only policies that set all three of start, expiry and permissions (Azure and the
//! emulator take any), so the shared cases set all three. Tokens
//! made by `tablekit::sas` (a table SAS naming a policy, account SAS) are honoured.

use chrono::{Duration, TimeZone, Utc};
use tablekit::auth::AccountKey;
use tablekit::client::{AccessPolicy, Credential, SignedIdentifier, Table, TableServiceClient};
use tablekit::sas::{AccountPermissions, AccountSas, ResourceTypes, TablePermissions, TableSas};
use tablekit::DynamicEntity;

use crate::support::servers::{fresh_table, unique_name};

fn policies() -> Vec<SignedIdentifier> {
    let start = Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap();
    let expiry = Utc.with_ymd_and_hms(2030, 1, 1, 0, 0, 0).unwrap();
    vec![
        SignedIdentifier::new(
            "readers",
            AccessPolicy::new()
                .start(start)
                .expiry(expiry)
                .permissions(TablePermissions::QUERY),
        ),
        SignedIdentifier::new(
            "writers",
            AccessPolicy::new()
                .start(start)
                .expiry(expiry)
                .permissions(TablePermissions::ALL),
        ),
    ]
}

pub async fn set_get_overwrite_and_clear(client: &TableServiceClient) {
    let table = fresh_table(client, "acl").await;
    assert!(table.access_policies().await.unwrap().is_empty());
    table.set_access_policies(&policies()).await.unwrap();
    assert_eq!(table.access_policies().await.unwrap(), policies());

    let mut only = policies();
    only.truncate(1);
    only[0].id = "deleters".to_owned();
    only[0].policy.permissions = Some(TablePermissions::DELETE);
    table.set_access_policies(&only).await.unwrap();
    assert_eq!(table.access_policies().await.unwrap(), only);

    table.set_access_policies(&[]).await.unwrap();
    assert!(table.access_policies().await.unwrap().is_empty());
    table.delete_table().await.unwrap();
}

pub async fn six_policies_are_refused_before_sending(client: &TableServiceClient) {
    let table = fresh_table(client, "acl").await;
    let six: Vec<_> = (0..6)
        .map(|i| SignedIdentifier::new(&format!("p{i}"), AccessPolicy::new()))
        .collect();
    let err = table.set_access_policies(&six).await.unwrap_err();
    assert!(err.is_invalid_input(), "{err}");
    let long = [SignedIdentifier::new(&"x".repeat(65), AccessPolicy::new())];
    let err = table.set_access_policies(&long).await.unwrap_err();
    assert!(err.is_invalid_input(), "{err}");
    assert!(table.access_policies().await.unwrap().is_empty());
    table.delete_table().await.unwrap();
}

pub async fn a_missing_table_is_not_found(client: &TableServiceClient) {
    let table: Table = client.table_named(&unique_name("nope"));
    let err = table.access_policies().await.unwrap_err();
    assert_eq!(err.status(), Some(404), "{err}");
    let err = table.set_access_policies(&policies()).await.unwrap_err();
    assert_eq!(err.status(), Some(404), "{err}");
}

/// A client of the same server and account as `client`, authorized by `token`.
fn with_token(client: &TableServiceClient, token: tablekit::sas::SasToken) -> TableServiceClient {
    TableServiceClient::builder()
        .endpoint(client.endpoint().base_url().as_str())
        .credential(Credential::from(token))
        .build()
        .unwrap()
}

fn key() -> AccountKey {
    AccountKey::from_base64(tablekit::client::DEVELOPMENT_KEY).unwrap()
}

pub async fn a_table_sas_naming_a_policy_takes_its_permissions(client: &TableServiceClient) {
    let table = fresh_table(client, "sasp").await;
    table
        .insert(&mut DynamicEntity::new("p", "1"))
        .await
        .unwrap();
    let readers = SignedIdentifier::new(
        "readers",
        AccessPolicy::new()
            .start(Utc::now() - Duration::hours(1))
            .expiry(Utc::now() + Duration::hours(1))
            .permissions(TablePermissions::QUERY),
    );
    table.set_access_policies(&[readers]).await.unwrap();
    let account = client.endpoint().account();
    let token = TableSas::with_policy(table.name(), "readers")
        .sign(account, &key())
        .unwrap();
    let reader: Table = with_token(client, token).table_named(table.name());
    assert!(reader.get("p", "1").await.unwrap().is_some());
    let err = reader
        .insert(&mut DynamicEntity::new("p", "2"))
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(403), "{err}");
    table.delete_table().await.unwrap();
}

pub async fn account_sas_tokens_are_honoured(client: &TableServiceClient) {
    let account = client.endpoint().account();
    let hour = Utc::now() + Duration::hours(1);
    let tables = AccountSas::new(
        ResourceTypes::CONTAINER,
        AccountPermissions::CREATE | AccountPermissions::LIST,
        hour,
    )
    .sign(account, &key())
    .unwrap();
    let manager = with_token(client, tables);
    let name = unique_name("acct");
    manager.create_table(&name).await.unwrap();
    assert!(manager.table_exists(&name).await.unwrap());

    let entities = AccountSas::new(
        ResourceTypes::OBJECT,
        AccountPermissions::ADD | AccountPermissions::READ,
        hour,
    )
    .sign(account, &key())
    .unwrap();
    let writer: Table = with_token(client, entities).table_named(&name);
    writer
        .insert(&mut DynamicEntity::new("p", "1"))
        .await
        .unwrap();
    assert!(writer.get("p", "1").await.unwrap().is_some());
    let err = writer.delete_table().await.unwrap_err();
    assert_eq!(err.status(), Some(403), "{err}");
    client.delete_table(&name).await.unwrap();
}

/// "SAS Update: Account SAS Now Supports All Storage Services": an account SAS does not
/// reach Set Table ACL (nor, on Azurite, Get Table ACL), whatever it grants: otherwise a
/// token with `w` could widen the policy that binds a read-only token.
pub async fn an_account_sas_neither_sets_nor_gets_policies(client: &TableServiceClient) {
    let table = fresh_table(client, "acl").await;
    table.set_access_policies(&policies()[..1]).await.unwrap();
    let everything = AccountSas::new(
        ResourceTypes::SERVICE | ResourceTypes::CONTAINER | ResourceTypes::OBJECT,
        AccountPermissions::from_letters("rwdlacup").unwrap(),
        Utc::now() + Duration::hours(1),
    )
    .sign(client.endpoint().account(), &key())
    .unwrap();
    let holder: Table = with_token(client, everything).table_named(table.name());
    let err = holder.set_access_policies(&policies()).await.unwrap_err();
    assert_eq!(err.status(), Some(403), "{err}");
    assert_eq!(err.code(), Some("AuthorizationPermissionMismatch"), "{err}");
    let err = holder.access_policies().await.unwrap_err();
    assert_eq!(err.status(), Some(403), "{err}");
    assert_eq!(table.access_policies().await.unwrap(), policies()[..1]);
    table.delete_table().await.unwrap();
}

on_servers!(
    an_account_sas_neither_sets_nor_gets_policies,
    set_get_overwrite_and_clear,
    six_policies_are_refused_before_sending,
    a_missing_table_is_not_found,
    a_table_sas_naming_a_policy_takes_its_permissions,
    account_sas_tokens_are_honoured,
);
