//! Shared access signatures: [`TableSas`] for one table, [`AccountSas`] for the account.
//!
//! A token is the query string of signed fields and `sig`, the HMAC-SHA256 of the service's
//! string-to-sign under the account key. Tokens are written as the Azure SDK for Python
//! (azure-data-tables 12.7.0) writes them, field for field and byte for byte, signed for
//! service version [`SAS_VERSION`]. [`SignedTableFields`] and [`SignedAccountFields`] hold the
//! strings-to-sign, so a server verifying tokens signs exactly as the client does.
//!
//! ```
//! use chrono::{Duration, Utc};
//! use tablekit::auth::AccountKey;
//! use tablekit::client::{Credential, DEVELOPMENT_KEY};
//! use tablekit::sas::{TablePermissions, TableSas};
//! let key = AccountKey::from_base64(DEVELOPMENT_KEY)?;
//! let read = TableSas::new("Gamers", TablePermissions::QUERY, Utc::now() + Duration::hours(1));
//! let token = read.sign("devstoreaccount1", &key)?;
//! assert!(token.as_str().contains("&sp=r&sv=2019-02-02&tn=Gamers&sig="));
//! assert_eq!(format!("{token:?}"), "SasToken(<redacted>)");
//! let credential = Credential::from(token);
//! assert_eq!(format!("{credential:?}"), "Credential::Sas(<redacted>)");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;
use std::net::IpAddr;
use std::ops::BitOr;

use chrono::{DateTime, SecondsFormat, Utc};
use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

use crate::protocol::auth::AccountKey;

/// The service version tokens are signed for (`sv`), as the Azure SDKs sign them.
pub const SAS_VERSION: &str = "2019-02-02";

/// Longest stored access policy identifier, in characters.
pub const MAX_IDENTIFIER_CHARS: usize = 64;

/// What a token's values keep unescaped: letters, digits and `_.-~/` (Python's `quote`).
const VALUE: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'_')
    .remove(b'.')
    .remove(b'-')
    .remove(b'~')
    .remove(b'/');

