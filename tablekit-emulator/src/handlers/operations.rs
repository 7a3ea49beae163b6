//! The entity operations' semantics, shared by single requests and `$batch`: what a write
//! does to the stored entity, and which error it gets (409 on an existing insert, 404 and 412
//! on a conditional write, upsert without `If-Match`).

use std::sync::{Arc, LazyLock};

use chrono::{DateTime, Utc};
use http::StatusCode;
use tablekit::limits::{self, Limits};
use tablekit::{codec, DynamicEntity};

use crate::auth::Action;
use crate::format::error_response::ErrorResponse;
use crate::format::response::entity_etag;
use crate::storage::draft::Draft;
use crate::storage::store::Change;
use crate::storage::stored::Stored;

/// One entity operation, parsed from a request.
#[derive(Clone, Debug)]
pub(crate) enum EntityOp {
    /// `POST /T`: 409 when the entity exists.
    Insert(Written),
    /// `PUT` (replace) or `MERGE`/`PATCH` (merge); without `If-Match` an upsert.
    Update {
        entity: Written,
        if_match: Option<String>,
        merge: bool,
    },
    /// `DELETE`, with its required `If-Match`.
    Delete {
        partition_key: String,
        row_key: String,
        if_match: String,
    },
}

impl EntityOp {
    /// The keys the operation touches.
    pub(crate) fn keys(&self) -> (&str, &str) {
        match self {
            EntityOp::Insert(e) | EntityOp::Update { entity: e, .. } => e.keys(),
            EntityOp::Delete {
                partition_key,
                row_key,
                ..
            } => (partition_key, row_key),
        }
    }

    /// The operation, as authorization tells them apart.
    pub(crate) fn action(&self) -> Action {
        match self {
            EntityOp::Insert(_) => Action::InsertEntity,
            EntityOp::Update { if_match: None, .. } => Action::UpsertEntity,
            EntityOp::Update { .. } => Action::UpdateEntity,
            EntityOp::Delete { .. } => Action::DeleteEntity,
        }
    }
}

/// The entity a write sends: decoded, or its stored text drafted straight from a plain
/// body ([`Draft`]), when the write stores the body's entity as it is.
#[derive(Clone, Debug)]
pub(crate) enum Written {
    Decoded(DynamicEntity),
    Drafted(Draft),
}

impl Written {
    /// The PartitionKey and the RowKey.
    pub(crate) fn keys(&self) -> (&str, &str) {
        match self {
            Written::Decoded(e) => (e.partition_key(), e.row_key()),
            Written::Drafted(draft) => draft.keys(),
        }
    }

    /// The entity as a write at `now` stores it.
    fn stored(self, now: DateTime<Utc>) -> Stored {
        match self {
            Written::Decoded(mut entity) => {
                entity.set_timestamp(Some(now));
                entity.set_etag(None);
                Stored::new(entity)
            }
            Written::Drafted(draft) => draft.into_stored(now),
        }
    }

    /// The entity decoded, without a Timestamp: what a merge lays over the stored one.
    fn entity(self) -> DynamicEntity {
        match self {
            Written::Decoded(entity) => entity,
            Written::Drafted(draft) => {
                let mut entity = draft.into_stored(DateTime::UNIX_EPOCH).entity();
                entity.set_timestamp(None);
                entity
            }
        }
    }
}

/// What an operation will do once committed.
#[derive(Debug)]
pub(crate) struct Planned {
    pub(crate) change: Change,
    /// 201 for an insert, 204 otherwise.
    pub(crate) status: StatusCode,
}

impl Planned {
    /// The entity as stored afterwards (`None` after a delete).
    pub(crate) fn stored(&self) -> Option<&Arc<Stored>> {
        match &self.change {
            Change::Put(entity) => Some(entity),
            Change::Delete(..) => None,
        }
    }
}

