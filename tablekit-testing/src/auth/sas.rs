//! Table shared access signatures: [`TableSas`] issues them, the emulator verifies them
//! (signature, start and expiry, table, permissions, key ranges), with the service's
//! string-to-sign so tokens from other SDKs verify too.

use std::collections::HashMap;
use std::fmt;

use chrono::{DateTime, SecondsFormat, Utc};
use percent_encoding::{utf8_percent_encode, NON_ALPHANUMERIC};
use tablekit::auth::AccountKey;

use crate::filter::utf16_cmp;
use crate::service_error::ServiceError;

/// The service version the tokens are signed for.
const SAS_VERSION: &str = "2019-02-02";

/// A table SAS to issue: which table, which permissions (`r`ead/query, `a`dd, `u`pdate,
/// `d`elete), until when, and optionally which key range.
///
/// ```
/// use chrono::{Duration, Utc};
/// use tablekit::auth::AccountKey;
/// use tablekit_testing::TableSas;
///
/// let key = AccountKey::from_base64("a2V5")?;
/// let token = TableSas::new("Gamers", "ra", Utc::now() + Duration::hours(1))
///     .partitions("a", "m")
///     .sign("devstoreaccount1", &key);
/// assert!(token.contains("tn=Gamers") && token.contains("sp=ra") && token.contains("sig="));
/// assert!(!format!("{:?}", TableSas::new("T", "r", Utc::now())).contains("sig"));
/// # Ok::<(), tablekit::auth::InvalidKey>(())
/// ```
#[derive(Clone, Debug)]
pub struct TableSas {
    table: String,
    permissions: String,
    start: Option<DateTime<Utc>>,
    expiry: DateTime<Utc>,
    start_pk: Option<String>,
    start_rk: Option<String>,
    end_pk: Option<String>,
    end_rk: Option<String>,
}

impl TableSas {
    /// A token for `table` with `permissions` (a subset of `raud`) valid until `expiry`.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use chrono::{Duration, Utc};
    /// use tablekit::client::{Credential, TableServiceClient};
    /// use tablekit::DynamicEntity;
    /// use tablekit_testing::{Emulator, TableSas};
    /// let emulator = Emulator::start().await?;
    /// emulator.create_table("Gamers")?;
    /// emulator.seed("Gamers", [DynamicEntity::new("dragon", "")])?;
    /// let token = emulator.sas(&TableSas::new("Gamers", "r", Utc::now() + Duration::hours(1)));
    /// let client = TableServiceClient::builder()
    ///     .endpoint(&emulator.endpoint())
    ///     .credential(Credential::sas(&token)?)
    ///     .build()?;
    /// let table = client.table_named::<DynamicEntity>("Gamers");
    /// assert!(table.get("dragon", "").await?.is_some());
    /// // `r` does not allow adding.
    /// let err = table.insert(&mut DynamicEntity::new("creeper", "")).await.unwrap_err();
    /// assert_eq!(err.status(), Some(403));
    /// # Ok(()) }
    /// ```
    pub fn new(table: &str, permissions: &str, expiry: DateTime<Utc>) -> Self {
        TableSas {
            table: table.to_owned(),
            permissions: permissions.to_owned(),
            start: None,
            expiry,
            start_pk: None,
            start_rk: None,
            end_pk: None,
            end_rk: None,
        }
    }

    /// Not valid before `start`.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # use chrono::{Duration, Utc};
    /// # use tablekit::client::{Credential, TableServiceClient};
    /// # use tablekit::DynamicEntity;
    /// # use tablekit_testing::{Emulator, TableSas};
    /// # let emulator = Emulator::start().await?;
    /// # emulator.create_table("Gamers")?;
    /// # emulator.seed("Gamers", [DynamicEntity::new("dragon", "")])?;
    /// let in_an_hour = Utc::now() + Duration::hours(1);
    /// let sas = TableSas::new("Gamers", "r", in_an_hour + Duration::hours(1)).start(in_an_hour);
    /// let token = emulator.sas(&sas);
    /// # let client = TableServiceClient::builder()
    /// #     .endpoint(&emulator.endpoint())
    /// #     .credential(Credential::sas(&token)?)
    /// #     .build()?;
    /// # let table = client.table_named::<DynamicEntity>("Gamers");
    /// let err = table.get("dragon", "").await.unwrap_err();
    /// assert_eq!(err.status(), Some(403)); // not valid yet
    /// # Ok(()) }
    /// ```
    pub fn start(mut self, start: DateTime<Utc>) -> Self {
        self.start = Some(start);
        self
    }