/// Declares a set of permission letters, written in the service's order.
macro_rules! letter_set {
    ($(#[$doc:meta])* $name:ident { $($(#[$cdoc:meta])* $flag:ident = $letter:literal, $bit:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
        pub struct $name(u8);

        impl $name {
            $($(#[$cdoc])* pub const $flag: $name = $name(1 << $bit);)+

            /// The letters in canonical order, each with its flag.
            const LETTERS: &'static [(char, $name)] = &[$(($letter, $name::$flag)),+];

            /// The empty set.
            pub const fn empty() -> Self {
                $name(0)
            }

            /// Whether every member of `other` is in this set.
            pub const fn contains(self, other: Self) -> bool {
                self.0 & other.0 == other.0
            }

            /// Whether the sets share a member.
            pub const fn intersects(self, other: Self) -> bool {
                self.0 & other.0 != 0
            }

            /// Whether the set is empty.
            pub const fn is_empty(self) -> bool {
                self.0 == 0
            }

            /// The letters as the service writes them, in its order.
            pub fn letters(self) -> String {
                Self::LETTERS
                    .iter()
                    .filter(|(_, flag)| self.contains(*flag))
                    .map(|(letter, _)| *letter)
                    .collect()
            }

            /// The set `letters` spell, in any order; `None` when one is not a member.
            pub fn from_letters(letters: &str) -> Option<Self> {
                letters.chars().try_fold($name(0), |set, c| {
                    Self::LETTERS
                        .iter()
                        .find(|(letter, _)| *letter == c)
                        .map(|(_, flag)| set | *flag)
                })
            }
        }

        impl BitOr for $name {
            type Output = $name;

            fn bitor(self, other: $name) -> $name {
                $name(self.0 | other.0)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}({:?})", stringify!($name), self.letters())
            }
        }
    };
}

letter_set! {
    /// What a table SAS allows: `r` query and read, `a` add, `u` update, `d` delete.
    ///
    /// ```
    /// use tablekit::sas::TablePermissions;
    /// let p = TablePermissions::DELETE | TablePermissions::QUERY;
    /// assert_eq!(p.letters(), "rd"); // always in the service's order
    /// assert_eq!(TablePermissions::from_letters("dr"), Some(p));
    /// assert_eq!(TablePermissions::from_letters("rx"), None);
    /// assert!(TablePermissions::ALL.contains(p));
    /// ```
    TablePermissions {
        /// `r`: query entities and read one.
        QUERY = 'r', 0,
        /// `a`: insert entities (and the insert half of upserts).
        ADD = 'a', 1,
        /// `u`: update and merge entities (and the update half of upserts).
        UPDATE = 'u', 2,
        /// `d`: delete entities.
        DELETE = 'd', 3,
    }
}

impl TablePermissions {
    /// Every table permission, `raud`.
    pub const ALL: TablePermissions = TablePermissions(0b1111);
}

letter_set! {
    /// What an account SAS allows (`sp`): `r` read, `w` write, `d` delete, `l` list, `a` add,
    /// `c` create, `u` update, `p` process.
    ///
    /// ```
    /// use tablekit::sas::AccountPermissions;
    /// let p = AccountPermissions::from_letters("lcr").unwrap();
    /// assert_eq!(p.letters(), "rlc");
    /// assert!(p.contains(AccountPermissions::LIST));
    /// ```
    AccountPermissions {
        /// `r`: read (query entities, get service properties and statistics).
        READ = 'r', 0,
        /// `w`: write (insert, replace and merge entities, set service properties). No
        /// account SAS reaches a table's ACL: only the account key sets or reads it.
        WRITE = 'w', 1,
        /// `d`: delete tables and entities.
        DELETE = 'd', 2,
        /// `l`: list tables.
        LIST = 'l', 3,
        /// `a`: add entities.
        ADD = 'a', 4,
        /// `c`: create tables.
        CREATE = 'c', 5,
        /// `u`: update entities.
        UPDATE = 'u', 6,
        /// `p`: process (queue messages; no table operation).
        PROCESS = 'p', 7,
    }
}

letter_set! {
    /// The services an account SAS is for (`ss`): `b` blob, `q` queue, `t` table, `f` file.
    ///
    /// ```
    /// use tablekit::sas::Services;
    /// assert_eq!((Services::TABLE | Services::BLOB).letters(), "bt");
    /// ```
    Services {
        /// `b`: the blob service.
        BLOB = 'b', 0,
        /// `q`: the queue service.
        QUEUE = 'q', 1,
        /// `t`: the table service.
        TABLE = 't', 2,
        /// `f`: the file service.
        FILE = 'f', 3,
    }
}

letter_set! {
    /// The resource types an account SAS reaches (`srt`): `s` the service, `c` containers
    /// (tables), `o` objects (entities).
    ///
    /// ```
    /// use tablekit::sas::ResourceTypes;
    /// let all = ResourceTypes::OBJECT | ResourceTypes::SERVICE | ResourceTypes::CONTAINER;
    /// assert_eq!(all.letters(), "sco");
    /// ```
    ResourceTypes {
        /// `s`: service-level operations (properties, statistics).
        SERVICE = 's', 0,
        /// `c`: containers, for the table service its tables.
        CONTAINER = 'c', 1,
        /// `o`: objects, for the table service its entities.
        OBJECT = 'o', 2,
    }
}

/// Which protocols a token may be used over (`spr`).
///
/// ```
/// use tablekit::sas::SasProtocol;
/// assert_eq!(SasProtocol::HttpsOnly.as_str(), "https");
/// assert_eq!(SasProtocol::from_value("https,http"), Some(SasProtocol::HttpsOrHttp));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SasProtocol {
    /// `https`: refused over plain http.
    HttpsOnly,
    /// `https,http`: either.
    HttpsOrHttp,
}

impl SasProtocol {
    /// The value as the token writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            SasProtocol::HttpsOnly => "https",
            SasProtocol::HttpsOrHttp => "https,http",
        }
    }

    /// The protocol a token's `spr` value names, `None` for anything else.
    pub fn from_value(value: &str) -> Option<Self> {
        match value {
            "https" => Some(SasProtocol::HttpsOnly),
            "https,http" => Some(SasProtocol::HttpsOrHttp),
            _ => None,
        }
    }
}

