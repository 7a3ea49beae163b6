//! The service's limits, checked before anything is sent: [`InvalidInput`] says which one.
//!
//! | what | limit |
//! |---|---|
//! | table name | `^[A-Za-z][A-Za-z0-9]{2,62}$`, not `tables` |
//! | property name | letters, digits, `_`; starts with a letter or `_`; at most 255 characters; not `PartitionKey`, `RowKey` or `Timestamp` |
//! | PartitionKey / RowKey | at most 512 UTF-16 units (1 KiB); none of `/ \ # ?`, U+0000-001F, U+007F-009F |
//! | string value | at most 32,767 UTF-16 units |
//! | binary value | at most 64 KiB |
//! | properties | at most 252 user properties (255 with PartitionKey, RowKey, Timestamp) |
//! | entity | at most 1 MiB by [`entity_size`] |
//! | DateTime value | 1601-01-01 to 9999-12-31 |
//!
//! ```
//! use tablekit::{limits, DynamicEntity, InvalidInput};
//! assert!(limits::validate_table_name("Gamers").is_ok());
//! assert!(matches!(limits::validate_table_name("1st"), Err(InvalidInput::TableName { .. })));
//! let e = DynamicEntity::new("a/b", "r");
//! assert!(matches!(limits::validate_entity(&e), Err(InvalidInput::KeyCharacter { .. })));
//! ```

use std::fmt;

use crate::filter::params::ParamError;
use crate::values::entity::{self, DynamicEntity};
use crate::values::value::{max_datetime, min_datetime, utf16_len, Value};

/// Longest PartitionKey or RowKey, in UTF-16 units (1 KiB).
pub const MAX_KEY_UNITS: usize = tablekit_rules::MAX_KEY_UNITS;
/// Longest string value, in UTF-16 units.
pub const MAX_STRING_UNITS: usize = 32_767;
/// Largest binary value, in bytes.
pub const MAX_BINARY_BYTES: usize = 64 * 1024;
/// Most user properties on one entity (255 less PartitionKey, RowKey and Timestamp).
pub const MAX_PROPERTIES: usize = 252;
/// Longest property name, in characters.
pub const MAX_PROPERTY_NAME_CHARS: usize = tablekit_rules::MAX_PROPERTY_NAME_CHARS;
/// Largest entity by [`entity_size`].
pub const MAX_ENTITY_BYTES: usize = 1024 * 1024;
/// Most operations in one entity group transaction.
pub const MAX_BATCH_OPERATIONS: usize = 100;
/// Largest entity group transaction body.
pub const MAX_BATCH_BYTES: usize = 4 * 1024 * 1024;

/// Which Table service a client talks to: Azure Table Storage (also Azurite and the tablekit
/// emulator) or the Azure Cosmos DB for Table API. They speak one protocol, but some limits
/// differ and some operations exist on one only; [`Flavor::limits`] holds what differs (see
/// the [`cosmos`](crate::cosmos) module for the documented differences).
///
/// ```
/// use tablekit::limits::Flavor;
/// assert_eq!(Flavor::default(), Flavor::Storage);
/// assert_eq!(Flavor::from_host("acct.table.cosmos.azure.com"), Flavor::Cosmos);
/// assert_eq!(Flavor::from_host("acct.table.core.windows.net"), Flavor::Storage);
/// assert_eq!(Flavor::Cosmos.limits().max_batch_bytes, 2 * 1024 * 1024);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Flavor {
    /// Azure Table Storage, and the emulators that behave like it (Azurite, tablekit's).
    #[default]
    Storage,
    /// The Azure Cosmos DB for Table API.
    Cosmos,
}

impl fmt::Display for Flavor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Flavor::Storage => "Azure Table Storage",
            Flavor::Cosmos => "the Cosmos DB Table API",
        })
    }
}

