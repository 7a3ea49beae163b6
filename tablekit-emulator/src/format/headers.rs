//! The service's own header names, made at compile time: a name given as text is parsed
//! again on every use, several times per answer.

use http::HeaderName;

pub(crate) const REQUEST_ID: HeaderName = HeaderName::from_static("x-ms-request-id");
pub(crate) const CLIENT_REQUEST_ID: HeaderName = HeaderName::from_static("x-ms-client-request-id");
pub(crate) const VERSION: HeaderName = HeaderName::from_static("x-ms-version");
pub(crate) const ERROR_CODE: HeaderName = HeaderName::from_static("x-ms-error-code");
pub(crate) const PREFERENCE_APPLIED: HeaderName = HeaderName::from_static("preference-applied");
pub(crate) const NEXT_TABLE_NAME: HeaderName =
    HeaderName::from_static("x-ms-continuation-nexttablename");
pub(crate) const NEXT_PARTITION_KEY: HeaderName =
    HeaderName::from_static("x-ms-continuation-nextpartitionkey");
pub(crate) const NEXT_ROW_KEY: HeaderName = HeaderName::from_static("x-ms-continuation-nextrowkey");
pub(crate) const RETRY_AFTER_MS: HeaderName = HeaderName::from_static("x-ms-retry-after-ms");
/// The emulator's own: what a read cost (see [`crate::query::cost`]).
pub(crate) const ENTITIES_EXAMINED: HeaderName =
    HeaderName::from_static(crate::query::cost::EXAMINED_HEADER);
pub(crate) const ENTITIES_RETURNED: HeaderName =
    HeaderName::from_static(crate::query::cost::RETURNED_HEADER);
pub(crate) const DATA_SERVICE_ID: HeaderName = HeaderName::from_static("dataserviceid");

/// The service version the emulator answers as (`x-ms-version`).
pub(crate) const SERVICE_VERSION: &str = "2019-02-02";
/// The emulator's `Server` header: it names itself, as Azurite does.
pub(crate) const SERVER_NAME: &str = concat!("tablekit-emulator/", env!("CARGO_PKG_VERSION"));
