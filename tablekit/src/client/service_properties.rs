//! [`ServiceProperties`] and [`ServiceStatistics`]: an account's Table service settings
//! (analytics logging, hour and minute metrics, CORS rules) and its geo-replication status, as
//! "Set Table Service Properties", "Get Table Service Properties" and "Get Table Service
//! Stats" describe them.
//!
//! Both travel as XML documents (`StorageServiceProperties`, `StorageServiceStats`), read and
//! written here with `quick-xml`. [`ServiceProperties::validate`] checks what the service
//! documents before anything is sent: at most five CORS rules, each with origins and methods
//! from the allowed set, retention of 1 to 365 days, version `1.0`.
//!
//! ```
//! use tablekit::client::{CorsRule, ServiceProperties};
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let emulator = tablekit_testing::Emulator::start().await?;
//! # let client = emulator.client();
//! let mut properties = client.properties().await?;
//! properties.cors = Some(vec![CorsRule::new(["https://contoso.example"], ["GET", "PUT"])]);
//! client.set_properties(&properties).await?;
//! assert_eq!(client.properties().await?.cors, properties.cors);
//! # Ok(()) }
//! ```

use bytes::Bytes;
use chrono::{DateTime, Utc};
use http::Method;
use serde::{Deserialize, Serialize};

use super::error::{Error, Result};
use super::service::TableServiceClient;
use super::transport::ServiceRequest;
use crate::protocol::limits::{Feature, InvalidInput};

/// The most CORS rules one service holds.
pub const MAX_CORS_RULES: usize = 5;
/// The longest retention, in days.
pub const MAX_RETENTION_DAYS: u32 = 365;
/// The methods a CORS rule may allow.
pub const CORS_METHODS: [&str; 7] = ["DELETE", "GET", "HEAD", "MERGE", "POST", "OPTIONS", "PUT"];
/// The most literal headers a CORS rule's allowed or exposed headers list.
pub const MAX_CORS_HEADERS: usize = 64;
/// The most prefixed headers (`x-ms-meta-*`) a CORS rule's allowed or exposed headers list.
pub const MAX_CORS_PREFIXED_HEADERS: usize = 2;
/// The longest origin or header name in a CORS rule, in characters.
pub const MAX_CORS_NAME_CHARS: usize = 256;

/// An account's Table service settings. Each part is optional: on a set, a part left `None`
/// keeps what the service has (`cors: Some(vec![])` removes every rule); a get answers all.
///
/// ```
/// use tablekit::client::{Logging, RetentionPolicy, ServiceProperties};
/// let properties = ServiceProperties {
///     logging: Some(Logging {
///         read: true,
///         retention: RetentionPolicy::days(7),
///         ..Logging::default()
///     }),
///     ..ServiceProperties::default()
/// };
/// assert!(properties.validate().is_ok());
/// let xml = properties.to_xml()?;
/// assert!(xml.contains("<Logging><Version>1.0</Version>"));
/// assert_eq!(ServiceProperties::from_xml(&xml)?, properties);
/// # Ok::<(), tablekit::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ServiceProperties {
    /// Analytics logging.
    pub logging: Option<Logging>,
    /// Hourly metrics.
    pub hour_metrics: Option<Metrics>,
    /// Per-minute metrics.
    pub minute_metrics: Option<Metrics>,
    /// CORS rules, at most [`MAX_CORS_RULES`].
    pub cors: Option<Vec<CorsRule>>,
}

/// Which requests analytics logging records, and for how long.
///
/// ```
/// use tablekit::client::{Logging, RetentionPolicy};
/// let logging = Logging { delete: true, write: true, ..Logging::default() };
/// assert_eq!(logging.version, "1.0");
/// assert!(!logging.read);
/// assert_eq!(logging.retention, RetentionPolicy::disabled());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Logging {
    /// The analytics version: `1.0`.
    pub version: String,
    /// Whether deletes are logged.
    pub delete: bool,
    /// Whether reads are logged.
    pub read: bool,
    /// Whether writes are logged.
    pub write: bool,
    /// How long logs are kept.
    pub retention: RetentionPolicy,
}