/// A token that cannot be signed as asked: named before anything is sent.
///
/// ```
/// use chrono::{Duration, Utc};
/// use tablekit::auth::AccountKey;
/// use tablekit::sas::{SasError, TablePermissions, TableSas};
/// let key = AccountKey::from_base64("a2V5")?;
/// let soon = Utc::now() + Duration::hours(1);
/// let err = TableSas::new("Gamers", TablePermissions::empty(), soon).sign("acct", &key);
/// assert_eq!(err.unwrap_err(), SasError::NoPermissions);
/// let long = "p".repeat(65);
/// let err = TableSas::with_policy("Gamers", &long).sign("acct", &key).unwrap_err();
/// assert_eq!(err.to_string(), "a stored access policy identifier (`si`) is 1 to 64 characters, not 65");
/// # Ok::<(), tablekit::auth::InvalidKey>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SasError {
    /// The table name breaks the service's naming rules.
    #[error("the table name `{0}` is not valid")]
    TableName(String),
    /// Without a stored access policy, a token needs permissions.
    #[error("a SAS without a stored access policy (`si`) needs at least one permission (`sp`)")]
    NoPermissions,
    /// Without a stored access policy, a token needs an expiry.
    #[error("a SAS without a stored access policy (`si`) needs an expiry (`se`)")]
    NoExpiry,
    /// The identifier is empty or longer than [`MAX_IDENTIFIER_CHARS`].
    #[error("a stored access policy identifier (`si`) is 1 to 64 characters, not {0}")]
    IdentifierLength(usize),
    /// The token would expire before it starts.
    #[error("the SAS start (`st`) is after its expiry (`se`)")]
    StartAfterExpiry,
    /// A RowKey range needs a PartitionKey range to belong to.
    #[error("a RowKey range (`srk`, `erk`) needs a PartitionKey range (`spk`, `epk`)")]
    RowsWithoutPartitions,
    /// An IP range whose first address is after its last, or mixes IPv4 and IPv6.
    #[error("the IP range (`sip`) `{0}` is not a range")]
    IpRange(String),
    /// An account SAS for no service or no resource type.
    #[error("an account SAS needs at least one service (`ss`) and resource type (`srt`)")]
    NoScope,
}

/// A signed token: the query string without `?`. Its `Debug` form never shows it, and it has
/// no `Display`: write it out only on purpose, with [`as_str`](Self::as_str).
///
/// ```
/// use chrono::{Duration, Utc};
/// use tablekit::auth::AccountKey;
/// use tablekit::sas::{TablePermissions, TableSas};
/// let key = AccountKey::from_base64("a2V5")?;
/// let token = TableSas::new("Gamers", TablePermissions::ALL, Utc::now() + Duration::hours(1))
///     .sign("acct", &key)?;
/// assert!(token.as_str().contains("&sig="));
/// assert!(!format!("{token:?}").contains("sig"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct SasToken(String);

impl SasToken {
    /// The query string, without a leading `?`.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The query string as an owned `String`.
    pub fn into_string(self) -> String {
        self.0
    }
}

impl fmt::Debug for SasToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SasToken(<redacted>)")
    }
}

/// A SAS time: seconds, UTC, `Z` (`2030-01-01T00:00:00Z`).
fn sas_time(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// `sip`: one address or `first-last`.
fn ip_value(first: IpAddr, last: Option<IpAddr>) -> Result<String, SasError> {
    match last {
        None => Ok(first.to_string()),
        Some(last) => {
            let text = format!("{first}-{last}");
            if first.is_ipv4() != last.is_ipv4() || first > last {
                return Err(SasError::IpRange(text));
            }
            Ok(text)
        }
    }
}

/// The token's query string from (name, value) pairs, leaving out empty values.
fn query(pairs: &[(&str, &str)]) -> SasToken {
    let text = pairs
        .iter()
        .filter(|(_, value)| !value.is_empty())
        .map(|(name, value)| format!("{name}={}", utf8_percent_encode(value, VALUE)))
        .collect::<Vec<_>>()
        .join("&");
    SasToken(text)
}

/// The fields a table SAS signs, as its query string holds them (decoded), empty when absent.
///
/// ```
/// use tablekit::sas::{SignedTableFields, SAS_VERSION};
/// let fields = SignedTableFields {
///     permissions: "r",
///     expiry: "2030-01-01T00:00:00Z",
///     table: "Gamers",
///     version: SAS_VERSION,
///     ..SignedTableFields::default()
/// };
/// assert_eq!(
///     fields.string_to_sign("acct"),
///     "r\n\n2030-01-01T00:00:00Z\n/table/acct/gamers\n\n\n\n2019-02-02\n\n\n\n"
/// );
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SignedTableFields<'a> {
    /// `sp`.
    pub permissions: &'a str,
    /// `st`.
    pub start: &'a str,
    /// `se`.
    pub expiry: &'a str,
    /// `tn`.
    pub table: &'a str,
    /// `si`.
    pub identifier: &'a str,
    /// `sip`.
    pub ip: &'a str,
    /// `spr`.
    pub protocol: &'a str,
    /// `sv`.
    pub version: &'a str,
    /// `spk`.
    pub start_pk: &'a str,
    /// `srk`.
    pub start_rk: &'a str,
    /// `epk`.
    pub end_pk: &'a str,
    /// `erk`.
    pub end_rk: &'a str,
}

