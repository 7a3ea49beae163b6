//! A table's stored access policies (Get/Set Table ACL): [`SignedIdentifier`]s, each an id
//! and an [`AccessPolicy`], sent and read as the service's `SignedIdentifiers` XML.
//!
//! A table SAS naming a policy (`si`) takes the policy's permissions and times, so changing
//! or removing the policy changes or revokes every token that names it.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use chrono::{Duration, TimeZone, Utc};
//! use tablekit::client::{AccessPolicy, SignedIdentifier, Table};
//! use tablekit::sas::TablePermissions;
//! # let emulator = tablekit_testing::Emulator::start().await?;
//! # let client = emulator.client();
//! let table: Table = client.table_named("Gamers");
//! table.create().await?;
//! let expiry = Utc.with_ymd_and_hms(2030, 1, 1, 0, 0, 0).unwrap();
//! let readers = SignedIdentifier::new(
//!     "readers",
//!     AccessPolicy::new().permissions(TablePermissions::QUERY).expiry(expiry),
//! );
//! table.set_access_policies(&[readers.clone()]).await?;
//! assert_eq!(table.access_policies().await?, vec![readers]);
//! # Ok(()) }
//! ```

use chrono::{DateTime, SecondsFormat, Utc};
use quick_xml::events::{BytesDecl, BytesText, Event};
use quick_xml::{Reader, Writer};

use crate::codec::DecodeError;
use crate::protocol::limits::InvalidInput;
use crate::protocol::sas::{TablePermissions, MAX_IDENTIFIER_CHARS};

/// Most stored access policies one table holds.
pub const MAX_ACCESS_POLICIES: usize = 5;

/// What a stored access policy grants: each part optional (a SAS naming the policy supplies
/// what the policy leaves out).
///
/// ```
/// use tablekit::client::AccessPolicy;
/// use tablekit::sas::TablePermissions;
/// let policy = AccessPolicy::new().permissions(TablePermissions::ALL);
/// assert_eq!(policy.permissions, Some(TablePermissions::ALL));
/// assert_eq!(policy.expiry, None);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AccessPolicy {
    /// Not valid before this time.
    pub start: Option<DateTime<Utc>>,
    /// Not valid after this time.
    pub expiry: Option<DateTime<Utc>>,
    /// What it allows.
    pub permissions: Option<TablePermissions>,
}

impl AccessPolicy {
    /// A policy that sets nothing yet.
    pub fn new() -> Self {
        AccessPolicy::default()
    }

    /// Sets the start (the service keeps whole seconds).
    pub fn start(mut self, start: DateTime<Utc>) -> Self {
        self.start = Some(start);
        self
    }

    /// Sets the expiry (the service keeps whole seconds).
    pub fn expiry(mut self, expiry: DateTime<Utc>) -> Self {
        self.expiry = Some(expiry);
        self
    }

    /// Sets the permissions.
    pub fn permissions(mut self, permissions: TablePermissions) -> Self {
        self.permissions = Some(permissions);
        self
    }
}

/// One stored access policy: the id a SAS names in `si`, and the policy.
///
/// ```
/// use tablekit::client::{AccessPolicy, SignedIdentifier};
/// let id = SignedIdentifier::new("readers", AccessPolicy::new());
/// assert_eq!(id.id, "readers");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignedIdentifier {
    /// The identifier, 1 to 64 characters.
    pub id: String,
    /// What it grants.
    pub policy: AccessPolicy,
}

impl SignedIdentifier {
    /// The policy `policy` under `id`.
    pub fn new(id: &str, policy: AccessPolicy) -> Self {
        SignedIdentifier {
            id: id.to_owned(),
            policy,
        }
    }
}

/// Checks what Set Table ACL would refuse: more than five identifiers, or an id empty or
/// longer than 64 characters.
pub(crate) fn validate(identifiers: &[SignedIdentifier]) -> Result<(), InvalidInput> {
    if identifiers.len() > MAX_ACCESS_POLICIES {
        return Err(InvalidInput::Other(format!(
            "a table holds at most {MAX_ACCESS_POLICIES} stored access policies, not {}",
            identifiers.len()
        )));
    }
    for identifier in identifiers {
        let chars = identifier.id.chars().count();
        if chars == 0 || chars > MAX_IDENTIFIER_CHARS {
            return Err(InvalidInput::Other(format!(
                "a stored access policy id is 1 to {MAX_IDENTIFIER_CHARS} characters, not {chars}"
            )));
        }
    }
    Ok(())
}

/// The `SignedIdentifiers` document for `identifiers`, times in whole seconds.
///
/// ```
/// use tablekit::client::{access_policies_to_xml, AccessPolicy, SignedIdentifier};
/// use tablekit::sas::TablePermissions;
/// let xml = access_policies_to_xml(&[SignedIdentifier::new(
///     "p",
///     AccessPolicy::new().permissions(TablePermissions::QUERY),
/// )]);
/// assert!(xml.ends_with(
///     "<SignedIdentifiers><SignedIdentifier><Id>p</Id><AccessPolicy>\
///      <Permission>r</Permission></AccessPolicy></SignedIdentifier></SignedIdentifiers>"
/// ));
/// ```
pub fn access_policies_to_xml(identifiers: &[SignedIdentifier]) -> String {
    let mut writer = Writer::new(Vec::new());
    // Writing into a Vec cannot fail.
    let _ = writer.write_event(Event::Decl(BytesDecl::new("1.0", Some("utf-8"), None)));
    let text = |w: &mut Writer<Vec<u8>>, name: &str, value: &str| {
        let _ = w
            .create_element(name)
            .write_text_content(BytesText::new(value));
    };
    let _ = writer
        .create_element("SignedIdentifiers")
        .write_inner_content(|w| {
            for identifier in identifiers {
                w.create_element("SignedIdentifier")
                    .write_inner_content(|w| {
                        text(w, "Id", &identifier.id);
                        let policy = &identifier.policy;
                        w.create_element("AccessPolicy").write_inner_content(|w| {
                            if let Some(start) = policy.start {
                                text(w, "Start", &xml_time(start));
                            }
                            if let Some(expiry) = policy.expiry {
                                text(w, "Expiry", &xml_time(expiry));
                            }
                            if let Some(permissions) = policy.permissions {
                                text(w, "Permission", &permissions.letters());
                            }
                            Ok(())
                        })?;
                        Ok(())
                    })?;
            }
            Ok(())
        });
    String::from_utf8(writer.into_inner()).unwrap_or_default()
}