impl Default for Logging {
    fn default() -> Self {
        Logging {
            version: "1.0".to_owned(),
            delete: false,
            read: false,
            write: false,
            retention: RetentionPolicy::disabled(),
        }
    }
}

/// Hour or minute metrics: whether they are collected, per API too, and for how long.
///
/// ```
/// use tablekit::client::{Metrics, RetentionPolicy};
/// let metrics = Metrics::enabled(true, RetentionPolicy::days(30));
/// assert!(metrics.enabled && metrics.include_apis);
/// assert_eq!(Metrics::default().enabled, false);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Metrics {
    /// The analytics version: `1.0`.
    pub version: String,
    /// Whether metrics are collected.
    pub enabled: bool,
    /// Whether they are also collected per API (sent only when `enabled`).
    pub include_apis: bool,
    /// How long metrics are kept.
    pub retention: RetentionPolicy,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics {
            version: "1.0".to_owned(),
            enabled: false,
            include_apis: false,
            retention: RetentionPolicy::disabled(),
        }
    }
}

impl Metrics {
    /// Metrics collected, per API too when `include_apis`, kept by `retention`.
    pub fn enabled(include_apis: bool, retention: RetentionPolicy) -> Self {
        Metrics {
            enabled: true,
            include_apis,
            retention,
            ..Metrics::default()
        }
    }
}

/// How long logs or metrics are kept: `days` (1 to 365) when enabled.
///
/// ```
/// use tablekit::client::RetentionPolicy;
/// assert_eq!(RetentionPolicy::days(7), RetentionPolicy { enabled: true, days: Some(7) });
/// assert_eq!(RetentionPolicy::disabled().days, None);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RetentionPolicy {
    /// Whether data is deleted after `days`.
    pub enabled: bool,
    /// Days to keep data, 1 to [`MAX_RETENTION_DAYS`]; required when enabled.
    pub days: Option<u32>,
}

impl RetentionPolicy {
    /// Keep data `days` days.
    pub fn days(days: u32) -> Self {
        RetentionPolicy {
            enabled: true,
            days: Some(days),
        }
    }

    /// Keep data until deleted by hand.
    pub fn disabled() -> Self {
        RetentionPolicy::default()
    }
}

/// One CORS rule: which origins may call with which methods and headers.
///
/// ```
/// use tablekit::client::CorsRule;
/// let mut rule = CorsRule::new(["*"], ["GET", "HEAD"]);
/// rule.allowed_headers = vec!["x-ms-meta-*".into()];
/// rule.max_age_seconds = 3600;
/// assert_eq!(rule.allowed_methods, ["GET", "HEAD"]);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CorsRule {
    /// Origins allowed, or `*` for all.
    pub allowed_origins: Vec<String>,
    /// Methods allowed, from [`CORS_METHODS`].
    pub allowed_methods: Vec<String>,
    /// Request headers the origin may send (`x-ms-meta-*` for a prefix).
    pub allowed_headers: Vec<String>,
    /// Response headers the browser may show the origin.
    pub exposed_headers: Vec<String>,
    /// How long a browser may cache the preflight answer, in seconds.
    pub max_age_seconds: u32,
}

impl CorsRule {
    /// A rule for `origins` and `methods`, with no headers and no preflight caching.
    pub fn new<O, M>(origins: O, methods: M) -> Self
    where
        O: IntoIterator,
        O::Item: Into<String>,
        M: IntoIterator,
        M::Item: Into<String>,
    {
        CorsRule {
            allowed_origins: origins.into_iter().map(Into::into).collect(),
            allowed_methods: methods.into_iter().map(Into::into).collect(),
            ..CorsRule::default()
        }
    }

