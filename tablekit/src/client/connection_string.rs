//! [`ConnectionString`]: the `Key=Value;...` strings the portal and Azurite hand out.
//!
//! Recognised keys (case-insensitive): `UseDevelopmentStorage`, `DefaultEndpointsProtocol`,
//! `AccountName`, `AccountKey`, `EndpointSuffix`, `TableEndpoint`, `TableSecondaryEndpoint`,
//! `SharedAccessSignature`.
//! Other keys (`BlobEndpoint`, ...) belong to other services and are ignored. Errors never
//! quote a key or a signature.

use std::fmt;

use super::credential::Credential;
use super::endpoint::Endpoint;
use super::error::{Error, Result};

/// The public development account Azurite and the emulator accept.
pub const DEVELOPMENT_ACCOUNT: &str = "devstoreaccount1";
/// The development account's well-known (public) key.
///
/// ```
/// use tablekit::client::{TableServiceClient, DEVELOPMENT_ACCOUNT, DEVELOPMENT_KEY};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let emulator = tablekit_testing::Emulator::start().await?;
/// # let endpoint = emulator.endpoint();
/// // e.g. Azurite in another container, at `endpoint`
/// let connection_string = format!(
///     "AccountName={DEVELOPMENT_ACCOUNT};AccountKey={DEVELOPMENT_KEY};TableEndpoint={endpoint}"
/// );
/// let client = TableServiceClient::from_connection_string(&connection_string)?;
/// assert!(client.create_table_if_not_exists("Gamers").await?);
/// # Ok(()) }
/// ```
pub const DEVELOPMENT_KEY: &str =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

/// A parsed connection string: an endpoint and a credential.
///
/// ```
/// use tablekit::client::ConnectionString;
/// let cs = ConnectionString::parse("UseDevelopmentStorage=true")?;
/// assert_eq!(cs.endpoint().base_url().as_str(), "http://127.0.0.1:10002/devstoreaccount1");
///
/// let cs = ConnectionString::parse(
///     "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=a2V5;EndpointSuffix=core.windows.net",
/// )?;
/// assert_eq!(cs.endpoint().base_url().as_str(), "https://acct.table.core.windows.net/");
/// assert!(!format!("{cs:?}").contains("a2V5"));
/// # Ok::<(), tablekit::Error>(())
/// ```
#[derive(Clone)]
pub struct ConnectionString {
    endpoint: Endpoint,
    secondary: Option<Endpoint>,
    credential: Credential,
}

#[derive(Default)]
struct Fields {
    development: bool,
    protocol: Option<String>,
    account: Option<String>,
    key: Option<String>,
    suffix: Option<String>,
    table_endpoint: Option<String>,
    table_secondary_endpoint: Option<String>,
    sas: Option<String>,
}

impl ConnectionString {
    /// Parses a connection string.
    ///
    /// ```
    /// use tablekit::client::ConnectionString;
    /// use tablekit::Error;
    /// let cosmos = "TableEndpoint=https://acct.table.cosmos.azure.com:443/;\
    ///               SharedAccessSignature=sv=2019-02-02&sig=c2ln";
    /// let cs = ConnectionString::parse(cosmos)?;
    /// assert_eq!(cs.endpoint().account(), "acct");
    ///
    /// let err = ConnectionString::parse("AccountName=acct;AccountKey=not*base64").unwrap_err();
    /// assert!(matches!(err, Error::Configuration(_)));
    /// assert!(!err.to_string().contains("not*base64")); // never quotes the key
    /// # Ok::<(), tablekit::Error>(())
    /// ```
    pub fn parse(text: &str) -> Result<Self> {
        let fields = split_fields(text)?;
        let mut parsed = if fields.development {
            development(fields.table_endpoint.as_deref())?
        } else {
            ConnectionString {
                endpoint: endpoint(&fields)?,
                secondary: None,
                credential: credential(&fields)?,
            }
        };
        if let Some(url) = &fields.table_secondary_endpoint {
            // Signatures name the primary account, also at the secondary.
            let account = parsed.endpoint.account().to_owned();
            parsed.secondary = Some(Endpoint::with_account(url, &account)?);
        }
        Ok(parsed)
    }

    /// The read-only secondary endpoint, when the string gives one (`TableSecondaryEndpoint`).
    ///
    /// ```
    /// use tablekit::client::ConnectionString;
    /// let cs = ConnectionString::parse(
    ///     "AccountName=acct;AccountKey=a2V5;\
    ///      TableSecondaryEndpoint=https://acct-secondary.table.core.windows.net",
    /// )?;
    /// let secondary = cs.secondary_endpoint().unwrap();
    /// assert_eq!(secondary.base_url().host_str(), Some("acct-secondary.table.core.windows.net"));
    /// assert_eq!(secondary.account(), "acct"); // signatures name the primary account
    /// assert!(ConnectionString::parse("UseDevelopmentStorage=true")?.secondary_endpoint().is_none());
    /// # Ok::<(), tablekit::Error>(())
    /// ```
    pub fn secondary_endpoint(&self) -> Option<&Endpoint> {
        self.secondary.as_ref()
    }
}

fn credential(fields: &Fields) -> Result<Credential> {
    match (&fields.key, &fields.sas) {
        (Some(_), Some(_)) => Err(config(
            "give either AccountKey or SharedAccessSignature, not both",
        )),
        (Some(key), None) => Credential::shared_key(key),
        (None, Some(sas)) => Credential::sas(sas),
        (None, None) => Err(config(
            "the connection string has neither AccountKey nor SharedAccessSignature",
        )),
    }
}