impl Flavor {
    /// The flavor a Table endpoint's host names: Cosmos for `*.table.cosmos.azure.com` and
    /// `*.table.cosmosdb.azure.com` (and their sovereign-cloud variants ending in
    /// `.cosmos.azure.*` or `.cosmosdb.azure.*`), Storage for any other host.
    ///
    /// ```
    /// use tablekit::limits::Flavor;
    /// assert_eq!(Flavor::from_host("x.table.cosmosdb.azure.com"), Flavor::Cosmos);
    /// assert_eq!(Flavor::from_host("X.TABLE.COSMOS.AZURE.COM"), Flavor::Cosmos);
    /// assert_eq!(Flavor::from_host("127.0.0.1"), Flavor::Storage);
    /// ```
    pub fn from_host(host: &str) -> Flavor {
        let host = host.to_ascii_lowercase();
        let cosmos = [".table.cosmos.azure.", ".table.cosmosdb.azure."]
            .iter()
            .any(|marker| host.contains(marker));
        if cosmos {
            Flavor::Cosmos
        } else {
            Flavor::Storage
        }
    }

    /// The limits of this flavor.
    ///
    /// ```
    /// use tablekit::limits::{Flavor, Limits};
    /// assert_eq!(Flavor::Storage.limits(), &Limits::STORAGE);
    /// assert_eq!(Flavor::Cosmos.limits().max_row_key_bytes, Some(255));
    /// ```
    pub fn limits(self) -> &'static Limits {
        match self {
            Flavor::Storage => &Limits::STORAGE,
            Flavor::Cosmos => &Limits::COSMOS,
        }
    }
}

/// An operation that exists on some flavors only (see [`Limits::check_supported`]).
///
/// ```
/// use tablekit::limits::{Feature, Flavor};
/// assert!(Flavor::Storage.limits().check_supported(Feature::ServiceProperties).is_ok());
/// assert!(Flavor::Cosmos.limits().check_supported(Feature::ServiceStatistics).is_err());
/// assert_eq!(Feature::TableAccessPolicies.to_string(), "table access policies");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Feature {
    /// Get and Set Table Service Properties (analytics logging, metrics, CORS).
    ServiceProperties,
    /// Get Table Service Stats (geo-replication).
    ServiceStatistics,
    /// Get and Set Table ACL (stored access policies).
    TableAccessPolicies,
}

impl Feature {
    fn name(self) -> &'static str {
        match self {
            Feature::ServiceProperties => "service properties",
            Feature::ServiceStatistics => "service statistics",
            Feature::TableAccessPolicies => "table access policies",
        }
    }
}

impl fmt::Display for Feature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The limits that differ between flavors, as one value: every pre-send check that differs
/// reads it, so a client checks against the service it talks to. The limits every flavor
/// shares are the constants of this module.
///
/// ```
/// use tablekit::limits::Limits;
/// use tablekit::{DynamicEntity, InvalidInput};
/// let mut order = DynamicEntity::new("p", "r".repeat(300).as_str());
/// assert!(Limits::STORAGE.validate_entity(&order).is_ok());
/// let err = Limits::COSMOS.validate_entity(&order).unwrap_err();
/// assert!(matches!(err, InvalidInput::RowKeyTooLong { bytes: 300, limit: 255, .. }));
///
/// order = DynamicEntity::new("p", "r");
/// order.set("etag", "v1"); // a name Cosmos keeps for itself
/// assert!(Limits::STORAGE.validate_entity(&order).is_ok());
/// assert!(Limits::COSMOS.validate_entity(&order).is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Whose limits these are.
    pub flavor: Flavor,
    /// The longest RowKey in UTF-8 bytes, where the service limits it below
    /// [`MAX_KEY_UNITS`].
    pub max_row_key_bytes: Option<usize>,
    /// The largest entity group transaction body.
    pub max_batch_bytes: usize,
    /// Property names the service keeps for itself (compared ignoring ASCII case).
    pub reserved_property_names: &'static [&'static str],
    /// Whether `Gamers` and `gamers` are two tables.
    pub case_sensitive_table_names: bool,
    /// The operations of [`Feature`] the service offers.
    pub features: &'static [Feature],
}

impl Limits {
    /// Azure Table Storage's limits (also Azurite's and the emulator's).
    pub const STORAGE: Limits = Limits {
        flavor: Flavor::Storage,
        max_row_key_bytes: None,
        max_batch_bytes: MAX_BATCH_BYTES,
        reserved_property_names: &[],
        case_sensitive_table_names: false,
        features: &[
            Feature::ServiceProperties,
            Feature::ServiceStatistics,
            Feature::TableAccessPolicies,
        ],
    };