    /// Only PartitionKeys from `first` to `last` (inclusive). A query answers only the
    /// entities in range; a point read outside it is refused.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # use chrono::{Duration, Utc};
    /// # use tablekit::client::{Credential, TableServiceClient};
    /// # use tablekit::DynamicEntity;
    /// # use tablekit_testing::{Emulator, TableSas};
    /// # let emulator = Emulator::start().await?;
    /// # emulator.create_table("Gamers")?;
    /// emulator.seed("Gamers", [DynamicEntity::new("a", "1"), DynamicEntity::new("z", "1")])?;
    /// let expiry = Utc::now() + Duration::hours(1);
    /// let token = emulator.sas(&TableSas::new("Gamers", "r", expiry).partitions("a", "m"));
    /// # let client = TableServiceClient::builder()
    /// #     .endpoint(&emulator.endpoint())
    /// #     .credential(Credential::sas(&token)?)
    /// #     .build()?;
    /// # let table = client.table_named::<DynamicEntity>("Gamers");
    /// assert_eq!(table.query_all().collect_all().await?.len(), 1);
    /// assert_eq!(table.get("z", "1").await.unwrap_err().status(), Some(403));
    /// # Ok(()) }
    /// ```
    pub fn partitions(mut self, first: &str, last: &str) -> Self {
        self.start_pk = Some(first.to_owned());
        self.end_pk = Some(last.to_owned());
        self
    }

    /// Only RowKeys from `first` (in the first partition) to `last` (in the last partition).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # use chrono::{Duration, Utc};
    /// # use tablekit::client::{Credential, TableServiceClient};
    /// # use tablekit::DynamicEntity;
    /// # use tablekit_testing::{Emulator, TableSas};
    /// # let emulator = Emulator::start().await?;
    /// # emulator.create_table("Gamers")?;
    /// emulator.seed("Gamers", ["1", "5", "9"].map(|rk| DynamicEntity::new("p", rk)))?;
    /// let expiry = Utc::now() + Duration::hours(1);
    /// let sas = TableSas::new("Gamers", "r", expiry).partitions("p", "p").rows("2", "8");
    /// let token = emulator.sas(&sas);
    /// # let client = TableServiceClient::builder()
    /// #     .endpoint(&emulator.endpoint())
    /// #     .credential(Credential::sas(&token)?)
    /// #     .build()?;
    /// # let table = client.table_named::<DynamicEntity>("Gamers");
    /// assert!(table.get("p", "5").await?.is_some());
    /// assert_eq!(table.get("p", "9").await.unwrap_err().status(), Some(403));
    /// # Ok(()) }
    /// ```
    pub fn rows(mut self, first: &str, last: &str) -> Self {
        self.start_rk = Some(first.to_owned());
        self.end_rk = Some(last.to_owned());
        self
    }

    /// The signed query string (without a leading `?`), to append to request URLs.
    ///
    /// Signed with the account's key, it is the token [`Emulator::sas`](crate::Emulator::sas)
    /// issues:
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use chrono::DateTime;
    /// use tablekit::auth::AccountKey;
    /// use tablekit_testing::{Emulator, TableSas, DEV_ACCOUNT, DEV_KEY};
    /// let expiry = DateTime::from_timestamp(1_893_456_000, 0).unwrap(); // 2030-01-01
    /// let sas = TableSas::new("Gamers", "r", expiry);
    /// let token = sas.sign(DEV_ACCOUNT, &AccountKey::from_base64(DEV_KEY)?);
    /// let fields = "sv=2019%2D02%2D02&tn=Gamers&sp=r&se=2030%2D01%2D01T00%3A00%3A00Z&sig=";
    /// assert!(token.starts_with(fields));
    /// assert_eq!(token, Emulator::start().await?.sas(&sas));
    /// # Ok(()) }
    /// ```
    pub fn sign(&self, account: &str, key: &AccountKey) -> String {
        let fields = SignedFields {
            permissions: self.permissions.clone(),
            start: self.start.map(sas_time).unwrap_or_default(),
            expiry: sas_time(self.expiry),
            table: self.table.clone(),
            version: SAS_VERSION.to_owned(),
            start_pk: self.start_pk.clone().unwrap_or_default(),
            start_rk: self.start_rk.clone().unwrap_or_default(),
            end_pk: self.end_pk.clone().unwrap_or_default(),
            end_rk: self.end_rk.clone().unwrap_or_default(),
            identifier: String::new(),
            ip: String::new(),
            protocol: String::new(),
        };
        let sig = key.sign(&fields.string_to_sign(account));
        let mut pairs = vec![
            ("sv", fields.version.as_str()),
            ("tn", fields.table.as_str()),
            ("sp", fields.permissions.as_str()),
            ("se", fields.expiry.as_str()),
        ];
        for (name, value) in [
            ("st", &fields.start),
            ("spk", &fields.start_pk),
            ("srk", &fields.start_rk),
            ("epk", &fields.end_pk),
            ("erk", &fields.end_rk),
        ] {
            if !value.is_empty() {
                pairs.push((name, value.as_str()));
            }
        }
        pairs.push(("sig", sig.as_str()));
        pairs
            .iter()
            .map(|(k, v)| format!("{k}={}", utf8_percent_encode(v, NON_ALPHANUMERIC)))
            .collect::<Vec<_>>()
            .join("&")
    }
}

