//! [`ContinuationToken`]: where a query stopped, as one opaque string a web page can hand
//! back to resume.
//!
//! The service returns a position as two headers (`x-ms-continuation-NextPartitionKey` and an
//! optional `x-ms-continuation-NextRowKey`); the token packs both into one URL-safe string
//! (`t1.` + base64url of a JSON array), so it survives a query string or a cookie unchanged.
//! A token that does not decode is refused with a typed error, never sent to the service.

use std::fmt;
use std::str::FromStr;

use base64::Engine;

use crate::error::{Error, Result};
use crate::limits::InvalidInput;

const PREFIX: &str = "t1.";

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
}

impl ContinuationToken {
    /// A token from the service's two continuation values.
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
        }
    }

    /// The `NextPartitionKey` value.
    ///
    /// ```
    /// use tablekit::client::ContinuationToken;
    /// let token = ContinuationToken::new("1!8!cGxheWVy", Some("1!4!MTc-".to_owned()));
    /// let back: ContinuationToken = token.to_string().parse()?; // e.g. from a "next page" link
    /// assert_eq!(back.next_partition_key(), "1!8!cGxheWVy");
    /// # Ok::<(), tablekit::Error>(())
    /// ```
    pub fn next_partition_key(&self) -> &str {
        &self.next_partition_key
    }

    /// The `NextRowKey` value, if the service gave one (an empty one is never kept).
    ///
    /// ```
    /// use tablekit::client::ContinuationToken;
    /// let token = ContinuationToken::new("1!8!cGxheWVy", Some("1!4!MTc-".to_owned()));
    /// assert_eq!(token.next_row_key(), Some("1!4!MTc-"));
    /// let token = ContinuationToken::new("1!8!cGxheWVy", None);
    /// assert_eq!(token.next_row_key(), None);
    /// ```
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
        let mut parts = vec![self.next_partition_key.as_str()];
        parts.extend(self.next_row_key.as_deref());
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
        let encoded = text.trim().strip_prefix(PREFIX).ok_or_else(bad)?;
        let json = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(encoded)
            .map_err(|_| bad())?;
        let parts: Vec<String> = serde_json::from_slice(&json).map_err(|_| bad())?;
        let mut parts = parts.into_iter();
        match (parts.next(), parts.next(), parts.next()) {
            (Some(pk), rk, None) if !pk.is_empty() => Ok(ContinuationToken::new(pk, rk)),
            _ => Err(bad()),
        }
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
        let token = ContinuationToken::new("p 'ü' ☃ &=+%", Some("r\"\\".into()));
        assert_eq!(
            token.to_string().parse::<ContinuationToken>().unwrap(),
            token
        );
        for bad in [
            "",
            "t1.",
            "t1.!!!",
            "t1.W10",
            "t1.WyIiXQ",
            "t1.WyJhIiwiYiIsImMiXQ",
        ] {
            let err = bad.parse::<ContinuationToken>().unwrap_err();
            assert!(err.is_invalid_input(), "{bad}");
        }
    }
}