    /// The Cosmos DB Table API's limits, as "Frequently asked questions about Azure Cosmos DB
    /// for Table" documents them: RowKeys up to 255 bytes, transactions up to 2 MB, the
    /// property names `id`, `rid`, `etag` and `ResourceId` reserved, table names
    /// case-sensitive, and no service properties, statistics or table access policies.
    pub const COSMOS: Limits = Limits {
        flavor: Flavor::Cosmos,
        max_row_key_bytes: Some(255),
        max_batch_bytes: 2 * 1024 * 1024,
        reserved_property_names: &["id", "rid", "etag", "ResourceId"],
        case_sensitive_table_names: true,
        features: &[],
    };

    /// Checks a PartitionKey or RowKey: [`validate_key`], and this flavor's RowKey length.
    ///
    /// ```
    /// use tablekit::limits::Limits;
    /// use tablekit::KeyKind;
    /// let long = "é".repeat(200); // 200 UTF-16 units, 400 bytes
    /// assert!(Limits::STORAGE.validate_key(KeyKind::RowKey, &long).is_ok());
    /// assert!(Limits::COSMOS.validate_key(KeyKind::RowKey, &long).is_err());
    /// assert!(Limits::COSMOS.validate_key(KeyKind::PartitionKey, &long).is_ok());
    /// ```
    pub fn validate_key(&self, key: KeyKind, value: &str) -> Result<(), InvalidInput> {
        validate_key(key, value)?;
        self.check_key_length(key, value)
    }

    /// This flavor's own bound on a key's length, beyond the service's rules.
    fn check_key_length(&self, key: KeyKind, value: &str) -> Result<(), InvalidInput> {
        match self.max_row_key_bytes {
            Some(limit) if key == KeyKind::RowKey && value.len() > limit => {
                Err(InvalidInput::RowKeyTooLong {
                    flavor: self.flavor,
                    bytes: value.len(),
                    limit,
                })
            }
            _ => Ok(()),
        }
    }

    /// Checks a user property name: [`validate_property_name`], and not one this flavor
    /// reserves.
    ///
    /// ```
    /// use tablekit::limits::Limits;
    /// assert!(Limits::STORAGE.validate_property_name("ID").is_ok());
    /// assert!(Limits::COSMOS.validate_property_name("ID").is_err());
    /// assert!(Limits::COSMOS.validate_property_name("Identity").is_ok());
    /// ```
    pub fn validate_property_name(&self, name: &str) -> Result<(), InvalidInput> {
        validate_property_name(name)?;
        self.check_not_reserved(name)
    }

    /// Refuses a name this flavor reserves (beyond the service's own rules).
    fn check_not_reserved(&self, name: &str) -> Result<(), InvalidInput> {
        let reserved = self
            .reserved_property_names
            .iter()
            .any(|r| r.eq_ignore_ascii_case(name));
        if reserved {
            return Err(InvalidInput::ReservedPropertyName {
                flavor: self.flavor,
                name: name.to_owned(),
            });
        }
        Ok(())
    }

    /// Checks everything the service checks on a write (see [`validate_entity`]) with this
    /// flavor's limits.
    pub fn validate_entity(&self, entity: &DynamicEntity) -> Result<(), InvalidInput> {
        validate_entity(entity)?;
        self.check_key_length(KeyKind::RowKey, entity.row_key())?;
        // The names passed the service's own rules above: only this flavor's are left.
        for (name, _) in entity.properties() {
            self.check_not_reserved(name)?;
        }
        Ok(())
    }

    /// Checks an encoded transaction body's size.
    ///
    /// ```
    /// use tablekit::limits::Limits;
    /// let three_mib = 3 * 1024 * 1024;
    /// assert!(Limits::STORAGE.check_batch_bytes(three_mib).is_ok());
    /// assert!(Limits::COSMOS.check_batch_bytes(three_mib).is_err());
    /// ```
    pub fn check_batch_bytes(&self, bytes: usize) -> Result<(), InvalidInput> {
        if bytes > self.max_batch_bytes {
            return Err(InvalidInput::BatchTooLarge {
                bytes,
                limit: self.max_batch_bytes,
            });
        }
        Ok(())
    }