    fn validate(&self, index: usize) -> std::result::Result<(), InvalidInput> {
        let invalid = |reason: String| InvalidInput::CorsRule { index, reason };
        if self.allowed_origins.is_empty() {
            return Err(invalid("it allows no origin (`*` allows all)".into()));
        }
        if self.allowed_methods.is_empty() {
            return Err(invalid("it allows no method".into()));
        }
        if let Some(method) = self
            .allowed_methods
            .iter()
            .find(|m| !CORS_METHODS.contains(&m.as_str()))
        {
            return Err(invalid(format!(
                "method `{method}` is not one of {}",
                CORS_METHODS.join(", ")
            )));
        }
        let names = self.allowed_origins.iter().chain(&self.allowed_headers);
        if let Some(name) = names
            .chain(&self.exposed_headers)
            .find(|n| n.is_empty() || n.contains(',') || n.chars().count() > MAX_CORS_NAME_CHARS)
        {
            return Err(invalid(format!(
                "`{name}` is not an origin or header name of 1 to {MAX_CORS_NAME_CHARS} characters without commas"
            )));
        }
        for (what, headers) in [
            ("allowed", &self.allowed_headers),
            ("exposed", &self.exposed_headers),
        ] {
            let prefixed = headers.iter().filter(|h| h.ends_with('*')).count();
            let literal = headers.len() - prefixed;
            if literal > MAX_CORS_HEADERS || prefixed > MAX_CORS_PREFIXED_HEADERS {
                return Err(invalid(format!(
                    "it lists {literal} {what} headers and {prefixed} prefixes, the limits are {MAX_CORS_HEADERS} and {MAX_CORS_PREFIXED_HEADERS}"
                )));
            }
        }
        Ok(())
    }
}

impl ServiceProperties {
    /// Checks what the service documents, so nothing it would refuse is sent.
    ///
    /// ```
    /// use tablekit::client::{CorsRule, Metrics, RetentionPolicy, ServiceProperties};
    /// use tablekit::InvalidInput;
    /// let six = vec![CorsRule::new(["*"], ["GET"]); 6];
    /// let too_many = ServiceProperties { cors: Some(six), ..Default::default() };
    /// assert!(matches!(too_many.validate(), Err(InvalidInput::TooManyCorsRules { count: 6 })));
    /// let forever = ServiceProperties {
    ///     hour_metrics: Some(Metrics::enabled(false, RetentionPolicy::days(366))),
    ///     ..Default::default()
    /// };
    /// assert!(matches!(forever.validate(), Err(InvalidInput::RetentionPolicy { .. })));
    /// ```
    pub fn validate(&self) -> std::result::Result<(), InvalidInput> {
        if let Some(logging) = &self.logging {
            check_version("logging", &logging.version)?;
            check_retention("logging", logging.retention)?;
        }
        for (name, metrics) in [
            ("hour metrics", &self.hour_metrics),
            ("minute metrics", &self.minute_metrics),
        ] {
            if let Some(metrics) = metrics {
                check_version(name, &metrics.version)?;
                check_retention(name, metrics.retention)?;
            }
        }
        if let Some(rules) = &self.cors {
            if rules.len() > MAX_CORS_RULES {
                return Err(InvalidInput::TooManyCorsRules { count: rules.len() });
            }
            for (index, rule) in rules.iter().enumerate() {
                rule.validate(index)?;
            }
        }
        Ok(())
    }

    /// The `StorageServiceProperties` XML document of these settings.
    pub fn to_xml(&self) -> Result<String> {
        let wire = wire::Properties::from(self);
        let body = quick_xml::se::to_string(&wire)
            .map_err(|e| Error::decode("service properties", e.to_string()))?;
        Ok([XML_DECLARATION, &body].concat())
    }

    /// Reads a `StorageServiceProperties` XML document.
    ///
    /// ```
    /// use tablekit::client::ServiceProperties;
    /// let xml = "<StorageServiceProperties><Cors><CorsRule>\
    ///     <AllowedOrigins>https://a.example,https://b.example</AllowedOrigins>\
    ///     <AllowedMethods>GET</AllowedMethods><MaxAgeInSeconds>60</MaxAgeInSeconds>\
    ///     <ExposedHeaders /><AllowedHeaders /></CorsRule></Cors></StorageServiceProperties>";
    /// let properties = ServiceProperties::from_xml(xml)?;
    /// let rules = properties.cors.unwrap();
    /// assert_eq!(rules[0].allowed_origins, ["https://a.example", "https://b.example"]);
    /// assert!(rules[0].allowed_headers.is_empty());
    /// assert!(properties.logging.is_none());
    /// assert!(ServiceProperties::from_xml("<StorageServiceProperties><Cors>").is_err());
    /// # Ok::<(), tablekit::Error>(())
    /// ```
    pub fn from_xml(xml: &str) -> Result<Self> {
        let wire: wire::Properties = quick_xml::de::from_str(xml)
            .map_err(|e| Error::decode("service properties", e.to_string()))?;
        wire.try_into()
    }
}