impl SignedTableFields<'_> {
    /// The string a table SAS signs for `account` (the table name signed in lowercase).
    pub fn string_to_sign(&self, account: &str) -> String {
        let resource = format!("/table/{account}/{}", self.table.to_ascii_lowercase());
        [
            self.permissions,
            self.start,
            self.expiry,
            &resource,
            self.identifier,
            self.ip,
            self.protocol,
            self.version,
            self.start_pk,
            self.start_rk,
            self.end_pk,
            self.end_rk,
        ]
        .join("\n")
    }
}

/// The fields an account SAS signs, as its query string holds them (decoded).
///
/// ```
/// use tablekit::sas::{SignedAccountFields, SAS_VERSION};
/// let fields = SignedAccountFields {
///     permissions: "rl",
///     services: "t",
///     resource_types: "sco",
///     expiry: "2030-01-01T00:00:00Z",
///     version: SAS_VERSION,
///     ..SignedAccountFields::default()
/// };
/// assert_eq!(
///     fields.string_to_sign("acct"),
///     "acct\nrl\nt\nsco\n\n2030-01-01T00:00:00Z\n\n\n2019-02-02\n"
/// );
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SignedAccountFields<'a> {
    /// `sp`.
    pub permissions: &'a str,
    /// `ss`.
    pub services: &'a str,
    /// `srt`.
    pub resource_types: &'a str,
    /// `st`.
    pub start: &'a str,
    /// `se`.
    pub expiry: &'a str,
    /// `sip`.
    pub ip: &'a str,
    /// `spr`.
    pub protocol: &'a str,
    /// `sv`.
    pub version: &'a str,
}

impl SignedAccountFields<'_> {
    /// The string an account SAS signs for `account` (each field ends with a newline).
    pub fn string_to_sign(&self, account: &str) -> String {
        [
            account,
            self.permissions,
            self.services,
            self.resource_types,
            self.start,
            self.expiry,
            self.ip,
            self.protocol,
            self.version,
            "",
        ]
        .join("\n")
    }
}

/// A table SAS to sign: the table; permissions and expiry, or a stored access policy that
/// holds them; and optionally a start, key ranges, an IP address or range, and a protocol.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use chrono::{Duration, Utc};
/// use tablekit::auth::AccountKey;
/// use tablekit::client::{Credential, TableServiceClient, DEVELOPMENT_KEY};
/// use tablekit::sas::{TablePermissions, TableSas};
/// use tablekit::DynamicEntity;
/// # let emulator = tablekit_testing::Emulator::start().await?;
/// # emulator.create_table("Gamers")?;
/// # emulator.seed("Gamers", [DynamicEntity::new("a", "1"), DynamicEntity::new("z", "1")])?;
/// let key = AccountKey::from_base64(DEVELOPMENT_KEY)?;
/// let token = TableSas::new("Gamers", TablePermissions::QUERY, Utc::now() + Duration::hours(1))
///     .partitions("a", "m")
///     .sign("devstoreaccount1", &key)?;
/// let client = TableServiceClient::builder()
///     .endpoint(&emulator.endpoint())
///     .credential(Credential::from(token))
///     .build()?;
/// let table = client.table_named::<DynamicEntity>("Gamers");
/// assert_eq!(table.query_all().collect_all().await?.len(), 1); // only partitions a to m
/// assert_eq!(table.get("z", "1").await.unwrap_err().status(), Some(403));
/// let err = table.insert(&mut DynamicEntity::new("b", "2")).await.unwrap_err();
/// assert_eq!(err.status(), Some(403)); // query only
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct TableSas {
    table: String,
    permissions: Option<TablePermissions>,
    start: Option<DateTime<Utc>>,
    expiry: Option<DateTime<Utc>>,
    identifier: Option<String>,
    ip: Option<(IpAddr, Option<IpAddr>)>,
    protocol: Option<SasProtocol>,
    partitions: Option<(String, String)>,
    rows: Option<(String, String)>,
}