/// Decides what `op` does given the `current` entity, stamping writes with `now`.
pub(crate) fn plan(
    op: EntityOp,
    current: Option<&Stored>,
    now: DateTime<Utc>,
) -> Result<Planned, ErrorResponse> {
    match op {
        EntityOp::Insert(entity) => {
            if current.is_some() {
                return Err(ErrorResponse::entity_exists());
            }
            Ok(put(entity.stored(now), StatusCode::CREATED))
        }
        EntityOp::Update {
            entity,
            if_match,
            merge,
        } => {
            if let Some(tag) = if_match {
                let current = current.ok_or_else(ErrorResponse::resource_not_found)?;
                check_etag(&tag, current)?;
            }
            let next = match (merge, current) {
                (true, Some(current)) => {
                    Written::Decoded(merged(&current.entity(), &entity.entity())?)
                }
                _ => entity,
            };
            Ok(put(next.stored(now), StatusCode::NO_CONTENT))
        }
        EntityOp::Delete {
            partition_key,
            row_key,
            if_match,
        } => {
            let current = current.ok_or_else(ErrorResponse::resource_not_found)?;
            check_etag(&if_match, current)?;
            Ok(Planned {
                change: Change::Delete(partition_key, row_key),
                status: StatusCode::NO_CONTENT,
            })
        }
    }
}

fn put(stored: Stored, status: StatusCode) -> Planned {
    Planned {
        change: Change::Put(Arc::new(stored)),
        status,
    }
}

fn check_etag(if_match: &str, current: &Stored) -> Result<(), ErrorResponse> {
    if if_match.trim() == "*" || if_match.trim() == entity_etag(current) {
        Ok(())
    } else {
        Err(ErrorResponse::condition_not_met())
    }
}

/// The current entity with the update's properties laid over it; the result must still fit
/// the limits (a merge can push an entity over 255 properties or 1 MiB).
fn merged(current: &DynamicEntity, update: &DynamicEntity) -> Result<DynamicEntity, ErrorResponse> {
    let mut next = current.clone();
    for (name, value) in update.properties() {
        next.set(name, value.clone());
    }
    limits::validate_entity(&next)?;
    Ok(next)
}

/// Checks an `If-Match` value: `*` or a quoted (possibly weak) ETag; anything else is
/// 400 InvalidInput, as on the service.
pub(crate) fn parse_if_match(value: Option<&str>) -> Result<Option<String>, ErrorResponse> {
    let Some(value) = value.map(str::trim) else {
        return Ok(None);
    };
    let quoted = value.strip_prefix("W/").unwrap_or(value);
    if value == "*" || (quoted.len() >= 2 && quoted.starts_with('"') && quoted.ends_with('"')) {
        Ok(Some(value.to_owned()))
    } else {
        Err(ErrorResponse::invalid_input(
            "The If-Match header is neither `*` nor an ETag.",
        ))
    }
}

/// Reads a write's body as [`parse_entity`] does; the stored text of a plain body's entity
/// is drafted straight from it when the write stores that entity as it is (an insert or a
/// replace, not a `merge`, which lays it over the stored one).
pub(crate) fn parse_written(
    body: &[u8],
    url_keys: Option<(&str, &str)>,
    limits: &Limits,
    merge: bool,
) -> Result<Written, ErrorResponse> {
    // A merge lays the body over the stored entity: only the general path reads it.
    let drafted = if merge {
        None
    } else {
        Draft::from_body(body, url_keys, limits)
    };
    match drafted {
        Some(draft) => Ok(Written::Drafted(draft)),
        None => parse_entity(body, url_keys, limits).map(Written::Decoded),
    }
}

