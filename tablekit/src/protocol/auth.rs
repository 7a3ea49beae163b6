//! Shared Key signing for the Table service, shared by the client and the emulator.
//!
//! SharedKey signs `VERB\nContent-MD5\nContent-Type\nDate\nCanonicalizedResource`,
//! SharedKeyLite signs `Date\nCanonicalizedResource`, both with HMAC-SHA256 under the
//! base64-decoded account key. The canonicalized resource is `/account` + the URL path exactly
//! as sent (still percent-encoded) + `?comp=...` when a `comp` parameter is present.
//!
//! ```
//! use tablekit::auth::{canonicalized_resource, AccountKey};
//! let key = AccountKey::from_base64("a2V5")?;
//! let resource = canonicalized_resource("acct", "/Tables", None);
//! assert_eq!(resource, "/acct/Tables");
//! let sig = key.sign("Sun, 22 Nov 2026 11:42:23 GMT\n/acct/Tables");
//! assert_eq!(sig.len(), 44);
//! assert!(!format!("{key:?}").contains("a2V5"));
//! # Ok::<(), tablekit::auth::InvalidKey>(())
//! ```

use std::cell::RefCell;
use std::fmt;

use base64::Engine;
use chrono::{DateTime, Utc};
use hmac::{Hmac, Mac};
use sha2::Sha256;

/// An account key: the HMAC secret. Its Debug form never shows the key.
///
/// ```
/// use tablekit::auth::AccountKey;
/// use tablekit::client::DEVELOPMENT_KEY;
/// #[derive(Debug)]
/// struct Settings {
///     account: String,
///     key: AccountKey,
/// }
/// let settings = Settings {
///     account: "devstoreaccount1".into(),
///     key: AccountKey::from_base64(DEVELOPMENT_KEY)?,
/// };
/// // safe to log: the key shows as `AccountKey(<redacted>)`
/// assert!(!format!("{settings:?}").contains(DEVELOPMENT_KEY));
/// assert!(format!("{settings:?}").contains("AccountKey(<redacted>)"));
/// # Ok::<(), tablekit::auth::InvalidKey>(())
/// ```
#[derive(Clone)]
pub struct AccountKey {
    /// HMAC-SHA256 already keyed: each signature clones it instead of hashing the key again
    /// (a third of the work of signing a request).
    keyed: Hmac<Sha256>,
}

/// An account key that is not valid base64.
///
/// ```
/// use tablekit::auth::{AccountKey, InvalidKey};
/// let err = AccountKey::from_base64("not a key!").unwrap_err();
/// assert_eq!(err, InvalidKey);
/// assert_eq!(err.to_string(), "the account key is not valid base64"); // never quotes the key
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the account key is not valid base64")]
pub struct InvalidKey;

impl AccountKey {
    /// Decodes a base64 account key as shown on the portal.
    ///
    /// ```
    /// use tablekit::auth::AccountKey;
    /// use tablekit::client::DEVELOPMENT_KEY;
    /// let key = AccountKey::from_base64(DEVELOPMENT_KEY)?;
    /// // whitespace around a pasted key is ignored
    /// let pasted = AccountKey::from_base64(&format!("  {DEVELOPMENT_KEY}\n"))?;
    /// assert_eq!(pasted.sign("x"), key.sign("x"));
    /// assert!(AccountKey::from_base64("").is_err()); // an empty key signs nothing
    /// # Ok::<(), tablekit::auth::InvalidKey>(())
    /// ```
    pub fn from_base64(key: &str) -> Result<Self, InvalidKey> {
        let secret = base64::engine::general_purpose::STANDARD
            .decode(key.trim())
            .map_err(|_| InvalidKey)?;
        if secret.is_empty() {
            return Err(InvalidKey);
        }
        let keyed = <Hmac<Sha256>>::new_from_slice(&secret).map_err(|_| InvalidKey)?;
        Ok(AccountKey { keyed })
    }