impl TableSas {
    /// A token for `table` with `permissions`, valid until `expiry`.
    pub fn new(table: &str, permissions: TablePermissions, expiry: DateTime<Utc>) -> Self {
        TableSas {
            permissions: Some(permissions),
            expiry: Some(expiry),
            ..TableSas::with_policy(table, "")
        }
    }

    /// A token for `table` whose permissions and times come from the table's stored access
    /// policy `identifier` (see `Table::set_access_policies`).
    ///
    /// ```
    /// use tablekit::auth::AccountKey;
    /// use tablekit::sas::TableSas;
    /// let key = AccountKey::from_base64("a2V5")?;
    /// let token = TableSas::with_policy("Gamers", "readers").sign("acct", &key)?;
    /// assert!(token.as_str().starts_with("sv=2019-02-02&si=readers&tn=Gamers&sig="));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_policy(table: &str, identifier: &str) -> Self {
        TableSas {
            table: table.to_owned(),
            permissions: None,
            start: None,
            expiry: None,
            identifier: Some(identifier.to_owned()),
            ip: None,
            protocol: None,
            partitions: None,
            rows: None,
        }
    }

    /// Refers to the stored access policy `identifier` as well.
    pub fn policy(mut self, identifier: &str) -> Self {
        self.identifier = Some(identifier.to_owned());
        self
    }

    /// Sets the permissions (where the stored access policy holds none).
    pub fn permissions(mut self, permissions: TablePermissions) -> Self {
        self.permissions = Some(permissions);
        self
    }

    /// Sets the expiry (where the stored access policy holds none).
    pub fn expiry(mut self, expiry: DateTime<Utc>) -> Self {
        self.expiry = Some(expiry);
        self
    }

    /// Not valid before `start`.
    pub fn start(mut self, start: DateTime<Utc>) -> Self {
        self.start = Some(start);
        self
    }

    /// Only PartitionKeys from `first` to `last` (inclusive).
    pub fn partitions(mut self, first: &str, last: &str) -> Self {
        self.partitions = Some((first.to_owned(), last.to_owned()));
        self
    }

    /// Only RowKeys from `first` (in the first partition) to `last` (in the last partition).
    pub fn rows(mut self, first: &str, last: &str) -> Self {
        self.rows = Some((first.to_owned(), last.to_owned()));
        self
    }

    /// Only requests from `address`.
    pub fn ip(mut self, address: IpAddr) -> Self {
        self.ip = Some((address, None));
        self
    }

    /// Only requests from addresses `first` to `last` (inclusive).
    pub fn ip_range(mut self, first: IpAddr, last: IpAddr) -> Self {
        self.ip = Some((first, Some(last)));
        self
    }

    /// Only over `protocol`.
    pub fn protocol(mut self, protocol: SasProtocol) -> Self {
        self.protocol = Some(protocol);
        self
    }

    /// Signs the token for `account` with its `key`; [`SasError`] when it cannot be valid.
    pub fn sign(&self, account: &str, key: &AccountKey) -> Result<SasToken, SasError> {
        crate::protocol::limits::validate_table_name(&self.table)
            .map_err(|_| SasError::TableName(self.table.clone()))?;
        let identifier = self.identifier.as_deref().unwrap_or_default();
        check_identifier(identifier)?;
        if identifier.is_empty() {
            match (self.permissions, self.expiry) {
                (None, _) => return Err(SasError::NoPermissions),
                (Some(p), _) if p.is_empty() => return Err(SasError::NoPermissions),
                (_, None) => return Err(SasError::NoExpiry),
                _ => {}
            }
        }
        if let (Some(start), Some(expiry)) = (self.start, self.expiry) {
            if start > expiry {
                return Err(SasError::StartAfterExpiry);
            }
        }
        if self.rows.is_some() && self.partitions.is_none() {
            return Err(SasError::RowsWithoutPartitions);
        }
        let permissions = self.permissions.map(|p| p.letters()).unwrap_or_default();
        let start = self.start.map(sas_time).unwrap_or_default();
        let expiry = self.expiry.map(sas_time).unwrap_or_default();
        let ip = self
            .ip
            .map(|(first, last)| ip_value(first, last))
            .transpose()?
            .unwrap_or_default();
        let (start_pk, end_pk) = self.partitions.clone().unwrap_or_default();
        let (start_rk, end_rk) = self.rows.clone().unwrap_or_default();
        let fields = SignedTableFields {
            permissions: &permissions,
            start: &start,
            expiry: &expiry,
            table: &self.table,
            identifier,
            ip: &ip,
            protocol: self.protocol.map_or("", SasProtocol::as_str),
            version: SAS_VERSION,
            start_pk: &start_pk,
            start_rk: &start_rk,
            end_pk: &end_pk,
            end_rk: &end_rk,
        };
        let sig = key.sign(&fields.string_to_sign(account));
        Ok(query(&[
            ("st", fields.start),
            ("se", fields.expiry),
            ("sp", fields.permissions),
            ("sip", fields.ip),
            ("spr", fields.protocol),
            ("sv", fields.version),
            ("si", fields.identifier),
            ("tn", fields.table),
            ("spk", fields.start_pk),
            ("srk", fields.start_rk),
            ("epk", fields.end_pk),
            ("erk", fields.end_rk),
            ("sig", &sig),
        ]))
    }
}