/// Whether `body` is drafted ([`parse_written`]) into the very entity the general path
/// stores: `Ok(false)` when it is not drafted, `Err` naming the difference when a drafted
/// body is refused or stored otherwise by the general path. For the tests and fuzzing.
#[cfg(any(fuzzing, test))]
pub(crate) fn check_draft(
    body: &[u8],
    url_keys: Option<(&str, &str)>,
    limits: &Limits,
) -> Result<bool, String> {
    let now = DateTime::from_timestamp(1_795_000_000, 123_456_700).unwrap_or_default();
    let Some(draft) = Draft::from_body(body, url_keys, limits) else {
        return Ok(false);
    };
    let drafted = format!("{:?}", draft.into_stored(now));
    let entity = parse_entity(body, url_keys, limits)
        .map_err(|e| format!("drafted, but the general path refuses it: {}", e.code))?;
    let decoded = format!("{:?}", Written::Decoded(entity).stored(now));
    match drafted == decoded {
        true => Ok(true),
        false => Err(format!("drafted {drafted}\nstored {decoded}")),
    }
}

/// Reads a request body as an entity, with the URL's keys when the URL names them, and checks
/// every limit the service checks, with the flavor's own (`limits`): the one check of a write's
/// entity, a single write's or a transaction's.
pub(crate) fn parse_entity(
    body: &[u8],
    url_keys: Option<(&str, &str)>,
    limits: &Limits,
) -> Result<DynamicEntity, ErrorResponse> {
    let mut entity =
        codec::decode_entity(body).map_err(|err| ErrorResponse::invalid_input(format!("{err}")))?;
    entity.set_etag(None);
    entity.set_timestamp(None);
    require_annotated_properties(body, &entity)?;
    match url_keys {
        Some((pk, rk)) => {
            entity.set_partition_key(pk);
            entity.set_row_key(rk);
        }
        None => require_keys(body, &entity)?,
    }
    limits.validate_entity(&entity)?;
    Ok(entity)
}

/// Every `Name@odata.type` annotation in a body must come with its `Name` member: one
/// alone types nothing, and is refused rather than dropped.
fn require_annotated_properties(body: &[u8], entity: &DynamicEntity) -> Result<(), ErrorResponse> {
    if annotations_name_members(body, entity) {
        return Ok(());
    }
    let MemberNames(names) =
        serde_json::from_slice(body).map_err(|e| ErrorResponse::invalid_input(e.to_string()))?;
    for name in &names {
        let Some(property) = name.strip_suffix("@odata.type") else {
            continue;
        };
        if !names.iter().any(|n| n == property) {
            return Err(ErrorResponse::invalid_input(format!(
                "The annotation `{name}` has no property `{property}`."
            )));
        }
    }
    Ok(())
}

/// Whether every `"Name@odata.type"` in the body names a member the decoded entity holds
/// as a property: what nearly every annotated body shows, found without reading the body
/// again. `false` says only that the member names must be read to know: the text may also
/// sit inside a string value, the name hold an escape, or name a key.
fn annotations_name_members(body: &[u8], entity: &DynamicEntity) -> bool {
    // Made once: building the searcher cost more than searching a 1 KB body with it.
    static ANNOTATION: LazyLock<memchr::memmem::Finder<'static>> =
        LazyLock::new(|| memchr::memmem::Finder::new(b"@odata.type\""));
    ANNOTATION.find_iter(body).all(|at| {
        let before = body.get(..at).unwrap_or_default();
        let Some(open) = memchr::memrchr(b'"', before) else {
            return false;
        };
        let name = before.get(open + 1..).unwrap_or_default();
        std::str::from_utf8(name).is_ok_and(|name| entity.value(name).is_some())
    })
}

/// The member names of a JSON object, its values skipped.
struct MemberNames(Vec<String>);

impl<'de> serde::Deserialize<'de> for MemberNames {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = MemberNames;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<MemberNames, A::Error> {
                let mut names = Vec::new();
                while let Some(name) = map.next_key::<String>()? {
                    map.next_value::<serde::de::IgnoredAny>()?;
                    names.push(name);
                }
                Ok(MemberNames(names))
            }
        }
        deserializer.deserialize_map(Visitor)
    }
}