    /// Whether the service offers `feature`; [`InvalidInput::Unsupported`] when not.
    pub fn check_supported(&self, feature: Feature) -> Result<(), InvalidInput> {
        if self.features.contains(&feature) {
            return Ok(());
        }
        Err(InvalidInput::Unsupported {
            flavor: self.flavor,
            operation: feature.name(),
        })
    }

    /// Whether two table names name one table on this flavor.
    ///
    /// ```
    /// use tablekit::limits::Limits;
    /// assert!(Limits::STORAGE.same_table("Gamers", "gamers"));
    /// assert!(!Limits::COSMOS.same_table("Gamers", "gamers"));
    /// ```
    pub fn same_table(&self, a: &str, b: &str) -> bool {
        if self.case_sensitive_table_names {
            a == b
        } else {
            a.eq_ignore_ascii_case(b)
        }
    }
}

/// Which key a key error is about.
///
/// ```
/// use tablekit::{limits, InvalidInput, KeyKind};
/// let err = limits::validate_key(KeyKind::PartitionKey, "a?b").unwrap_err();
/// assert!(matches!(err, InvalidInput::KeyCharacter { key: KeyKind::PartitionKey, .. }));
/// assert_eq!(KeyKind::RowKey.to_string(), "RowKey");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyKind {
    /// The PartitionKey.
    PartitionKey,
    /// The RowKey.
    RowKey,
}

impl fmt::Display for KeyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            KeyKind::PartitionKey => "PartitionKey",
            KeyKind::RowKey => "RowKey",
        })
    }
}

