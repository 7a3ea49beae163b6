//! [`LocationMode`]: which copy of a geo-replicated account reads go to.
//!
//! An account with read-access geo-redundant storage (RA-GRS, RA-GZRS) serves a read-only,
//! eventually consistent copy at its secondary endpoint: `acct-secondary.table.core.windows.net`,
//! or `http://127.0.0.1:10002/acct-secondary` for path-style emulators. Writes go to the
//! primary only; the secondary refuses them (403 `WriteOperationNotSupportedOnSecondary`).

use super::endpoint::Endpoint;
use super::error::{Error, Result};

/// Where reads go; writes always go to the primary.
///
/// [`SecondaryOnly`](LocationMode::SecondaryOnly) refuses writes before sending them, as the
/// Azure SDKs do, rather than quietly sending them elsewhere than asked.
///
/// ```
/// use tablekit::client::{LocationMode, TableServiceClient};
/// use tablekit::DynamicEntity;
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let emulator = tablekit_testing::Emulator::start().await?;
/// let writer = emulator.client();
/// writer.create_table("Gamers").await?;
/// let reader = emulator
///     .client_builder()
///     .location_mode(LocationMode::SecondaryOnly) // reads from `devstoreaccount1-secondary`
///     .build()?;
/// assert!(reader.table_exists("Gamers").await?);
/// let err = reader.create_table("Players").await.unwrap_err();
/// assert!(matches!(err, tablekit::Error::Configuration(_))); // refused, never sent
/// # Ok(()) }
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum LocationMode {
    /// Every request goes to the primary (the default).
    #[default]
    PrimaryOnly,
    /// Reads go to the secondary; writes are refused with [`Error::Configuration`].
    SecondaryOnly,
    /// Reads go to the primary first; a retry after a transient failure goes to the other
    /// location, alternating. Writes go to the primary.
    PrimaryThenSecondary,
}

/// The location one attempt goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Location {
    Primary,
    Secondary,
}

impl Location {
    /// The name telemetry reports.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Location::Primary => "primary",
            Location::Secondary => "secondary",
        }
    }
}

impl LocationMode {
    /// Where attempt number `attempt` (1 for the first) of a request goes; an error for a
    /// write this mode cannot send.
    pub(crate) fn location(self, write: bool, attempt: u32) -> Result<Location> {
        Ok(match (self, write) {
            (LocationMode::SecondaryOnly, true) => {
                return Err(Error::Configuration(
                    "a client with `LocationMode::SecondaryOnly` cannot write: the secondary is read-only".into(),
                ))
            }
            (LocationMode::PrimaryOnly, _) | (_, true) => Location::Primary,
            (LocationMode::SecondaryOnly, false) => Location::Secondary,
            (LocationMode::PrimaryThenSecondary, false) if attempt % 2 == 0 => Location::Secondary,
            (LocationMode::PrimaryThenSecondary, false) => Location::Primary,
        })
    }

    /// Whether this mode ever reads from the secondary.
    pub(crate) fn uses_secondary(self) -> bool {
        self != LocationMode::PrimaryOnly
    }
}

/// The secondary endpoint of `primary` by the `-secondary` convention: the account's host
/// label (`acct.table.core.windows.net` -> `acct-secondary.table.core.windows.net`) or, for a
/// path-style URL, its account segment (`.../devstoreaccount1` -> `.../devstoreaccount1-secondary`).
/// The account name used in signatures stays the primary's. An error for a host that names
/// no account (a custom domain): give the secondary endpoint explicitly.
///
/// ```
/// use tablekit::client::{secondary_endpoint, Endpoint};
/// let azure = Endpoint::parse("https://acct.table.core.windows.net")?;
/// let secondary = secondary_endpoint(&azure)?;
/// assert_eq!(secondary.base_url().as_str(), "https://acct-secondary.table.core.windows.net/");
/// assert_eq!(secondary.account(), "acct"); // signatures name the primary account
/// let local = Endpoint::parse("http://127.0.0.1:10002/devstoreaccount1")?;
/// let secondary = secondary_endpoint(&local)?;
/// assert_eq!(secondary.base_url().as_str(), "http://127.0.0.1:10002/devstoreaccount1-secondary");
/// # Ok::<(), tablekit::Error>(())
/// ```
pub fn secondary_endpoint(primary: &Endpoint) -> Result<Endpoint> {
    let url = primary.base_url();
    let account = primary.account();
    let mut secondary = url.clone();
    let first_segment = url
        .path_segments()
        .and_then(|mut s| s.find(|s| !s.is_empty()));
    if first_segment == Some(account) {
        let rest = url.path().trim_start_matches('/');
        let rest = rest.strip_prefix(account).unwrap_or(rest);
        secondary.set_path(&format!("/{account}-secondary{rest}"));
    } else {
        let host = url.host_str().unwrap_or_default();
        let Some(domain) = host
            .strip_prefix(account)
            .filter(|rest| rest.starts_with('.'))
        else {
            return Err(Error::Configuration(format!(
                "cannot derive a secondary endpoint from `{host}`: give it explicitly"
            )));
        };
        secondary
            .set_host(Some(&format!("{account}-secondary{domain}")))
            .map_err(|e| Error::Configuration(format!("invalid secondary host: {e}")))?;
    }
    Endpoint::with_account(secondary.as_str(), account)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_never_leave_the_primary() {
        let alternate = LocationMode::PrimaryThenSecondary;
        let reads: Vec<_> = (1..=4)
            .map(|a| alternate.location(false, a).unwrap())
            .collect();
        use Location::{Primary, Secondary};
        assert_eq!(reads, [Primary, Secondary, Primary, Secondary]);
        assert_eq!(alternate.location(true, 2).unwrap(), Primary);
        let secondary = LocationMode::SecondaryOnly;
        assert_eq!(secondary.location(false, 1).unwrap(), Secondary);
        assert!(secondary.location(true, 1).is_err());
        assert_eq!(LocationMode::default().location(false, 2).unwrap(), Primary);
    }

    #[test]
    fn derives_the_secondary_of_each_url_style() {
        let cosmos = Endpoint::parse("https://acct.table.cosmos.azure.com:443/").unwrap();
        let url = secondary_endpoint(&cosmos).unwrap();
        assert_eq!(
            url.base_url().host_str(),
            Some("acct-secondary.table.cosmos.azure.com")
        );
        let custom = Endpoint::with_account("https://tables.contoso.example", "acct").unwrap();
        assert!(secondary_endpoint(&custom).is_err());
        let local = Endpoint::parse("http://localhost:10002/devstoreaccount1/").unwrap();
        let url = secondary_endpoint(&local).unwrap();
        assert_eq!(
            url.url("/Tables").path(),
            "/devstoreaccount1-secondary/Tables"
        );
        assert_eq!(url.account(), "devstoreaccount1");
    }
}