fn check_version(setting: &'static str, version: &str) -> std::result::Result<(), InvalidInput> {
    if version == "1.0" {
        return Ok(());
    }
    Err(InvalidInput::AnalyticsVersion {
        setting,
        version: version.to_owned(),
    })
}

fn check_retention(
    policy: &'static str,
    retention: RetentionPolicy,
) -> std::result::Result<(), InvalidInput> {
    let reason = match (retention.enabled, retention.days) {
        (true, None) => "it is enabled without a number of days".to_owned(),
        (_, Some(days)) if !(1..=MAX_RETENTION_DAYS).contains(&days) => {
            format!("{days} days is outside 1 to {MAX_RETENTION_DAYS}")
        }
        (false, Some(_)) => "it names days but is not enabled".to_owned(),
        _ => return Ok(()),
    };
    Err(InvalidInput::RetentionPolicy { policy, reason })
}

/// The account's geo-replication status, read from the secondary endpoint.
///
/// ```
/// use tablekit::client::{GeoReplicationStatus, ServiceStatistics};
/// let xml = "<StorageServiceStats><GeoReplication><Status>live</Status>\
///     <LastSyncTime>Wed, 19 Jan 2022 22:28:43 GMT</LastSyncTime></GeoReplication>\
///     </StorageServiceStats>";
/// let stats = ServiceStatistics::from_xml(xml)?;
/// assert_eq!(stats.geo_replication.status, GeoReplicationStatus::Live);
/// assert!(stats.geo_replication.last_sync_time.is_some());
/// # Ok::<(), tablekit::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServiceStatistics {
    /// Replication to the secondary location.
    pub geo_replication: GeoReplication,
}

/// Replication to the secondary location.
///
/// ```
/// use tablekit::client::{GeoReplication, GeoReplicationStatus};
/// let unknown = GeoReplication { status: GeoReplicationStatus::Unavailable, last_sync_time: None };
/// assert!(unknown.last_sync_time.is_none());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeoReplication {
    /// Whether the secondary is in sync.
    pub status: GeoReplicationStatus,
    /// Every write before this time is readable from the secondary; `None` when unknown.
    pub last_sync_time: Option<DateTime<Utc>>,
}

/// The state of geo-replication.
///
/// ```
/// use tablekit::client::GeoReplicationStatus;
/// assert_eq!(GeoReplicationStatus::Live.as_str(), "live");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum GeoReplicationStatus {
    /// The secondary is active and operational.
    Live,
    /// The first synchronization from primary to secondary is under way.
    Bootstrap,
    /// The secondary location is temporarily unavailable.
    Unavailable,
}

impl GeoReplicationStatus {
    /// The status as the service spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            GeoReplicationStatus::Live => "live",
            GeoReplicationStatus::Bootstrap => "bootstrap",
            GeoReplicationStatus::Unavailable => "unavailable",
        }
    }
}

impl ServiceStatistics {
    /// Reads a `StorageServiceStats` XML document.
    pub fn from_xml(xml: &str) -> Result<Self> {
        let decode = |message: String| Error::decode("service statistics", message);
        let wire: wire::Stats = quick_xml::de::from_str(xml).map_err(|e| decode(e.to_string()))?;
        let status = match wire.geo_replication.status.trim() {
            "live" => GeoReplicationStatus::Live,
            "bootstrap" => GeoReplicationStatus::Bootstrap,
            "unavailable" => GeoReplicationStatus::Unavailable,
            other => return Err(decode(format!("unknown replication status `{other}`"))),
        };
        let last_sync_time = match wire
            .geo_replication
            .last_sync_time
            .as_deref()
            .map(str::trim)
        {
            None | Some("") => None,
            Some(text) => Some(
                DateTime::parse_from_rfc2822(text)
                    .map_err(|_| decode(format!("`{text}` is not an HTTP date")))?
                    .with_timezone(&Utc),
            ),
        };
        Ok(ServiceStatistics {
            geo_replication: GeoReplication {
                status,
                last_sync_time,
            },
        })
    }

