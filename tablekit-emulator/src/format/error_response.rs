//! [`ErrorResponse`]: a failure as the service reports it (status, `x-ms-error-code`, message).

use http::StatusCode;
use tablekit::InvalidInput;

/// One error response: the HTTP status, the service's error code and its message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ErrorResponse {
    pub(crate) status: StatusCode,
    pub(crate) code: &'static str,
    pub(crate) message: String,
    /// When to come back (`x-ms-retry-after-ms`), for a refusal of the Cosmos DB throttle.
    pub(crate) retry_after: Option<std::time::Duration>,
}

impl ErrorResponse {
    pub(crate) fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        ErrorResponse {
            status,
            code,
            message: message.into(),
            retry_after: None,
        }
    }

    /// The same, telling the client when to come back.
    pub(crate) fn retry_after(mut self, wait: std::time::Duration) -> Self {
        self.retry_after = Some(wait);
        self
    }

    pub(crate) fn invalid_input(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "InvalidInput", message)
    }

    pub(crate) fn table_not_found() -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            "TableNotFound",
            "The table specified does not exist.",
        )
    }

    pub(crate) fn resource_not_found() -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            "ResourceNotFound",
            "The specified resource does not exist.",
        )
    }

    pub(crate) fn table_exists() -> Self {
        Self::new(
            StatusCode::CONFLICT,
            "TableAlreadyExists",
            "The table specified already exists.",
        )
    }

    pub(crate) fn entity_exists() -> Self {
        Self::new(
            StatusCode::CONFLICT,
            "EntityAlreadyExists",
            "The specified entity already exists.",
        )
    }

    pub(crate) fn condition_not_met() -> Self {
        Self::new(
            StatusCode::PRECONDITION_FAILED,
            "UpdateConditionNotSatisfied",
            "The update condition specified in the request was not satisfied.",
        )
    }

    /// 403 for a write to an account's read-only secondary.
    pub(crate) fn authentication_failed(detail: &str) -> Self {
        Self::new(
            StatusCode::FORBIDDEN,
            "AuthenticationFailed",
            format!(
                "Server failed to authenticate the request. Make sure the value of the \
                 Authorization header is formed correctly including the signature. {detail}"
            ),
        )
    }

    pub(crate) fn authorization_mismatch(detail: &str) -> Self {
        Self::new(
            StatusCode::FORBIDDEN,
            "AuthorizationPermissionMismatch",
            format!("This request is not authorized to perform this operation using this permission. {detail}"),
        )
    }

    pub(crate) fn atom_not_supported() -> Self {
        Self::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "AtomFormatNotSupported",
            "Atom format is not supported.",
        )
    }

    pub(crate) fn body_too_large() -> Self {
        Self::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "RequestBodyTooLarge",
            "The request body is too large and exceeds the maximum permissible limit.",
        )
    }

    /// The body did not arrive in time. The service documents no code for a client too slow
    /// to send its request; 408 is HTTP's answer for it.
    pub(crate) fn body_timeout() -> Self {
        Self::new(
            StatusCode::REQUEST_TIMEOUT,
            "RequestTimeout",
            "The request body did not arrive within the time allowed.",
        )
    }

    pub(crate) fn missing_header(name: &str) -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            "MissingRequiredHeader",
            format!("An HTTP header that's mandatory for this request is not specified: {name}."),
        )
    }

    /// 501 for an operation the emulated service does not offer (the Cosmos flavor's
    /// service settings and table access policies).
    pub(crate) fn not_implemented(unsupported: impl std::fmt::Display) -> Self {
        Self::new(
            StatusCode::NOT_IMPLEMENTED,
            "NotImplemented",
            format!("The requested operation is not implemented: {unsupported}."),
        )
    }

    pub(crate) fn write_on_secondary() -> Self {
        Self::new(
            StatusCode::FORBIDDEN,
            "AuthorizationFailure",
            "Write operations are not allowed on the secondary location.",
        )
    }

    pub(crate) fn injected(status: StatusCode) -> Self {
        let (code, message) = if status == StatusCode::SERVICE_UNAVAILABLE {
            (
                "ServerBusy",
                "The server is currently unable to receive requests. Please retry your request.",
            )
        } else {
            (
                "InternalError",
                "The server encountered an internal error. Please retry the request.",
            )
        };
        Self::new(status, code, message)
    }

    /// Whether the body must be XML, as the service sends for failures before OData
    /// processing (authentication, media type).
    pub(crate) fn is_xml(&self) -> bool {
        matches!(
            self.code,
            "AuthenticationFailed" | "AuthorizationPermissionMismatch" | "AtomFormatNotSupported"
        )
    }
}

/// Maps a limit violation to the service's error code for it.
impl From<InvalidInput> for ErrorResponse {
    fn from(err: InvalidInput) -> Self {
        let code = match &err {
            InvalidInput::PropertyName { name, .. } if name.chars().count() > 255 => {
                "PropertyNameTooLong"
            }
            InvalidInput::PropertyName { .. } | InvalidInput::ReservedPropertyName { .. } => {
                "PropertyNameInvalid"
            }
            InvalidInput::StringTooLong { .. } | InvalidInput::BinaryTooLarge { .. } => {
                "PropertyValueTooLarge"
            }
            InvalidInput::TooManyProperties { .. } => "TooManyProperties",
            InvalidInput::EntityTooLarge { .. } => "EntityTooLarge",
            InvalidInput::DateTimeOutOfRange { .. } => "OutOfRangeInput",
            InvalidInput::TableName { name, .. } if !(3..=63).contains(&name.len()) => {
                "OutOfRangeInput"
            }
            InvalidInput::TableName { .. } => "InvalidResourceName",
            InvalidInput::TooManyOperations { .. } => "InvalidInput",
            InvalidInput::MixedPartitions { .. } => "CommandsInBatchActOnDifferentPartitions",
            InvalidInput::DuplicateRow { .. } => "InvalidDuplicateRow",
            InvalidInput::BatchTooLarge { .. } => "RequestBodyTooLarge",
            _ => "InvalidInput",
        };
        let status = if code == "RequestBodyTooLarge" {
            StatusCode::PAYLOAD_TOO_LARGE
        } else {
            StatusCode::BAD_REQUEST
        };
        ErrorResponse::new(status, code, err.to_string())
    }
}
