//! Who may call each operation, cell by cell: the account key always; an account SAS with
//! the resource type and permissions "Create an account SAS" names (never a table's ACL); a
//! table SAS with its permissions, on entities of its own table only. Each cell is one
//! request to a fresh emulator holding table `Gamers` with entity `p`/`r`.

use chrono::{Duration, Utc};
use reqwest::{Method, StatusCode, Url};
use tablekit::auth::{
    canonicalized_resource, http_date, shared_key_lite_string_to_sign, AccountKey,
};
use tablekit::sas::{AccountPermissions, AccountSas, ResourceTypes, TablePermissions, TableSas};
use tablekit::DynamicEntity;
use tablekit_emulator::{Emulator, DEV_ACCOUNT, DEV_KEY};

/// Every operation, and what each kind of SAS needs for it: for an account SAS its resource
/// type and permissions (each entry needed, any letter of an entry granting it), for a table
/// SAS its permissions; `None` where no such SAS may.
#[rustfmt::skip]
const CELLS: &[(Op, Option<AccountSasNeeds>, Option<&str>)] = &[
    (Op::GetServiceProperties, Some(("s", &["r"])),       None),
    (Op::SetServiceProperties, Some(("s", &["w"])),       None),
    (Op::GetServiceStats,      Some(("s", &["r"])),       None),
    (Op::ListTables,           Some(("c", &["l"])),       None),
    (Op::GetTable,             Some(("c", &["l"])),       None),
    (Op::CreateTable,          Some(("c", &["acw"])),     None),
    (Op::DeleteTable,          Some(("c", &["d"])),       None),
    (Op::GetTableAcl,          None,                      None),
    (Op::SetTableAcl,          None,                      None),
    (Op::QueryEntities,        Some(("o", &["r"])),       Some("r")),
    (Op::GetEntity,            Some(("o", &["r"])),       Some("r")),
    (Op::InsertEntity,         Some(("o", &["aw"])),      Some("a")),
    (Op::InsertOrReplace,      Some(("o", &["aw", "uw"])), Some("au")),
    (Op::InsertOrMerge,        Some(("o", &["aw", "uw"])), Some("au")),
    (Op::UpdateEntity,         Some(("o", &["uw"])),      Some("u")),
    (Op::MergeEntity,          Some(("o", &["uw"])),      Some("u")),
    (Op::DeleteEntity,         Some(("o", &["d"])),       Some("d")),
];