    /// The `StorageServiceStats` XML document of these statistics.
    ///
    /// ```
    /// use tablekit::client::{GeoReplication, GeoReplicationStatus, ServiceStatistics};
    /// let stats = ServiceStatistics {
    ///     geo_replication: GeoReplication {
    ///         status: GeoReplicationStatus::Bootstrap,
    ///         last_sync_time: None,
    ///     },
    /// };
    /// assert_eq!(ServiceStatistics::from_xml(&stats.to_xml()?)?, stats);
    /// # Ok::<(), tablekit::Error>(())
    /// ```
    pub fn to_xml(&self) -> Result<String> {
        let wire = wire::Stats {
            geo_replication: wire::GeoReplication {
                status: self.geo_replication.status.as_str().to_owned(),
                last_sync_time: self
                    .geo_replication
                    .last_sync_time
                    .map(crate::protocol::auth::http_date),
            },
        };
        let body = quick_xml::se::to_string(&wire)
            .map_err(|e| Error::decode("service statistics", e.to_string()))?;
        Ok([XML_DECLARATION, &body].concat())
    }
}

impl TableServiceClient {
    /// The account's Table service settings (Get Table Service Properties).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let client = emulator.client();
    /// let properties = client.properties().await?;
    /// assert_eq!(properties.cors, Some(vec![])); // no CORS rules until some are set
    /// assert!(!properties.hour_metrics.expect("answered").enabled);
    /// # Ok(()) }
    /// ```
    pub async fn properties(&self) -> Result<ServiceProperties> {
        self.limits().check_supported(Feature::ServiceProperties)?;
        let reply = self
            .transport()
            .send(&service_call(Method::GET, "properties"))
            .await?;
        ServiceProperties::from_xml(&xml_text(&reply.body, "service properties")?)
    }

    /// Sets the account's Table service settings (Set Table Service Properties); parts left
    /// `None` keep what the service has. Checked by [`ServiceProperties::validate`] first.
    ///
    /// ```
    /// use tablekit::client::{CorsRule, Metrics, RetentionPolicy, ServiceProperties};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let client = emulator.client();
    /// let metrics = ServiceProperties {
    ///     hour_metrics: Some(Metrics::enabled(true, RetentionPolicy::days(7))),
    ///     ..ServiceProperties::default()
    /// };
    /// client.set_properties(&metrics).await?;
    /// let now = client.properties().await?;
    /// assert_eq!(now.hour_metrics, metrics.hour_metrics);
    /// assert_eq!(now.cors, Some(vec![])); // untouched
    ///
    /// let sloppy = ServiceProperties {
    ///     cors: Some(vec![CorsRule::new(["*"], ["FETCH"])]),
    ///     ..ServiceProperties::default()
    /// };
    /// assert!(client.set_properties(&sloppy).await.unwrap_err().is_invalid_input());
    /// # Ok(()) }
    /// ```
    pub async fn set_properties(&self, properties: &ServiceProperties) -> Result<()> {
        self.limits().check_supported(Feature::ServiceProperties)?;
        properties.validate()?;
        let mut call = service_call(Method::PUT, "properties");
        call.content_type = Some("application/xml".to_owned());
        call.body = Bytes::from(properties.to_xml()?);
        self.transport().send(&call).await?;
        Ok(())
    }