impl ConnectionString {
    /// The Table service endpoint.
    ///
    /// ```
    /// use tablekit::client::ConnectionString;
    /// let cs = ConnectionString::parse("AccountName=acct;AccountKey=a2V5")?;
    /// // https and core.windows.net unless the string says otherwise
    /// let url = cs.endpoint().base_url();
    /// assert_eq!(url.as_str(), "https://acct.table.core.windows.net/");
    /// assert!(cs.endpoint().is_https());
    /// # Ok::<(), tablekit::Error>(())
    /// ```
    pub fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    /// The credential.
    ///
    /// ```
    /// use tablekit::client::ConnectionString;
    /// let sas = "TableEndpoint=https://acct.table.core.windows.net;\
    ///            SharedAccessSignature=sv=2019-02-02&sig=c2ln";
    /// let credential = ConnectionString::parse(sas)?.credential().clone();
    /// assert!(credential.carries_secret());
    /// assert_eq!(format!("{credential:?}"), "Credential::Sas(<redacted>)"); // safe to log
    /// # Ok::<(), tablekit::Error>(())
    /// ```
    pub fn credential(&self) -> &Credential {
        &self.credential
    }

    /// Both parts.
    pub fn into_parts(self) -> (Endpoint, Credential) {
        (self.endpoint, self.credential)
    }
}

impl std::str::FromStr for ConnectionString {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        ConnectionString::parse(s)
    }
}

impl fmt::Debug for ConnectionString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ConnectionString")
            .field("endpoint", &self.endpoint.base_url().as_str())
            .field("account", &self.endpoint.account())
            .field("credential", &self.credential)
            .finish()
    }
}

fn config(message: &str) -> Error {
    Error::Configuration(message.to_owned())
}

fn split_fields(text: &str) -> Result<Fields> {
    let mut fields = Fields::default();
    for part in text.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        let Some((name, value)) = part.split_once('=') else {
            return Err(config(
                "a connection string is a list of `Name=Value;` pairs",
            ));
        };
        let value = value.trim().to_owned();
        match name.trim().to_ascii_lowercase().as_str() {
            "usedevelopmentstorage" => fields.development = value.eq_ignore_ascii_case("true"),
            "defaultendpointsprotocol" => fields.protocol = Some(value),
            "accountname" => fields.account = Some(value),
            "accountkey" => fields.key = Some(value),
            "endpointsuffix" => fields.suffix = Some(value),
            "tableendpoint" => fields.table_endpoint = Some(value),
            "tablesecondaryendpoint" => fields.table_secondary_endpoint = Some(value),
            "sharedaccesssignature" => fields.sas = Some(value),
            _ => {}
        }
    }
    Ok(fields)
}

fn development(table_endpoint: Option<&str>) -> Result<ConnectionString> {
    let url = table_endpoint.unwrap_or("http://127.0.0.1:10002/devstoreaccount1");
    Ok(ConnectionString {
        endpoint: Endpoint::with_account(url, DEVELOPMENT_ACCOUNT)?,
        secondary: None,
        credential: Credential::shared_key(DEVELOPMENT_KEY)?,
    })
}

fn endpoint(fields: &Fields) -> Result<Endpoint> {
    if let Some(url) = &fields.table_endpoint {
        return match &fields.account {
            Some(account) => Endpoint::with_account(url, account),
            None => Endpoint::parse(url),
        };
    }
    let account = fields
        .account
        .as_deref()
        .ok_or_else(|| config("the connection string has neither AccountName nor TableEndpoint"))?;
    let protocol = fields.protocol.as_deref().unwrap_or("https");
    let suffix = fields.suffix.as_deref().unwrap_or("core.windows.net");
    Endpoint::with_account(&format!("{protocol}://{account}.table.{suffix}"), account)
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "c2VjcmV0LWtleQ==";

    #[test]
    fn reads_every_documented_key() {
        let cs = ConnectionString::parse(&format!(
            "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey={KEY};TableEndpoint=http://127.0.0.1:5/devstoreaccount1;"
        ))
        .unwrap();
        assert_eq!(cs.endpoint().account(), "devstoreaccount1");
        assert_eq!(
            cs.endpoint().url("/Tables").path(),
            "/devstoreaccount1/Tables"
        );
        let sas = ConnectionString::parse(
            "TableEndpoint=https://acct.table.cosmos.azure.com:443/;SharedAccessSignature=sv=1&sig=abc",
        )
        .unwrap();
        assert_eq!(sas.credential().sas_query(), Some("sv=1&sig=abc"));
        assert_eq!(sas.endpoint().account(), "acct");
        let dev = ConnectionString::parse(
            "UseDevelopmentStorage=true;TableEndpoint=http://127.0.0.1:9/devstoreaccount1",
        )
        .unwrap();
        assert_eq!(dev.endpoint().base_url().port(), Some(9));
    }

    #[test]
    fn errors_are_typed_and_never_quote_secrets() {
        for bad in [
            "AccountName=a",
            "AccountKey=c2VjcmV0LWtleQ==",
            "garbage",
            "AccountName=a;AccountKey=!!not-base64-secret!!",
            "AccountName=a;AccountKey=c2VjcmV0LWtleQ==;SharedAccessSignature=sig=secret",
        ] {
            let err = ConnectionString::parse(bad).unwrap_err();
            assert!(matches!(err, Error::Configuration(_)), "{bad}: {err}");
            let text = format!("{err} {err:?}");
            assert!(
                !text.contains("c2VjcmV0") && !text.contains("secret"),
                "{text}"
            );
        }
    }
}