/// An insert body must name both keys (an empty key is allowed, a missing one is not).
fn require_keys(body: &[u8], entity: &DynamicEntity) -> Result<(), ErrorResponse> {
    if !entity.partition_key().is_empty() && !entity.row_key().is_empty() {
        return Ok(());
    }
    let json: serde_json::Map<String, serde_json::Value> =
        serde_json::from_slice(body).map_err(|e| ErrorResponse::invalid_input(e.to_string()))?;
    if json.contains_key("PartitionKey") && json.contains_key("RowKey") {
        Ok(())
    } else {
        Err(ErrorResponse::new(
            StatusCode::BAD_REQUEST,
            "PropertiesNeedValue",
            "The values are not specified for all properties in the entity.",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn stored(pk: &str, rk: &str) -> Stored {
        let mut e = DynamicEntity::new(pk, rk);
        e.set("A", 1);
        e.set_timestamp(codec::parse_datetime("2026-01-01T00:00:00.0000001Z"));
        Stored::new(e)
    }

    #[test]
    fn conditional_writes_need_a_matching_etag() {
        let current = stored("p", "r");
        let tag = entity_etag(&current);
        let update = |if_match: Option<&str>| EntityOp::Update {
            entity: Written::Decoded(DynamicEntity::new("p", "r")),
            if_match: if_match.map(str::to_owned),
            merge: false,
        };
        let now = Utc::now();
        assert!(plan(update(Some(&tag)), Some(&current), now).is_ok());
        assert!(plan(update(Some("*")), Some(&current), now).is_ok());
        assert_eq!(
            plan(update(Some("W/\"stale\"")), Some(&current), now)
                .unwrap_err()
                .code,
            "UpdateConditionNotSatisfied"
        );
        assert_eq!(
            plan(update(Some("*")), None, now).unwrap_err().code,
            "ResourceNotFound"
        );
        assert!(plan(update(None), None, now).is_ok(), "upsert");
    }

    #[test]
    fn if_match_must_be_a_star_or_an_etag() {
        assert_eq!(parse_if_match(None).unwrap(), None);
        assert_eq!(parse_if_match(Some("*")).unwrap().as_deref(), Some("*"));
        assert!(parse_if_match(Some("W/\"datetime'x'\"")).is_ok());
        assert!(parse_if_match(Some("\"strong\"")).is_ok());
        for bad in ["garbage", "W/", "\"", "W/x"] {
            assert_eq!(
                parse_if_match(Some(bad)).unwrap_err().code,
                "InvalidInput",
                "{bad}"
            );
        }
    }

    #[test]
    fn merge_keeps_unmentioned_properties() {
        let current = stored("p", "r");
        let mut patch = DynamicEntity::new("p", "r");
        patch.set("B", 2);
        let op = EntityOp::Update {
            entity: Written::Decoded(patch),
            if_match: None,
            merge: true,
        };
        let planned = plan(op, Some(&current), Utc::now()).unwrap();
        let e = planned.stored().unwrap().entity();
        assert_eq!(e.get::<i32>("A"), Some(1));
        assert_eq!(e.get::<i32>("B"), Some(2));
    }

    /// A body parsed as a Table Storage write's entity.
    fn storage_entity(body: &[u8]) -> Result<DynamicEntity, ErrorResponse> {
        parse_entity(body, None, &Limits::STORAGE)
    }

    /// The error code a Table Storage write's body is refused with.
    fn refusal(body: &[u8]) -> String {
        storage_entity(body).unwrap_err().code.to_string()
    }

    #[test]
    fn every_annotation_needs_its_property() {
        let parse = |body: &str| storage_entity(body.as_bytes());
        let alone = r#"{"PartitionKey":"p","RowKey":"r","N@odata.type":"Edm.Int64"}"#;
        assert_eq!(parse(alone).unwrap_err().code, "InvalidInput");
        let quoted = r#"{"PartitionKey":"p","RowKey":"r","N@odata.type":"Edm.Int64","N":"5",
            "S":"see \"N@odata.type\" and \"Missing@odata.type\""}"#;
        assert_eq!(parse(quoted).unwrap().get::<i64>("N"), Some(5));
        let escaped =
            r#"{"PartitionKey":"p","RowKey":"r","\u004e@odata.type":"Edm.Int64","N":"5"}"#;
        assert_eq!(parse(escaped).unwrap().get::<i64>("N"), Some(5));
        let escaped_alone = r#"{"PartitionKey":"p","RowKey":"r","\u004e@odata.type":"Edm.Int64"}"#;
        assert_eq!(parse(escaped_alone).unwrap_err().code, "InvalidInput");
        let key = r#"{"PartitionKey@odata.type":"Edm.String","PartitionKey":"p","RowKey":"r"}"#;
        assert!(parse(key).is_ok());
    }

    #[test]
    fn bodies_are_checked_like_the_service() {
        let bad_int64 =
            br#"{"PartitionKey":"p","RowKey":"r","X":"abc","X@odata.type":"Edm.Int64"}"#;
        assert_eq!(refusal(bad_int64), "InvalidInput");
        let no_keys = br#"{"X":1}"#;
        assert_eq!(refusal(no_keys), "PropertiesNeedValue");
        let empty_rk = br#"{"PartitionKey":"p","RowKey":""}"#;
        assert!(storage_entity(empty_rk).is_ok());
        let bad_name = br#"{"PartitionKey":"p","RowKey":"r","a-b":1}"#;
        assert_eq!(refusal(bad_name), "PropertyNameInvalid");
        let big = format!(
            r#"{{"PartitionKey":"p","RowKey":"r","S":"{}"}}"#,
            "x".repeat(32_768)
        );
        assert_eq!(refusal(big.as_bytes()), "PropertyValueTooLarge");
        let many: String = (0..253).map(|i| format!(r#","P{i}":1"#)).collect();
        let many = format!(r#"{{"PartitionKey":"p","RowKey":"r"{many}}}"#);
        assert_eq!(refusal(many.as_bytes()), "TooManyProperties");
        // So many members that searching them for repeats would cost their count squared.
        let tiny: String = (0..30_000).map(|i| format!(r#","P{i}":1"#)).collect();
        let tiny = format!(r#"{{"PartitionKey":"p","RowKey":"r"{tiny}}}"#);
        let err = storage_entity(tiny.as_bytes()).unwrap_err();
        assert_eq!(err.code, "InvalidInput");
        assert!(
            err.message.contains("more than 2048 members"),
            "{}",
            err.message
        );
        let slash = br#"{"PartitionKey":"a/b","RowKey":"r"}"#;
        assert_eq!(refusal(slash), "InvalidInput");
    }

    /// Whether a Table Storage write drafts `body`, having checked the draft.
    fn drafted(body: &str, url_keys: Option<(&str, &str)>) -> bool {
        check_draft(body.as_bytes(), url_keys, &Limits::STORAGE)
            .unwrap_or_else(|e| panic!("{body}: {e}"))
    }

    #[test]
    fn plain_bodies_are_drafted_as_the_general_path_stores_them() {
        // As this crate's client sends them, and as the SDKs do: annotations after their
        // values, spaces after separators.
        let mut e = DynamicEntity::new("p", "r");
        e.set("Name", "player 1 of the weekly league");
        e.set("Score", 7);
        e.set("Total", 1_000_003_i64);
        e.set("Ratio", 1.0 / 7.0);
        e.set("Active", true);
        e.set(
            "Joined",
            codec::parse_datetime("2026-01-02T03:04:05.1234567Z").unwrap(),
        );
        e.set("Id", uuid::Uuid::from_u128(7));
        let ours = String::from_utf8(codec::encode_entity(&e)).unwrap();
        let sdk = r#"{"PartitionKey": "p", "PartitionKey@odata.type": "Edm.String", "RowKey": "r",
            "RowKey@odata.type": "Edm.String", "Total": "12", "Total@odata.type": "Edm.Int64",
            "When": "2026-01-02T03:04:05Z", "When@odata.type": "Edm.DateTime", "Whole": 2, "Whole@odata.type": "Edm.Double",
            "Flag": "true", "Flag@odata.type": "Edm.Boolean", "Zero": 0, "Big": 3000000000, "F": -0.0, "E": 1E+2}"#;
        for body in [ours.as_str(), sdk] {
            assert!(drafted(body, None), "{body}");
        }
        assert!(drafted(&ours, Some(("url", "keys"))));
    }

    #[test]
    fn a_draft_is_stored_at_any_time() {
        let body = br#"{"PartitionKey":"p","RowKey":"r","N":1,"S":"x"}"#;
        let epoch = DateTime::UNIX_EPOCH;
        let far = DateTime::from_timestamp(300_000_000_000, 100).unwrap(); // year 11476
        let early = DateTime::from_timestamp(-62_000_000_000, 0).unwrap(); // year 35
        for now in [epoch, far, early, Utc::now()] {
            let draft = Draft::from_body(body, None, &Limits::STORAGE).unwrap();
            let entity = parse_entity(body, None, &Limits::STORAGE).unwrap();
            let drafted = draft.into_stored(now);
            let decoded = Written::Decoded(entity).stored(now);
            assert_eq!(format!("{drafted:?}"), format!("{decoded:?}"), "{now}");
            assert_eq!(drafted.entity().get::<String>("S").as_deref(), Some("x"));
        }
    }

    #[test]
    fn bodies_of_other_shapes_take_the_general_path() {
        let keys = r#""PartitionKey":"p","RowKey":"r""#;
        for members in [
            r#""S":"a\"b""#,
            "\"S\":\"tab\there\"",
            r#""S":null"#,
            r#""S":{}"#,
            r#""S":[1]"#,
            r#""N":01"#,
            r#""N":-0"#,
            r#""N":1.5e400"#,
            r#""B":"AQID","B@odata.type":"Edm.Binary""#,
            r#""D":"NaN","D@odata.type":"Edm.Double""#,
            r#""N":1,"N":2"#,
            r#""N":1,"N@odata.type":"Edm.Int32","N@odata.type":"Edm.Int32""#,
            r#""N@odata.type":"Edm.Int64""#,
            r#""N":"1","N@odata.type":"Edm.Single""#,
            r#""Timestamp":"2026-01-02T03:04:05Z""#,
            r#""odata.etag":"W/\"x\"""#,
            r#""a-b":1"#,
            r#""PartitionKey":"again""#,
            r#""RowKey@odata.type":"Edm.Guid""#,
        ] {
            let body = format!("{{{keys},{members}}}");
            assert!(!drafted(&body, None), "{body}");
        }
        for body in [
            r#"{"RowKey":"r"}"#,
            r#"{"PartitionKey":"a/b","RowKey":"r"}"#,
            "{} x",
        ] {
            assert!(!drafted(body, None), "{body}");
        }
        // The URL's keys replace the body's, which must still be valid JSON strings.
        let control = "{\"PartitionKey\":\"raw\u{1}control\"}";
        assert!(!drafted(control, Some(("p", "r"))));
    }

    /// A member's JSON: a name, a value and an annotation before or after it.
    fn member() -> impl Strategy<Value = String> {
        let name = prop_oneof![
            12 => "[A-C][a-c0-9]{0,2}",
            1 => Just("Timestamp".to_owned()),
            1 => Just("PartitionKey".to_owned()),
            1 => Just("odata.type".to_owned()),
            1 => Just("a-b".to_owned()),
            1 => Just("é".to_owned()),
            1 => Just("X@odata.foo".to_owned()),
            1 => Just("id".to_owned()),
        ];
        let value = prop_oneof![
            Just(r#""plain""#),
            Just(r#""é ü \u00e9""#),
            Just(r#""esc\"aped""#),
            Just("\"raw\u{1}control\""),
            Just("\"line\u{2028}sep\""),
            Just(r#""123""#),
            Just(r#""-9223372036854775809""#),
            Just(r#""2026-01-02T03:04:05.1234567Z""#),
            Just(r#""0001-01-01T00:00:00Z""#),
            Just(r#""0a1b2c3d-0000-1111-2222-333344445555""#),
            Just(r#""true""#),
            Just(r#""NaN""#),
            Just("0"),
            Just("-0"),
            Just("5"),
            Just("2147483647"),
            Just("2147483648"),
            Just("-2147483649"),
            Just("9223372036854775807"),
            Just("9223372036854775808"),
            Just("01"),
            Just("1.5"),
            Just("-0.0"),
            Just("1e2"),
            Just("2.5E-3"),
            Just("1e400"),
            Just("5."),
            Just("-"),
            Just("true"),
            Just("false"),
            Just("null"),
            Just("{}"),
            Just("tru"),
        ];
        let edm = prop_oneof![
            12 => Just(None),
            1 => Just(Some(r#""Edm.Int64""#)),
            1 => Just(Some(r#""Edm.Int32""#)),
            1 => Just(Some(r#""Edm.Double""#)),
            1 => Just(Some(r#""Edm.DateTime""#)),
            1 => Just(Some(r#""Edm.Guid""#)),
            1 => Just(Some(r#""Edm.Boolean""#)),
            1 => Just(Some(r#""Edm.String""#)),
            1 => Just(Some(r#""Edm.Binary""#)),
            1 => Just(Some(r#""Edm.Single""#)),
            1 => Just(Some("5")),
        ];
        let space = prop_oneof![Just(""), Just(" "), Just("\n\t")];
        (name, value, edm, any::<bool>(), space).prop_map(|(name, value, edm, after, sp)| {
            let plain = format!(r#""{name}"{sp}:{sp}{value}"#);
            let Some(edm) = edm else { return plain };
            let annotation = format!(r#""{name}@odata.type":{sp}{edm}"#);
            match after {
                true => format!("{plain},{sp}{annotation}"),
                false => format!("{annotation},{plain}"),
            }
        })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(600))]

        /// Whatever the body and the flavor, a drafted entity is stored exactly as the
        /// general path stores it, and a body the general path refuses is never drafted.
        #[test]
        fn a_draft_stores_what_the_general_path_stores(
            members in proptest::collection::vec(member(), 0..5),
            keys in prop_oneof![
                4 => Just(r#""PartitionKey":"p","RowKey":"r","#),
                2 => Just(r#""RowKey":"","PartitionKey":"é","#),
                1 => Just(r#""PartitionKey":"a#b","RowKey":"r","#),
                2 => Just(r#""PartitionKey":"p","PartitionKey@odata.type":"Edm.String","RowKey":"r","#),
                1 => Just(r#""RowKey@odata.type":"Edm.Int32","PartitionKey":"p","RowKey":"r","#),
                1 => Just(r#""PartitionKey":"p","#),
                1 => Just(""),
            ],
            url_keys in proptest::option::of(Just(("up", "ur"))),
            tail in prop_oneof![4 => Just(""), 2 => Just(" "), 1 => Just(" x")],
        ) {
            let body = format!("{{{keys}{}}}{tail}", members.join(","));
            let body = body.replace(",}", "}");
            for limits in [&Limits::STORAGE, &Limits::COSMOS] {
                let checked = check_draft(body.as_bytes(), url_keys, limits);
                prop_assert!(checked.is_ok(), "{}: {:?}", body, checked);
            }
        }
    }
}
