//! [`Endpoint`]: where the Table service of one account lives.
//!
//! Azure and the Cosmos DB Table API are host-style (`https://acct.table.core.windows.net`):
//! the account is the first label of the host. Azurite and the emulator are path-style
//! (`http://127.0.0.1:10002/acct`): the account is the first path segment, and every request
//! path starts with it (so the signed resource names the account twice).

use std::net::IpAddr;

use url::Url;

use super::error::{Error, Result};

/// A Table service endpoint and the account it serves.
///
/// ```
/// use tablekit::client::Endpoint;
/// let azure = Endpoint::parse("https://acct.table.core.windows.net/")?;
/// assert_eq!(azure.account(), "acct");
/// assert_eq!(azure.url("/Tables").as_str(), "https://acct.table.core.windows.net/Tables");
/// let azurite = Endpoint::parse("http://127.0.0.1:10002/devstoreaccount1")?;
/// assert_eq!(azurite.account(), "devstoreaccount1");
/// assert_eq!(azurite.url("/Tables").path(), "/devstoreaccount1/Tables");
/// assert!(azurite.is_loopback());
/// # Ok::<(), tablekit::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Endpoint {
    base: Url,
    account: String,
}

impl Endpoint {
    /// Parses an endpoint URL; the account comes from the path (path-style) or the host.
    ///
    /// ```
    /// use tablekit::client::Endpoint;
    /// let cosmos = Endpoint::parse("https://acct.table.cosmos.azure.com:443/")?;
    /// assert_eq!(cosmos.account(), "acct");
    /// // a SAS belongs in the credential, and the error does not echo it
    /// let with_sas = "https://acct.table.core.windows.net/?sv=2019-02-02&sig=c2ln";
    /// let err = Endpoint::parse(with_sas).unwrap_err();
    /// assert!(!err.to_string().contains("sig="));
    /// assert!(Endpoint::parse("http://127.0.0.1:10002").is_err()); // names no account
    /// # Ok::<(), tablekit::Error>(())
    /// ```
    pub fn parse(url: &str) -> Result<Self> {
        let base = parse_base(url)?;
        let account = match first_segment(&base) {
            Some(segment) => segment.to_owned(),
            None => host_account(&base)?,
        };
        Ok(Endpoint { base, account })
    }

    /// An endpoint URL with an explicit account name (for hosts that do not name it).
    pub fn with_account(url: &str, account: &str) -> Result<Self> {
        if account.is_empty() {
            return Err(Error::Configuration("the account name is empty".into()));
        }
        Ok(Endpoint {
            base: parse_base(url)?,
            account: account.to_owned(),
        })
    }

    /// The account name used in signatures.
    pub fn account(&self) -> &str {
        &self.account
    }

    /// The endpoint URL (a path-style account path has no trailing `/`).
    ///
    /// ```
    /// use tablekit::client::Endpoint;
    /// let azurite = Endpoint::parse("http://127.0.0.1:10002/devstoreaccount1/")?;
    /// let url = azurite.base_url();
    /// assert_eq!(url.as_str(), "http://127.0.0.1:10002/devstoreaccount1"); // no trailing `/`
    /// assert_eq!(azurite.base_url().port(), Some(10002));
    /// # Ok::<(), tablekit::Error>(())
    /// ```
    pub fn base_url(&self) -> &Url {
        &self.base
    }

    /// The URL of `path` (which starts with `/` and is already percent-encoded) under this
    /// endpoint.
    ///
    /// ```
    /// use tablekit::client::Endpoint;
    /// let azurite = Endpoint::parse("http://127.0.0.1:10002/devstoreaccount1")?;
    /// let url = azurite.url("/Gamers(PartitionKey='eu',RowKey='a%20b')"); // kept as encoded
    /// assert_eq!(
    ///     url.as_str(),
    ///     "http://127.0.0.1:10002/devstoreaccount1/Gamers(PartitionKey='eu',RowKey='a%20b')"
    /// );
    /// # Ok::<(), tablekit::Error>(())
    /// ```
    pub fn url(&self, path: &str) -> Url {
        let mut url = self.base.clone();
        url.set_path(&[self.base.path().trim_end_matches('/'), path].concat());
        url
    }

    /// Whether the scheme is https.
    pub fn is_https(&self) -> bool {
        self.base.scheme() == "https"
    }

