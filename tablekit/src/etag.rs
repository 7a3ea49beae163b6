//! [`ETag`]: the opaque version stamp used for optimistic concurrency.

use std::fmt;

/// An entity's version as the service reported it, echoed verbatim in `If-Match`.
///
/// ```
/// use tablekit::ETag;
/// let tag = ETag::new(r#"W/"datetime'2026-11-22T11%3A38%3A42.0854950Z'""#);
/// assert!(tag.as_str().starts_with("W/"));
/// assert!(!tag.is_any());
/// assert!(ETag::any().is_any());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ETag(String);

impl ETag {
    /// Wraps the header value exactly as received.
    ///
    /// ```
    /// let tag = tablekit::ETag::new("W/\"x\"");
    /// assert_eq!(tag.as_str(), "W/\"x\"");
    /// ```
    pub fn new(value: impl Into<String>) -> Self {
        ETag(value.into())
    }

    /// `*`: matches any version (an unconditional write).
    ///
    /// ```
    /// assert_eq!(tablekit::ETag::any().as_str(), "*");
    /// ```
    pub fn any() -> Self {
        ETag("*".to_owned())
    }

    /// Whether this is the unconditional `*`.
    ///
    /// ```
    /// assert!(!tablekit::ETag::new("W/\"x\"").is_any());
    /// ```
    pub fn is_any(&self) -> bool {
        self.0 == "*"
    }

    /// The header value.
    ///
    /// ```
    /// assert_eq!(tablekit::ETag::new("abc").to_string(), tablekit::ETag::new("abc").as_str());
    /// ```
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ETag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
