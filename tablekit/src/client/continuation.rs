//! [`ContinuationToken`]: where a query stopped, as one opaque string a web page can hand
//! back to resume.
//!
//! The service returns a position as two headers (`x-ms-continuation-NextPartitionKey` and an
//! optional `x-ms-continuation-NextRowKey`); the token packs both into one URL-safe string
//! (`t2.` + base64url of a JSON array), so it survives a query string or a cookie unchanged.
//!
//! A position only means something for the query that produced it: resumed in another query
//! (another user's partition, another filter) it would silently skip or repeat entities. So a
//! token the client hands out carries its query's identity (a digest of the table name, filter
//! and select), and resuming another query from it is a typed error, before anything is sent.
//! A token that does not decode is refused the same way, never sent to the service.

use std::fmt;
use std::str::FromStr;

use base64::Engine;
use sha2::{Digest, Sha256};

use super::error::{Error, Result};
use crate::protocol::limits::InvalidInput;

const PREFIX: &str = "t2.";
/// The prefix of tokens that did not say which query they belong to.
const UNBOUND_PREFIX: &str = "t1.";

/// What identifies a query's results: a digest of its table, `$filter` and `$select`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct QueryId([u8; 8]);

impl QueryId {
    /// The identity of a query of `table` sending this filter and select. Table names are
    /// case-insensitive, so the name is lowercased; `$top` only sizes pages, so it is left out.
    pub(crate) fn of(table: &str, filter: Option<&str>, select: Option<&[String]>) -> Self {
        let mut digest = Sha256::new();
        digest.update(b"tablekit query\0");
        digest.update(table.to_ascii_lowercase().as_bytes());
        digest.update(b"\0");
        if let Some(filter) = filter {
            digest.update(b"f");
            digest.update(filter.as_bytes());
        }
        digest.update(b"\0");
        if let Some(select) = select {
            digest.update(b"s");
            digest.update(select.join(",").as_bytes());
        }
        let hash = digest.finalize();
        let mut id = [0; 8];
        id.copy_from_slice(&hash[..8]);
        QueryId(id)
    }

    fn to_hex(self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    fn from_hex(text: &str) -> Option<Self> {
        if text.len() != 16 || !text.is_ascii() {
            return None;
        }
        let mut id = [0; 8];
        for (i, byte) in id.iter_mut().enumerate() {
            *byte = u8::from_str_radix(text.get(2 * i..2 * i + 2)?, 16).ok()?;
        }
        Some(QueryId(id))
    }
}

/// A position in a query's results.
///
/// ```
/// use tablekit::client::ContinuationToken;
/// let token = ContinuationToken::new("1!8!cGFydA--", Some("1!4!cm93".to_owned()));
/// let text = token.to_string();
/// assert!(text.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)));
/// let back: ContinuationToken = text.parse()?;
/// assert_eq!(back, token);
/// assert!("garbage".parse::<ContinuationToken>().is_err());
/// # Ok::<(), tablekit::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ContinuationToken {
    next_partition_key: String,
    next_row_key: Option<String>,
    /// The query the position belongs to; `None` for a token made with [`new`](Self::new).
    query: Option<QueryId>,
}

impl ContinuationToken {
    /// A token from the service's two continuation values, tied to no query: for fakes and
    /// tests that hand out pages. Tokens from a query's pages are tied to that query.
    ///
    /// ```
    /// use tablekit::client::ContinuationToken;
    /// let token = ContinuationToken::new("1!8!cGxheWVy", Some(String::new()));
    /// assert_eq!(token.next_partition_key(), "1!8!cGxheWVy");
    /// assert_eq!(token.next_row_key(), None); // an empty NextRowKey is dropped
    /// ```
    pub fn new(next_partition_key: impl Into<String>, next_row_key: Option<String>) -> Self {
        ContinuationToken {
            next_partition_key: next_partition_key.into(),
            next_row_key: next_row_key.filter(|rk| !rk.is_empty()),
            query: None,
        }
    }

    /// The token, tied to the query `id`.
    pub(crate) fn bound_to(mut self, id: QueryId) -> Self {
        self.query = Some(id);
        self
    }

    /// `Ok` when the token may resume the query `id`: it belongs to it, or to no query.
    pub(crate) fn check_query(&self, id: QueryId) -> Result<()> {
        match self.query {
            Some(own) if own != id => Err(InvalidInput::ForeignContinuation.into()),
            _ => Ok(()),
        }
    }

    /// The `NextPartitionKey` value.
    pub fn next_partition_key(&self) -> &str {
        &self.next_partition_key
    }

    /// The `NextRowKey` value, if the service gave one (an empty one is never kept).
    pub fn next_row_key(&self) -> Option<&str> {
        self.next_row_key.as_deref()
    }