    /// The account's geo-replication status (Get Table Service Stats), asked of its secondary
    /// endpoint: `acct-secondary.table.core.windows.net`, or `.../acct-secondary` path-style.
    ///
    /// ```
    /// use tablekit::client::GeoReplicationStatus;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let emulator = tablekit_testing::Emulator::start().await?;
    /// # let client = emulator.client();
    /// let stats = client.statistics().await?;
    /// assert_eq!(stats.geo_replication.status, GeoReplicationStatus::Live);
    /// assert!(stats.geo_replication.last_sync_time.is_some());
    /// # Ok(()) }
    /// ```
    pub async fn statistics(&self) -> Result<ServiceStatistics> {
        self.limits().check_supported(Feature::ServiceStatistics)?;
        let secondary = self.transport().at_secondary()?;
        let reply = secondary.send(&service_call(Method::GET, "stats")).await?;
        ServiceStatistics::from_xml(&xml_text(&reply.body, "service statistics")?)
    }
}

/// `/?restype=service&comp={comp}`.
fn service_call(method: Method, comp: &str) -> ServiceRequest {
    let mut call = ServiceRequest::new(method, "/".to_owned());
    call.query.push(("restype", "service".to_owned()));
    call.query.push(("comp", comp.to_owned()));
    call
}

fn xml_text(body: &[u8], what: &str) -> Result<String> {
    String::from_utf8(body.to_vec()).map_err(|_| Error::decode(what, "the body is not UTF-8"))
}

const XML_DECLARATION: &str = r#"<?xml version="1.0" encoding="utf-8"?>"#;

/// The documents as the service spells them.
mod wire {
    use super::*;