fn sas_time(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// The signed fields of a token, in the order the service signs them.
struct SignedFields {
    permissions: String,
    start: String,
    expiry: String,
    table: String,
    identifier: String,
    ip: String,
    protocol: String,
    version: String,
    start_pk: String,
    start_rk: String,
    end_pk: String,
    end_rk: String,
}

impl SignedFields {
    fn string_to_sign(&self, account: &str) -> String {
        [
            self.permissions.as_str(),
            &self.start,
            &self.expiry,
            &format!("/table/{account}/{}", self.table.to_ascii_lowercase()),
            &self.identifier,
            &self.ip,
            &self.protocol,
            &self.version,
            &self.start_pk,
            &self.start_rk,
            &self.end_pk,
            &self.end_rk,
        ]
        .join("\n")
    }
}

/// What a verified token allows.
#[derive(Clone)]
pub(crate) struct SasGrant {
    table: String,
    permissions: String,
    start_pk: Option<String>,
    start_rk: Option<String>,
    end_pk: Option<String>,
    end_rk: Option<String>,
}

impl fmt::Debug for SasGrant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SasGrant")
            .field("table", &self.table)
            .field("permissions", &self.permissions)
            .finish_non_exhaustive()
    }
}

/// Whether the query string carries a SAS (`sig=`).
pub(crate) fn is_sas(params: &HashMap<String, String>) -> bool {
    params.contains_key("sig")
}

/// Verifies the token in `params` for `account`.
pub(crate) fn verify(
    params: &HashMap<String, String>,
    account: &str,
    key: &AccountKey,
) -> Result<SasGrant, ServiceError> {
    let get = |name: &str| params.get(name).cloned().unwrap_or_default();
    let fields = SignedFields {
        permissions: get("sp"),
        start: get("st"),
        expiry: get("se"),
        table: get("tn"),
        identifier: get("si"),
        ip: get("sip"),
        protocol: get("spr"),
        version: get("sv"),
        start_pk: get("spk"),
        start_rk: get("srk"),
        end_pk: get("epk"),
        end_rk: get("erk"),
    };
    if !key.verify(&fields.string_to_sign(account), &get("sig")) {
        return Err(ServiceError::authentication_failed(
            "Signature did not match.",
        ));
    }
    let now = Utc::now();
    let expiry = parse_time(&fields.expiry)?;
    if now > expiry {
        return Err(ServiceError::authentication_failed(
            "Signed expiry time has passed.",
        ));
    }
    if !fields.start.is_empty() && now < parse_time(&fields.start)? {
        return Err(ServiceError::authentication_failed(
            "Signed start time is in the future.",
        ));
    }
    let some = |s: String| (!s.is_empty()).then_some(s);
    Ok(SasGrant {
        table: fields.table,
        permissions: fields.permissions,
        start_pk: some(fields.start_pk),
        start_rk: some(fields.start_rk),
        end_pk: some(fields.end_pk),
        end_rk: some(fields.end_rk),
    })
}

fn parse_time(text: &str) -> Result<DateTime<Utc>, ServiceError> {
    DateTime::parse_from_rfc3339(text)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|_| ServiceError::authentication_failed("Signed time is not ISO 8601."))
}

