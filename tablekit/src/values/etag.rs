//! [`ETag`]: the opaque version stamp used for optimistic concurrency.
//!
//! The service's ETags are opaque (Azure's and Azurite's differ in form), so tablekit never
//! parses one: it records the value a write or read returned and echoes it verbatim in
//! `If-Match`. [`ETag::any`] (`*`) makes a write unconditional, a choice the caller makes
//! explicitly.

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
    pub fn new(value: impl Into<String>) -> Self {
        ETag(value.into())
    }

    /// `*`: matches any version (an unconditional write).
    pub fn any() -> Self {
        ETag("*".to_owned())
    }

    /// Whether this is the unconditional `*`.
    pub fn is_any(&self) -> bool {
        self.0 == "*"
    }

    /// The header value.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ETag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