/// An identifier given at all is 1 to 64 characters.
fn check_identifier(identifier: &str) -> Result<(), SasError> {
    let chars = identifier.chars().count();
    if chars > MAX_IDENTIFIER_CHARS {
        return Err(SasError::IdentifierLength(chars));
    }
    Ok(())
}

/// An account SAS to sign: services (the table service unless told), resource types,
/// permissions, expiry, and optionally a start, an IP address or range, and a protocol.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use chrono::{Duration, Utc};
/// use tablekit::auth::AccountKey;
/// use tablekit::client::{Credential, TableServiceClient, DEVELOPMENT_KEY};
/// use tablekit::sas::{AccountPermissions, AccountSas, ResourceTypes};
/// # let emulator = tablekit_testing::Emulator::start().await?;
/// let key = AccountKey::from_base64(DEVELOPMENT_KEY)?;
/// let tables = AccountSas::new(
///     ResourceTypes::CONTAINER,
///     AccountPermissions::CREATE | AccountPermissions::LIST,
///     Utc::now() + Duration::hours(1),
/// );
/// let client = TableServiceClient::builder()
///     .endpoint(&emulator.endpoint())
///     .credential(Credential::from(tables.sign("devstoreaccount1", &key)?))
///     .build()?;
/// client.create_table("Gamers").await?;
/// assert!(client.table_exists("Gamers").await?);
/// assert_eq!(client.delete_table("Gamers").await.unwrap_err().status(), Some(403)); // no `d`
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct AccountSas {
    services: Services,
    resource_types: ResourceTypes,
    permissions: AccountPermissions,
    start: Option<DateTime<Utc>>,
    expiry: DateTime<Utc>,
    ip: Option<(IpAddr, Option<IpAddr>)>,
    protocol: Option<SasProtocol>,
}

impl AccountSas {
    /// A token for the table service's `resource_types` with `permissions` until `expiry`.
    pub fn new(
        resource_types: ResourceTypes,
        permissions: AccountPermissions,
        expiry: DateTime<Utc>,
    ) -> Self {
        AccountSas {
            services: Services::TABLE,
            resource_types,
            permissions,
            start: None,
            expiry,
            ip: None,
            protocol: None,
        }
    }

    /// For these services instead of the table service alone.
    pub fn services(mut self, services: Services) -> Self {
        self.services = services;
        self
    }

    /// Not valid before `start`.
    pub fn start(mut self, start: DateTime<Utc>) -> Self {
        self.start = Some(start);
        self
    }

    /// Only requests from `address`.
    pub fn ip(mut self, address: IpAddr) -> Self {
        self.ip = Some((address, None));
        self
    }

