//! Parses a request path into the resource it names: the table collection, one table,
//! `$batch`, a table's entities, or one entity by its keys.

use std::borrow::Cow;

use http::{HeaderMap, Method};
use percent_encoding::percent_decode_str;

use crate::format::error_response::ErrorResponse;
use crate::pipeline::counter::Operation;

/// The resource a path names, below the account.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Resource {
    /// `/acct/` or `/acct` (service properties and the like).
    Service,
    /// `/acct/Tables`.
    Tables,
    /// `/acct/Tables('T')`.
    Table(String),
    /// `/acct/$batch`.
    Batch,
    /// `/acct/T` or `/acct/T()`.
    Entities(String),
    /// `/acct/T(PartitionKey='p',RowKey='r')`.
    Entity {
        table: String,
        partition_key: String,
        row_key: String,
    },
    /// `/acct/T?comp=acl`: the table's stored access policies.
    TableAcl(String),
}

impl Resource {
    /// The kind of request `method` makes on this resource, for the counter and for fault
    /// scoping: a write with `If-Match` is a replace or merge, without one an upsert.
    pub(crate) fn operation(&self, method: &Method, headers: &HeaderMap) -> Operation {
        let conditional = headers.contains_key(http::header::IF_MATCH);
        match (method.as_str(), self) {
            ("POST", Resource::Tables) => Operation::CreateTable,
            ("GET", Resource::Tables | Resource::Table(_)) => Operation::QueryTables,
            ("DELETE", Resource::Table(_)) => Operation::DeleteTable,
            ("POST", Resource::Batch) => Operation::Batch,
            ("POST", Resource::Entities(_)) => Operation::Insert,
            ("GET", Resource::Entities(_)) => Operation::Query,
            ("GET", Resource::Entity { .. }) => Operation::Get,
            ("PUT", Resource::Entity { .. }) if conditional => Operation::Replace,
            ("PUT", Resource::Entity { .. }) => Operation::InsertOrReplace,
            ("MERGE" | "PATCH", Resource::Entity { .. }) if conditional => Operation::Merge,
            ("MERGE" | "PATCH", Resource::Entity { .. }) => Operation::InsertOrMerge,
            ("DELETE", Resource::Entity { .. }) => Operation::Delete,
            _ => Operation::Other,
        }
    }
}

/// Splits `/account/resource` (still percent-encoded) into the account and the route.
pub(crate) fn parse(path: &str) -> Result<(Cow<'_, str>, Resource), ErrorResponse> {
    let path = path.strip_prefix('/').unwrap_or(path);
    let (account, rest) = path.split_once('/').unwrap_or((path, ""));
    let rest = percent_decode_str(rest)
        .decode_utf8()
        .map_err(|_| ErrorResponse::invalid_input("The request URI is not valid UTF-8."))?;
    // Borrowed unless escaped: a transaction's operations only compare it.
    let account = percent_decode_str(account).decode_utf8_lossy();
    Ok((account, route(&rest)?))
}

/// The route once the query is known: `comp=acl` on a table's path names its policies.
pub(crate) fn with_comp(route: Resource, comp: Option<&str>) -> Resource {
    match (route, comp) {
        (Resource::Entities(table), Some("acl")) => Resource::TableAcl(table),
        (route, _) => route,
    }
}

fn route(rest: &str) -> Result<Resource, ErrorResponse> {
    let invalid = || ErrorResponse::invalid_input(format!("The request URI `{rest}` is invalid."));
    if rest.is_empty() {
        return Ok(Resource::Service);
    }
    if rest == "$batch" {
        return Ok(Resource::Batch);
    }
    let (name, args) = match rest.find('(') {
        Some(open) => {
            let inner = rest
                .get(open + 1..)
                .and_then(|s| s.strip_suffix(')'))
                .ok_or_else(invalid)?;
            (rest.get(..open).unwrap_or_default(), Some(inner))
        }
        None => (rest, None),
    };
    if name.is_empty() || name.contains('/') {
        return Err(invalid());
    }
    if name == "Tables" {
        return match args {
            None | Some("") => Ok(Resource::Tables),
            Some(inner) => Ok(Resource::Table(quoted(inner).ok_or_else(invalid)?)),
        };
    }
    match args {
        None | Some("") => Ok(Resource::Entities(name.to_owned())),
        Some(inner) => {
            let (partition_key, row_key) = keys(inner).ok_or_else(invalid)?;
            Ok(Resource::Entity {
                table: name.to_owned(),
                partition_key,
                row_key,
            })
        }
    }
}

