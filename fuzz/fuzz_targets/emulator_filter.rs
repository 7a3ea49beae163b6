//! The emulator's OData `$filter` parser.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = tablekit_testing::filter::Filter::parse(text);
    }
});