/// Input the service would reject, found before anything was sent.
///
/// ```
/// use tablekit::{limits, InvalidInput};
/// let err = limits::validate_property_name("my-prop").unwrap_err();
/// assert!(matches!(err, InvalidInput::PropertyName { .. }));
/// assert!(err.to_string().contains("`my-prop`"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InvalidInput {
    /// A table name outside `^[A-Za-z][A-Za-z0-9]{2,62}$`, or the reserved `tables`.
    #[error("invalid table name `{name}`: {reason}")]
    TableName {
        /// The name given.
        name: String,
        /// Which rule it breaks.
        reason: &'static str,
    },
    /// A property name the service does not accept.
    #[error("invalid property name `{name}`: {reason}")]
    PropertyName {
        /// The name given.
        name: String,
        /// Which rule it breaks.
        reason: &'static str,
    },
    /// A key longer than 512 UTF-16 units.
    #[error("{key} is {units} UTF-16 units long, the limit is 512")]
    KeyTooLong {
        /// Which key.
        key: KeyKind,
        /// Its length.
        units: usize,
    },
    /// A key holding a character the service forbids.
    #[error("{key} `{value}` contains the forbidden character {character:?} at byte {position}")]
    KeyCharacter {
        /// Which key.
        key: KeyKind,
        /// The key.
        value: String,
        /// The forbidden character.
        character: char,
        /// Its byte offset in the key.
        position: usize,
    },
    /// A string value longer than 32,767 UTF-16 units.
    #[error("property `{property}` holds a string of {units} UTF-16 units, the limit is 32767")]
    StringTooLong {
        /// The property.
        property: String,
        /// The string's length.
        units: usize,
    },
    /// A binary value larger than 64 KiB.
    #[error("property `{property}` holds {bytes} bytes, the limit is 65536")]
    BinaryTooLarge {
        /// The property.
        property: String,
        /// The value's size.
        bytes: usize,
    },
    /// A DateTime outside 1601-01-01 to 9999-12-31.
    #[error("property `{property}` holds a DateTime outside 1601-01-01..=9999-12-31")]
    DateTimeOutOfRange {
        /// The property.
        property: String,
    },
    /// More than 252 user properties.
    #[error(
        "the entity has {count} user properties, the limit is 252 \
         (255 with PartitionKey, RowKey and Timestamp)"
    )]
    TooManyProperties {
        /// How many it has.
        count: usize,
    },
    /// An entity over 1 MiB by the service's formula.
    #[error("the entity is {bytes} bytes by the service's formula, the limit is 1048576")]
    EntityTooLarge {
        /// Its size.
        bytes: usize,
    },
    /// A transaction with no operations.
    #[error("an entity group transaction needs at least one operation")]
    EmptyBatch,
    /// A transaction with more than 100 operations.
    #[error("an entity group transaction holds at most 100 operations, this one has {count}")]
    TooManyOperations {
        /// How many it has.
        count: usize,
    },
    /// A transaction over more than one PartitionKey.
    #[error(
        "operation {index} has PartitionKey `{found}`, but the transaction is for `{expected}`"
    )]
    MixedPartitions {
        /// The operation's index.
        index: usize,
        /// The transaction's PartitionKey.
        expected: String,
        /// The operation's PartitionKey.
        found: String,
    },
    /// A transaction touching one entity twice.
    #[error("operations {first} and {second} both touch RowKey `{row_key}`")]
    DuplicateRow {
        /// The first operation on it.
        first: usize,
        /// The repeated one.
        second: usize,
        /// The RowKey.
        row_key: String,
    },
    /// A transaction body over the service's limit (4 MiB; 2 MiB on the Cosmos DB Table API).
    #[error("the transaction body is {bytes} bytes, the limit is {limit}")]
    BatchTooLarge {
        /// The encoded body's size.
        bytes: usize,
        /// The limit.
        limit: usize,
    },
    /// A replace of an entity read with a select: it would delete every property the select
    /// did not fetch (see [`DynamicEntity::is_partial`](crate::DynamicEntity::is_partial)).
    #[error(
        "entity ({partition_key}, {row_key}) was read with a select: a replace would delete \
         the properties it did not fetch; merge it instead, or call `mark_complete()` if what \
         it holds is all it should keep"
    )]
    PartialReplace {
        /// The entity's PartitionKey.
        partition_key: String,
        /// The entity's RowKey.
        row_key: String,
    },
    /// A write that would replace a stored value this code could not read (see
    /// [`DynamicEntity::unreadable_overwrites`](crate::DynamicEntity::unreadable_overwrites)).
    #[error(
        "property `{property}` was set over a stored value this code cannot read ({reason}): \
         writing would destroy it; call `allow_overwrite` for it if that is intended"
    )]
    UnreadableOverwrite {
        /// The property.
        property: String,
        /// Why its stored value could not be read.
        reason: String,
    },
    /// A continuation token of another query (another table, filter or select) given to
    /// this one: resuming from it would skip or repeat entities.
    #[error(
        "the continuation token belongs to another query (another table, filter or select): \
         start this query from its first page"
    )]
    ForeignContinuation,
    /// A hand-written filter whose `@name` placeholders and values do not fit (see
    /// [`Filter::raw_with`](crate::Filter::raw_with)).
    #[error("invalid filter parameters: {0}")]
    FilterParameter(ParamError),
    /// A query page size (`$top`) outside 1 to 1000, the most the service answers in one page
    /// (see [`Query::top`](crate::Query::top); a total is [`Query::take`](crate::Query::take)).
    #[error(
        "`top` is {top}: a page holds 1 to 1000 entities; to stop after a number of entities, \
         use `take`"
    )]
    TopOutOfRange {
        /// The page size given.
        top: u32,
    },
    /// A query that would (or, with hand-written filter text, might) read every entity, sent
    /// to a table that refuses table scans
    /// (`Table::refuse_table_scans`) without saying it means one (`Query::allow_table_scan`).
    #[error(
        "the query on table `{table}` scans the whole table (its filter fixes no PartitionKey); \
         filter on the PartitionKey, or call `allow_table_scan` if a scan is meant"
    )]
    TableScan {
        /// The table.
        table: String,
    },
    /// Service properties with more than five CORS rules.
    #[error("the service holds at most 5 CORS rules, these properties have {count}")]
    TooManyCorsRules {
        /// How many were given.
        count: usize,
    },
    /// A CORS rule the service would refuse.
    #[error("CORS rule {index} is invalid: {reason}")]
    CorsRule {
        /// The rule's index.
        index: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// A retention policy the service would refuse: enabled without days, or days outside
    /// 1 to 365.
    #[error("the {policy} retention policy is invalid: {reason}")]
    RetentionPolicy {
        /// Whose policy: `logging`, `hour metrics` or `minute metrics`.
        policy: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// A logging or metrics version other than the only one the service knows, `1.0`.
    #[error("the {setting} version is `{version}`, the service knows only `1.0`")]
    AnalyticsVersion {
        /// Whose version: `logging`, `hour metrics` or `minute metrics`.
        setting: &'static str,
        /// The version given.
        version: String,
    },
    /// An operation the service the client talks to does not offer (the Cosmos DB Table API
    /// has no service properties, statistics or table access policies).
    #[error("{flavor} does not support {operation}")]
    Unsupported {
        /// The service.
        flavor: Flavor,
        /// The operation.
        operation: &'static str,
    },
    /// A property name the service reserves for itself (the Cosmos DB Table API reserves
    /// `id`, `rid`, `etag` and `ResourceId`).
    #[error("property name `{name}` is reserved by {flavor}")]
    ReservedPropertyName {
        /// The service.
        flavor: Flavor,
        /// The name given.
        name: String,
    },
    /// A RowKey longer than the service allows in bytes (the Cosmos DB Table API: 255 bytes).
    #[error("RowKey is {bytes} bytes long, {flavor} allows {limit}")]
    RowKeyTooLong {
        /// The service.
        flavor: Flavor,
        /// The key's UTF-8 length.
        bytes: usize,
        /// The limit.
        limit: usize,
    },
    /// A write an entity group transaction cannot hold for this model: its storage needs rows
    /// beside the entity that a transaction being built cannot compute (a spread value's
    /// continuation rows; index rows that depend on the stored entity). The table's own
    /// single-entity write (`instead`) writes them in one transaction of its own.
    #[error(
        "a transaction cannot hold {operation} of `{model}`: {reason}; use `{instead}`, which \
         writes them in one transaction of its own"
    )]
    NotInTransaction {
        /// The model's type name.
        model: &'static str,
        /// The operation refused (`a merge`, `a delete by keys`).
        operation: &'static str,
        /// Which rows the write needs, and why the transaction cannot make them.
        reason: &'static str,
        /// The single-entity method to use instead (`Table::merge`).
        instead: &'static str,
    },
    /// Any other rule, described.
    #[error("{0}")]
    Other(String),
}