    /// `base64(HMAC-SHA256(key, utf8(string_to_sign)))`.
    ///
    /// ```
    /// use tablekit::auth::{canonicalized_resource, shared_key_string_to_sign, AccountKey};
    /// use tablekit::client::DEVELOPMENT_KEY;
    /// let key = AccountKey::from_base64(DEVELOPMENT_KEY)?;
    /// let resource = canonicalized_resource("devstoreaccount1", "/devstoreaccount1/edmtest", None);
    /// let to_sign = shared_key_string_to_sign(
    ///     "POST",
    ///     "",
    ///     "application/json;odata=nometadata",
    ///     "Sun, 22 Nov 2026 11:42:23 GMT",
    ///     &resource,
    /// );
    /// // sent as `Authorization: SharedKey devstoreaccount1:<signature>`
    /// assert_eq!(
    ///     key.sign(&to_sign),
    ///     "S6os1yCmf2yjddRVSDkbUrfIkVtLmapdkCEdnSdHClo="
    /// );
    /// # Ok::<(), tablekit::auth::InvalidKey>(())
    /// ```
    pub fn sign(&self, string_to_sign: &str) -> String {
        let mut mac = self.keyed.clone();
        mac.update(string_to_sign.as_bytes());
        base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes())
    }

    /// Whether `signature` (base64) is this key's signature of `string_to_sign`, compared in
    /// constant time.
    ///
    /// ```
    /// use tablekit::auth::AccountKey;
    /// use tablekit::client::DEVELOPMENT_KEY;
    /// let key = AccountKey::from_base64(DEVELOPMENT_KEY)?;
    /// let to_sign = "Sun, 22 Nov 2026 11:42:23 GMT\n/devstoreaccount1/Tables";
    /// let signature = key.sign(to_sign);
    /// assert!(key.verify(to_sign, &signature));
    /// // a request changed in transit (here its date) no longer matches
    /// assert!(!key.verify(
    ///     "Sun, 22 Nov 2026 11:42:24 GMT\n/devstoreaccount1/Tables",
    ///     &signature
    /// ));
    /// assert!(!key.verify("anything", "not base64!"));
    /// # Ok::<(), tablekit::auth::InvalidKey>(())
    /// ```
    pub fn verify(&self, string_to_sign: &str, signature: &str) -> bool {
        // Decoded on the stack: a signature is 32 bytes, and room for twice that takes any
        // signature of the right length (longer input is simply not this key's signature).
        let mut given = [0u8; 64];
        let Ok(len) = base64::engine::general_purpose::STANDARD.decode_slice(signature, &mut given)
        else {
            return false;
        };
        let mut mac = self.keyed.clone();
        mac.update(string_to_sign.as_bytes());
        mac.verify_slice(&given[..len]).is_ok()
    }
}

impl fmt::Debug for AccountKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("AccountKey(<redacted>)")
    }
}

/// `/account` + `path` (as sent, percent-encoded) + `?comp=VALUE` when there is one.
///
/// ```
/// use tablekit::auth::canonicalized_resource;
/// // host-style (Azure): the path as sent
/// assert_eq!(
///     canonicalized_resource("acct", "/Gamers()", None),
///     "/acct/Gamers()"
/// );
/// // path-style (Azurite, the emulator): the path starts with the account, so it appears twice
/// assert_eq!(
///     canonicalized_resource("devstoreaccount1", "/devstoreaccount1/Tables", None),
///     "/devstoreaccount1/devstoreaccount1/Tables"
/// );
/// assert_eq!(
///     canonicalized_resource("acct", "/", Some("properties")),
///     "/acct/?comp=properties"
/// );
/// ```
pub fn canonicalized_resource(account: &str, path: &str, comp: Option<&str>) -> String {
    match comp {
        Some(comp) => ["/", account, path, "?comp=", comp].concat(),
        None => ["/", account, path].concat(),
    }
}