fn xml_time(time: DateTime<Utc>) -> String {
    time.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// Reads a `SignedIdentifiers` document; a [`DecodeError`] says what is wrong with it.
///
/// ```
/// use tablekit::client::access_policies_from_xml;
/// let xml = r#"<?xml version="1.0" encoding="utf-8"?><SignedIdentifiers><SignedIdentifier>
///   <Id>p</Id><AccessPolicy><Start>2026-01-01T00:00:00.0000000Z</Start>
///   <Permission>ra</Permission></AccessPolicy></SignedIdentifier></SignedIdentifiers>"#;
/// let ids = access_policies_from_xml(xml.as_bytes())?;
/// assert_eq!(ids[0].id, "p");
/// assert_eq!(ids[0].policy.permissions.unwrap().letters(), "ra");
/// let err = access_policies_from_xml(b"<SignedIdentifiers><Oops>").unwrap_err();
/// assert_eq!(err.to_string(), "cannot decode access policies: unexpected element `Oops`");
/// # Ok::<(), tablekit::codec::DecodeError>(())
/// ```
pub fn access_policies_from_xml(xml: &[u8]) -> Result<Vec<SignedIdentifier>, DecodeError> {
    read_identifiers(xml).map_err(|message| DecodeError::new("access policies", message))
}

fn read_identifiers(xml: &[u8]) -> Result<Vec<SignedIdentifier>, String> {
    let mut reader = Reader::from_reader(xml);
    reader.config_mut().trim_text(true);
    let mut path: Vec<String> = Vec::new();
    let mut identifiers = Vec::new();
    let mut current: Option<SignedIdentifier> = None;
    let mut saw_root = false;
    let mut buf = Vec::new();
    loop {
        let event = reader
            .read_event_into(&mut buf)
            .map_err(|e| format!("the access policies are not XML: {e}"))?;
        match event {
            Event::Start(start) => {
                let name = String::from_utf8_lossy(start.name().as_ref()).into_owned();
                enter(&name, &path)?;
                if name == "SignedIdentifiers" {
                    saw_root = true;
                }
                if name == "SignedIdentifier" {
                    current = Some(SignedIdentifier::new("", AccessPolicy::new()));
                }
                path.push(name);
            }
            Event::Empty(empty) => {
                let name = String::from_utf8_lossy(empty.name().as_ref()).into_owned();
                enter(&name, &path)?;
                if name == "SignedIdentifiers" {
                    saw_root = true;
                }
            }
            Event::Text(text) => {
                let value = text
                    .unescape()
                    .map_err(|e| format!("the access policies are not XML: {e}"))?;
                let field = path.last().map(String::as_str).unwrap_or_default();
                let entry = current
                    .as_mut()
                    .ok_or("text outside a `SignedIdentifier`")?;
                set_field(entry, field, value.trim())?;
            }
            // The guard pops the closed element whether or not it matches.
            Event::End(_) if path.pop().as_deref() == Some("SignedIdentifier") => {
                let entry = current.take().ok_or("unbalanced `SignedIdentifier`")?;
                if entry.id.is_empty() {
                    return Err("a `SignedIdentifier` has no `Id`".to_owned());
                }
                identifiers.push(entry);
            }
            Event::Eof => break,
            _ => {}
        }
        buf.clear();
    }
    if !path.is_empty() || !saw_root {
        return Err("the document is not a whole `SignedIdentifiers` element".to_owned());
    }
    Ok(identifiers)
}

/// Whether element `name` may appear inside `path`.
fn enter(name: &str, path: &[String]) -> Result<(), String> {
    let parent = path.last().map(String::as_str);
    let allowed = matches!(
        (parent, name),
        (None, "SignedIdentifiers")
            | (Some("SignedIdentifiers"), "SignedIdentifier")
            | (Some("SignedIdentifier"), "Id" | "AccessPolicy")
            | (Some("AccessPolicy"), "Start" | "Expiry" | "Permission")
    );
    if allowed {
        Ok(())
    } else {
        Err(format!("unexpected element `{name}`"))
    }
}

fn set_field(entry: &mut SignedIdentifier, field: &str, value: &str) -> Result<(), String> {
    let time = |value: &str| {
        DateTime::parse_from_rfc3339(value)
            .map(|t| t.with_timezone(&Utc))
            .map_err(|_| format!("`{field}` is not an ISO 8601 time: `{value}`"))
    };
    match field {
        "Id" => entry.id = value.to_owned(),
        "Start" => entry.policy.start = Some(time(value)?),
        "Expiry" => entry.policy.expiry = Some(time(value)?),
        "Permission" => {
            let permissions = TablePermissions::from_letters(value).ok_or_else(|| {
                format!("`Permission` holds a letter other than `raud`: `{value}`")
            })?;
            entry.policy.permissions = Some(permissions);
        }
        _ => return Err(format!("unexpected text in `{field}`")),
    }
    Ok(())
}