impl From<ParamError> for InvalidInput {
    fn from(problem: ParamError) -> Self {
        InvalidInput::FilterParameter(problem)
    }
}

/// Checks a table name: `^[A-Za-z][A-Za-z0-9]{2,62}$` and not `tables`.
///
/// ```
/// use tablekit::limits::validate_table_name;
/// assert!(validate_table_name("Gamers2").is_ok());
/// assert!(validate_table_name("ab").is_err());
/// assert!(validate_table_name("tables").is_err());
/// ```
pub fn validate_table_name(name: &str) -> Result<(), InvalidInput> {
    tablekit_rules::check_table_name(name).map_err(|rule| InvalidInput::TableName {
        name: name.to_owned(),
        reason: rule.reason(),
    })
}

/// Checks a user property name: letters, digits and `_`, starting with a letter or `_`, at
/// most 255 characters, and none of the system names.
///
/// ```
/// use tablekit::limits::validate_property_name;
/// assert!(validate_property_name("_Score2").is_ok());
/// assert!(validate_property_name("2Score").is_err());
/// assert!(validate_property_name("RowKey").is_err());
/// ```
pub fn validate_property_name(name: &str) -> Result<(), InvalidInput> {
    tablekit_rules::check_property_name(name).map_err(|rule| InvalidInput::PropertyName {
        name: name.to_owned(),
        reason: rule.reason(),
    })
}