/// The SharedKey string to sign.
///
/// ```
/// use tablekit::auth::shared_key_string_to_sign;
/// let to_sign = shared_key_string_to_sign(
///     "GET",
///     "",
///     "",
///     "Sun, 22 Nov 2026 11:42:23 GMT",
///     "/acct/Tables",
/// );
/// assert_eq!(
///     to_sign,
///     "GET\n\n\nSun, 22 Nov 2026 11:42:23 GMT\n/acct/Tables"
/// );
/// ```
pub fn shared_key_string_to_sign(
    verb: &str,
    content_md5: &str,
    content_type: &str,
    date: &str,
    canonicalized_resource: &str,
) -> String {
    // One allocation of the exact size: this runs for every request, on both sides.
    [
        verb,
        "\n",
        content_md5,
        "\n",
        content_type,
        "\n",
        date,
        "\n",
        canonicalized_resource,
    ]
    .concat()
}

/// The SharedKeyLite string to sign.
///
/// ```
/// use tablekit::auth::shared_key_lite_string_to_sign;
/// let to_sign = shared_key_lite_string_to_sign("Sun, 22 Nov 2026 11:42:23 GMT", "/acct/Tables");
/// assert_eq!(to_sign, "Sun, 22 Nov 2026 11:42:23 GMT\n/acct/Tables");
/// ```
pub fn shared_key_lite_string_to_sign(date: &str, canonicalized_resource: &str) -> String {
    [date, "\n", canonicalized_resource].concat()
}

/// A time as the `x-ms-date` and `Date` headers write it (RFC 1123, always GMT), e.g.
/// `Sun, 22 Nov 2026 11:42:23 GMT`: the form signatures are made over.
///
/// ```
/// use chrono::{TimeZone, Utc};
/// let t = Utc.with_ymd_and_hms(2026, 11, 22, 11, 42, 23).unwrap();
/// assert_eq!(tablekit::auth::http_date(t), "Sun, 22 Nov 2026 11:42:23 GMT");
/// ```
pub fn http_date(time: DateTime<Utc>) -> String {
    thread_local! {
        /// The last second formatted on this thread: requests come many to the second, and
        /// formatting costs more than signing.
        static LAST: RefCell<(i64, String)> = const { RefCell::new((i64::MIN, String::new())) };
    }
    let second = time.timestamp();
    LAST.with(|last| {
        let mut last = last.borrow_mut();
        if last.0 != second {
            *last = (second, time.format("%a, %d %b %Y %H:%M:%S GMT").to_string());
        }
        last.1.clone()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEV_KEY: &str =
        "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

    #[test]
    fn verify_takes_only_this_keys_signature_whatever_its_length() {
        use base64::Engine;
        let key = AccountKey::from_base64(DEV_KEY).unwrap();
        let sig = key.sign("x");
        assert!(key.verify("x", &sig));
        let raw = base64::engine::general_purpose::STANDARD
            .decode(&sig)
            .unwrap();
        let b64 = |bytes: &[u8]| base64::engine::general_purpose::STANDARD.encode(bytes);
        // The signature cut short, padded with more bytes, or far longer: all refused.
        assert!(!key.verify("x", &b64(&raw[..31])));
        assert!(!key.verify("x", &b64(&[raw.as_slice(), &[0]].concat())));
        assert!(!key.verify("x", &b64(&raw.repeat(3))));
        assert!(!key.verify("x", ""));
    }

    #[test]
    fn signs_the_captured_insert_like_the_sdk() {
        // captures/02_insert_edm_types.txt
        let key = AccountKey::from_base64(DEV_KEY).unwrap();
        let resource =
            canonicalized_resource("devstoreaccount1", "/devstoreaccount1/edmtest", None);
        let to_sign = shared_key_string_to_sign(
            "POST",
            "",
            "application/json;odata=nometadata",
            "Sun, 22 Nov 2026 11:42:23 GMT",
            &resource,
        );
        let sig = key.sign(&to_sign);
        assert_eq!(sig, "S6os1yCmf2yjddRVSDkbUrfIkVtLmapdkCEdnSdHClo=");
        assert!(key.verify(&to_sign, &sig));
        assert!(!key.verify(&to_sign, "AAAA"));
    }
}
