//! Service properties and statistics on every server: settings set are read back equal, CORS
//! rules round-trip, a set keeps the parts it leaves out, input the service documents as
//! invalid is refused before sending, and statistics come from the secondary location.
//!
//! Properties are account-wide and the Azurite instance is shared by every test: one case
//! does the whole set/get sequence and puts back what it found.

use chrono::Utc;
use reqwest::{Method, StatusCode};
use tablekit::auth::{canonicalized_resource, shared_key_string_to_sign, AccountKey};
use tablekit::client::{
    CorsRule, Credential, GeoReplicationStatus, Logging, Metrics, RetentionPolicy,
    ServiceProperties, TableServiceClient,
};
use tablekit::sas::{AccountPermissions, AccountSas, ResourceTypes};
use tablekit::{Error, InvalidInput};

/// Both servers serve the development account.
const ACCOUNT: &str = tablekit_testing::DEV_ACCOUNT;
const KEY: &str = tablekit_testing::DEV_KEY;

fn cors_rules() -> Vec<CorsRule> {
    let mut uploads = CorsRule::new(
        ["https://contoso.example", "https://fabrikam.example"],
        ["GET", "PUT", "MERGE"],
    );
    uploads.allowed_headers = vec!["x-ms-meta-target*".into(), "x-ms-meta-abc".into()];
    uploads.exposed_headers = vec!["x-ms-meta-*".into()];
    uploads.max_age_seconds = 500;
    let mut anyone = CorsRule::new(["*"], ["GET", "HEAD", "OPTIONS"]);
    // Azure accepts empty header lists; Azurite 3.37 answers them 400 without a body.
    anyone.allowed_headers = vec!["x-ms-client-request-id".into()];
    anyone.exposed_headers = vec!["x-ms-request-id".into()];
    anyone.max_age_seconds = 60;
    vec![uploads, anyone]
}

fn full_settings() -> ServiceProperties {
    ServiceProperties {
        logging: Some(Logging {
            delete: true,
            read: false,
            write: true,
            retention: RetentionPolicy::days(7),
            ..Logging::default()
        }),
        hour_metrics: Some(Metrics::enabled(true, RetentionPolicy::days(30))),
        minute_metrics: Some(Metrics::default()),
        cors: Some(cors_rules()),
    }
}

pub async fn properties_set_read_back_and_restored(client: &TableServiceClient) {
    let original = client.properties().await.unwrap();
    assert!(original.logging.is_some() && original.cors.is_some());

    let settings = full_settings();
    client.set_properties(&settings).await.unwrap();
    assert_eq!(client.properties().await.unwrap(), settings);

    // A part left out keeps its value; an empty CORS list removes every rule.
    let partial = ServiceProperties {
        minute_metrics: Some(Metrics::enabled(false, RetentionPolicy::days(1))),
        cors: Some(Vec::new()),
        ..ServiceProperties::default()
    };
    client.set_properties(&partial).await.unwrap();
    let now = client.properties().await.unwrap();
    assert_eq!(now.logging, settings.logging);
    assert_eq!(now.hour_metrics, settings.hour_metrics);
    assert_eq!(now.minute_metrics, partial.minute_metrics);
    assert_eq!(now.cors, Some(Vec::new()));

    client.set_properties(&original).await.unwrap();
    assert_eq!(client.properties().await.unwrap(), original);
}

pub async fn invalid_properties_are_refused_before_sending(client: &TableServiceClient) {
    let refused = |properties: ServiceProperties| async move {
        match client.set_properties(&properties).await {
            Err(Error::InvalidInput(problem)) => problem,
            other => panic!("expected a refusal before sending, got {other:?}"),
        }
    };
    let six = ServiceProperties {
        cors: Some(vec![CorsRule::new(["*"], ["GET"]); 6]),
        ..ServiceProperties::default()
    };
    assert!(matches!(
        refused(six).await,
        InvalidInput::TooManyCorsRules { count: 6 }
    ));
    let patch = ServiceProperties {
        cors: Some(vec![CorsRule::new(["*"], ["PATCH"])]),
        ..ServiceProperties::default()
    };
    assert!(matches!(
        refused(patch).await,
        InvalidInput::CorsRule { index: 0, .. }
    ));
    for days in [0, 366] {
        let retention = ServiceProperties {
            logging: Some(Logging {
                retention: RetentionPolicy::days(days),
                ..Logging::default()
            }),
            ..ServiceProperties::default()
        };
        assert!(matches!(
            refused(retention).await,
            InvalidInput::RetentionPolicy { .. }
        ));
    }
}

pub async fn statistics_come_from_the_secondary(client: &TableServiceClient) {
    let before = Utc::now() - chrono::Duration::seconds(5);
    let stats = client.statistics().await.unwrap();
    assert_eq!(stats.geo_replication.status, GeoReplicationStatus::Live);
    let synced = stats.geo_replication.last_sync_time.expect("a sync time");
    assert!(synced >= before, "{synced} before {before}");
}