    /// Only requests from addresses `first` to `last` (inclusive).
    pub fn ip_range(mut self, first: IpAddr, last: IpAddr) -> Self {
        self.ip = Some((first, Some(last)));
        self
    }

    /// Only over `protocol`.
    pub fn protocol(mut self, protocol: SasProtocol) -> Self {
        self.protocol = Some(protocol);
        self
    }

    /// Signs the token for `account` with its `key`; [`SasError`] when it cannot be valid.
    pub fn sign(&self, account: &str, key: &AccountKey) -> Result<SasToken, SasError> {
        if self.services.is_empty() || self.resource_types.is_empty() {
            return Err(SasError::NoScope);
        }
        if self.permissions.is_empty() {
            return Err(SasError::NoPermissions);
        }
        if self.start.is_some_and(|start| start > self.expiry) {
            return Err(SasError::StartAfterExpiry);
        }
        let permissions = self.permissions.letters();
        let services = self.services.letters();
        let resource_types = self.resource_types.letters();
        let start = self.start.map(sas_time).unwrap_or_default();
        let expiry = sas_time(self.expiry);
        let ip = self
            .ip
            .map(|(first, last)| ip_value(first, last))
            .transpose()?
            .unwrap_or_default();
        let fields = SignedAccountFields {
            permissions: &permissions,
            services: &services,
            resource_types: &resource_types,
            start: &start,
            expiry: &expiry,
            ip: &ip,
            protocol: self.protocol.map_or("", SasProtocol::as_str),
            version: SAS_VERSION,
        };
        let sig = key.sign(&fields.string_to_sign(account));
        Ok(query(&[
            ("st", fields.start),
            ("se", fields.expiry),
            ("sp", fields.permissions),
            ("sip", fields.ip),
            ("spr", fields.protocol),
            ("sv", fields.version),
            ("ss", fields.services),
            ("srt", fields.resource_types),
            ("sig", &sig),
        ]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Duration;

    fn key() -> AccountKey {
        AccountKey::from_base64("a2V5").unwrap()
    }

    #[test]
    fn impossible_tokens_are_named_before_signing() {
        let now = Utc::now();
        let later = now + Duration::hours(1);
        let read = || TableSas::new("Gamers", TablePermissions::QUERY, later);
        let sign = |sas: TableSas| sas.sign("acct", &key()).unwrap_err();
        assert_eq!(
            sign(TableSas::new("1st", TablePermissions::QUERY, later)),
            SasError::TableName("1st".into())
        );
        assert_eq!(
            sign(read().start(later + Duration::hours(1))),
            SasError::StartAfterExpiry
        );
        assert_eq!(sign(read().rows("a", "b")), SasError::RowsWithoutPartitions);
        let v4 = IpAddr::from([10, 0, 0, 9]);
        let v6 = IpAddr::from([0u16, 0, 0, 0, 0, 0, 0, 1]);
        assert!(matches!(
            sign(read().ip_range(v4, IpAddr::from([10, 0, 0, 1]))),
            SasError::IpRange(_)
        ));
        assert!(matches!(
            sign(read().ip_range(v4, v6)),
            SasError::IpRange(_)
        ));
        assert_eq!(
            sign(TableSas::with_policy("Gamers", "")),
            SasError::NoPermissions
        );
        let no_expiry = TableSas::with_policy("Gamers", "").permissions(TablePermissions::ALL);
        assert_eq!(sign(no_expiry), SasError::NoExpiry);
        let nothing = AccountSas::new(ResourceTypes::empty(), AccountPermissions::READ, later);
        assert_eq!(nothing.sign("acct", &key()).unwrap_err(), SasError::NoScope);
    }

    #[test]
    fn letters_round_trip_in_the_service_order() {
        for letters in ["", "r", "raud", "ud"] {
            let set = TablePermissions::from_letters(letters).unwrap();
            assert_eq!(set.letters(), letters);
        }
        assert_eq!(
            AccountPermissions::from_letters("pucaldwr")
                .unwrap()
                .letters(),
            "rwdlacup"
        );
        assert_eq!(Services::from_letters("ftqb").unwrap().letters(), "bqtf");
        assert_eq!(ResourceTypes::from_letters("x"), None);
        assert!(!TablePermissions::QUERY.intersects(TablePermissions::ADD));
    }
}
