//! The OData metadata level of a JSON answer: what the client asked for in `Accept`, and
//! the `Content-Type` the answer carries.

/// The `odata=` level a client asked for in `Accept`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Metadata {
    /// `application/json;odata=nometadata`.
    None,
    /// `application/json;odata=minimalmetadata` (also plain `application/json`).
    Minimal,
    /// `application/json;odata=fullmetadata`.
    Full,
}

impl Metadata {
    /// The level named by an `Accept` header; `None` when it asks for no JSON (Atom, or no
    /// header), which the service answers with 415 AtomFormatNotSupported.
    pub(crate) fn from_accept(accept: Option<&str>) -> Option<Metadata> {
        let accept = accept?;
        if accept.contains("odata=nometadata") {
            Some(Metadata::None)
        } else if accept.contains("odata=fullmetadata") {
            Some(Metadata::Full)
        } else if accept.contains("application/json") {
            Some(Metadata::Minimal)
        } else {
            None
        }
    }

    /// The `Content-Type` of a JSON answer at this level.
    pub(crate) fn content_type(self) -> &'static str {
        match self {
            Metadata::None => "application/json;odata=nometadata;streaming=true;charset=utf-8",
            Metadata::Minimal => {
                "application/json;odata=minimalmetadata;streaming=true;charset=utf-8"
            }
            Metadata::Full => "application/json;odata=fullmetadata;streaming=true;charset=utf-8",
        }
    }
}