    #[derive(Serialize, Deserialize, Default)]
    #[serde(rename = "StorageServiceProperties")]
    pub(super) struct Properties {
        #[serde(rename = "Logging", skip_serializing_if = "Option::is_none", default)]
        logging: Option<Logging>,
        #[serde(
            rename = "HourMetrics",
            skip_serializing_if = "Option::is_none",
            default
        )]
        hour_metrics: Option<Metrics>,
        #[serde(
            rename = "MinuteMetrics",
            skip_serializing_if = "Option::is_none",
            default
        )]
        minute_metrics: Option<Metrics>,
        #[serde(rename = "Cors", skip_serializing_if = "Option::is_none", default)]
        cors: Option<Cors>,
    }

    #[derive(Serialize, Deserialize)]
    struct Logging {
        #[serde(rename = "Version")]
        version: String,
        #[serde(rename = "Delete")]
        delete: bool,
        #[serde(rename = "Read")]
        read: bool,
        #[serde(rename = "Write")]
        write: bool,
        #[serde(rename = "RetentionPolicy")]
        retention: Retention,
    }

    #[derive(Serialize, Deserialize)]
    struct Metrics {
        #[serde(rename = "Version")]
        version: String,
        #[serde(rename = "Enabled")]
        enabled: bool,
        #[serde(
            rename = "IncludeAPIs",
            skip_serializing_if = "Option::is_none",
            default
        )]
        include_apis: Option<bool>,
        #[serde(rename = "RetentionPolicy")]
        retention: Retention,
    }

    #[derive(Serialize, Deserialize)]
    struct Retention {
        #[serde(rename = "Enabled")]
        enabled: bool,
        #[serde(rename = "Days", skip_serializing_if = "Option::is_none", default)]
        days: Option<u32>,
    }

    #[derive(Serialize, Deserialize, Default)]
    struct Cors {
        #[serde(rename = "CorsRule", default)]
        rules: Vec<CorsRule>,
    }

    #[derive(Serialize, Deserialize)]
    struct CorsRule {
        #[serde(rename = "AllowedOrigins", default)]
        allowed_origins: String,
        #[serde(rename = "AllowedMethods", default)]
        allowed_methods: String,
        #[serde(rename = "MaxAgeInSeconds", default)]
        max_age_seconds: u32,
        #[serde(rename = "ExposedHeaders", default)]
        exposed_headers: String,
        #[serde(rename = "AllowedHeaders", default)]
        allowed_headers: String,
    }

    #[derive(Serialize, Deserialize)]
    #[serde(rename = "StorageServiceStats")]
    pub(super) struct Stats {
        #[serde(rename = "GeoReplication")]
        pub(super) geo_replication: GeoReplication,
    }

    #[derive(Serialize, Deserialize)]
    pub(super) struct GeoReplication {
        #[serde(rename = "Status")]
        pub(super) status: String,
        #[serde(rename = "LastSyncTime", default)]
        pub(super) last_sync_time: Option<String>,
    }

    fn list(items: &[String]) -> String {
        items.join(",")
    }

    fn split(text: &str) -> Vec<String> {
        text.split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect()
    }

    impl From<super::RetentionPolicy> for Retention {
        fn from(r: super::RetentionPolicy) -> Self {
            Retention {
                enabled: r.enabled,
                days: r.days,
            }
        }
    }

    impl From<Retention> for super::RetentionPolicy {
        fn from(r: Retention) -> Self {
            super::RetentionPolicy {
                enabled: r.enabled,
                days: r.days,
            }
        }
    }

    impl From<&super::Metrics> for Metrics {
        fn from(m: &super::Metrics) -> Self {
            Metrics {
                version: m.version.clone(),
                enabled: m.enabled,
                // The service wants it exactly when metrics are enabled.
                include_apis: m.enabled.then_some(m.include_apis),
                retention: m.retention.into(),
            }
        }
    }

    impl From<Metrics> for super::Metrics {
        fn from(m: Metrics) -> Self {
            super::Metrics {
                version: m.version,
                enabled: m.enabled,
                include_apis: m.include_apis.unwrap_or(false),
                retention: m.retention.into(),
            }
        }
    }

    impl From<&super::ServiceProperties> for Properties {
        fn from(p: &super::ServiceProperties) -> Self {
            Properties {
                logging: p.logging.as_ref().map(|l| Logging {
                    version: l.version.clone(),
                    delete: l.delete,
                    read: l.read,
                    write: l.write,
                    retention: l.retention.into(),
                }),
                hour_metrics: p.hour_metrics.as_ref().map(Metrics::from),
                minute_metrics: p.minute_metrics.as_ref().map(Metrics::from),
                cors: p.cors.as_ref().map(|rules| Cors {
                    rules: rules
                        .iter()
                        .map(|r| CorsRule {
                            allowed_origins: list(&r.allowed_origins),
                            allowed_methods: list(&r.allowed_methods),
                            max_age_seconds: r.max_age_seconds,
                            exposed_headers: list(&r.exposed_headers),
                            allowed_headers: list(&r.allowed_headers),
                        })
                        .collect(),
                }),
            }
        }
    }

    impl TryFrom<Properties> for super::ServiceProperties {
        type Error = Error;

        fn try_from(p: Properties) -> Result<Self> {
            Ok(super::ServiceProperties {
                logging: p.logging.map(|l| super::Logging {
                    version: l.version,
                    delete: l.delete,
                    read: l.read,
                    write: l.write,
                    retention: l.retention.into(),
                }),
                hour_metrics: p.hour_metrics.map(Into::into),
                minute_metrics: p.minute_metrics.map(Into::into),
                cors: p.cors.map(|cors| {
                    cors.rules
                        .into_iter()
                        .map(|r| super::CorsRule {
                            allowed_origins: split(&r.allowed_origins),
                            allowed_methods: split(&r.allowed_methods),
                            allowed_headers: split(&r.allowed_headers),
                            exposed_headers: split(&r.exposed_headers),
                            max_age_seconds: r.max_age_seconds,
                        })
                        .collect()
                }),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_documented_example() {
        // The example body of "Set Table Service Properties", version 2013-08-15 and later.
        let xml = r#"<?xml version="1.0" encoding="utf-8"?>
<StorageServiceProperties>
    <Logging>
        <Version>1.0</Version>
        <Delete>true</Delete>
        <Read>false</Read>
        <Write>true</Write>
        <RetentionPolicy>
            <Enabled>true</Enabled>
            <Days>7</Days>
        </RetentionPolicy>
    </Logging>
    <HourMetrics>
        <Version>1.0</Version>
        <Enabled>true</Enabled>
        <IncludeAPIs>false</IncludeAPIs>
        <RetentionPolicy>
            <Enabled>true</Enabled>
            <Days>7</Days>
        </RetentionPolicy>
    </HourMetrics>
    <MinuteMetrics>
        <Version>1.0</Version>
        <Enabled>false</Enabled>
        <RetentionPolicy>
            <Enabled>false</Enabled>
        </RetentionPolicy>
    </MinuteMetrics>
    <Cors>
        <CorsRule>
            <AllowedOrigins>http://www.fabrikam.com,http://www.contoso.com</AllowedOrigins>
            <AllowedMethods>GET,PUT</AllowedMethods>
            <MaxAgeInSeconds>500</MaxAgeInSeconds>
            <ExposedHeaders>x-ms-meta-data*,x-ms-meta-customheader</ExposedHeaders>
            <AllowedHeaders>x-ms-meta-target*,x-ms-meta-customheader</AllowedHeaders>
        </CorsRule>
    </Cors>
</StorageServiceProperties>"#;
        let p = ServiceProperties::from_xml(xml).unwrap();
        p.validate().unwrap();
        let logging = p.logging.clone().unwrap();
        assert!(logging.delete && !logging.read && logging.write);
        assert_eq!(logging.retention, RetentionPolicy::days(7));
        let hour = p.hour_metrics.clone().unwrap();
        assert!(hour.enabled && !hour.include_apis);
        assert_eq!(p.minute_metrics.clone().unwrap(), Metrics::default());
        let rule = &p.cors.as_ref().unwrap()[0];
        assert_eq!(rule.allowed_methods, ["GET", "PUT"]);
        assert_eq!(rule.max_age_seconds, 500);
        assert_eq!(rule.exposed_headers.len(), 2);
        // Written back and read again: the same settings.
        assert_eq!(
            ServiceProperties::from_xml(&p.to_xml().unwrap()).unwrap(),
            p
        );
    }

    #[test]
    fn an_empty_cors_element_clears_and_a_missing_one_keeps() {
        let clear = ServiceProperties {
            cors: Some(Vec::new()),
            ..Default::default()
        };
        let xml = clear.to_xml().unwrap();
        assert!(xml.contains("<Cors"), "{xml}");
        assert_eq!(ServiceProperties::from_xml(&xml).unwrap(), clear);
        let keep = ServiceProperties::default().to_xml().unwrap();
        assert!(!keep.contains("Cors"), "{keep}");
    }

    #[test]
    fn refuses_what_the_service_documents_as_invalid() {
        let rule = |methods: &[&str]| ServiceProperties {
            cors: Some(vec![CorsRule::new(["*"], methods.iter().copied())]),
            ..Default::default()
        };
        assert!(rule(&["GET"]).validate().is_ok());
        assert!(matches!(
            rule(&["PATCH"]).validate(),
            Err(InvalidInput::CorsRule { index: 0, .. })
        ));
        assert!(rule(&[]).validate().is_err());
        let days = |days| ServiceProperties {
            logging: Some(Logging {
                retention: RetentionPolicy::days(days),
                ..Logging::default()
            }),
            ..Default::default()
        };
        assert!(days(1).validate().is_ok() && days(365).validate().is_ok());
        assert!(days(0).validate().is_err() && days(366).validate().is_err());
        let version = ServiceProperties {
            minute_metrics: Some(Metrics {
                version: "2.0".into(),
                ..Metrics::default()
            }),
            ..Default::default()
        };
        assert!(matches!(
            version.validate(),
            Err(InvalidInput::AnalyticsVersion { .. })
        ));
    }

    #[test]
    fn statistics_read_every_status_and_an_empty_sync_time() {
        let xml = "<StorageServiceStats><GeoReplication><Status>unavailable</Status>\
                   <LastSyncTime /></GeoReplication></StorageServiceStats>";
        let stats = ServiceStatistics::from_xml(xml).unwrap();
        assert_eq!(
            stats.geo_replication.status,
            GeoReplicationStatus::Unavailable
        );
        assert_eq!(stats.geo_replication.last_sync_time, None);
        let bad = xml.replace("unavailable", "sideways");
        assert!(ServiceStatistics::from_xml(&bad).is_err());
    }
}
