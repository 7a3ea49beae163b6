//! Continuation tokens (`NextPartitionKey`, `NextRowKey`, `NextTableName`): opaque to
//! clients, in the service's shape `1!<length>!<base64url of the key>`.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;

use crate::format::error_response::ErrorResponse;

/// Encodes a key as a token.
pub(crate) fn encode(key: &str) -> String {
    let text = URL_SAFE_NO_PAD.encode(key.as_bytes());
    format!("1!{}!{text}", text.len())
}

/// Decodes a token made by [`encode`]; 400 InvalidInput for anything else.
pub(crate) fn decode(token: &str) -> Result<String, ErrorResponse> {
    let bad = || ErrorResponse::invalid_input("The continuation token is not valid.");
    let mut parts = token.splitn(3, '!');
    let (Some("1"), Some(len), Some(text)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(bad());
    };
    if len.parse::<usize>().ok() != Some(text.len()) {
        return Err(bad());
    }
    let bytes = URL_SAFE_NO_PAD.decode(text).map_err(|_| bad())?;
    String::from_utf8(bytes).map_err(|_| bad())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn tokens_round_trip(key in "\\PC{0,60}") {
            prop_assert_eq!(decode(&encode(&key)).unwrap(), key);
        }

        #[test]
        fn garbage_is_rejected_without_panicking(token in ".{0,40}") {
            let _ = decode(&token);
        }
    }

    #[test]
    fn foreign_tokens_are_invalid() {
        assert!(decode("cDI=").is_err());
        assert!(decode("1!5!abc").is_err());
        assert_eq!(decode(&encode("")).unwrap(), "");
    }
}
