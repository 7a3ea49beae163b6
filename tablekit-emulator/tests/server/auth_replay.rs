//! A Shared Key signature is only as fresh as the date it signs: a request signed over an
//! old `Date`, replayed with a fresh `x-ms-date` it does not sign, is refused, as on the
//! service ("Authorize with Shared Key": a request may be at most 15 minutes old).

use chrono::{Duration, Utc};
use tablekit::auth::{canonicalized_resource, http_date, shared_key_string_to_sign, AccountKey};
use tablekit_emulator::{Emulator, DEV_ACCOUNT, DEV_KEY};

/// Sends `GET /Tables` signed over `signed_date`, with these date headers.
async fn list_tables(emulator: &Emulator, signed_date: &str, dates: &[(&str, &str)]) -> u16 {
    let key = AccountKey::from_base64(DEV_KEY).unwrap();
    let path = format!("/{DEV_ACCOUNT}/Tables");
    let resource = canonicalized_resource(DEV_ACCOUNT, &path, None);
    let to_sign = shared_key_string_to_sign("GET", "", "", signed_date, &resource);
    let mut request = reqwest::Client::new()
        .get(format!("http://{}{path}", emulator.addr()))
        .header("accept", "application/json;odata=nometadata")
        .header(
            "authorization",
            format!("SharedKey {DEV_ACCOUNT}:{}", key.sign(&to_sign)),
        );
    for (name, value) in dates {
        request = request.header(*name, *value);
    }
    request.send().await.unwrap().status().as_u16()
}

#[tokio::test]
async fn an_old_signed_date_is_refused_whatever_the_unsigned_date_says() {
    let emulator = Emulator::start().await.unwrap();
    let now = http_date(Utc::now());
    let old = http_date(Utc::now() - Duration::days(365));
    // Fresh and signed: accepted, through either header.
    assert_eq!(
        list_tables(&emulator, &now, &[("x-ms-date", &now)]).await,
        200
    );
    assert_eq!(list_tables(&emulator, &now, &[("date", &now)]).await, 200);
    // Old and signed, alone: refused.
    assert_eq!(list_tables(&emulator, &old, &[("date", &old)]).await, 403);
    // Old `Date` signed, fresh `x-ms-date` unsigned beside it: still refused.
    let replay = [("date", old.as_str()), ("x-ms-date", now.as_str())];
    assert_eq!(list_tables(&emulator, &old, &replay).await, 403);
}