    /// Whether this is a Cosmos DB Table API endpoint (`*.table.cosmos.azure.com` and the
    /// other clouds' Cosmos DB domains).
    pub(crate) fn is_cosmos(&self) -> bool {
        let host = self.base.host_str().unwrap_or_default();
        [
            ".cosmos.azure.com",
            ".documents.azure.com",
            ".cosmos.azure.cn",
        ]
        .iter()
        .any(|suffix| host.ends_with(suffix))
    }

    /// Whether the host is a loopback address or `localhost`.
    ///
    /// ```
    /// use tablekit::client::Endpoint;
    /// assert!(Endpoint::parse("http://localhost:10002/devstoreaccount1")?.is_loopback());
    /// assert!(Endpoint::parse("http://[::1]:10002/devstoreaccount1")?.is_loopback());
    /// assert!(!Endpoint::parse("http://azurite:10002/devstoreaccount1")?.is_loopback());
    /// # Ok::<(), tablekit::Error>(())
    /// ```
    pub fn is_loopback(&self) -> bool {
        match self.base.host() {
            Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
            Some(url::Host::Ipv4(ip)) => IpAddr::V4(ip).is_loopback(),
            Some(url::Host::Ipv6(ip)) => IpAddr::V6(ip).is_loopback(),
            None => false,
        }
    }
}

fn parse_base(url: &str) -> Result<Url> {
    // Never echo a query string: it may hold a SAS signature.
    let shown = url.split('?').next().unwrap_or_default();
    let mut base = Url::parse(url.trim())
        .map_err(|e| Error::Configuration(format!("endpoint `{shown}` is not a URL: {e}")))?;
    if !matches!(base.scheme(), "http" | "https") {
        return Err(Error::Configuration(format!(
            "endpoint `{shown}` must use http or https"
        )));
    }
    if base.host().is_none() {
        return Err(Error::Configuration(format!(
            "endpoint `{shown}` has no host"
        )));
    }
    if base.query().is_some() || base.fragment().is_some() {
        return Err(Error::Configuration(format!(
            "endpoint `{}` must not carry a query or fragment (pass a SAS as a credential)",
            base.origin().ascii_serialization()
        )));
    }
    let path = base.path().trim_end_matches('/').to_owned();
    base.set_path(&path);
    Ok(base)
}

fn first_segment(url: &Url) -> Option<&str> {
    url.path_segments()?.find(|s| !s.is_empty())
}

fn host_account(url: &Url) -> Result<String> {
    match url.host() {
        Some(url::Host::Domain(domain)) if domain.contains('.') => domain
            .split('.')
            .next()
            .filter(|label| !label.is_empty())
            .map(str::to_owned)
            .ok_or_else(|| Error::Configuration(format!("cannot read an account from `{url}`"))),
        _ => Err(Error::Configuration(format!(
            "endpoint `{url}` names no account: use a path-style URL (`http://host:port/account`) or give the account"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_cosmos_and_path_style_accounts() {
        let cosmos = Endpoint::parse("https://acct.table.cosmos.azure.com:443/").unwrap();
        assert_eq!(cosmos.account(), "acct");
        assert_eq!(cosmos.url("/T()").path(), "/T()");
        assert!(!cosmos.is_loopback());
        let local = Endpoint::parse("http://localhost:10002/devstoreaccount1/").unwrap();
        assert_eq!(local.url("/$batch").path(), "/devstoreaccount1/$batch");
        assert!(local.is_loopback());
    }

    #[test]
    fn refuses_what_cannot_work() {
        assert!(Endpoint::parse("ftp://x.y").is_err());
        assert!(Endpoint::parse("http://127.0.0.1:10002").is_err());
        assert!(Endpoint::parse("https://a.b/?sig=secret")
            .unwrap_err()
            .to_string()
            .find("secret")
            .is_none());
    }

    #[test]
    fn keeps_quotes_and_escapes_in_key_paths() {
        let e = Endpoint::parse("http://127.0.0.1:1/acct").unwrap();
        let url = e.url("/T(PartitionKey='a%20b''c',RowKey='100%25')");
        assert_eq!(
            url.path(),
            "/acct/T(PartitionKey='a%20b''c',RowKey='100%25')"
        );
    }
}