/// An account SAS's resource type and permissions.
type AccountSasNeeds = (&'static str, &'static [&'static str]);

#[derive(Clone, Copy, Debug)]
enum Op {
    GetServiceProperties,
    SetServiceProperties,
    GetServiceStats,
    ListTables,
    GetTable,
    CreateTable,
    DeleteTable,
    GetTableAcl,
    SetTableAcl,
    QueryEntities,
    GetEntity,
    InsertEntity,
    InsertOrReplace,
    InsertOrMerge,
    UpdateEntity,
    MergeEntity,
    DeleteEntity,
}

const ENTITY: &str = "/Gamers(PartitionKey='p',RowKey='r')";
const NEW_ENTITY: &str = "/Gamers(PartitionKey='p',RowKey='new')";

impl Op {
    /// Method, path below the account (`-secondary` for statistics), query, body, and
    /// whether it is a conditional write.
    fn request(self) -> (Method, &'static str, &'static str, &'static str, bool) {
        let merge = Method::from_bytes(b"MERGE").unwrap();
        let props = "restype=service&comp=properties";
        let entity = r#"{"PartitionKey":"p","RowKey":"r","N":1}"#;
        let new = r#"{"PartitionKey":"p","RowKey":"new","N":1}"#;
        let properties = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\
                          <StorageServiceProperties></StorageServiceProperties>";
        match self {
            Op::GetServiceProperties => (Method::GET, "/", props, "", false),
            Op::SetServiceProperties => (Method::PUT, "/", props, properties, false),
            Op::GetServiceStats => (
                Method::GET,
                "-secondary/",
                "restype=service&comp=stats",
                "",
                false,
            ),
            Op::ListTables => (Method::GET, "/Tables", "", "", false),
            Op::GetTable => (Method::GET, "/Tables('Gamers')", "", "", false),
            Op::CreateTable => (
                Method::POST,
                "/Tables",
                "",
                r#"{"TableName":"Created"}"#,
                false,
            ),
            Op::DeleteTable => (Method::DELETE, "/Tables('Gamers')", "", "", false),
            Op::GetTableAcl => (Method::GET, "/Gamers", "comp=acl", "", false),
            Op::SetTableAcl => (Method::PUT, "/Gamers", "comp=acl", "", false),
            Op::QueryEntities => (Method::GET, "/Gamers()", "", "", false),
            Op::GetEntity => (Method::GET, ENTITY, "", "", false),
            Op::InsertEntity => (Method::POST, "/Gamers", "", new, false),
            Op::InsertOrReplace => (Method::PUT, NEW_ENTITY, "", new, false),
            Op::InsertOrMerge => (merge, NEW_ENTITY, "", new, false),
            Op::UpdateEntity => (Method::PUT, ENTITY, "", entity, true),
            Op::MergeEntity => (merge, ENTITY, "", entity, true),
            Op::DeleteEntity => (Method::DELETE, ENTITY, "", "", true),
        }
    }
}

/// How a request is authorized.
#[derive(Clone, Debug)]
enum Credential {
    SharedKeyLite,
    Bearer,
    Sas(String),
}

/// The status and error code of `op` sent with `credential` to a fresh emulator.
async fn send(op: Op, credential: &Credential) -> (StatusCode, Option<String>) {
    let emulator = Emulator::start().await.unwrap();
    emulator.create_table("Gamers").unwrap();
    emulator
        .seed("Gamers", [DynamicEntity::new("p", "r")])
        .unwrap();
    emulator.accept_bearer_token("issued-token");
    let token = match credential {
        Credential::Sas(make) => Some(make.clone()),
        _ => None,
    };
    let (method, path, query, body, conditional) = op.request();
    let query = [query, token.as_deref().unwrap_or_default()]
        .into_iter()
        .filter(|q| !q.is_empty())
        .collect::<Vec<_>>()
        .join("&");
    let mut url = Url::parse(&format!("{}{path}", emulator.endpoint())).unwrap();
    url.set_query(Some(&query).filter(|q| !q.is_empty()).map(String::as_str));
    let mut request = reqwest::Client::new()
        .request(method, url.clone())
        .header("Accept", "application/json;odata=nometadata")
        .header("x-ms-version", "2019-02-02")
        .body(body);
    if body.starts_with('{') {
        request = request.header("Content-Type", "application/json");
    }
    if conditional {
        request = request.header("If-Match", "*");
    }
    match credential {
        Credential::SharedKeyLite => {
            let date = http_date(Utc::now());
            let comp = url
                .query_pairs()
                .find(|(name, _)| name == "comp")
                .map(|(_, value)| value.into_owned());
            let resource = canonicalized_resource(DEV_ACCOUNT, url.path(), comp.as_deref());
            let key = AccountKey::from_base64(DEV_KEY).unwrap();
            let signature = key.sign(&shared_key_lite_string_to_sign(&date, &resource));
            request = request.header("x-ms-date", date).header(
                "Authorization",
                format!("SharedKeyLite {DEV_ACCOUNT}:{signature}"),
            );
        }
        Credential::Bearer => request = request.bearer_auth("issued-token"),
        Credential::Sas(_) => {}
    }
    let response = request.send().await.unwrap();
    let code = response
        .headers()
        .get("x-ms-error-code")
        .map(|v| v.to_str().unwrap().to_owned());
    (response.status(), code)
}

fn expiry() -> chrono::DateTime<Utc> {
    Utc::now() + Duration::hours(1)
}

fn account_sas(emulator: &Emulator, resource_types: &str, permissions: &str) -> Credential {
    let sas = AccountSas::new(
        ResourceTypes::from_letters(resource_types).unwrap(),
        AccountPermissions::from_letters(permissions).unwrap(),
        expiry(),
    );
    Credential::Sas(emulator.account_sas(&sas).unwrap())
}

fn table_sas(emulator: &Emulator, table: &str, permissions: &str) -> Credential {
    let sas = TableSas::new(
        table,
        TablePermissions::from_letters(permissions).unwrap(),
        expiry(),
    );
    Credential::Sas(emulator.sas(&sas).unwrap())
}

/// `all` without the letters of `without`.
fn except(all: &str, without: &str) -> String {
    all.chars().filter(|c| !without.contains(*c)).collect()
}

/// The credentials each cell of `op`'s row names, each with whether it may call `op`.
fn credentials(
    signer: &Emulator,
    account: Option<AccountSasNeeds>,
    table: Option<&str>,
) -> Vec<(Credential, bool)> {
    let mut cells = vec![
        (Credential::SharedKeyLite, true),
        (Credential::Bearer, true),
    ];
    match account {
        Some((resource_type, needed)) => {
            // Each letter that grants an entry, with one letter for every other entry.
            for (i, any) in needed.iter().enumerate() {
                for letter in any.chars() {
                    let mut letters: String = needed.iter().map(|e| &e[..1]).collect();
                    letters.replace_range(i..=i, &letter.to_string());
                    cells.push((account_sas(signer, resource_type, &letters), true));
                }
            }
            let wrong_types = except("sco", resource_type);
            cells.push((account_sas(signer, &wrong_types, "rwdlacup"), false));
            // Every permission but those of one entry.
            for any in needed {
                let lacking = except("rwdlacup", any);
                cells.push((account_sas(signer, resource_type, &lacking), false));
            }
        }
        None => cells.push((account_sas(signer, "sco", "rwdlacup"), false)),
    }
    match table {
        Some(letters) => {
            cells.push((table_sas(signer, "Gamers", letters), true));
            cells.push((table_sas(signer, "Others", "raud"), false));
            for letter in letters.chars() {
                let lacking = except("raud", &letter.to_string());
                cells.push((table_sas(signer, "Gamers", &lacking), false));
            }
        }
        None => cells.push((table_sas(signer, "Gamers", "raud"), false)),
    }
    cells
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_operation_takes_the_credentials_its_row_names() {
    // Tokens are signed with the development key, which every emulator below shares.
    let signer = Emulator::start().await.unwrap();
    for &(op, account, table) in CELLS {
        for (credential, allowed) in credentials(&signer, account, table) {
            let (status, code) = send(op, &credential).await;
            if allowed {
                assert!(
                    status.is_success(),
                    "{op:?} with {credential:?}: {status} {code:?}"
                );
            } else {
                assert_eq!(status, StatusCode::FORBIDDEN, "{op:?} with {credential:?}");
                let code = code.unwrap_or_default();
                assert!(
                    code.starts_with("Authorization"),
                    "{op:?} with {credential:?}: {code}"
                );
            }
        }
    }
}