impl SasGrant {
    /// Whether the token is for `table` (names are case-insensitive).
    pub(crate) fn check_table(&self, table: &str) -> Result<(), ServiceError> {
        if self.table.eq_ignore_ascii_case(table) {
            Ok(())
        } else {
            Err(ServiceError::authorization_mismatch(
                "The token is for another table.",
            ))
        }
    }

    /// Whether the token grants every permission letter in `needed`.
    pub(crate) fn check_permissions(&self, needed: &str) -> Result<(), ServiceError> {
        if needed.chars().all(|c| self.permissions.contains(c)) {
            Ok(())
        } else {
            Err(ServiceError::authorization_mismatch(
                "The token lacks a permission this operation needs.",
            ))
        }
    }

    /// Whether the entity's keys fall in the token's key range.
    pub(crate) fn allows_keys(&self, pk: &str, rk: &str) -> bool {
        use std::cmp::Ordering::*;
        let after_start = match &self.start_pk {
            None => true,
            Some(spk) => match utf16_cmp(pk, spk) {
                Greater => true,
                Less => false,
                Equal => self
                    .start_rk
                    .as_deref()
                    .is_none_or(|srk| utf16_cmp(rk, srk) != Less),
            },
        };
        let before_end = match &self.end_pk {
            None => true,
            Some(epk) => match utf16_cmp(pk, epk) {
                Less => true,
                Greater => false,
                Equal => self
                    .end_rk
                    .as_deref()
                    .is_none_or(|erk| utf16_cmp(rk, erk) != Greater),
            },
        };
        after_start && before_end
    }

    /// Like [`allows_keys`](Self::allows_keys), as a 403 for point operations.
    pub(crate) fn check_keys(&self, pk: &str, rk: &str) -> Result<(), ServiceError> {
        if self.allows_keys(pk, rk) {
            Ok(())
        } else {
            Err(ServiceError::authorization_mismatch(
                "The entity is outside the token's key range.",
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Duration;

    fn params(token: &str) -> HashMap<String, String> {
        token
            .split('&')
            .filter_map(|pair| pair.split_once('='))
            .map(|(k, v)| {
                (
                    k.to_owned(),
                    percent_encoding::percent_decode_str(v)
                        .decode_utf8_lossy()
                        .into_owned(),
                )
            })
            .collect()
    }

    #[test]
    fn issued_tokens_verify_and_tampered_ones_do_not() {
        let key = AccountKey::from_base64("a2V5").unwrap();
        let token = TableSas::new("T", "r", Utc::now() + Duration::hours(1)).sign("acct", &key);
        let grant = verify(&params(&token), "acct", &key).unwrap();
        assert!(grant.check_table("t").is_ok());
        assert!(grant.check_permissions("r").is_ok());
        assert!(grant.check_permissions("a").is_err());
        let tampered = token.replace("sp=r", "sp=raud");
        assert!(verify(&params(&tampered), "acct", &key).is_err());
        assert!(verify(&params(&token), "other", &key).is_err());
    }

    #[test]
    fn expired_and_future_tokens_fail() {
        let key = AccountKey::from_base64("a2V5").unwrap();
        let expired = TableSas::new("T", "r", Utc::now() - Duration::minutes(1)).sign("a", &key);
        assert!(verify(&params(&expired), "a", &key).is_err());
        let future = TableSas::new("T", "r", Utc::now() + Duration::hours(2))
            .start(Utc::now() + Duration::hours(1))
            .sign("a", &key);
        assert!(verify(&params(&future), "a", &key).is_err());
    }

    #[test]
    fn key_ranges_are_inclusive_tuples() {
        let key = AccountKey::from_base64("a2V5").unwrap();
        let token = TableSas::new("T", "r", Utc::now() + Duration::hours(1))
            .partitions("b", "d")
            .rows("5", "5")
            .sign("a", &key);
        let grant = verify(&params(&token), "a", &key).unwrap();
        assert!(!grant.allows_keys("b", "4"));
        assert!(grant.allows_keys("b", "5"));
        assert!(grant.allows_keys("c", "0"));
        assert!(grant.allows_keys("d", "5"));
        assert!(!grant.allows_keys("d", "6"));
        assert!(!grant.allows_keys("e", ""));
    }
}
