//! The connection-string parser; an error must never repeat the account key.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tablekit::client::ConnectionString;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        match ConnectionString::parse(text) {
            Ok(parsed) => {
                let _ = format!("{parsed:?}");
            }
            Err(e) => {
                let _ = e.to_string();
            }
        }
    }
});