/// A signed request to the service itself, by hand.
async fn raw(
    client: &TableServiceClient,
    account_segment: &str,
    method: Method,
    comp: &str,
    body: &str,
) -> (StatusCode, String) {
    let base = client.endpoint().base_url();
    let origin = base.origin().ascii_serialization();
    let path = format!("/{account_segment}/");
    let url = format!("{origin}{path}?restype=service&comp={comp}");
    let date = Utc::now().format("%a, %d %b %Y %H:%M:%S GMT").to_string();
    let content_type = if body.is_empty() {
        ""
    } else {
        "application/xml"
    };
    let resource = canonicalized_resource(ACCOUNT, &path, Some(comp));
    let to_sign = shared_key_string_to_sign(method.as_str(), "", content_type, &date, &resource);
    let key = AccountKey::from_base64(KEY).unwrap();
    let mut request = reqwest::Client::new()
        .request(method, &url)
        .header("x-ms-date", &date)
        .header("x-ms-version", "2019-02-02")
        .header(
            "Authorization",
            format!("SharedKey {ACCOUNT}:{}", key.sign(&to_sign)),
        );
    if !body.is_empty() {
        request = request
            .header("Content-Type", content_type)
            .body(body.to_owned());
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    (status, response.text().await.unwrap())
}

pub async fn statistics_are_refused_on_the_primary(client: &TableServiceClient) {
    let (status, body) = raw(client, ACCOUNT, Method::GET, "stats", "").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(body.contains("InvalidQueryParameterValue"), "{body}");
}

pub async fn properties_answer_as_xml(client: &TableServiceClient) {
    let (status, body) = raw(client, ACCOUNT, Method::GET, "properties", "").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(body.contains("<StorageServiceProperties>"), "{body}");
    assert!(ServiceProperties::from_xml(&body).is_ok(), "{body}");
}

/// A client of the same server as `client`, authorized by an account SAS for the service
/// with `permissions`.
fn with_service_sas(client: &TableServiceClient, permissions: &str) -> TableServiceClient {
    let sas = AccountSas::new(
        ResourceTypes::SERVICE,
        AccountPermissions::from_letters(permissions).unwrap(),
        Utc::now() + chrono::Duration::hours(1),
    );
    let token = sas
        .sign(ACCOUNT, &AccountKey::from_base64(KEY).unwrap())
        .unwrap();
    TableServiceClient::builder()
        .endpoint(client.endpoint().base_url().as_str())
        .credential(Credential::from(token))
        .build()
        .unwrap()
}

/// "SAS Update: Account SAS Now Supports All Storage Services": an account SAS reaches
/// Get/Set Service Properties, `r` to read and `w` to write.
pub async fn an_account_sas_reads_and_sets_properties(client: &TableServiceClient) {
    let reader = with_service_sas(client, "r");
    let found = reader.properties().await.unwrap();
    let err = reader.set_properties(&found).await.unwrap_err();
    assert_eq!(err.status(), Some(403), "{err}");
    let writer = with_service_sas(client, "w");
    // Puts back what it found: the account's settings are shared.
    writer.set_properties(&found).await.unwrap();
    let err = writer.properties().await.unwrap_err();
    assert_eq!(err.status(), Some(403), "{err}");
}

on_servers!(
    an_account_sas_reads_and_sets_properties,
    properties_set_read_back_and_restored,
    invalid_properties_are_refused_before_sending,
    statistics_come_from_the_secondary,
    statistics_are_refused_on_the_primary,
    properties_answer_as_xml,
);

/// What only the emulator shows: how it answers malformed and out-of-range documents.
mod emulator_answers {
    use super::*;

    #[tokio::test]
    async fn malformed_and_invalid_documents_are_400() {
        let emulator = tablekit_testing::Emulator::start().await.unwrap();
        let client = emulator.client();
        let (status, body) = raw(
            &client,
            ACCOUNT,
            Method::PUT,
            "properties",
            "<StorageServiceProperties><Cors>",
        )
        .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert!(body.contains("InvalidXmlDocument"), "{body}");
        let seven_rules = format!(
            "<StorageServiceProperties><Cors>{}</Cors></StorageServiceProperties>",
            "<CorsRule><AllowedOrigins>*</AllowedOrigins><AllowedMethods>GET</AllowedMethods>\
             <MaxAgeInSeconds>1</MaxAgeInSeconds><ExposedHeaders/><AllowedHeaders/></CorsRule>"
                .repeat(7)
        );
        let (status, body) = raw(&client, ACCOUNT, Method::PUT, "properties", &seven_rules).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert!(body.contains("InvalidXmlNodeValue"), "{body}");
        // Nothing was kept from the refused documents.
        assert_eq!(client.properties().await.unwrap().cors, Some(Vec::new()));
        // The secondary location is read-only.
        let secondary = format!("{ACCOUNT}-secondary");
        let (status, body) =
            raw(&client, &secondary, Method::PUT, "properties", &seven_rules).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    }
}