    /// Reads the continuation headers of a response; `None` when the query is complete.
    pub(crate) fn from_headers(
        next_partition_key: Option<&str>,
        next_row_key: Option<&str>,
    ) -> Option<Self> {
        let pk = next_partition_key.filter(|pk| !pk.is_empty())?;
        Some(ContinuationToken::new(pk, next_row_key.map(str::to_owned)))
    }

    /// The query parameters that resume from here (never an empty `NextRowKey`).
    pub(crate) fn query_parameters(&self) -> Vec<(&'static str, String)> {
        let mut parameters = vec![("NextPartitionKey", self.next_partition_key.clone())];
        if let Some(rk) = &self.next_row_key {
            parameters.push(("NextRowKey", rk.clone()));
        }
        parameters
    }
}

impl fmt::Display for ContinuationToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts = (
            &self.next_partition_key,
            &self.next_row_key,
            self.query.map(QueryId::to_hex),
        );
        let json = serde_json::to_vec(&parts).map_err(|_| fmt::Error)?;
        f.write_str(PREFIX)?;
        f.write_str(&base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(json))
    }
}

impl FromStr for ContinuationToken {
    type Err = Error;

    fn from_str(text: &str) -> Result<Self> {
        let bad = || {
            Error::InvalidInput(InvalidInput::Other(
                "malformed continuation token: pass back the exact string a query returned".into(),
            ))
        };
        let text = text.trim();
        if text.starts_with(UNBOUND_PREFIX) {
            return Err(Error::InvalidInput(InvalidInput::Other(
                "a continuation token from an earlier tablekit does not say which query it \
                 belongs to: start the query from its first page"
                    .into(),
            )));
        }
        let encoded = text.strip_prefix(PREFIX).ok_or_else(bad)?;
        let json = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(encoded)
            .map_err(|_| bad())?;
        let (pk, rk, query): (String, Option<String>, Option<String>) =
            serde_json::from_slice(&json).map_err(|_| bad())?;
        let query = match query {
            Some(hex) => Some(QueryId::from_hex(&hex).ok_or_else(bad)?),
            None => None,
        };
        if pk.is_empty() {
            return Err(bad());
        }
        Ok(ContinuationToken {
            query,
            ..ContinuationToken::new(pk, rk)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_keeps_an_empty_next_row_key() {
        let token = ContinuationToken::from_headers(Some("a"), Some("")).unwrap();
        assert_eq!(token.next_row_key(), None);
        assert_eq!(token.query_parameters().len(), 1);
        assert!(ContinuationToken::from_headers(Some(""), Some("r")).is_none());
        assert!(ContinuationToken::from_headers(None, Some("r")).is_none());
    }

    #[test]
    fn round_trips_any_text_and_refuses_tampering() {
        let id = QueryId::of("Players", Some("PartitionKey eq 'a'"), None);
        for token in [
            ContinuationToken::new("p 'ü' ☃ &=+%", Some("r\"\\".into())),
            ContinuationToken::new("p", None).bound_to(id),
        ] {
            assert_eq!(
                token.to_string().parse::<ContinuationToken>().unwrap(),
                token
            );
        }
        let encode = |json: &str| {
            format!(
                "{PREFIX}{}",
                base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(json)
            )
        };
        for bad in [
            "".to_owned(),
            "t2.".to_owned(),
            "t2.!!!".to_owned(),
            encode("[]"),
            encode(r#"["", null, null]"#),
            encode(r#"["a", "b", "c", "d"]"#),
            encode(r#"["a", null, "not-hex-digits!!"]"#),
            encode(r#"["a", null, "00ff"]"#),
            // an earlier version's token: it names no query
            "t1.WyJhIl0".to_owned(),
        ] {
            let err = bad.parse::<ContinuationToken>().unwrap_err();
            assert!(err.is_invalid_input(), "{bad}");
        }
    }

    #[test]
    fn a_token_resumes_only_its_own_query() {
        let alice = QueryId::of("Orders", Some("PartitionKey eq 'alice'"), None);
        let bob = QueryId::of("Orders", Some("PartitionKey eq 'bob'"), None);
        let token = ContinuationToken::new("1!8!YWxpY2U-", None).bound_to(alice);
        token.check_query(alice).unwrap();
        assert!(token.check_query(bob).unwrap_err().is_invalid_input());
        // the table's name is case-insensitive; the select is part of the identity
        assert_eq!(
            QueryId::of("orders", Some("PartitionKey eq 'alice'"), None),
            alice
        );
        let names = ["Total".to_owned()];
        assert_ne!(
            QueryId::of("Orders", Some("PartitionKey eq 'alice'"), Some(&names)),
            alice
        );
        assert_ne!(
            QueryId::of("Orders", None, None),
            QueryId::of("Orders", Some(""), None)
        );
        // a hand-made token belongs to no query
        ContinuationToken::new("x", None).check_query(bob).unwrap();
    }
}