/// Whether the service forbids `c` in a key.
///
/// ```
/// use tablekit::limits::is_forbidden_key_char;
/// assert!(is_forbidden_key_char('#') && is_forbidden_key_char('\u{85}'));
/// assert!(!is_forbidden_key_char('%'));
/// ```
pub fn is_forbidden_key_char(c: char) -> bool {
    tablekit_rules::is_forbidden_key_char(c)
}

/// Checks a PartitionKey or RowKey: at most 512 UTF-16 units, no forbidden character.
///
/// ```
/// use tablekit::{limits::validate_key, KeyKind};
/// assert!(validate_key(KeyKind::RowKey, "2024_01").is_ok());
/// assert!(validate_key(KeyKind::RowKey, "a/b").is_err());
/// assert!(validate_key(KeyKind::RowKey, &"k".repeat(513)).is_err());
/// ```
pub fn validate_key(key: KeyKind, value: &str) -> Result<(), InvalidInput> {
    match tablekit_rules::check_key(value) {
        Ok(()) => Ok(()),
        Err(tablekit_rules::KeyError::Character {
            position,
            character,
        }) => Err(InvalidInput::KeyCharacter {
            key,
            value: value.to_owned(),
            character,
            position,
        }),
        Err(tablekit_rules::KeyError::TooLong { units }) => {
            Err(InvalidInput::KeyTooLong { key, units })
        }
    }
}

/// Checks one property value against the per-value limits.
///
/// ```
/// use tablekit::{limits::validate_value, Value};
/// assert!(validate_value("S", &Value::String("x".repeat(32_767).into())).is_ok());
/// assert!(validate_value("B", &Value::Binary(vec![0; 65_537])).is_err());
/// ```
pub fn validate_value(property: &str, value: &Value) -> Result<(), InvalidInput> {
    checked_value_size(property, value).map(drop)
}

/// What `value` adds to the entity size ([`Value::stored_size`]), once it is checked against
/// the per-value limits: a string's length is counted once for both.
fn checked_value_size(property: &str, value: &Value) -> Result<usize, InvalidInput> {
    match value {
        Value::String(s) => {
            let units = utf16_len(s);
            if units > MAX_STRING_UNITS {
                return Err(InvalidInput::StringTooLong {
                    property: property.to_owned(),
                    units,
                });
            }
            return Ok(4 + 2 * units);
        }
        Value::Binary(b) if b.len() > MAX_BINARY_BYTES => {
            return Err(InvalidInput::BinaryTooLarge {
                property: property.to_owned(),
                bytes: b.len(),
            })
        }
        Value::DateTime(t) if *t < min_datetime() || *t > max_datetime() => {
            return Err(InvalidInput::DateTimeOutOfRange {
                property: property.to_owned(),
            })
        }
        _ => {}
    }
    Ok(value.stored_size())
}

/// Checks everything the service checks on a write: keys, property names and values, the
/// property count and the entity size.
pub fn validate_entity(entity: &DynamicEntity) -> Result<(), InvalidInput> {
    validate_key(KeyKind::PartitionKey, entity.partition_key())?;
    validate_key(KeyKind::RowKey, entity.row_key())?;
    if entity.len() > MAX_PROPERTIES {
        return Err(InvalidInput::TooManyProperties {
            count: entity.len(),
        });
    }
    // One pass: each check also measures what it checked.
    let mut bytes = entity.keys_size();
    for (name, value) in entity.properties() {
        validate_property_name(name)?;
        bytes += entity::name_size(name) + checked_value_size(name, value)?;
    }
    debug_assert_eq!(bytes, entity_size(entity));
    if bytes > MAX_ENTITY_BYTES {
        return Err(InvalidInput::EntityTooLarge { bytes });
    }
    Ok(())
}

/// The entity's size by the service's formula (see [`DynamicEntity::size`]).
pub fn entity_size(entity: &DynamicEntity) -> usize {
    entity.size()
}

/// What one property adds to [`entity_size`]: `8 + 2 x name length + value size`.
///
/// ```
/// use tablekit::{limits::property_size, Value};
/// assert_eq!(property_size("Name", &Value::String("Ann".into())), 8 + 8 + 4 + 6);
/// ```
pub fn property_size(name: &str, value: &Value) -> usize {
    entity::property_size(name, value)
}