/// `PartitionKey='p',RowKey='r'` in either order.
fn keys(inner: &str) -> Option<(String, String)> {
    let mut partition_key = None;
    let mut row_key = None;
    let mut rest = inner;
    while !rest.is_empty() {
        let (name, after) = rest.split_once('=')?;
        let (value, after) = quoted_prefix(after)?;
        match name.trim() {
            "PartitionKey" => partition_key = Some(value),
            "RowKey" => row_key = Some(value),
            _ => return None,
        }
        rest = after.trim_start();
        rest = rest.strip_prefix(',').unwrap_or(rest).trim_start();
    }
    Some((partition_key?, row_key?))
}

/// `'text'` (with `''` for a quote) making up the whole input.
fn quoted(text: &str) -> Option<String> {
    let (value, rest) = quoted_prefix(text)?;
    rest.is_empty().then_some(value)
}

/// A leading `'text'`, and what follows it.
fn quoted_prefix(text: &str) -> Option<(String, &str)> {
    let body = text.trim_start().strip_prefix('\'')?;
    let mut value = String::new();
    let mut chars = body.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == '\'' {
            if matches!(chars.peek(), Some((_, '\''))) {
                chars.next();
                value.push('\'');
            } else {
                return Some((value, body.get(i + 1..).unwrap_or_default()));
            }
        } else {
            value.push(c);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_of_the_captures() {
        assert_eq!(
            parse("/devstoreaccount1/Tables").unwrap(),
            ("devstoreaccount1".into(), Resource::Tables)
        );
        assert_eq!(
            parse("/devstoreaccount1/Tables('nosuchtable')").unwrap().1,
            Resource::Table("nosuchtable".into())
        );
        assert_eq!(parse("/a/$batch").unwrap().1, Resource::Batch);
        assert_eq!(
            parse("/a/rawtest()").unwrap().1,
            Resource::Entities("rawtest".into())
        );
        assert_eq!(
            parse("/a/rawtest").unwrap().1,
            Resource::Entities("rawtest".into())
        );
        assert_eq!(
            parse("/a/rawtest(PartitionKey='keys',RowKey='a%20b''c%20%C3%BC%20%E2%98%83')")
                .unwrap()
                .1,
            Resource::Entity {
                table: "rawtest".into(),
                partition_key: "keys".into(),
                row_key: "a b'c ü ☃".into()
            }
        );
        assert_eq!(
            parse("/a/t(PartitionKey='keys',RowKey='100%25')")
                .unwrap()
                .1,
            Resource::Entity {
                table: "t".into(),
                partition_key: "keys".into(),
                row_key: "100%".into()
            }
        );
        assert_eq!(
            parse("/a/t(RowKey='',PartitionKey='p')").unwrap().1,
            Resource::Entity {
                table: "t".into(),
                partition_key: "p".into(),
                row_key: "".into()
            }
        );
        assert_eq!(parse("/a/").unwrap().1, Resource::Service);
    }

    #[test]
    fn malformed_paths_are_errors() {
        for path in [
            "/a/t(PartitionKey='p')",
            "/a/t(PartitionKey='p',RowKey='r'",
            "/a/t(PartitionKey='p,RowKey='r')",
            "/a/t(Other='p',RowKey='r')",
            "/a/Tables('x",
            "/a/t/x",
            "/a/%FF",
        ] {
            assert!(parse(path).is_err(), "{path}");
        }
    }
}
